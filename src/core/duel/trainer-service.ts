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
import type { AutoResume, RunFailure, RunPhase, TrainerControl, TrainerEvent } from "../loop/events.ts";
import type { BackendPreference } from "../policy/backend-choice.ts";
import type { CreatePolicyOptions } from "../policy/policy.ts";
import type { TrainConfig } from "../policy/train-config.ts";
import { Rng } from "../rng.ts";
import { taskSetHash } from "../bundle.ts";
import { RunLoop, type EvalMetrics, type RunCommit, type RunPlayer } from "./run.ts";
import { usesSharedPolicy, type DuelState } from "./step.ts";
import { runTrainTasks } from "./task-order.ts";
import { DEFAULT_WATCHDOG, PhaseFailedError, PhaseStuckError, StepAbandonedError, Watchdog, type WatchdogLimits } from "./watchdog.ts";

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
   * Keep why the run stopped (optional; the app's IndexedDB keeps it, cleared by the next committed
   * step): `count` is one more than the stored failure's when that has the same signature and step.
   */
  recordFailure?(runId: string, failure: Omit<RunFailure, "count">): Promise<RunFailure>;
  /** The run's status, last committed step and stored failure (optional, with recordFailure). */
  trouble?(runId: string): Promise<{ status: string; step: number; failure: RunFailure | null }>;
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
  const started = await Promise.allSettled([
    start("code", "code", config.code_model, config.seed),
    start("test", "test", config.test_model, config.seed + 1),
  ]);
  const failed = started.find((r) => r.status === "rejected");
  if (failed) {
    // The one that did start is released, not left running beside the error.
    for (const r of started) if (r.status === "fulfilled") r.value[0].dispose?.();
    throw failed.reason;
  }
  const [[code, codeOrigin], [test, testOrigin]] = started.map((r) => (r as PromiseFulfilledResult<[HostedPlayer, string]>).value);
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

export interface TrainerServiceOptions {
  /** The watchdog's limits (watchdog.ts); the tests make them short. */
  watchdog?: Partial<WatchdogLimits>;
}

export class TrainerService implements TrainerControl {
  private loop: RunLoop | null = null;
  private runId: string | null = null;
  private players: StartedPlayers | null = null;
  private watchdog: Watchdog;
  /** The phase the run is in (the last progress event), named in a failure's signature. */
  private phase: RunPhase = "load";
  /** Grader calls in flight (a stuck one is halted when the run gives up on it). */
  private graderBusy = 0;
  /** A prepared loop that pause() caught before it stepped: launch() does not drive it. */
  private held: RunLoop | null = null;
  /** The run a resume() call is getting ready to launch (before `preparing` is set). */
  private resuming: string | null = null;
  /** The run being prepared (players and sandbox starting), for pause(). */
  private preparing: { runId: string; step: number; steps: number } | null = null;
  private readonly limits: WatchdogLimits;
  private readonly listeners = new Map<number, (e: TrainerEvent) => void>();
  private nextListener = 1;

  constructor(private readonly host: TrainerHost, options: TrainerServiceOptions = {}) {
    this.limits = { ...DEFAULT_WATCHDOG, ...options.watchdog };
    this.watchdog = new Watchdog(this.limits);
  }

  async warm(config: Config): Promise<void> {
    const { grader } = this.host;
    await Promise.allSettled([grader.warm?.call(grader), this.host.taskSet(config)]);
  }

  async start(config: Config): Promise<string> {
    await this.halt();
    const runId = await this.host.repo.create(config, await taskSetHash((await this.host.taskSet(config)).tasks));
    // Running from now, not from its first commit: a reload during the first step resumes it too.
    await this.host.repo.setStatus(runId, "running");
    const state: DuelState = { step: 0, book: emptyMistakeBook(), rng: new Rng(config.seed).state() };
    void this.launch(runId, config.steps, () => this.prepare(runId, config, state, null));
    return runId;
  }

  /**
   * Start a run and step it to its end in the caller's time (the command line): resolves with the
   * run id and where its players came from, throws what failed the run. Players are released after.
   */
  async runToEnd(config: Config): Promise<{ runId: string; origin: StartedPlayers["origin"] }> {
    await this.halt();
    const runId = await this.host.repo.create(config, await taskSetHash((await this.host.taskSet(config)).tasks));
    try {
      await this.prepare(runId, config, { step: 0, book: emptyMistakeBook(), rng: new Rng(config.seed).state() }, null);
      const { loop, players } = this;
      await loop!.run();
      await this.host.repo.setStatus(runId, loop!.finished ? "done" : "paused");
      return { runId, origin: players!.origin };
    } catch (e) {
      await this.fail(runId, e, config.steps);
      throw e;
    } finally {
      await this.halt();
    }
  }

  async resume(runId: string): Promise<void> {
    // A second Resume while this run is still starting (players, sandbox) asks for what is under
    // way: it is not a restart (which would release the players the first start is handing over).
    if (this.resuming === runId || this.preparing?.runId === runId) return;
    this.resuming = runId;
    try {
      await this.halt();
      const r = await this.host.repo.resume(runId);
      await this.host.repo.setStatus(runId, "running");
      void this.launch(runId, r.config.steps, () => this.prepare(runId, r.config, r.state, r.policies));
    } finally {
      if (this.resuming === runId) this.resuming = null;
    }
  }

  async autoResume(runId: string, cause = "the page was closed or reloaded"): Promise<AutoResume> {
    const { repo } = this.host;
    const trouble = repo.trouble ? await repo.trouble(runId) : null;
    if (!trouble) return { resumed: false, note: null };
    let failure = trouble.failure;
    if (trouble.status === "running" && repo.recordFailure) {
      // The page went away during a step (a reload, a crash, or a hang the user gave up on).
      failure = await repo.recordFailure(runId, { signature: "interrupted", message: `${cause} during step ${trouble.step + 1}`, step: trouble.step, retry: true });
    } else if (trouble.status !== "running" && !(trouble.status === "failed" && failure?.retry)) {
      return { resumed: false, note: null };
    }
    if (failure && failure.count >= 2) {
      if (trouble.status === "running") await repo.setStatus(runId, "paused");
      const how = failure.signature === "interrupted" ? `${failure.message}, twice` : `it failed the same way twice: ${failure.message}`;
      return { resumed: false, note: `Run ${runId} was not resumed, so that it does not hang again: ${how}. It waits at step ${failure.step}: press Resume to try again, or start another run.` };
    }
    await this.resume(runId);
    const note = failure && failure.signature !== "interrupted" ? `Run ${runId} failed once (${failure.message}); trying again from step ${failure.step}.` : null;
    return { resumed: true, note };
  }

  async pause(): Promise<void> {
    const { loop, runId } = this;
    // Still starting (the players, the sandbox): nothing to commit, leave the start at once.
    if (!loop && this.preparing) return this.leave(this.preparing.runId, this.preparing.step, this.preparing.steps, "paused while starting");
    if (!loop || !runId) return;
    if (loop.finished) return;
    if (!loop.busy) {
      // Prepared but not stepping yet (or already paused): it must not start stepping after this.
      this.held = loop;
      await this.host.repo.setStatus(runId, "paused");
      this.emit({ type: "status", runId, status: "paused", step: loop.step, steps: loop.steps, eta_s: null });
      return;
    }
    const stopped = loop.stop();
    const inTime = await Promise.race([stopped.then(() => true, () => true), sleep(this.limits.pauseGraceMs).then(() => false)]);
    if (inTime) return;
    // The step in flight is stuck (or slower than the grace): leave it. Its guarded calls fail at
    // once; the players, whose weights may be half updated, are released; resume reloads the last
    // committed step's checkpoint and redoes the step with the same numbers.
    await this.leave(runId, loop.step, loop.steps, `paused during step ${loop.step + 1}`);
  }

  /**
   * Leave the run in flight without waiting for it (a stuck call never answers): fail its guarded
   * calls, end a stuck grader call, release the players, and mark it paused at its last commit.
   */
  private async leave(runId: string, step: number, steps: number, why: string): Promise<void> {
    this.watchdog.abandon(new StepAbandonedError(why));
    await this.releaseStuck(why);
    this.loop = null;
    this.runId = null;
    this.preparing = null;
    this.players?.dispose();
    this.players = null;
    await this.host.repo.setStatus(runId, "paused");
    this.emit({ type: "status", runId, status: "paused", step, steps, eta_s: null });
  }

  async stepOnce(runId: string): Promise<void> {
    if (this.loop?.busy) throw new Error("the run is stepping: pause it before single-stepping");
    if (this.runId !== runId || !this.loop) {
      await this.halt();
      const r = await this.host.repo.resume(runId);
      try {
        await this.prepare(runId, r.config, r.state, r.policies);
      } catch (e) {
        await this.fail(runId, e, r.config.steps);
        throw e;
      }
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
    if (e.type === "progress") this.phase = e.phase;
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
    // A run still starting is left paused (as Pause leaves it): its start ends at its next guarded
    // call or check (StepAbandonedError, no failure recorded) and never takes over the service's state.
    const starting = this.preparing;
    if (starting) await this.leave(starting.runId, starting.step, starting.steps, "another run was started");
    const loop = this.loop;
    this.loop = null;
    this.runId = null;
    // A stopped loop ends its step first; one left by pause() is not waited for.
    if (loop?.busy) await loop.stop();
    this.players?.dispose();
    this.players = null;
  }

  /** Prepare a run, then drive it; a failure to prepare fails the run with what to try. */
  private async launch(runId: string, steps: number, prepare: () => Promise<void>): Promise<void> {
    try {
      await prepare();
    } catch (e) {
      if (!(e instanceof StepAbandonedError)) await this.fail(runId, e, steps); // (abandoned: pause() has said so)
      return;
    }
    if (this.loop && this.held === this.loop) return;
    await this.drive();
  }

  /**
   * A run that cannot go on: release what hangs, say why (an error event and a status event), mark
   * it failed and keep why (recordFailure), its last committed step intact.
   */
  private async fail(runId: string, e: unknown, steps = 0): Promise<void> {
    const err = e instanceof Error ? e : new Error(String(e));
    await this.releaseStuck(err.message);
    const loopStep = this.loop?.step;
    if (this.runId === runId || this.runId === null) await this.halt();
    // RunLoop has reported its own failures; one before the loop existed is reported here.
    if (loopStep === undefined) {
      this.emit({ type: "error", name: err.name, message: err.message, stack: err.stack });
    }
    const retry = err instanceof PhaseStuckError || err instanceof PhaseFailedError;
    const phase = err instanceof PhaseStuckError || err instanceof PhaseFailedError ? err.phase : this.phase;
    let step = loopStep ?? 0;
    try {
      if (this.host.repo.trouble) step = (await this.host.repo.trouble(runId)).step;
      await this.host.repo.setStatus(runId, "failed");
      await this.host.repo.recordFailure?.(runId, { signature: `${phase}:${err.name}`, message: err.message, step, retry });
    } catch {
      // Storage itself failed: the error event has said what happened.
    }
    if (loopStep === undefined) this.emit({ type: "status", runId, status: "failed", step, steps, eta_s: null });
  }

  /** A grader call stuck in flight is halted (its runners end), so the next request starts afresh. */
  private async releaseStuck(why: string): Promise<void> {
    if (this.graderBusy > 0) await this.host.grader.halt?.(why).catch(() => undefined);
  }

  private async prepare(runId: string, config: Config, state: DuelState, saved: Record<string, ArrayBuffer> | null): Promise<void> {
    const mine = (this.preparing = { runId, step: state.step, steps: config.steps });
    try {
      await this.prepareGuarded(runId, config, state, saved);
    } catch (e) {
      // Given up while starting (paused, or another run started): whatever ended the start is no failure of this run.
      if (this.preparing !== mine && !(e instanceof StepAbandonedError)) throw new StepAbandonedError(`given up while starting (${(e as Error).message})`);
      throw e;
    } finally {
      if (this.preparing === mine) this.preparing = null;
    }
  }

  private async prepareGuarded(runId: string, config: Config, state: DuelState, saved: Record<string, ArrayBuffer> | null): Promise<void> {
    const { host } = this;
    const watchdog = (this.watchdog = new Watchdog(this.limits));
    const player: TrainerHost["player"] = (role, init, train, backend) => {
      const starting = host.player(role, init, train, backend);
      return watchdog.guard("players", `the ${role} policy's worker`, () => starting).catch((e: unknown) => {
        // Given up on (stuck, or paused): a worker that starts after all is released.
        void starting.then((p) => p.dispose?.(), () => undefined);
        throw e;
      });
    };
    // The Python sandbox's cold start (a first start's longest part: Pyodide twice) runs beside the
    // players' start; its progress is shown as its own phase once the players are ready.
    const { warm } = host.grader;
    let sandboxNote = { done: 0, total: 2, text: "starting the Python sandbox" };
    let sandboxTick: ((done: number, total: number, text: string) => void) | null = null;
    const sandbox = warm
      ? this.graderCall(() => watchdog.guard("sandbox", "the Python sandbox", (beat) => warm.call(host.grader, (p) => {
          beat();
          sandboxNote = { done: p.done, total: p.total, text: p.text };
          sandboxTick?.(p.done, p.total, p.text);
        })))
      : null;
    sandbox?.catch(() => undefined); // awaited below; a players' start that fails first leaves it unawaited
    const players = await this.ticking("load", "starting the players", (tick) =>
      startPlayers({ vocab: host.vocab, baseCheckpoint: host.baseCheckpoint, player }, config, saved).then((p) => (tick(2, 2, "players ready"), p)),
    );
    const given = () => {
      if (!watchdog.isAbandoned) return;
      if (this.players === players) this.players = null;
      players.dispose();
      throw new StepAbandonedError("paused while starting");
    };
    given();
    this.players = players;
    const { code, test } = players;
    const roles: [PlayerRole, HostedPlayer][] = code === test ? [["code", code]] : [["code", code], ["test", test]];
    for (const [policy, p] of roles) {
      if (p.backend) this.emit({ type: "backend", policy, backend: p.backend.backend, adapter: p.backend.adapter ?? null, reason: p.backend.reason });
    }
    // The Python sandbox's cold start, as its own phase (not inside the first step's grading).
    if (sandbox) {
      await this.ticking("sandbox", sandboxNote.text, (tick) => {
        sandboxTick = tick;
        tick(sandboxNote.done, sandboxNote.total, sandboxNote.text);
        return sandbox;
      });
    }
    const guarded = {
      code: guardPlayer(code, watchdog, usesSharedPolicy(config.mode) ? "the policy's worker" : "the Code policy's worker"),
      test: code === test ? null : guardPlayer(test, watchdog, "the Test policy's worker"),
    };
    const guardedCode = guarded.code;
    const guardedTest = guarded.test ?? guardedCode;
    const grader: Grader = {
      grade: (request, onProgress) =>
        this.graderCall(() => watchdog.guard("grade", "the Python sandbox", (beat) => host.grader.grade(request, (p) => (beat(), onProgress?.(p))))),
      close: () => host.grader.close(),
    };
    const store = { commitStep: (c: RunCommit) => watchdog.guard("save", "the browser's storage", () => host.repo.commitStep(c)) };
    if (!saved && host.repo.saveInitial) await host.repo.saveInitial(runId, await savePlayers(config, players), state);
    const train_tasks = runTrainTasks(await host.taskSet(config), config);
    given(); // given up during the sandbox's start or the first save: the run that replaced it owns the service
    this.runId = runId;
    this.loop = new RunLoop(
      {
        runId,
        config,
        duel: { vocab: host.vocab, tasks: train_tasks, grader },
        code: guardedCode,
        test: guardedTest,
        store,
        // The evaluation grades on the host's grader: guarded as one phase, so a stuck one ends its runners too.
        evaluate: host.evaluate && (host.evaluates?.(config) ?? true)
          ? (step) => this.graderCall(() => watchdog.guard("eval", "the evaluation", () => host.evaluate!({ code: guardedCode, test: guardedTest }, config, step)))
          : undefined,
        rollingCheckpoints: host.rollingCheckpoints,
        emit: (e) => this.emit(e),
      },
      state,
    );
  }

  /** Count a grader call in flight while `work` runs. */
  private async graderCall<T>(work: () => Promise<T>): Promise<T> {
    this.graderBusy++;
    try {
      return await work();
    } catch (e) {
      // Given up on (stuck, or left by pause): its runners end, so the next request starts afresh.
      if (e instanceof PhaseStuckError || e instanceof StepAbandonedError) await this.host.grader.halt?.(e.message).catch(() => undefined);
      throw e;
    } finally {
      this.graderBusy--;
    }
  }

  /**
   * Run a start phase, reporting it at once and then every second with the seconds it has taken, so
   * that a slow start is seen to be alive (and a stuck one, until its watchdog fires).
   */
  private async ticking<T>(phase: RunPhase, text: string, work: (tick: (done: number, total: number, text: string) => void) => Promise<T>): Promise<T> {
    const started = Date.now();
    let last = { done: 0, total: 2, text };
    const report = () => {
      const s = Math.floor((Date.now() - started) / 1000);
      this.emit({ type: "progress", phase, done: last.done, total: last.total, text: s > 0 ? `${last.text} (${s} s)` : last.text });
    };
    report();
    const timer = setInterval(report, 1000);
    try {
      return await work((done, total, t) => {
        last = { done, total, text: t };
        report();
      });
    } finally {
      clearInterval(timer);
    }
  }

  private async drive(maxSteps?: number): Promise<void> {
    const loop = this.loop;
    const runId = this.runId;
    if (!loop || !runId) return;
    try {
      await loop.run(maxSteps);
      // A loop left by pause() has been replaced (or released): pause() set its status.
      if (this.loop === loop) await this.host.repo.setStatus(runId, loop.finished ? "done" : "paused");
    } catch (e) {
      // RunLoop has already emitted the error event.
      if (e instanceof StepAbandonedError) return;
      await this.fail(runId, e);
    }
  }
}

/** A player whose calls run under the watchdog: sampling, the update and saving each have a limit. */
function guardPlayer<P extends HostedPlayer>(player: P, watchdog: Watchdog, what: string): RunPlayer {
  return {
    sample: (prompts, specs, opts) => watchdog.guard("sample", what, () => player.sample(prompts, specs, opts)),
    update: (samples, rngState) => watchdog.guard("update", what, () => player.update(samples, rngState)),
    save: () => watchdog.guard("save", what, () => player.save()),
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
