/**
 * The grader's sandbox: a module Web Worker running Pyodide and the harness (all logic in
 * src/core/grader/sandbox.ts). Started by src/grader-client.ts, which may terminate it at any time.
 *
 * Order matters: (1) take the one MessagePort the page sends and keep it in this closure only;
 * (2) load Pyodide from /pyodide/ (the last network access this worker makes); (3) lock the
 * interpreter (harness setup) and strip this global scope of network, storage and messaging APIs;
 * (4) only then expose the API on the port, so no candidate ever runs before the lockdown.
 */
import { expose } from "comlink";
import { loadPyodide } from "pyodide";
import HARNESS from "../src/core/grader/harness.py?raw";
import { probeGlobalScope, startSandbox, stripGlobalScope, type HarnessCall, type ReportFn, type SandboxControl } from "../src/core/grader/sandbox.ts";

/** What the page's comlink proxy sees. */
export interface SandboxApi {
  /** Resolves once Pyodide is loaded and the scope is locked; rejects with the load error. */
  ready(): Promise<{ stripFailures: string[] }>;
  /** Returns the number of reports made (they travel on the callback's own port, unordered with this reply). */
  grade(call: HarnessCall, report: ReportFn): number;
  /** Typeof of each stripped global and of the Function edge, as candidate-escaped JS would see them. */
  probe(): Record<string, string>;
}

export interface SandboxInit {
  port: MessagePort;
  control: SandboxControl;
}

const scope = self as unknown as DedicatedWorkerGlobalScope;
scope.addEventListener(
  "message",
  (event: MessageEvent<SandboxInit>) => {
    const { port, control } = event.data;
    const booting = (async () => {
      const pyodide = await loadPyodide({ indexURL: new URL("/pyodide/", scope.location.origin).href });
      const runtime = startSandbox(pyodide, HARNESS, control);
      const stripFailures = stripGlobalScope(scope);
      return { runtime, stripFailures };
    })();
    const api: SandboxApi = {
      async ready() {
        return { stripFailures: (await booting).stripFailures };
      },
      grade(call, report) {
        throw new Error(`grade before ready (${typeof call}, ${typeof report})`);
      },
      probe: () => probeGlobalScope(scope),
    };
    void booting.then(({ runtime }) => {
      api.grade = (call, report) => runtime.grade(call, report);
    });
    expose(api, port);
  },
  { once: true },
);
