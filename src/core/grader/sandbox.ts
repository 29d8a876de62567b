/**
 * The inside of a grader sandbox: what runs in the worker (a worker_threads worker in Node, a module
 * Web Worker in the browser) next to Pyodide. Shared by both hosts so that they differ only in how
 * the worker is started and how messages travel. No DOM, no Worker: plain Pyodide + globalThis.
 */
import type { PyodideAPI } from "pyodide";

/** Shared memory between the supervisor (outside) and the sandbox (inside), both SharedArrayBuffer-backed. */
export interface SandboxControl {
  /**
   * ctl[0]: current step * 2 + is_load, or -1 between steps (written by the harness before each step);
   * ctl[1]: unused; ctl[2]: the step the watchdog interrupted (written outside); ctl[3]: total steps.
   */
  ctl: Int32Array;
  /** Pyodide's interrupt buffer: the watchdog stores 2 (SIGINT) to raise KeyboardInterrupt. */
  interrupt: Int32Array;
}

export function createSandboxControl(): SandboxControl {
  if (typeof SharedArrayBuffer === "undefined") {
    throw new Error(
      "SharedArrayBuffer is unavailable: the grader needs a cross-origin isolated page " +
        "(COOP: same-origin, COEP: require-corp, as vite.config.ts sets) to interrupt runaway Python.",
    );
  }
  const ctl = new Int32Array(new SharedArrayBuffer(4 * 4));
  ctl.fill(-1);
  return { ctl, interrupt: new Int32Array(new SharedArrayBuffer(4)) };
}

/** One run of the harness over a batch (or the rest of one, after the supervisor killed a sandbox). */
export interface HarnessCall {
  /** The GradeRequest as JSON, limits filled in with defaults. */
  request: string;
  /** First code to grade; earlier codes were reported by a previous sandbox. */
  startCode: number;
  /** Steps a previous sandbox died on: not run again, given this outcome. */
  forced: Record<number, "timeout" | "crash">;
}

/** Called once per graded code with the harness's JSON text (see harness.py `grade`). */
export type ReportFn = (code: number, json: string) => void;

export interface SandboxRuntime {
  /** Grade synchronously; returns how many reports were made (a host whose report channel is not
   *  ordered with its reply, like a comlink callback, waits for that many). */
  grade(call: HarnessCall, report: ReportFn): number;
}

/**
 * Load the harness into Pyodide and lock the interpreter down (harness.py `setup`). Synchronous
 * grading afterwards: the worker is busy for the whole batch, which is the point (one Python call).
 */
export function startSandbox(pyodide: PyodideAPI, harnessSource: string, control: SandboxControl): SandboxRuntime {
  Atomics.store(control.interrupt, 0, 0); // a SIGINT meant for a killed predecessor must not hit setup
  pyodide.setInterruptBuffer(control.interrupt);
  // Python's real stdout/stderr (sys.__stdout__, fatal-error reports) end here, never in a console.
  const discard = { write: (bytes: Uint8Array) => bytes.length };
  pyodide.setStdout(discard);
  pyodide.setStderr(discard);
  // The harness lives in a private dict, not __main__ (which sys.modules would expose).
  const ns = pyodide.toPy({}) as unknown as { get(name: string): (...args: unknown[]) => unknown };
  pyodide.runPython(harnessSource, { globals: ns as never, filename: "harness.py" });
  const setup = ns.get("setup");
  const grade = ns.get("grade");
  setup();
  return {
    grade(call, report) {
      Atomics.store(control.interrupt, 0, 0);
      let reports = 0;
      const counted: ReportFn = (code, json) => {
        reports++;
        report(code, json);
      };
      const error = grade(call.request, call.startCode, JSON.stringify(call.forced), control.ctl, counted);
      if (error) throw new Error(String(error));
      return reports;
    },
  };
}

/** Globals a candidate must not reach even if it escaped Python into JavaScript. */
export const STRIPPED_GLOBALS = [
  "fetch", "XMLHttpRequest", "WebSocket", "WebSocketStream", "WebTransport", "EventSource", "importScripts",
  "indexedDB", "caches", "BroadcastChannel", "Worker", "SharedWorker", "postMessage", "onmessage",
  "onmessageerror", "localStorage", "sessionStorage", "open", "Request", "FileSystemHandle",
  "FileSystemDirectoryHandle", "RTCPeerConnection",
] as const;

/**
 * Replace each name with a non-configurable, non-writable `undefined` on the scope and along its
 * whole prototype chain (so `Object.getPrototypeOf(self).fetch` is gone too), and remove
 * navigator.storage. Returns the names that could not be redefined (expected: none).
 */
export function stripGlobalScope(scope: object = globalThis, names: readonly string[] = STRIPPED_GLOBALS): string[] {
  const failed: string[] = [];
  const lock = (obj: object, name: string) => {
    const own = Object.getOwnPropertyDescriptor(obj, name);
    if (own && !own.configurable) {
      if (own.value === undefined && !own.get) return;
      failed.push(name);
      return;
    }
    Object.defineProperty(obj, name, { value: undefined, writable: false, configurable: false, enumerable: false });
  };
  const chain: object[] = [];
  for (let o: object | null = scope; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) chain.push(o);
  for (const name of names) for (const obj of chain) lock(obj, name);
  // Any JS object a candidate might still reach leads to `.constructor.constructor`, i.e. Function
  // (an eval): cut that edge for every function kind, as SES-style lockdowns do. The global
  // `Function` itself stays (Pyodide's FFI uses it per call); reaching it needs globalThis, which
  // needs Function or eval first.
  const kinds = [function () {}, async function () {}, function* () {}, async function* () {}];
  for (const fn of kinds) lock(Object.getPrototypeOf(fn) as object, "constructor");
  for (const obj of chain) lock(obj, "eval");
  const nav = (scope as { navigator?: object }).navigator;
  if (nav) {
    for (let o: object | null = nav; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) lock(o, "storage");
  }
  return [...new Set(failed)];
}

/**
 * How each stripped name, `eval`, `navigator.storage` and the function-constructor edge look from
 * `scope`, as JS a candidate escaped into would see them: all "undefined" after stripGlobalScope.
 */
export function probeGlobalScope(scope: object = globalThis, names: readonly string[] = STRIPPED_GLOBALS): Record<string, string> {
  const seen: Record<string, string> = {};
  for (const name of [...names, "eval"]) seen[name] = typeof (scope as Record<string, unknown>)[name];
  const nav = (scope as { navigator?: Record<string, unknown> }).navigator;
  if (nav) seen["navigator.storage"] = typeof nav.storage;
  seen["function.constructor"] = typeof (function () {}).constructor;
  return seen;
}
