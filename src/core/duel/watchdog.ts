/**
 * The run's watchdog: every phase of a step (the players' start, the Python sandbox's start,
 * sampling, grading, the update, saving) gets a time limit, so that a worker that never starts or
 * stops answering fails the run with a message that says what failed and what to try, instead of
 * a status that says "running" forever. Pure TypeScript: the limits are injectable, so the tests
 * hang real workers for a fraction of a second.
 *
 * Limits:
 *   start phases (players, sandbox)   startMs
 *   (the evaluation is a phase of its own, timed apart from the step's sampling and grading)
 *   a phase never measured yet         firstMs (the first step also warms kernels and caches)
 *   a phase measured before            max(minMs, factor x the slowest time it took)
 * A phase that reports progress (grading: one beat per candidate step) re-arms its limit at each
 * beat: it is stuck when nothing moves, however long the batch is.
 */

export type WatchedPhase = "players" | "sandbox" | "sample" | "grade" | "update" | "eval" | "save";

export interface WatchdogLimits {
  /** Starting a worker (a policy worker, the Python sandbox's runners), ms. */
  startMs: number;
  /** A phase the run has not timed yet, ms. */
  firstMs: number;
  /** A timed phase: `factor` x its slowest time, at least `minMs`. */
  factor: number;
  minMs: number;
  /** Pause waits this long for the step in flight to be committed, then leaves it (ms). */
  pauseGraceMs: number;
}

/**
 * Generous for a laptop: a cold Pyodide start took 11 s and a classroom step about 1 s in headless
 * Chromium here (docs/BENCHMARKS.md, newcomer); the research preset's steps take tens of seconds.
 */
export const DEFAULT_WATCHDOG: WatchdogLimits = { startMs: 120_000, firstMs: 600_000, factor: 20, minMs: 120_000, pauseGraceMs: 3_000 };

/** What each phase is, in the words of the message. */
const PHASE_WORDS: Record<WatchedPhase, string> = {
  players: "starting the policy workers",
  sandbox: "starting the Python sandbox",
  sample: "sampling",
  grade: "grading in the Python sandbox",
  update: "the policy update",
  eval: "the evaluation",
  save: "saving the step",
};

/** What to try, per phase: the message's second half. */
const ADVICE: Record<WatchedPhase, string> = {
  players: "Reload the page; if it happens again, open the app with ?backend=wasm, or try Chromium or Firefox (README, Browsers).",
  sandbox: "The Python sandbox (Pyodide, served at /pyodide/ by npm run dev / preview or with dist/ on a static host) did not load: check that the app's files are all served, reload the page, or try Chromium or Firefox (README, Browsers).",
  sample: "Resume to retry from the last committed step (the same step gives the same numbers); if it happens again, open the app with ?backend=wasm.",
  grade: "Resume to retry from the last committed step; if it happens again, reload the page (the sandbox starts afresh).",
  update: "Resume to retry from the last committed step (the same step gives the same numbers); if it happens again, open the app with ?backend=wasm.",
  eval: "Resume to retry from the last committed step; to train without the live evaluation, set eval_every to 0.",
  save: "The browser's storage did not answer: close the app's other tabs, then Resume.",
};

/** A phase that did not finish within its limit: names the phase, the worker and what to try. */
export class PhaseStuckError extends Error {
  override name = "PhaseStuckError";
  constructor(
    readonly phase: WatchedPhase,
    readonly what: string,
    readonly limitMs: number,
  ) {
    const start = phase === "players" || phase === "sandbox";
    super(`${capitalise(what)} ${start ? "did not start" : `stopped answering (${PHASE_WORDS[phase]})`}: nothing within ${formatSeconds(limitMs)}. ${ADVICE[phase]}`);
  }
}

/** The message for a failure in `phase` that is not a timeout (a worker that failed to start, crashed, ...). */
export function phaseFailureMessage(phase: WatchedPhase, error: Error): string {
  return `${capitalise(PHASE_WORDS[phase])} failed: ${error.message.replace(/[.\s]+$/, "")}. ${ADVICE[phase]}`;
}

export class PhaseFailedError extends Error {
  override name = "PhaseFailedError";
  constructor(
    readonly phase: WatchedPhase,
    cause: Error,
  ) {
    super(phaseFailureMessage(phase, cause), { cause });
  }
}

/** The step in flight was left by Pause (it was stuck, or slower than the grace): not a failure. */
export class StepAbandonedError extends Error {
  override name = "StepAbandonedError";
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function formatSeconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1).replace(/\.0$/, "")} s` : `${Math.round(ms / 1000)} s`;
}

/** One run's limits and the slowest time each phase has taken so far. */
export class Watchdog {
  private readonly slowest = new Map<WatchedPhase, number>();
  private readonly inFlight = new Set<(e: Error) => void>();
  private abandoned: Error | null = null;

  constructor(readonly limits: WatchdogLimits = DEFAULT_WATCHDOG) {}

  /** The limit `phase` runs under now (ms). */
  limitFor(phase: WatchedPhase): number {
    const { startMs, firstMs, factor, minMs } = this.limits;
    if (phase === "players" || phase === "sandbox") return startMs;
    const seen = this.slowest.get(phase);
    // Grading restarts a killed sandbox inside a batch: a beat can be a start apart.
    const floor = phase === "grade" ? Math.max(minMs, startMs) : minMs;
    return seen === undefined ? Math.max(firstMs, phase === "grade" ? startMs : 0) : Math.max(floor, factor * seen);
  }

  /**
   * Run `work` under `phase`'s limit: resolves or rejects as it does, or rejects with a
   * PhaseStuckError when the limit passes first (without a beat, for work that calls `beat`).
   * A failure (not a timeout) is wrapped in a PhaseFailedError that says what to try. The work
   * itself is not cancelled: the caller ends the worker that hangs.
   */
  guard<T>(phase: WatchedPhase, what: string, work: (beat: () => void) => Promise<T>): Promise<T> {
    if (this.abandoned) return Promise.reject(this.abandoned);
    const limit = this.limitFor(phase);
    const started = now();
    return new Promise<T>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let settled = false;
      const settle = (f: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.inFlight.delete(cancel);
        f();
      };
      const cancel = (e: Error) => settle(() => reject(e));
      const arm = () => {
        if (settled) return;
        clearTimeout(timer);
        timer = setTimeout(() => cancel(new PhaseStuckError(phase, what, limit)), limit);
      };
      this.inFlight.add(cancel);
      arm();
      let running: Promise<T>;
      try {
        running = work(arm);
      } catch (e) {
        running = Promise.reject(e);
      }
      running.then(
        (value) => settle(() => {
          this.slowest.set(phase, Math.max(this.slowest.get(phase) ?? 0, now() - started));
          resolve(value);
        }),
        (e: unknown) => {
          const error = e instanceof Error ? e : new Error(String(e));
          const known = error instanceof PhaseStuckError || error instanceof PhaseFailedError;
          // A start that fails says what to try; a failure inside a step keeps its own words.
          settle(() => reject(!known && (phase === "players" || phase === "sandbox") ? new PhaseFailedError(phase, error) : error));
        },
      );
    });
  }

  /** Has abandon() been called? */
  get isAbandoned(): boolean {
    return this.abandoned !== null;
  }

  /** Fail every guarded call in flight, and every later one, with `error` (Pause does not wait for a stuck call). */
  abandon(error: Error): void {
    this.abandoned = error;
    for (const cancel of [...this.inFlight]) cancel(error);
  }
}

function now(): number {
  return globalThis.performance?.now() ?? Date.now();
}
