/**
 * The Node TrainerHost: what `npm run train`, `reproduce` and `eval` give the same TrainerService
 * (src/core/duel/trainer-service.ts) the app's trainer worker drives, so "same seed, same run in
 * the app and on the command line" holds by construction. Players are in-thread PolicyServices on
 * the wasm backend (cpu if wasm fails), base checkpoints come from public/checkpoints/, and the run
 * is kept by a FileRunStore and written as an `.a1run` bundle the app imports.
 */
import type { Bench } from "../core/arena/metrics-evaluate.ts";
import type { TaskFile } from "../core/arena/task.ts";
import { taskSetHash } from "../core/bundle.ts";
import { builtinTaskSet } from "../core/arena/task-suite.ts";
import type { Config } from "../core/config/index.ts";
import { arenaVocabulary } from "../core/duel/contexts.ts";
import { evalStepMetrics } from "../core/duel/evaluate.ts";
import type { RunCommit } from "../core/duel/run.ts";
import type { DuelState } from "../core/duel/step.ts";
import type { RunRepository, TrainerHost } from "../core/duel/trainer-service.ts";
import type { Grader } from "../core/grader/types.ts";
import { evaluateNodePlayers, type NodeEvalOptions } from "./evaluate-run.ts";
import { nodeBaseCheckpoint, nodePlayer } from "./node-players.ts";
import { FileRunStore, RunFileError } from "./run-files.ts";

/** Whether a task file is one of the built-in sets (those need not travel in a bundle). */
async function isShippedSet(file: TaskFile): Promise<boolean> {
  const builtin = builtinTaskSet(file.name);
  return builtin !== null && (await taskSetHash(builtin.tasks)) === (await taskSetHash(file.tasks));
}

/** A RunRepository over one FileRunStore: the one run a command line trains. */
export class FileRunRepository implements RunRepository {
  store: FileRunStore | null = null;

  constructor(private readonly o: { runId: string; out: string | null; file: TaskFile }) {}

  async create(config: Config, taskSetHash: string): Promise<string> {
    this.store = new FileRunStore(this.o.out, {
      id: this.o.runId,
      name: `${config.mode} seed ${config.seed}`,
      config,
      taskSetHash,
      ...((await isShippedSet(this.o.file)) ? {} : { taskSet: this.o.file }),
    });
    return this.o.runId;
  }

  async saveInitial(runId: string, policies: Record<string, ArrayBuffer>, state: DuelState): Promise<void> {
    this.run(runId).snapshot.checkpoints.unshift({
      step: 0,
      kept: true,
      policies: Object.fromEntries(Object.entries(policies).map(([k, b]) => [k, new Uint8Array(b.slice(0))])),
      mistake_book: state.book,
      rng_state: state.rng,
      loop_state: null,
    });
  }

  async commitStep(c: RunCommit): Promise<void> {
    await this.run(c.runId).commitStep(c);
  }

  async resume(runId: string): Promise<{ config: Config; state: DuelState; policies: Record<string, ArrayBuffer> | null }> {
    const s = this.run(runId).snapshot;
    const last = s.checkpoints.reduce<(typeof s.checkpoints)[number] | null>((best, c) => (!best || c.step > best.step ? c : best), null);
    if (!last || !last.rng_state) throw new RunFileError(`run ${runId} has no checkpoint to resume from`);
    return {
      config: s.config,
      state: { step: last.step, book: last.mistake_book, rng: last.rng_state },
      policies: Object.fromEntries(Object.entries(last.policies).map(([k, b]) => [k, b.slice().buffer as ArrayBuffer])),
    };
  }

  async setStatus(runId: string, status: "running" | "paused" | "done" | "failed"): Promise<void> {
    const store = this.run(runId);
    store.snapshot.run.status = status;
    await store.save();
  }

  private run(runId: string): FileRunStore {
    if (!this.store || this.store.snapshot.run.id !== runId) throw new RunFileError(`no run '${runId}' in this repository (it holds ${this.store?.snapshot.run.id ?? "none"})`);
    return this.store;
  }
}

export interface NodeHostOptions {
  file: TaskFile;
  grader: Grader;
  /** Bundle path; null keeps the run in memory only. */
  out: string | null;
  runId: string;
  /** Evaluation every config.eval_every steps and at the end; null: none. */
  evaluation: { bench: Bench; options: NodeEvalOptions } | null;
  /** Folder of the base checkpoints the players start from (default public/checkpoints). */
  baseDir?: string;
}

/** The Node TrainerHost and the repository it writes the run to. */
export function createNodeTrainerHost(o: NodeHostOptions): TrainerHost & { repo: FileRunRepository } {
  const vocab = arenaVocabulary();
  const evaluation = o.evaluation;
  return {
    taskSet: () => o.file,
    vocab,
    grader: o.grader,
    repo: new FileRunRepository(o),
    player: nodePlayer(vocab),
    baseCheckpoint: o.baseDir === undefined ? nodeBaseCheckpoint : (size) => nodeBaseCheckpoint(size, o.baseDir),
    evaluate: evaluation
      ? async (players, config, step) => evalStepMetrics((await evaluateNodePlayers(config, players, o.file, o.grader, evaluation.bench, evaluation.options, step)).metrics)
      : undefined,
    // Only kept checkpoints: a Node run is not resumed mid-way (reproduce caches whole runs).
    rollingCheckpoints: false,
  };
}
