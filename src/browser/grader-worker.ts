/**
 * What a grader runner's module Web Worker (workers/grader.worker.ts) serves: Pyodide and the harness
 * (all logic in src/core/grader/runner.js). Started by src/browser/grader-client.ts as a judge or a
 * sandbox, and terminated at will. A third role, `tools`, runs the import's trusted parsing (arenise.py's
 * `normalise` and `variants` over a reference's TEXT, passed as a Python string, never run) under the
 * same global-scope lockdown, without the harness: no program it is given ever executes. A runner
 * loads Python's start from the base snapshot the client passes, or starts from scratch and, where
 * asked (`makeSnapshot`), posts the base snapshot of that start (runner.js `takeBaseSnapshot`: a
 * fresh interpreter's memory, before any harness or program) for the runners after it.
 *
 * Order matters: (1) take the one MessagePort the page sends and keep it in this closure only;
 * (2) refuse to go on where code generation from strings is allowed (the worker's CSP is missing);
 * (3) strip this global scope of storage, messaging and every network API but fetch; (4) load
 * Pyodide from /pyodide/ (the last network access this worker makes; Python's start from the base
 * snapshot where one is given); (5) strip fetch too; (6) only then start the harness and answer.
 */
import { loadPyodide } from "pyodide";
import HARNESS from "../core/grader/harness.py?raw";
import ARENISE_PY from "../core/arena/importers/arenise.py?raw";
import MUTATE_PY from "../core/arena/mutate.py?raw";
import { codeGenerationBlocked, encodeEvent, loadRunnerPyodide, probeGlobalScope, startRunner, STRIPPED_GLOBALS, stripGlobalScope, type RunnerEvent, type RunnerRequest, type RunnerRole } from "../core/grader/runner.js";

/** Page -> worker, once. */
export interface RunnerInit {
  port: MessagePort;
  role: RunnerRole | "tools";
  /** Where Pyodide is served on this origin (default /pyodide/; src/browser/grader-client.ts). */
  pyodidePath?: string;
  /** The base snapshot to load Python's start from (a runner that cannot starts from scratch). */
  snapshot?: Uint8Array;
  /** Started from scratch, post the base snapshot of this start (its bytes) before going on. */
  makeSnapshot?: boolean;
}

/**
 * Worker -> page on the port: runner events (and the probe's answer, in `report`) as JSON text; with
 * `makeSnapshot`, first the base snapshot's bytes.
 */
export type RunnerPortMessage = RunnerEvent | { type: "probe"; report: string } | { type: "tool"; id: number; result: string };
/** Page -> worker on the port. `tool`: one of arenise.py's parsing functions on JSON arguments. */
export type RunnerPortRequest = RunnerRequest | { type: "probe" } | { type: "tool"; id: number; fn: "normalise" | "variants"; args: string };

/** The tools role's Python: arenise.py (with mutate.py) and a JSON entry point to its two parsers. */
const TOOLS_PY = `${MUTATE_PY}\n${ARENISE_PY}\nimport json as _json\n_TOOLS = {"normalise": normalise, "variants": variants}\ndef _tool(fn, args):\n    return _json.dumps(_TOOLS[fn](*_json.loads(args)))\n`;

/**
 * Serve this worker as a grader runner: call once, first thing in the worker's script, before any
 * message arrives (the postMessage it answers with is taken here, before any candidate runs:
 * escaped JavaScript could replace it later).
 */
export function serveGraderRunner(): void {
  const scope = self as unknown as DedicatedWorkerGlobalScope;
  const post = MessagePort.prototype.postMessage;
  const { apply } = Reflect;
  scope.addEventListener(
    "message",
    (event: MessageEvent<RunnerInit>) => {
      const { port, role, pyodidePath, snapshot, makeSnapshot } = event.data;
      const emit = (m: RunnerPortMessage) => apply(post, port, [encodeEvent(m as RunnerEvent)]);
      void (async () => {
        try {
          if (!codeGenerationBlocked()) {
            throw new Error("this worker may generate code from strings: its Content-Security-Policy is missing (serve the app with npm run dev/preview, or let its service worker add it)");
          }
          const loading = ["fetch", "Request", "XMLHttpRequest"]; // what loadPyodide itself may use
          const early = stripGlobalScope(scope, STRIPPED_GLOBALS.filter((name) => !loading.includes(name)));
          const indexURL = new URL(pyodidePath ?? "/pyodide/", scope.location.origin);
          // Only ever this origin's files: the interpreter that runs candidates is never someone else's.
          if (indexURL.origin !== scope.location.origin) throw new Error(`Pyodide must come from this app's origin, not ${indexURL.origin}`);
          // A snapshot is taken before the harness or any program exists: a fresh interpreter's bytes.
          const onSnapshot = makeSnapshot ? (bytes: Uint8Array) => apply(post, port, [bytes, [bytes.buffer]]) : undefined;
          const { pyodide, start } = await loadRunnerPyodide(loadPyodide, { indexURL: indexURL.href }, snapshot, onSnapshot);
          const failed = [...early, ...stripGlobalScope(scope)];
          if (failed.length) throw new Error(`could not strip worker globals: ${failed.join(", ")}`);
          if (role === "tools") {
            const ns = pyodide.toPy({}) as unknown as { get(name: string): (fn: string, args: string) => string };
            pyodide.runPython(TOOLS_PY, { globals: ns as never, filename: "arenise.py" });
            const tool = ns.get("_tool");
            port.onmessage = (e: MessageEvent<RunnerPortRequest>) => {
              const m = e.data;
              if (m.type !== "tool") return;
              try {
                emit({ type: "tool", id: m.id, result: tool(m.fn, m.args) });
              } catch (err) {
                emit({ type: "failed", id: m.id, error: String((err as Error)?.message ?? err).slice(-300) });
              }
            };
            emit({ type: "ready", report: "tools", start });
            return;
          }
          const runner = startRunner(pyodide, HARNESS, role);
          port.onmessage = (e: MessageEvent<RunnerPortRequest>) => {
            if (e.data.type === "probe") emit({ type: "probe", report: JSON.stringify(probeGlobalScope(scope)) });
            else if (e.data.type !== "tool") runner.handle(e.data, emit);
          };
          emit({ type: "ready", report: runner.report, start });
        } catch (e) {
          emit({ type: "failed", id: -1, error: String((e as Error)?.message ?? e) });
        }
      })();
    },
    { once: true },
  );
}
