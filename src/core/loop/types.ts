/**
 * Shapes shared by the training step, persistence (src/storage), run bundles (src/core/bundle.ts)
 * and the UI: one step's metrics and one task's duel record. One source of truth: the metric key
 * lists below drive the TypeScript types, bundle validation and the UI's chart list.
 */
import type { CodeStatus, LineResult } from "../grader/types.ts";
import type { MistakeBookDelta } from "./mistake-book.ts";

/** Metrics measured at every step. Rates are fractions in [0, 1]; times in milliseconds. */
export const STEP_METRIC_KEYS = [
  /** Mean R_C over all codes of the step. */
  "code_reward",
  /** Mean R_T over all suites of the step. */
  "test_reward",
  /** Mean R_val, R_adv over all suites. */
  "r_val",
  "r_adv",
  /** Share of generated test lines that are valid on the reference (spec: "valid"). */
  "test_validity",
  /** Share of codes that load (no syntax/load error, no load timeout). */
  "code_loads",
  /**
   * Rollout failure rate: share of (loaded sampled code, suite) pairs in which the suite exposes a
   * failure. A rate over the step's own codes, so it falls as the Code policy improves: it is not
   * the Test policy's bug detection (that is the evaluation's bug_detection_heldout). Called
   * "bug_detection" in runs stored before it was renamed (migrated on load).
   */
  "rollout_fail_rate",
  /**
   * gen_fail of the spec (failed fresh tests among the first N, over N) and the fresh-test failure
   * rate (failed / executable fresh tests), means over the pairs of loaded codes: R_adv's own term,
   * logged beside it because R_adv switches to (gen_fail - hist_fail + 1) / 2 when a task's Mistake
   * Book has tests, which lifts it towards 0.5 whatever gen_fail does. null in runs stored before them.
   */
  "gen_fail",
  "fresh_fail_rate",
  "mistake_book_size",
  "mistake_book_added",
  "mistake_book_removed",
  /** Tasks of the step whose Mistake Book had tests to replay (0 without recurrence or without the Mistake Book). */
  "mistake_book_replays",
  /** KL to the frozen initial policy (k3 estimator), token mean. */
  "kl_code",
  "kl_test",
  /** Mean token entropy of the sampled completions. */
  "entropy_code",
  "entropy_test",
  "loss_code",
  "loss_test",
  /** Share of scored tokens whose PPO ratio was clipped (0 when every mini-batch is on-policy). */
  "clip_fraction_code",
  "clip_fraction_test",
  /** Optimiser steps of this step's update (epochs x mini-batches; 0 without an update). With a shared policy both roles report the one update. */
  "optimizer_steps_code",
  "optimizer_steps_test",
  "time_sample_ms",
  "time_grade_ms",
  "time_update_ms",
] as const;

/** Step keys added after runs were stored: null (not measured) in runs and bundles from before them. */
export const LATER_STEP_METRIC_KEYS = ["gen_fail", "fresh_fail_rate"] as const satisfies readonly (typeof STEP_METRIC_KEYS)[number][];

/** Metrics measured only on evaluation steps (config.eval_every); null on the other steps. */
export const EVAL_METRIC_KEYS = [
  /** Pass@1 on the extended ("plus") hidden tests, train tasks / held-out tasks. */
  "plus_pass_train",
  "plus_pass_heldout",
  /** Pass@1 on the tasks' human-written golden tests (train). */
  "golden_pass",
  /** Paper's test metrics: pass@k, and the OLD mut@k (union of k suites over every killable mutant, near saturation) and Mul = pass_k x mut_k x 100, kept for one release beside mut_suite / mul_suite. */
  "test_pass_k",
  "test_mut_k",
  "mul",
  /** plus_pass_heldout split by what is new in the task (arena-v2 splits); null for sets without them. */
  "plus_pass_heldout_compositional",
  "plus_pass_heldout_family",
  /** Share of hard mutants (arena/mutants.ts) a single suite kills, averaged over suites and tasks; Mul = pass_k x mut_suite x 100. */
  "mut_suite",
  "mul_suite",
  /** Share of buggy variants a single suite written for a held-out task catches: the Test policy's bug detection. */
  "bug_detection_heldout",
] as const;

/**
 * Evaluation keys added after runs were stored and bundles shared: runs stored before them are
 * migrated to null (storage/db.ts) and bundles without them read them as null (bundle.ts).
 */
export const LATER_EVAL_METRIC_KEYS = [
  "plus_pass_heldout_compositional", "plus_pass_heldout_family", "mut_suite", "mul_suite", "bug_detection_heldout",
] as const satisfies readonly (typeof EVAL_METRIC_KEYS)[number][];

/**
 * Bring stored step metrics from an earlier version to today's keys, in place (IndexedDB migration,
 * bundle import): `bug_detection` is renamed `rollout_fail_rate`, keys added later are null (not
 * measured). True if anything changed.
 */
export function migrateStepMetrics(m: Record<string, unknown>): boolean {
  let changed = false;
  if (Object.hasOwn(m, "bug_detection") && !Object.hasOwn(m, "rollout_fail_rate")) {
    m.rollout_fail_rate = m.bug_detection;
    delete m.bug_detection;
    changed = true;
  }
  for (const k of [...LATER_STEP_METRIC_KEYS, ...LATER_EVAL_METRIC_KEYS]) {
    if (!Object.hasOwn(m, k)) {
      m[k] = null;
      changed = true;
    }
  }
  return changed;
}

/** Give stored metrics from before LATER_EVAL_METRIC_KEYS those keys as null (not measured), in place; true if any was missing. */
export function fillLaterEvalMetricKeys(m: Record<string, unknown>): boolean {
  const missing = LATER_EVAL_METRIC_KEYS.filter((k) => !Object.hasOwn(m, k));
  for (const k of missing) m[k] = null;
  return missing.length > 0;
}

export type StepMetricKey = (typeof STEP_METRIC_KEYS)[number];
export type LaterStepMetricKey = (typeof LATER_STEP_METRIC_KEYS)[number];
export type EvalMetricKey = (typeof EVAL_METRIC_KEYS)[number];

/** Everything one step reports; `step` counts from 1. */
export type StepMetrics = { step: number } & { [K in Exclude<StepMetricKey, LaterStepMetricKey>]: number } & { [K in LaterStepMetricKey]: number | null } & {
  [K in EvalMetricKey]: number | null;
};

/** One suite written for one code, as graded and scored. */
export interface DuelSuite {
  text: string;
  /** One per line read (grader/types.ts). */
  lines: LineResult[];
  /** null when the mode's R_T is not built from them (cure). */
  r_val: number | null;
  r_adv: number | null;
  /** R_T by the mode's rule (duel/modes.ts): alpha R_val + (1 - alpha) R_adv (0 when the code does not run), or CURE's. */
  reward: number;
}

/** One code of a task with the suites written against it. */
export interface DuelCode {
  text: string;
  status: CodeStatus;
  /** R_C. */
  reward: number;
  /** Verdicts of the Mistake Book tests (same order as DuelRecord.mistake_book_tests). */
  mistake_book_lines: LineResult[];
  suites: DuelSuite[];
}

/** What happened to one task in one step, for the UI's duel view and for run bundles. */
export interface DuelRecord {
  step: number;
  task: string;
  codes: DuelCode[];
  /** The Mistake Book tests shown to every code of the task this step (top-k by frequency). */
  mistake_book_tests: string[];
  /** TopVar: std of R_T over each code's suites, and the codes whose suites train the Test policy. */
  topvar: { std: number[]; selected: number[] };
  mistake_book: MistakeBookDelta;
}

/** Reward matrix R_T of a duel record: (codes, suites). */
export function rewardMatrix(record: DuelRecord): number[][] {
  return record.codes.map((c) => c.suites.map((s) => s.reward));
}

/** Lifecycle of a stored run. */
export const RUN_STATUSES = ["created", "running", "paused", "done", "failed"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
