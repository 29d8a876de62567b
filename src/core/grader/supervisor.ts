/**
 * The supervisor: drives sandboxes from outside, enforces per-step time limits, and survives
 * candidates that kill the interpreter. Shared by the Node host (worker_threads) and the browser
 * host (module Web Worker) through the small SandboxHost interface.
 *
 * Escalation for one step (a load or a call), watched through the shared progress counter ctl[0]:
 *   1. no progress for the step's limit -> store the step in ctl[2], raise KeyboardInterrupt via
 *      Pyodide's interrupt buffer (the harness turns it into a `timeout` verdict);
 *   2. still no progress `killGraceMs` later (a C loop like sum(range(10**15)), or code that swallows
 *      KeyboardInterrupt) -> terminate the sandbox, respawn, and rerun the batch from the culprit's
 *      code with the culprit forced to `timeout` (codes already reported are kept).
 * A sandbox that dies by itself (e.g. stack overflow in wasm) is handled the same way, with `crash`.
 */
import { checkRequest, ResultBuilder } from "./request.ts";
import { createSandboxControl, type HarnessCall, type ReportFn, type SandboxControl } from "./sandbox.ts";
import type { Grader, GradeProgress, GradeRequest, GradeResult } from "./types.ts";

/** One live sandbox. grade() rejects with SandboxDiedError when the worker dies or is terminated. */
export interface SandboxHost {
  grade(call: HarnessCall, report: ReportFn): Promise<void>;
  terminate(): Promise<void>;
}

/** Start a sandbox wired to these shared buffers (loads Pyodide and the harness: seconds). */
export type SpawnSandbox = (control: SandboxControl) => Promise<SandboxHost>;

export class SandboxDiedError extends Error {
  override name = "SandboxDiedError";
}

export class GraderClosedError extends Error {
  override name = "GraderClosedError";
}

export interface SupervisorOptions {
  /** Extra time after the interrupt before the sandbox is terminated, ms (default: max(200, limit)). */
  killGraceMs?: number;
  /** Give up a batch after this many sandbox restarts (each costs a Pyodide start). */
  maxRestarts?: number;
  /**
   * Keep one spare sandbox booted (default true): a kill then costs a hand-over instead of a
   * Pyodide start (seconds). Costs the memory of a second interpreter; turn off where it is short.
   */
  warmSpare?: boolean;
}

/** A Grader that also says how many sandboxes it has started (1 + restarts), for tests and benchmarks. */
export interface SupervisedGrader extends Grader {
  readonly spawns: number;
}

export function createSupervisedGrader(spawn: SpawnSandbox, options: SupervisorOptions = {}): SupervisedGrader {
  const maxRestarts = options.maxRestarts ?? 200;
  const warmSpare = options.warmSpare ?? true;
  /** A sandbox and its own shared buffers (a booting spare must never see the live one's SIGINT). */
  interface Live {
    host: Promise<SandboxHost>;
    control: SandboxControl;
  }
  let live: Live | null = null;
  let spare: Live | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;
  /** Sandboxes started, for tests and benchmarks (first start included). */
  let spawns = 0;

  const start = (): Live => {
    spawns++;
    const control = createSandboxControl();
    const started: Live = { host: spawn(control), control };
    started.host.catch(() => {
      if (live === started) live = null;
      if (spare === started) spare = null;
    });
    return started;
  };
  const sandbox = (): Live => {
    if (!live) {
      live = spare ?? start();
      spare = null;
    }
    if (warmSpare && !spare && !closed) spare = start();
    return live;
  };
  const discard = async () => {
    const h = live?.host;
    live = null;
    if (h) await (await h.catch(() => null))?.terminate();
  };

  async function run(request: GradeRequest, onProgress?: (p: GradeProgress) => void): Promise<GradeResult> {
    const req = checkRequest(request);
    const { test_ms, load_ms } = req.limits;
    const killGrace = (limit: number) => options.killGraceMs ?? Math.max(200, limit);
    const builder = new ResultBuilder(req);
    const call: HarnessCall = { request: JSON.stringify(req), startCode: 0, forced: {} };
    const idleLimit = Math.max(10_000, 4 * load_ms);
    const tick = Math.max(2, Math.min(25, Math.floor(Math.min(test_ms, load_ms) / 4)));
    let restarts = 0;
    let taintRetry = false;
    for (;;) {
      onProgress?.({ phase: "load", done: 0, total: 0, text: "starting the Python sandbox" });
      const current = sandbox();
      const h = await current.host;
      const { ctl, interrupt } = current.control;
      ctl.fill(-1);
      Atomics.store(interrupt, 0, 0);
      let killed: { step: number } | null = null;
      let last = -1;
      let since = performance.now();
      let interruptedAt = 0;
      const watchdog = setInterval(() => {
        const v = Atomics.load(ctl, 0);
        const now = performance.now();
        if (v !== last) {
          last = v;
          since = now;
          interruptedAt = 0;
          if (v >= 0) onProgress?.({ phase: "grade", done: v >> 1, total: Atomics.load(ctl, 3), text: "grading" });
          return;
        }
        if (killed) return;
        if (v < 0) {
          // Harness work outside any step (parsing, references done, reporting) is short; a long
          // stall here means something hostile ran where no step could be blamed.
          if (now - since > idleLimit) {
            killed = { step: -1 };
            void discard();
          }
          return;
        }
        const limit = v & 1 ? load_ms : test_ms;
        if (!interruptedAt && now - since > limit) {
          Atomics.store(ctl, 2, v >> 1);
          Atomics.store(interrupt, 0, 2); // SIGINT
          interruptedAt = now;
        } else if (interruptedAt && now - interruptedAt > killGrace(limit)) {
          killed = { step: v >> 1 };
          void discard();
        }
      }, tick);
      try {
        await h.grade(call, (code, json) => builder.add(code, json));
        const total = Math.max(0, Atomics.load(ctl, 3));
        onProgress?.({ phase: "grade", done: total, total, text: "graded" });
        return builder.result;
      } catch (e) {
        if (closed) throw new GraderClosedError("the grader was closed while grading");
        const message = String((e as Error)?.message ?? e);
        if (!(e instanceof SandboxDiedError) && !killed && message.startsWith("grader harness failed")) {
          // A tainted interpreter (a candidate patched harness-critical classes): one fresh retry.
          if (!taintRetry && message.includes("tainted")) {
            taintRetry = true;
            await discard();
            continue;
          }
          throw e;
        }
        // Anything else (the worker died, or Pyodide suffered a fatal error and now throws on every
        // call) is a crash of the step in flight.
        const v = Atomics.load(ctl, 0);
        const killedStep = killed ? (killed as { step: number }).step : v >= 0 ? v >> 1 : -1;
        const culprit = killedStep >= 0 ? { step: killedStep, outcome: killed ? ("timeout" as const) : ("crash" as const) } : null;
        await discard();
        if (!culprit) throw new SandboxDiedError(`the Python sandbox died outside any step: ${(e as Error).message}`);
        if (++restarts > maxRestarts) throw new SandboxDiedError(`gave up after ${maxRestarts} sandbox restarts in one batch`);
        call.forced[culprit.step] = culprit.outcome;
        call.startCode = builder.nextCode;
      } finally {
        clearInterval(watchdog);
      }
    }
  }

  return {
    grade(request, onProgress) {
      if (closed) return Promise.reject(new GraderClosedError("grade() after close()"));
      const next = queue.then(() => run(request, onProgress));
      queue = next.catch(() => undefined);
      return next;
    },
    async close() {
      closed = true;
      const s = spare?.host;
      spare = null;
      await Promise.all([discard(), s?.then((h) => h.terminate(), () => undefined)]);
    },
    get spawns() {
      return spawns;
    },
  };
}
