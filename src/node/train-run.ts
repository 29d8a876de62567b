/**
 * One training run in Node, as `npm run train` and `npm run reproduce` run it: the lead's RunLoop
 * (src/core/duel/run.ts) driving duelStep on the wasm backend with the Node grader, persisted by a
 * FileRunStore into an `.a1run` bundle the app can import. The bundle also keeps the starting
 * players as a step-0 checkpoint, so base and trained players can be compared from one file.
 */
import type { Config } from "../core/config/index.ts";
import type { TaskFile } from "../core/arena/task.ts";
import type { Bench } from "../core/arena/metrics-evaluate.ts";
import { taskSetHash, type RunSnapshot } from "../core/bundle.ts";
import { taskVocabulary } from "../core/duel/contexts.ts";
import { RunLoop } from "../core/duel/run.ts";
import type { Grader } from "../core/grader/types.ts";
import type { TrainerEvent } from "../core/loop/events.ts";
import { emptyMistakeBook } from "../core/loop/mistake-book.ts";
import { Rng } from "../core/rng.ts";
import { evaluateNodePlayers, type NodeEvalOptions } from "./evaluate-run.ts";
import { evalStepMetrics } from "../core/duel/evaluate.ts";
import { createNodePlayers, FileRunStore, type NodePlayers } from "./run-files.ts";
import { usesSharedPolicy } from "../core/duel/step.ts";

export interface TrainRunOptions {
  config: Config;
  file: TaskFile;
  grader: Grader;
  /** Bundle path; null keeps the run in memory only. */
  out: string | null;
  runId: string;
  /** Evaluation every config.eval_every steps and at the end; null: none. */
  evaluation: { bench: Bench; options: NodeEvalOptions } | null;
  emit?: (e: TrainerEvent) => void;
}

export interface TrainRunResult {
  snapshot: RunSnapshot;
  origin: NodePlayers["origin"];
  seconds: number;
}

/** Both players' weights, keyed as run bundles store them. */
async function savePolicies(config: Readonly<Config>, players: NodePlayers): Promise<Record<string, Uint8Array>> {
  if (usesSharedPolicy(config.mode)) return { shared: new Uint8Array(await players.code.save()) };
  return { code: new Uint8Array(await players.code.save()), test: new Uint8Array(await players.test.save()) };
}

/** Train `config.steps` steps (mode `base`: steps without updates) and return the finished run. */
export async function trainRun(o: TrainRunOptions): Promise<TrainRunResult> {
  const t0 = Date.now();
  const { config, file } = o;
  const vocab = taskVocabulary(file);
  const players = await createNodePlayers(config, vocab);
  try {
    // The app's TrainerService starts from the same state: same seed, same run.
    const rng = new Rng(config.seed).state();
    const store = new FileRunStore(o.out, {
      id: o.runId,
      name: `${config.mode} seed ${config.seed}`,
      config,
      taskSetHash: await taskSetHash(file.tasks),
      initial: { step: 0, kept: true, policies: await savePolicies(config, players), mistake_book: emptyMistakeBook(), rng_state: rng, loop_state: null },
    });
    const evaluation = o.evaluation;
    const loop = new RunLoop(
      {
        runId: o.runId,
        config,
        duel: { vocab, tasks: file.tasks.filter((t) => t.split === "train"), grader: o.grader },
        code: players.code,
        test: players.test,
        store,
        evaluate: evaluation
          ? async (step) => evalStepMetrics((await evaluateNodePlayers(config, players, file, o.grader, evaluation.bench, evaluation.options, step)).metrics)
          : undefined,
        // Only kept checkpoints: a Node run is not resumed mid-way (reproduce caches whole runs).
        rollingCheckpoints: false,
        emit: o.emit,
      },
      { step: 0, book: emptyMistakeBook(), rng },
    );
    await loop.run();
    await store.save();
    return { snapshot: store.snapshot, origin: players.origin, seconds: (Date.now() - t0) / 1000 };
  } finally {
    players.dispose();
  }
}
