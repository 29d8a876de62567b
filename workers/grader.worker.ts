/**
 * A grader runner in the browser: a module Web Worker with Pyodide and the harness (all logic in
 * src/core/grader/runner.js). Started by src/grader-client.ts as a judge or a sandbox, and
 * terminated at will.
 *
 * Order matters: (1) take the one MessagePort the page sends and keep it in this closure only;
 * (2) refuse to go on where code generation from strings is allowed (the worker's CSP is missing);
 * (3) strip this global scope of storage, messaging and every network API but fetch; (4) load
 * Pyodide from /pyodide/ (the last network access this worker makes); (5) strip fetch too; (6) only
 * then start the harness and answer.
 */
import { loadPyodide } from "pyodide";
import HARNESS from "../src/core/grader/harness.py?raw";
import { codeGenerationBlocked, encodeEvent, probeGlobalScope, RUNNER_ENV, startRunner, STRIPPED_GLOBALS, stripGlobalScope, type RunnerEvent, type RunnerRequest, type RunnerRole } from "../src/core/grader/runner.js";

/** Page -> worker, once. */
export interface RunnerInit {
  port: MessagePort;
  role: RunnerRole;
}

/** Worker -> page on the port: runner events (and the probe's answer, in `report`) as JSON text. */
export type RunnerPortMessage = RunnerEvent | { type: "probe"; report: string };
/** Page -> worker on the port. */
export type RunnerPortRequest = RunnerRequest | { type: "probe" };

const scope = self as unknown as DedicatedWorkerGlobalScope;
// Taken before any candidate runs (escaped JavaScript could replace them later).
const post = MessagePort.prototype.postMessage;
const { apply } = Reflect;
scope.addEventListener(
  "message",
  (event: MessageEvent<RunnerInit>) => {
    const { port, role } = event.data;
    const emit = (m: RunnerPortMessage) => apply(post, port, [encodeEvent(m as RunnerEvent)]);
    void (async () => {
      try {
        if (!codeGenerationBlocked()) {
          throw new Error("this worker may generate code from strings: its Content-Security-Policy is missing (serve the app with npm run dev/preview, or let its service worker add it)");
        }
        const loading = ["fetch", "Request", "XMLHttpRequest"]; // what loadPyodide itself may use
        const early = stripGlobalScope(scope, STRIPPED_GLOBALS.filter((name) => !loading.includes(name)));
        const pyodide = await loadPyodide({ indexURL: new URL("/pyodide/", scope.location.origin).href, env: { ...RUNNER_ENV } });
        const failed = [...early, ...stripGlobalScope(scope)];
        if (failed.length) throw new Error(`could not strip worker globals: ${failed.join(", ")}`);
        const runner = startRunner(pyodide, HARNESS, role);
        port.onmessage = (e: MessageEvent<RunnerPortRequest>) => {
          if (e.data.type === "probe") emit({ type: "probe", report: JSON.stringify(probeGlobalScope(scope)) });
          else runner.handle(e.data, emit);
        };
        emit({ type: "ready", report: runner.report });
      } catch (e) {
        emit({ type: "failed", id: -1, error: String((e as Error)?.message ?? e) });
      }
    })();
  },
  { once: true },
);
