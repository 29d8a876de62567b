/**
 * The grader in the browser: the shared supervisor (src/core/grader/supervisor.ts) on this thread,
 * driving sandboxes in module Web Workers (workers/grader.worker.ts) over comlink. A runaway
 * candidate costs at most its time limit plus a worker restart; this thread never blocks.
 *
 *   const grader = createBrowserGrader();
 *   const result = await grader.grade(request, (p) => console.log(p.phase, p.done, p.total));
 *
 * Needs a cross-origin isolated page (SharedArrayBuffer), which vite dev/preview provide.
 */
import { proxy, releaseProxy, wrap } from "comlink";
import { SandboxDiedError, createSupervisedGrader, type SandboxHost, type SupervisedGrader, type SupervisorOptions } from "./core/grader/supervisor.ts";
import type { SandboxControl } from "./core/grader/sandbox.ts";
import type { SandboxApi, SandboxInit } from "../workers/grader.worker.ts";

export class SandboxStartError extends Error {
  override name = "SandboxStartError";
}

export function createBrowserGrader(options: SupervisorOptions = {}): SupervisedGrader {
  return createSupervisedGrader(spawnWorkerSandbox, options);
}

async function spawnWorkerSandbox(control: SandboxControl): Promise<SandboxHost> {
  const worker = new Worker(new URL("../workers/grader.worker.ts", import.meta.url), { type: "module", name: "grader-sandbox" });
  // The worker talks only through this port, never through its global postMessage (stripped).
  const channel = new MessageChannel();
  worker.postMessage({ port: channel.port2, control } satisfies SandboxInit, [channel.port2]);
  const api = wrap<SandboxApi>(channel.port1);
  let dead: Error | null = null;
  const rejecters = new Set<(e: Error) => void>();
  const die = (why: string) => {
    dead ??= new SandboxDiedError(why);
    for (const reject of rejecters) reject(dead);
    rejecters.clear();
  };
  worker.addEventListener("error", (e) => die(`grader worker failed: ${e.message}`));
  const guarded = <T>(p: Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      if (dead) return reject(dead);
      rejecters.add(reject);
      p.then(resolve, reject).finally(() => rejecters.delete(reject));
    });
  try {
    await guarded(api.ready());
  } catch (e) {
    worker.terminate();
    throw new SandboxStartError(`the grader sandbox did not start: ${(e as Error).message}. Is Pyodide served at /pyodide/ (npm run dev / preview)?`);
  }
  return {
    async grade(call, report) {
      // Reports come over the callback proxy's own port, the reply over the API's: wait for all.
      let received = 0;
      let wake: (() => void) | null = null;
      const counted = (code: number, json: string) => {
        received++;
        report(code, json);
        wake?.();
      };
      const sent = await guarded(api.grade(call, proxy(counted)));
      while (received < sent) await guarded(new Promise<void>((resolve) => (wake = resolve)));
    },
    async terminate() {
      die("grader worker terminated");
      api[releaseProxy]();
      worker.terminate();
    },
  };
}

/** Test and debugging aid: the sandbox's view of its own global scope after the lockdown. */
export async function probeSandboxScope(): Promise<Record<string, string>> {
  const control = { ctl: new Int32Array(new SharedArrayBuffer(16)), interrupt: new Int32Array(new SharedArrayBuffer(4)) };
  const worker = new Worker(new URL("../workers/grader.worker.ts", import.meta.url), { type: "module", name: "grader-probe" });
  const channel = new MessageChannel();
  worker.postMessage({ port: channel.port2, control } satisfies SandboxInit, [channel.port2]);
  const api = wrap<SandboxApi>(channel.port1);
  try {
    await api.ready();
    return await api.probe();
  } finally {
    worker.terminate();
  }
}
