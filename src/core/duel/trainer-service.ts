/**
 * TrainerControl (src/core/loop/events.ts) over a RunLoop: what the trainer worker exposes to the
 * UI with comlink, and what Node code can drive in-thread. Where players run (policy workers or
 * in-thread PolicyServices), where runs are stored (IndexedDB or memory) and how a run is evaluated
 * are the host's business (TrainerHost); this class only sequences them.
 */
import type { Config } from "../config/index.ts";
import { optimizerStepsPerStep, policyTrainOverrides } from "../config/policy-train.ts";
import type { TaskFile } from "../arena/task.ts";
import type { Vocabulary } from "../arena/vocab.ts";
import type { Grader } from "../grader/types.ts";
import { emptyMistakeBook } from "../loop/mistake-book.ts";
import type { TrainerControl, TrainerEvent } from "../loop/events.ts";
import type { BackendPreference } from "../policy/backend-choice.ts";
import type { CreatePolicyOptions } from "../policy/policy.ts";
import type { TrainConfig } from "../policy/train-config.ts";
import { Rng } from "../rng.ts";
import { taskSetHash } from "../bundle.ts";
import { RunLoop, type EvalMetrics, type RunCommit, type RunPlayer } from "./run.ts";
import { usesSharedPolicy, type DuelState } from "./step.ts";
import { runTrainTasks } from "./task-order.ts";

export type PlayerRole = "code" | "test";

/** Where runs live: IndexedDB (src/storage) in the browser, memory in Node. */
export interface RunRepository {
  /** A new run of `config` on the task set whose hash (bundle.ts taskSetHash) is given. */
  create(config: Config, taskSetHash: string): Promise<string>;
  commitStep(c: RunCommit): Promise<unknown>;
  /** Roll the run back to its last checkpoint: its config, the state to resume from, and the saved policies (null: none yet). */
  resume(runId: string): Promise<{ config: Config; state: DuelState; policies: Record<string, ArrayBuffer> | null }>;
  setStatus(runId: string, status: "running" | "paused" | "done" | "failed"): Promise<void>;
  /**
   * Keep the players a new run starts from as its step-0 checkpoint (optional): Node bundles keep
   * them so base and trained players can be compared from one file.
   */
  saveInitial?(runId: string, policies: Record<string, ArrayBuffer>, state: DuelState): Promise<void>;
}

/** A player as a host starts it: where it runs, and how to release it. */
export type HostedPlayer = RunPlayer & {
  dispose?(): void;
  /** The tfjs backend it runs on and why (reported to the UI). */
  backend?: { backend: string; reason: string; adapter?: string | null };
};

/**
 * How a player starts: from a checkpoint, or fresh with these options. A base checkpoint carries no
 * KL reference: `freezeReference` makes its weights the frozen reference (a run's own checkpoints
 * carry theirs).
 */
export type PlayerInit = { checkpoint: ArrayBuffer; freezeReference: boolean } | { fresh: CreatePolicyOptions };

export interface TrainerHost {
  /**
   * The task set a run of `config` trains on (the app: config.task_set, a built-in set or one stored
   * in IndexedDB; a command line: its --tasks file).
   */
  taskSet(config: Config): TaskFile | Promise<TaskFile>;
  vocab: Vocabulary;
  grader: Grader;
  repo: RunRepository;
  /** Start a player (a policy worker, or an in-thread PolicyService) on the config's `backend` preference. */
  player(role: PlayerRole, init: PlayerInit, train: Partial<TrainConfig>, backend: BackendPreference): Promise<HostedPlayer>;
  /** The shipped base checkpoint of a role and size, or null to start from fresh weights. */
  /** The shipped base checkpoint of a model size (one joint model: every role of every mode starts from it), or null. */
  baseCheckpoint(size: Config["code_model"]): Promise<ArrayBuffer | null>;
  evaluate?(players: { code: RunPlayer; test: RunPlayer }, config: Config, step: number): Promise<EvalMetrics>;
  /** Whether `evaluate` can evaluate runs of `config` (default: always); the app has no bench for an imported set. */
  evaluates?(config: Config): boolean;
  /** A checkpoint every step, so a reload resumes at the last step (default true; Node runs keep only the kept ones). */
  rollingCheckpoints?: boolean;
}

/** The players of a run and where each came from (`checkpoint`, `base tiny checkpoint`, `fresh tiny weights, seed 1`). */
export interface StartedPlayers {
  code: HostedPlayer;
  /** The same object as `code` in the shared-policy modes. */
  test: HostedPlayer;
  origin: { code: string; test: string };
  dispose(): void;
}

/**
 * Start a run's players, the one way every caller does it (the trainer worker, the command line,
 * evaluation): each role from `saved` (a run's checkpoint: `code`/`test`, or `shared`), else the
 * host's base checkpoint (its weights frozen as the KL reference), else fresh weights seeded
 * `config.seed` (code, shared) and `config.seed + 1` (test).
 */
export async function startPlayers(
  host: Pick<TrainerHost, "vocab" | "player" | "baseCheckpoint">,
  config: Config,
  saved: Record<string, ArrayBuffer> | null,
): Promise<StartedPlayers> {
  // Each policy's schedule counts its own optimiser steps (its own update batch).
  const train = (role: PlayerRole) => policyTrainOverrides(config, optimizerStepsPerStep(config, role));
  const start = async (role: PlayerRole, key: string, size: Config["code_model"], seed: number): Promise<[HostedPlayer, string]> => {
    let init: PlayerInit;
    let origin: string;
    const base = saved?.[key] ? null : await host.baseCheckpoint(size);
    if (saved?.[key]) [init, origin] = [{ checkpoint: saved[key], freezeReference: false }, "checkpoint"];
    else if (base) [init, origin] = [{ checkpoint: base, freezeReference: true }, `base ${size} checkpoint`];
    else [init, origin] = [{ fresh: { size, vocab: host.vocab.size, seed, reference: config.beta > 0 } }, `fresh ${size} weights, seed ${seed}`];
    return [await host.player(role, init, train(role), config.backend), origin];
  };
  if (usesSharedPolicy(config.mode)) {
    const [shared, origin] = await start("code", "shared", config.code_model, config.seed);
    return { code: shared, test: shared, origin: { code: origin, test: origin }, dispose: () => shared.dispose?.() };
  }
  const [[code, codeOrigin], [test, testOrigin]] = await Promise.all([
    start("code", "code", config.code_model, config.seed),
    start("test", "test", config.test_model, config.seed + 1),
  ]);
  return {
    code, test, origin: { code: codeOrigin, test: testOrigin },
    dispose: () => {
      code.dispose?.();
      test.dispose?.();
    },
  };
}

/** A checkpoint's policies under the keys startPlayers reads (`shared`, or `code` and `test`). */
export async function savePlayers(config: Config, players: { code: RunPlayer; test: RunPlayer }): Promise<Record<string, ArrayBuffer>> {
  if (usesSharedPolicy(config.mode)) return { shared: await players.code.save() };
  return { code: await players.code.save(), test: await players.test.save() };
}

export class TrainerService implements TrainerControl {
  private loop: RunLoop | null = null;
  private runId: string | null = null;
  private players: StartedPlayers | null = null;
  private readonly listeners = new Map<number, (e: TrainerEvent) => void>();
  private nextListener = 1;

  constructor(private readonly host: TrainerHost) {}

  async start(config: Config): Promise<string> {
    await this.halt();
    const runId = await this.host.repo.create(config, await taskSetHash((await this.host.taskSet(config)).tasks));
    // Running from now, not from its first commit: a reload during the first step resumes it too.
    await this.host.repo.setStatus(runId, "running");
    const state: DuelState = { step: 0, book: emptyMistakeBook(), rng: new Rng(config.seed).state() };
    await this.prepare(runId, config, state, null);
    void this.drive();
    return runId;
  }

  /**
   * Start a run and step it to its end in the caller's time (the command line): resolves with the
   * run id and where its players came from, throws what failed the run. Players are released after.
   */
  async runToEnd(config: Config): Promise<{ runId: string; origin: StartedPlayers["origin"] }> {
    await this.halt();
    const runId = await this.host.repo.create(config, await taskSetHash((await this.host.taskSet(config)).tasks));
    await this.prepare(runId, config, { step: 0, book: emptyMistakeBook(), rng: new Rng(config.seed).state() }, null);
    const { loop, players } = this;
    try {
      await loop!.run();
      await this.host.repo.setStatus(runId, loop!.finished ? "done" : "paused");
      return { runId, origin: players!.origin };
    } catch (e) {
      await this.host.repo.setStatus(runId, "failed").catch(() => undefined);
      throw e;
    } finally {
      await this.halt();
    }
  }

  async resume(runId: string): Promise<void> {
    await this.halt();
    const r = await this.host.repo.resume(runId);
    await this.prepare(runId, r.config, r.state, r.policies);
    void this.drive();
  }

  async pause(): Promise<void> {
    await this.loop?.stop();
  }

  async stepOnce(runId: string): Promise<void> {
    if (this.loop?.busy) throw new Error("the run is stepping: pause it before single-stepping");
    if (this.runId !== runId || !this.loop) {
      await this.halt();
      const r = await this.host.repo.resume(runId);
      await this.prepare(runId, r.config, r.state, r.policies);
    }
    await this.drive(1);
  }

  async stop(): Promise<void> {
    await this.halt();
  }

  async subscribe(listener: (e: TrainerEvent) => void): Promise<number> {
    const id = this.nextListener++;
    this.listeners.set(id, listener);
    return id;
  }

  async unsubscribe(id: number): Promise<void> {
    this.listeners.delete(id);
  }

  private emit(e: TrainerEvent): void {
    for (const l of this.listeners.values()) {
      try {
        l(e);
      } catch {
        // A listener that throws (e.g. a closed tab's proxy) must not stop the run.
      }
    }
  }

  /** Stop stepping and release the players of the current run. */
  private async halt(): Promise<void> {
    await this.loop?.stop();
    this.players?.dispose();
    this.players = null;
    this.loop = null;
    this.runId = null;
  }

  private async prepare(runId: string, config: Config, state: DuelState, saved: Record<string, ArrayBuffer> | null): Promise<void> {
    const { host } = this;
    this.emit({ type: "progress", phase: "load", done: 0, total: 2, text: "starting the players" });
    const players = await startPlayers(host, config, saved);
    this.players = players;
    const { code, test } = players;
    const roles: [PlayerRole, HostedPlayer][] = code === test ? [["code", code]] : [["code", code], ["test", test]];
    for (const [policy, p] of roles) {
      if (p.backend) this.emit({ type: "backend", policy, backend: p.backend.backend, adapter: p.backend.adapter ?? null, reason: p.backend.reason });
    }
    this.emit({ type: "progress", phase: "load", done: 2, total: 2, text: "players ready" });
    if (!saved && host.repo.saveInitial) await host.repo.saveInitial(runId, await savePlayers(config, players), state);
    const train_tasks = runTrainTasks(await host.taskSet(config), config);
    this.runId = runId;
    this.loop = new RunLoop(
      {
        runId,
        config,
        duel: { vocab: host.vocab, tasks: train_tasks, grader: host.grader },
        code,
        test,
        store: host.repo,
        evaluate: host.evaluate && (host.evaluates?.(config) ?? true) ? (step) => host.evaluate!({ code, test }, config, step) : undefined,
        rollingCheckpoints: host.rollingCheckpoints,
        emit: (e) => this.emit(e),
      },
      state,
    );
  }

  private async drive(maxSteps?: number): Promise<void> {
    const loop = this.loop;
    const runId = this.runId;
    if (!loop || !runId) return;
    try {
      await loop.run(maxSteps);
      await this.host.repo.setStatus(runId, loop.finished ? "done" : "paused");
    } catch {
      // RunLoop has already emitted the error event.
      await this.host.repo.setStatus(runId, "failed").catch(() => undefined);
    }
  }
}
