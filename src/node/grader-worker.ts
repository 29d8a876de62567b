/**
 * worker_threads side of the Node grader: loads Pyodide, starts the sandbox, then grades what the
 * parent sends. Thin on purpose: the logic lives in src/core/grader/sandbox.ts.
 * Protocol (parent <-> worker): see WorkerMessage / ParentMessage in grader.ts.
 */
import { parentPort } from "node:worker_threads";
import { loadPyodide } from "pyodide";
import { STRIPPED_GLOBALS, startSandbox, stripGlobalScope, type HarnessCall, type SandboxRuntime } from "../core/grader/sandbox.ts";
import type { ParentMessage, WorkerMessage } from "./grader.ts";

const port = parentPort;
if (!port) throw new Error("grader-worker.ts must run in a worker_threads Worker");
const send = (m: WorkerMessage) => port.postMessage(m);
const errorOf = (e: unknown) => {
  const err = e instanceof Error ? e : new Error(String(e));
  return { name: err.name, message: err.message, stack: err.stack ?? "" };
};

let runtime: SandboxRuntime | null = null;
port.on("message", async (m: ParentMessage) => {
  try {
    if (m.type === "init") {
      const pyodide = await loadPyodide();
      runtime = startSandbox(pyodide, m.harness, { ctl: m.ctl, interrupt: m.interrupt });
      // Node's `process` reaches the file system and child processes: gone too, once Pyodide is up.
      const failed = stripGlobalScope(globalThis, [...STRIPPED_GLOBALS, "process"]);
      if (failed.length) throw new Error(`could not strip worker globals: ${failed.join(", ")}`);
      send({ type: "ready" });
    } else if (m.type === "grade") {
      if (!runtime) throw new Error("grade before init");
      const call: HarnessCall = m.call;
      runtime.grade(call, (code, json) => send({ type: "report", code, json }));
      send({ type: "done" });
    }
  } catch (e) {
    send({ type: "error", error: errorOf(e) });
  }
});
