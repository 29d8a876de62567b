/**
 * Evaluation of a trained pair of players (spec: "Evaluation in the paper"), by real execution:
 *
 *   code: n programs per task (train and held-out) from the Code policy at temperature 0.7, each
 *         run on the task's plus tests and golden tests -> plus-pass@1 (train, held-out) and
 *         golden-pass@1 (train), EvalPlus's pass@1 over n samples;
 *   test: n suites per task from the Test policy reading the task's REFERENCE program (white-box;
 *         nothing when black-box), run reference-corrected on the reference, its killable mutants
 *         and the task's buggy variants -> validity, pass@k, hard mutants killed and buggy variants
 *         caught (each per suite and union@k), Mul on each mutant rate, and the old mut@k / Mul.
 *
 * Deterministic for a given checkpoint, task list and seed: every sample call (a chunk of tasks,
 * EVAL_BATCH_ROWS rows, per-row grammars) draws from a fork of `new Rng(seed)` named after the role
 * and the chunk.
 *
 *   const bench = await prepareBench(grader, runPython, mutateSource, tasks);
 *   const ev = await evaluatePlayers(code, test, bench, tasks, { vocab, grader, samples: 4, seed: 1 });
 *   ev.metrics.plus_pass_heldout;   // fraction in [0, 1]
 */
import type { Bench, CodeEvaluation, SuiteEvaluation } from "../arena/metrics-evaluate.ts";
import { evaluateCodes, evaluateSuites } from "../arena/metrics-evaluate.ts";
import { encodeCode } from "../arena/tokenizer.ts";
import { SPLITS, taskSignature, type Task, type TaskFile } from "../arena/task.ts";
import type { Grader } from "../grader/types.ts";
import { EVAL_METRIC_KEYS, type EvalMetricKey } from "../loop/types.ts";
import { rankByGeneratedTests, type TestTimeScaling } from "./rank.ts";
import { samplePrograms, sampleSuites, type Sampler, type SamplingOptions } from "./sampling.ts";

export { EVAL_BATCH_ROWS, samplePrograms, sampleSuites, type PlayerEvalProgress, type SampledPrograms, type Sampler } from "./sampling.ts";

export interface EvaluatePlayersOptions extends SamplingOptions {
  grader: Grader;
  /** k of pass@k and mut@k (paper: 5); at most `samples` when a Test policy is evaluated. */
  k?: number;
  /** The Test policy reads the reference program (default true); false: prompt only (black-box). */
  whiteBox?: boolean;
  /** Test-time scaling (rank.ts) on the same sampled programs: suites written per program. 0 or absent: skip. */
  ttsSuitesPerCode?: number;
}

/**
 * The numbers a run merges into StepMetrics (EVAL_METRIC_KEYS) plus the extra test metrics.
 * Rates are fractions in [0, 1]; `mul` is on the paper's scale (pass_k x mut_k x 100, Code-A1
 * 1.5B: 7.14). NaN where nothing was measured (e.g. no held-out task evaluated).
 */
export type EvalMetrics = { [K in EvalMetricKey]: number } & {
  /** Same as golden_pass (train tasks), under the name the command line prints. */
  golden_pass_train: number;
  /** Partial credit beside the all-or-nothing plus-pass@1: mean share of plus tests a sample passes. */
  plus_share_train: number;
  plus_share_heldout: number;
  /** n (samples per task) and the k of the @k metrics, so every report labels them truthfully (n >= k). */
  samples: number;
  k: number;
  test_validity: number;
  /** Hard mutants (mutants.ts) killed, union of the first k suites, and its Mul. */
  mut_hard_k: number;
  mul_hard_k: number;
  /** Buggy variants caught per suite on every evaluated task (train and held-out): the figure reported before bug_detection_heldout. */
  bug_detection: number;
  /** Buggy variants caught by at least one of the first k suites: every task / held-out tasks. */
  bug_k: number;
  bug_k_heldout: number;
  /** Test-time scaling: plus-pass@1 of the top-ranked program, and of plain sampling (same programs). */
  tts_plus_pass: number;
  plain_plus_pass: number;
  /**
   * plus-pass@1 of the program CodeT's dual execution agreement keeps (rank.ts), on the same suites and
   * executions as tts_plus_pass. Added after version 2 without a bump, so caches of version 2 keep their
   * other figures: there it reads NaN ("n/a", not measured) until measured again.
   */
  tts_dual_plus_pass: number;
};

export interface PlayerEvaluation {
  metrics: EvalMetrics;
  codes: CodeEvaluation;
  suites: SuiteEvaluation | null;
  tts: TestTimeScaling | null;
  /** What was sampled, per task id. */
  programs: Record<string, string[]>;
  testSuites: Record<string, string[][]>;
}

/**
 * Version of the evaluation's figures: part of every cached evaluation's key (`npm run reproduce`),
 * so a cache made before a figure was added or redefined is measured again. Bump it when EvalMetrics
 * gains or changes a figure. 2: hard mutants per suite and union@k, variants union@k, held-out bug detection.
 */
export const EVAL_METRICS_VERSION = 2;

/** Tasks per split of the app's live evaluation (a quick look; the command line evaluates every task). */
export const QUICK_LOOK_TASKS_PER_SPLIT = 8;

/**
 * The app's live-evaluation tasks: the first QUICK_LOOK_TASKS_PER_SPLIT of each split the set has
 * (train, heldout, heldout_compositional, heldout_family), in file order. The shipped bench
 * (public/bench/, `npm run app-bench`) is built over exactly these.
 */
export function quickLookTasks(file: TaskFile, perSplit = QUICK_LOOK_TASKS_PER_SPLIT): Task[] {
  return SPLITS.flatMap((split) => file.tasks.filter((t) => t.split === split).slice(0, perSplit));
}

/** Only the StepMetrics evaluation fields, as RunLoop's `evaluate` returns them (NaN where not measured). */
export function evalStepMetrics(m: EvalMetrics): { [K in EvalMetricKey]: number } {
  return Object.fromEntries(EVAL_METRIC_KEYS.map((k) => [k, m[k]])) as { [K in EvalMetricKey]: number };
}

export class EvaluationError extends Error {
  override name = "EvaluationError";
}

/**
 * Evaluate a Code policy and a Test policy on `tasks` (which must all be in `bench`). `test` null:
 * code metrics only (test metrics NaN), as for golden-tests runs that have no Test policy.
 */
export async function evaluatePlayers(
  code: Sampler,
  test: Sampler | null,
  bench: Bench,
  tasks: readonly Task[],
  o: EvaluatePlayersOptions,
): Promise<PlayerEvaluation> {
  if (!Number.isInteger(o.samples) || o.samples < 1) throw new EvaluationError(`samples must be a positive integer, got ${o.samples}`);
  if (tasks.length === 0) throw new EvaluationError("no tasks to evaluate");
  for (const t of tasks) {
    if (!bench.plus.has(t.id)) throw new EvaluationError(`task '${t.id}' is not in the evaluation bench: build it with prepareBench over the same tasks`);
  }
  const k = o.k ?? 5;
  if (!Number.isInteger(k) || k < 1) throw new EvaluationError(`k must be a positive integer, got ${k}`);
  // pass@k with fewer than k samples would silently be pass@n (metrics.ts lowers k to n).
  if (test && o.samples < k) throw new EvaluationError(`pass@${k} and mut@${k} need at least ${k} suites per task, got samples = ${o.samples}: raise samples or lower k`);
  // 1. Code policy: n programs per task, graded on plus and golden tests.
  const sampled = await samplePrograms(code, tasks, o);
  const codes = await evaluateCodes(o.grader, bench, sampled.texts, { onProgress: o.onProgress });

  // 2. Test policy: n suites per task reading the reference (white-box) or the prompt alone.
  let suites: SuiteEvaluation | null = null;
  let testSuites: Record<string, string[][]> = {};
  if (test) {
    const whiteBox = o.whiteBox ?? true;
    const reference = (t: Task) => (whiteBox ? encodeCode(o.vocab, t.reference, taskSignature(t)) : null);
    testSuites = await sampleSuites(test, tasks, (t) => [reference(t)], o.samples, "eval-test", o);
    o.onProgress?.({ phase: "sample", done: tasks.length, total: tasks.length, text: `sampled ${o.samples} suites per task` });
    suites = await evaluateSuites(o.grader, bench, testSuites, { k, onProgress: o.onProgress });
  }

  // 3. Test-time scaling on the same programs (needs a Test policy that reads code).
  let tts: TestTimeScaling | null = null;
  if (test && o.ttsSuitesPerCode && o.ttsSuitesPerCode > 0) {
    tts = await rankByGeneratedTests(test, bench, tasks, sampled, codes, { ...o, suitesPerCode: o.ttsSuitesPerCode });
  }

  const frac = (x: number) => x / 100;
  const metrics: EvalMetrics = {
    plus_pass_train: frac(codes.plusPass1.train),
    plus_pass_heldout: frac(codes.plusPass1.heldout),
    golden_pass: frac(codes.goldenPass1.train),
    golden_pass_train: frac(codes.goldenPass1.train),
    plus_pass_heldout_compositional: frac(codes.plusPass1.heldout_compositional),
    plus_pass_heldout_family: frac(codes.plusPass1.heldout_family),
    plus_share_train: frac(codes.plusShare.train),
    plus_share_heldout: frac(codes.plusShare.heldout),
    samples: o.samples,
    k,
    test_validity: suites ? frac(suites.validity.all) : NaN,
    test_pass_k: suites ? frac(suites.passK.all) : NaN,
    test_mut_k: suites ? frac(suites.mutK.all) : NaN,
    mul: suites ? suites.mul.all : NaN,
    mut_suite: suites ? frac(suites.mutSuite.all) : NaN,
    mul_suite: suites ? suites.mulSuite.all : NaN,
    mut_hard_k: suites ? frac(suites.mutHardK.all) : NaN,
    mul_hard_k: suites ? suites.mulHardK.all : NaN,
    bug_detection: suites ? frac(suites.bugDetection.all) : NaN,
    bug_detection_heldout: suites ? frac(suites.bugDetection.heldout) : NaN,
    bug_k: suites ? frac(suites.bugK.all) : NaN,
    bug_k_heldout: suites ? frac(suites.bugK.heldout) : NaN,
    tts_plus_pass: tts ? tts.ranked.all : NaN,
    tts_dual_plus_pass: tts ? tts.dual.all : NaN,
    plain_plus_pass: tts ? tts.plain.all : frac(codes.plusPass1.all),
  };
  return { metrics, codes, suites, tts, programs: sampled.texts, testSuites };
}
