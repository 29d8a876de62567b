/**
 * A training run: drives `duelStep` step after step, evaluates on schedule, persists every step
 * through a RunStore (IndexedDB in the browser, memory + a bundle file in Node) and reports
 * TrainerEvents. The same class runs in the trainer worker and in `npm run train`.
 *
 * Resuming is exact by construction: everything random in a step derives from the DuelState's RNG
 * state, which is committed with the step; the policies' weights and optimizer moments travel in
 * checkpoints. With `rollingCheckpoints` every step writes one, so a reload resumes at the last
 * complete step and reaches the same metrics as a run never interrupted (same seed and backend).
 */
import type { Config } from "../config/index.ts";
import type { RngState } from "../rng.ts";
import type { TrainerEvent } from "../loop/events.ts";
import { EVAL_METRIC_KEYS, type DuelRecord, type EvalMetricKey, type StepMetrics } from "../loop/types.ts";
import type { MistakeBook, MistakeBookDelta } from "../loop/mistake-book.ts";
import { duelStep, usesSharedPolicy, type DuelContext, type DuelState, type Player } from "./step.ts";
import { StepAbandonedError } from "./watchdog.ts";

/** A player the run can also checkpoint. */
export type RunPlayer = Player & { save(): Promise<ArrayBuffer> };

/** One committed step, as the store receives it (the shape of src/storage's StepCommit). */
export interface RunCommit {
  runId: string;
  step: number;
  metrics: StepMetrics;
  mistakeBook: readonly MistakeBookDelta[];
  duels: readonly DuelRecord[];
  rngState: RngState;
  checkpoint?: { policies: Record<string, ArrayBuffer>; mistakeBook: MistakeBook; kept: boolean };
  status?: "running" | "paused" | "done";
}

export interface RunStore {
  /** Persist one step atomically: all of it or nothing. */
  commitStep(c: RunCommit): Promise<unknown>;
}

export type EvalMetrics = { [K in EvalMetricKey]: number };

export interface RunOptions {
  runId: string;
  config: Readonly<Config>;
  duel: Omit<DuelContext, "config" | "code" | "test" | "onPhase">;
  code: RunPlayer;
  /** The Test policy; the same object as `code` in the shared-policy modes. */
  test: RunPlayer;
  store: RunStore;
  /** Evaluation of the current players (plus-pass, Mul, ...); called every `eval_every` steps and at the last step. */
  evaluate?: (step: number) => Promise<EvalMetrics>;
  /** Write a checkpoint every step (exact resume from the last complete step). Default true. */
  rollingCheckpoints?: boolean;
  emit?: (e: TrainerEvent) => void;
}

const NO_EVAL = Object.fromEntries(EVAL_METRIC_KEYS.map((k) => [k, null])) as { [K in EvalMetricKey]: null };

export class RunLoop {
  private state: DuelState;
  private stopRequested = false;
  private running: Promise<void> | null = null;
  private readonly stepTimes: number[] = [];

  constructor(private readonly o: RunOptions, initial: DuelState) {
    this.state = initial;
  }

  get step(): number {
    return this.state.step;
  }

  get duelState(): DuelState {
    return this.state;
  }

  /** The run's length, `config.steps`. */
  get steps(): number {
    return this.o.config.steps;
  }

  /** Has the run taken all of its `config.steps`? */
  get finished(): boolean {
    return this.state.step >= this.o.config.steps;
  }

  /** Is a `run()` in progress? */
  get busy(): boolean {
    return this.running !== null;
  }

  /**
   * Step until `config.steps` (or `maxSteps` more steps), a stop request, or an error. Resolves when
   * it has stopped; a step in progress completes and is committed first, unless the caller left it
   * (a StepAbandonedError after stop(): the run is paused at its last committed step).
   */
  run(maxSteps = Infinity): Promise<void> {
    if (this.running) throw new Error("this run is already stepping: pause or stop it first");
    this.stopRequested = false;
    this.running = this.loop(maxSteps).finally(() => (this.running = null));
    return this.running;
  }

  /** Ask the loop to stop after the current step; resolves once it has. */
  async stop(): Promise<void> {
    this.stopRequested = true;
    await this.running;
  }

  private async loop(maxSteps: number): Promise<void> {
    const { config } = this.o;
    let taken = 0;
    this.status("running");
    try {
      while (!this.stopRequested && this.state.step < config.steps && taken < maxSteps) {
        await this.oneStep();
        taken++;
      }
      this.status(this.state.step >= config.steps ? "done" : "paused");
    } catch (e) {
      if (this.stopRequested && e instanceof StepAbandonedError) {
        this.status("paused");
        return;
      }
      const err = e instanceof Error ? e : new Error(String(e));
      this.o.emit?.({ type: "error", name: err.name, message: err.message, stack: err.stack });
      this.status("failed");
      throw err;
    }
  }

  private async oneStep(): Promise<void> {
    const o = this.o;
    const { config } = o;
    const started = now();
    const outcome = await duelStep(
      {
        ...o.duel,
        config,
        code: o.code,
        test: o.test,
        onPhase: (phase, text) => o.emit?.({ type: "progress", phase, done: this.state.step, total: config.steps, text }),
      },
      this.state,
    );
    const step = outcome.state.step;
    const isEval = !!o.evaluate && config.eval_every > 0 && (step % config.eval_every === 0 || step === config.steps);
    let evalMetrics: EvalMetrics | typeof NO_EVAL = NO_EVAL;
    if (isEval) {
      o.emit?.({ type: "progress", phase: "eval", done: step, total: config.steps, text: `evaluating after step ${step}` });
      evalMetrics = await o.evaluate!(step);
    }
    const metrics: StepMetrics = { step, ...outcome.metrics, ...evalMetrics };
    const kept = step % config.checkpoint_every === 0 || step === config.steps;
    const rolling = o.rollingCheckpoints ?? true;
    o.emit?.({ type: "progress", phase: "save", done: step, total: config.steps, text: `saving step ${step}` });
    await o.store.commitStep({
      runId: o.runId,
      step,
      metrics,
      mistakeBook: outcome.deltas,
      duels: outcome.duels,
      rngState: outcome.state.rng,
      checkpoint: kept || rolling ? { policies: await this.savePolicies(), mistakeBook: outcome.state.book, kept } : undefined,
      status: step >= config.steps ? "done" : "running",
    });
    this.state = outcome.state;
    this.stepTimes.push(now() - started);
    o.emit?.({ type: "step", runId: o.runId, metrics, duels: outcome.duels, mistakeBook: outcome.deltas });
    this.status("running");
  }

  /** Both players' weights and optimizer state, keyed as run bundles and IndexedDB store them. */
  async savePolicies(): Promise<Record<string, ArrayBuffer>> {
    if (usesSharedPolicy(this.o.config.mode)) return { shared: await this.o.code.save() };
    const [code, test] = await Promise.all([this.o.code.save(), this.o.test.save()]);
    return { code, test };
  }

  private status(status: "running" | "paused" | "done" | "failed"): void {
    // Steady state only: the first step after a (re)start also pays for kernel compilation, caches
    // and first-call costs, so it is left out (no estimate until a second step is timed).
    const recent = this.stepTimes.slice(1).slice(-5);
    const perStep = recent.length ? recent.reduce((a, b) => a + b, 0) / recent.length : null;
    const left = this.o.config.steps - this.state.step;
    this.o.emit?.({
      type: "status",
      runId: this.o.runId,
      status,
      step: this.state.step,
      steps: this.o.config.steps,
      eta_s: perStep === null ? null : Math.round((perStep * left) / 1000),
    });
  }
}

function now(): number {
  return globalThis.performance?.now() ?? Date.now();
}
