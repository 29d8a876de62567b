/**
 * Evaluation in Node for `npm run eval` and `npm run reproduce`: the last checkpoint of a run
 * bundle, or a preset's base players, through evaluatePlayers (src/core/duel/evaluate.ts) on the
 * wasm backend with the Node grader.
 */
import type { RunSnapshot, SnapshotCheckpoint } from "../core/bundle.ts";
import type { Config } from "../core/config/index.ts";
import type { Bench } from "../core/arena/metrics-evaluate.ts";
import { isHeldout, SPLITS, type Task, type TaskFile } from "../core/arena/task.ts";
import { arenaVocabulary } from "../core/duel/contexts.ts";
import { evaluatePlayers, type EvalMetrics, type PlayerEvalProgress, type PlayerEvaluation } from "../core/duel/evaluate.ts";
import { isWhiteBox, usesSharedPolicy } from "../core/duel/step.ts";
import { runTrainTasks, trainedTasks } from "../core/duel/task-order.ts";
import type { Grader } from "../core/grader/types.ts";
import { startPlayers } from "../core/duel/trainer-service.ts";
import type { RunPlayer } from "../core/duel/run.ts";
import { nodeBaseCheckpoint, nodePlayer } from "./node-players.ts";
import { RunFileError } from "./run-files.ts";

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
  /** Evaluate only the first `taskLimit` of those train tasks and of each held-out split (file order). */
  taskLimit?: number;
  /** Base players (no checkpoint) from the base checkpoint in this folder instead of public/checkpoints/. */
  baseDir?: string;
  onProgress?: (p: PlayerEvalProgress) => void;
}

/**
 * The tasks evaluated: every held-out task (of each held-out split), and the train tasks a run with
 * `config` trained on in steps 1..`trainedSteps` (0: base players, every train task), or every
 * train task with `all`. `limit`: only the first `limit` train tasks (of those, the trained ones)
 * and the first `limit` of each held-out split (file order).
 */
export function evalTasks(file: TaskFile, config: Readonly<Config>, trainedSteps: number, which: "trained" | "all" = "trained", limit?: number): Task[] {
  const train = runTrainTasks(file, config);
  const take = (tasks: Task[]) => (limit === undefined ? tasks : tasks.slice(0, limit));
  const pool = take(train);
  const trained = which === "all" || trainedSteps === 0 ? pool : new Set(trainedTasks(train, config, trainedSteps));
  const heldout = SPLITS.filter(isHeldout).flatMap((split) => take(file.tasks.filter((t) => t.split === split)));
  return [...(trained === pool ? pool : pool.filter((t) => (trained as Set<Task>).has(t))), ...heldout];
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
  players: { code: RunPlayer; test: RunPlayer },
  file: TaskFile,
  grader: Grader,
  bench: Bench,
  o: NodeEvalOptions,
  trainedSteps: number,
): Promise<PlayerEvaluation> {
  return evaluatePlayers(players.code, players.test, bench, evalTasks(file, config, trainedSteps, o.trainTasks, o.taskLimit), {
    vocab: arenaVocabulary(),
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
  let saved: Record<string, ArrayBuffer> | null = null;
  if (checkpoint) {
    const keys = usesSharedPolicy(config.mode) ? ["shared"] : ["code", "test"];
    const missing = keys.filter((k) => !checkpoint.policies[k]);
    if (missing.length > 0) {
      throw new RunFileError(`checkpoint of step ${checkpoint.step} has no '${missing.join("', '")}' policy (it has ${Object.keys(checkpoint.policies).join(", ")})`);
    }
    saved = Object.fromEntries(keys.map((k) => [k, checkpoint.policies[k].slice().buffer as ArrayBuffer]));
  }
  // The players as a run starts them (the same startPlayers as the trainer worker and `npm run train`).
  const vocab = arenaVocabulary();
  const baseCheckpoint = o.baseDir === undefined ? nodeBaseCheckpoint : (size: Config["code_model"]) => nodeBaseCheckpoint(size, o.baseDir);
  const players = await startPlayers({ vocab, player: nodePlayer(vocab), baseCheckpoint }, { ...config }, saved);
  try {
    const evaluation = await evaluateNodePlayers(config, players, file, grader, bench, o, checkpoint?.step ?? 0);
    const origin = checkpoint
      ? { code: `checkpoint of step ${checkpoint.step}`, test: `checkpoint of step ${checkpoint.step}` }
      : players.origin;
    return { evaluation, origin, step: checkpoint?.step ?? 0 };
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
  const num = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : "n/a");
  const rows: [string, string][] = [
    ["plus-pass@1 train", pct(m.plus_pass_train)],
    ["plus-pass@1 held-out", pct(m.plus_pass_heldout)],
    ...(Number.isFinite(m.plus_pass_heldout_compositional) ? [["  unseen combinations", pct(m.plus_pass_heldout_compositional)] as [string, string]] : []),
    ...(Number.isFinite(m.plus_pass_heldout_family) ? [["  unseen primitives", pct(m.plus_pass_heldout_family)] as [string, string]] : []),
    ["plus tests passed, train (partial)", pct(m.plus_share_train)],
    ["plus tests passed, held-out (partial)", pct(m.plus_share_heldout)],
    ["golden-pass@1 train", pct(m.golden_pass_train)],
    ["test validity", pct(m.test_validity)],
    [`test pass@${m.k} (n = ${m.samples})`, pct(m.test_pass_k)],
    ["hard mutants killed, per suite", pct(m.mut_suite)],
    [`hard mutants killed, union@${m.k}`, pct(m.mut_hard_k)],
    [`Mul per suite (pass@${m.k} x per suite x 100)`, num(m.mul_suite)],
    [`Mul union@${m.k} (pass@${m.k} x union@${m.k} x 100)`, num(m.mul_hard_k)],
    ["buggy variants caught, per suite, held-out", pct(m.bug_detection_heldout)],
    [`buggy variants caught, union@${m.k}, held-out`, pct(m.bug_k_heldout)],
    [`buggy variants caught, union@${m.k}, every task`, pct(m.bug_k)],
    [`old: mut@${m.k}, every mutant`, pct(m.test_mut_k)],
    [`old: Mul (pass@${m.k} x old mut@${m.k} x 100)`, num(m.mul)],
    ["old: bug detection, per suite, every task", pct(m.bug_detection)],
    ["plus-pass@1, plain sampling", pct(m.plain_plus_pass)],
    ["plus-pass@1, ranked by own tests", pct(m.tts_plus_pass)],
    ["plus-pass@1, ranked by dual agreement", pct(m.tts_dual_plus_pass)],
  ];
  return rows.map(([k, v]) => `${k.padEnd(48)}${v.padStart(8)}`).join("\n");
}
