/**
 * The grader in Node: the shared supervisor (src/core/grader/supervisor.ts) driving Pyodide
 * sandboxes in worker_threads workers, with the same harness as the browser.
 *
 *   const grader = await createNodeGrader();
 *   const result = await grader.grade({ tasks, codes, suites, golden, limits });
 *   await grader.close();
 */
import { readFileSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { SandboxDiedError, createSupervisedGrader, type SupervisedGrader, type SupervisorOptions } from "../core/grader/supervisor.ts";
import type { HarnessCall, SandboxControl } from "../core/grader/sandbox.ts";

/** Parent -> worker. */
export type ParentMessage =
  | { type: "init"; harness: string; ctl: Int32Array; interrupt: Int32Array }
  | { type: "grade"; call: HarnessCall };

/** Worker -> parent. Errors cross as {name, message, stack}. */
export type WorkerMessage =
  | { type: "ready" }
  | { type: "report"; code: number; json: string }
  | { type: "done" }
  | { type: "error"; error: { name: string; message: string; stack: string } };

export const HARNESS_PATH = new URL("../core/grader/harness.py", import.meta.url);
const WORKER_ENTRY = new URL("./grader-worker-boot.mjs", import.meta.url);

/** The harness source (src/core/grader/harness.py), read once. */
export function harnessSource(): string {
  return readFileSync(HARNESS_PATH, "utf8");
}

export type NodeGraderOptions = SupervisorOptions;

/** Start a Node grader; the first sandbox (Pyodide in a worker thread) is started right away. */
export async function createNodeGrader(options: NodeGraderOptions = {}): Promise<SupervisedGrader> {
  const harness = harnessSource();
  const grader = createSupervisedGrader((control) => spawnNodeSandbox(harness, control), options);
  // Warm up: a tiny batch starts Pyodide now instead of on the first real call.
  await grader.grade({ tasks: [], codes: [] });
  return grader;
}

function spawnNodeSandbox(harness: string, control: SandboxControl) {
  return new Promise<import("../core/grader/supervisor.ts").SandboxHost>((resolve, reject) => {
    const worker = new Worker(WORKER_ENTRY, { stdout: true, stderr: true });
    // Python's own output never reaches here (the harness discards it); Pyodide's loader may print.
    worker.stdout.resume();
    worker.stderr.resume();
    let pending: { resolve: () => void; reject: (e: Error) => void; report: (c: number, j: string) => void } | null = null;
    let dead: Error | null = null;
    const die = (why: string) => {
      dead ??= new SandboxDiedError(why);
      pending?.reject(dead);
      pending = null;
    };
    worker.on("error", (e) => {
      die(`grader worker failed: ${e.message}`);
      reject(dead);
    });
    worker.on("exit", (code) => {
      die(`grader worker exited (code ${code})`);
      reject(dead);
    });
    worker.on("message", (m: WorkerMessage) => {
      if (m.type === "ready") {
        resolve({
          grade(call, report) {
            if (dead) return Promise.reject(dead);
            return new Promise<void>((res, rej) => {
              pending = { resolve: res, reject: rej, report };
              worker.postMessage({ type: "grade", call } satisfies ParentMessage);
            });
          },
          async terminate() {
            die("grader worker terminated");
            await worker.terminate();
          },
        });
      } else if (m.type === "report") {
        pending?.report(m.code, m.json);
      } else if (m.type === "done") {
        pending?.resolve();
        pending = null;
      } else if (m.type === "error") {
        const err = Object.assign(new Error(m.error.message), { name: m.error.name, stack: m.error.stack });
        if (pending) {
          pending.reject(err);
          pending = null;
        } else {
          reject(err);
          void worker.terminate();
        }
      }
    });
    worker.postMessage({ type: "init", harness, ctl: control.ctl, interrupt: control.interrupt } satisfies ParentMessage);
  });
}
