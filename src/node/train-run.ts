/**
 * One training run in Node, as `npm run train` and `npm run reproduce` run it: the app's
 * TrainerService (src/core/duel/trainer-service.ts) over the Node host (node-host.ts: in-thread
 * players on wasm, the Node grader, a FileRunStore), so the run is assembled exactly as the
 * trainer worker assembles it. The bundle also keeps the starting players as a step-0 checkpoint,
 * so base and trained players can be compared from one file.
 */
import type { Config } from "../core/config/index.ts";
import type { TaskFile } from "../core/arena/task.ts";
import type { Bench } from "../core/arena/metrics-evaluate.ts";
import type { RunSnapshot } from "../core/bundle.ts";
import { TrainerService, type StartedPlayers } from "../core/duel/trainer-service.ts";
import type { Grader } from "../core/grader/types.ts";
import type { TrainerEvent } from "../core/loop/events.ts";
import type { NodeEvalOptions } from "./evaluate-run.ts";
import { createNodeTrainerHost } from "./node-host.ts";

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
  /** Folder of the base checkpoints (default public/checkpoints). */
  baseDir?: string;
}

export interface TrainRunResult {
  snapshot: RunSnapshot;
  origin: StartedPlayers["origin"];
  seconds: number;
}

/** Train `config.steps` steps (mode `base`: steps without updates) and return the finished run. */
export async function trainRun(o: TrainRunOptions): Promise<TrainRunResult> {
  const t0 = Date.now();
  const host = createNodeTrainerHost(o);
  const service = new TrainerService(host);
  if (o.emit) await service.subscribe(o.emit);
  const { origin } = await service.runToEnd(o.config);
  return { snapshot: host.repo.store!.snapshot, origin, seconds: (Date.now() - t0) / 1000 };
}
