/**
 * Evaluation in Node for `npm run eval` and `npm run reproduce`: the last checkpoint of a run
 * bundle, or a preset's base players, through evaluatePlayers (src/core/duel/evaluate.ts) on the
 * wasm backend with the Node grader.
 */
import type { RunSnapshot, SnapshotCheckpoint } from "../core/bundle.ts";
import type { Config } from "../core/config/index.ts";
import type { Bench } from "../core/arena/metrics-evaluate.ts";
import type { Task, TaskFile } from "../core/arena/task.ts";
import { taskVocabulary } from "../core/duel/contexts.ts";
import { evaluatePlayers, type EvalMetrics, type PlayerEvalProgress, type PlayerEvaluation } from "../core/duel/evaluate.ts";
import { isWhiteBox } from "../core/duel/step.ts";
import { trainedTasks } from "../core/duel/task-order.ts";
import type { Grader } from "../core/grader/types.ts";
import { createNodePlayers, RunFileError, type NodePlayers } from "./run-files.ts";

export interface NodeEvalOptions {
  /** Programs and suites per task (n). */
  samples: number;
  /** Seed of the evaluation's sampling (independent of the run's). */
  seed: number;
  temperature: number;
  k: number;
  /** Suites per program for test-time scaling; 0 skips it. */
  tts: number;
  /**
   * Train tasks evaluated: `trained` (default) the train tasks the run trained on up to the
   * evaluated step (task-order.ts; all of them for base players), `all` every train task. Held-out
   * tasks are always all evaluated.
   */
  trainTasks?: "trained" | "all";
  onProgress?: (p: PlayerEvalProgress) => void;
}

/**
 * The tasks evaluated: every held-out task, and the train tasks a run with `config` trained on in
 * steps 1..`trainedSteps` (0: base players, every train task), or every train task with `all`.
 */
export function evalTasks(file: TaskFile, config: Readonly<Config>, trainedSteps: number, which: "trained" | "all" = "trained"): Task[] {
  const train = file.tasks.filter((t) => t.split === "train");
  const trained = which === "all" || trainedSteps === 0 ? train : trainedTasks(train, config, trainedSteps);
  return [...trained, ...file.tasks.filter((t) => t.split === "heldout")];
}

/** The last checkpoint of a run (highest step). */
export function lastCheckpoint(s: RunSnapshot): SnapshotCheckpoint {
  const cp = s.checkpoints.reduce<SnapshotCheckpoint | null>((best, c) => (!best || c.step > best.step ? c : best), null);
  if (!cp) throw new RunFileError(`run ${s.run.id} has no checkpoint to evaluate`);
  return cp;
}

export interface NodeEvaluation {
  evaluation: PlayerEvaluation;
  /** Where the players came from. */
  origin: { code: string; test: string };
  /** Step of the checkpoint evaluated (0: base players). */
  step: number;
}

/** Evaluate live players (e.g. during training, after `trainedSteps` steps) with a run's config. */
export function evaluateNodePlayers(
  config: Readonly<Config>,
  players: Pick<NodePlayers, "code" | "test">,
  file: TaskFile,
  grader: Grader,
  bench: Bench,
  o: NodeEvalOptions,
  trainedSteps: number,
): Promise<PlayerEvaluation> {
  return evaluatePlayers(players.code, players.test, bench, evalTasks(file, config, trainedSteps, o.trainTasks), {
    vocab: taskVocabulary(file),
    grader,
    samples: o.samples,
    temperature: o.temperature,
    seed: o.seed,
    k: o.k,
    // The Test policy reads the reference when the run's Test policy is white-box.
    whiteBox: isWhiteBox(config),
    testsPerSuite: config.tests_per_suite,
    ttsSuitesPerCode: o.tts,
    onProgress: o.onProgress,
  });
}

/** Evaluate `checkpoint` of a run with `config`, or the config's base players when it is absent. */
export async function evaluateCheckpoint(
  config: Readonly<Config>,
  checkpoint: SnapshotCheckpoint | undefined,
  file: TaskFile,
  grader: Grader,
  bench: Bench,
  o: NodeEvalOptions,
): Promise<NodeEvaluation> {
  const players = await createNodePlayers(config, taskVocabulary(file), checkpoint);
  try {
    const evaluation = await evaluateNodePlayers(config, players, file, grader, bench, o, checkpoint?.step ?? 0);
    return { evaluation, origin: players.origin, step: checkpoint?.step ?? 0 };
  } finally {
    players.dispose();
  }
}

/** Metrics as one JSON object: NaN becomes null, numbers rounded to 6 digits. */
export function metricsJson(m: EvalMetrics, extra: Record<string, unknown> = {}): string {
  const round = (x: number) => (Number.isFinite(x) ? Math.round(x * 1e6) / 1e6 : null);
  return JSON.stringify({ ...Object.fromEntries(Object.entries(m).map(([k, v]) => [k, round(v)])), ...extra });
}

/** A human table of the metrics. */
export function metricsTable(m: EvalMetrics): string {
  const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : "n/a");
  const rows: [string, string][] = [
    ["plus-pass@1 train", pct(m.plus_pass_train)],
    ["plus-pass@1 held-out", pct(m.plus_pass_heldout)],
    ["plus tests passed, train (partial)", pct(m.plus_share_train)],
    ["plus tests passed, held-out (partial)", pct(m.plus_share_heldout)],
    ["golden-pass@1 train", pct(m.golden_pass_train)],
    ["test validity", pct(m.test_validity)],
    [`test pass@${m.k} (n = ${m.samples})`, pct(m.test_pass_k)],
    [`test mut@${m.k}`, pct(m.test_mut_k)],
    [`Mul (pass@${m.k} x mut@${m.k} x 100)`, Number.isFinite(m.mul) ? m.mul.toFixed(2) : "n/a"],
    ["bug detection", pct(m.bug_detection)],
    ["plus-pass@1, plain sampling", pct(m.plain_plus_pass)],
    ["plus-pass@1, ranked by own tests", pct(m.tts_plus_pass)],
  ];
  return rows.map(([k, v]) => `${k.padEnd(40)}${v.padStart(8)}`).join("\n");
}
