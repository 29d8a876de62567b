/**
 * The grader in the browser: the shared supervisor (src/core/grader/supervisor.ts) on this thread,
 * driving runners in module Web Workers (workers/grader.worker.ts): one judge, one sandbox and a
 * warm spare. A runaway candidate costs at most its time limit plus a worker hand-over; this
 * thread never blocks.
 *
 *   const grader = createBrowserGrader();
 *   const result = await grader.grade(request, (p) => console.log(p.phase, p.done, p.total));
 */
import { createSupervisedGrader, type RunnerHost, type SpawnRunner, type SupervisedGrader, type SupervisorOptions } from "../core/grader/supervisor.ts";
import { version as pyodideVersion } from "pyodide";
import { BASE_SNAPSHOT_RECIPE, RUNNER_ENV } from "../core/grader/runner.js";
import type { RunnerInit, RunnerPortMessage, RunnerPortRequest } from "./grader-worker.ts";
import type { AreniseTools } from "../core/arena/importers/arenise-sandbox.ts";
import type { Mutant, Normalised } from "../core/arena/importers/arenise.ts";
import { spawnWorker, type SpawnedWorker } from "./worker-spawn.ts";

export class SandboxStartError extends Error {
  override name = "SandboxStartError";
}

export interface BrowserGraderOptions extends SupervisorOptions {
  /**
   * Where the runners load Pyodide from: a path on the app's origin (default `/pyodide/`). A
   * debugging option (`?debug_pyodide=/elsewhere/`): a deployment whose Pyodide is missing or
   * never arrives fails this way.
   */
  pyodidePath?: string;
}

export function createBrowserGrader(options: BrowserGraderOptions = {}): SupervisedGrader {
  const { pyodidePath, ...supervisor } = options;
  return createSupervisedGrader(spawnWorkerRunner(pyodidePath), supervisor);
}

function startWorker(role: RunnerInit["role"], pyodidePath?: string, snapshot?: Uint8Array): { worker: SpawnedWorker; port: MessagePort } {
  // The worker talks only through this port, never through its global postMessage (stripped); in the
  // trainer worker the page creates it (worker-spawn.ts says why). A snapshot is copied, not moved:
  // the next start takes it too.
  const channel = new MessageChannel();
  const worker = spawnWorker("grader", `grader-${role}`, { port: channel.port2, role, pyodidePath, snapshot } satisfies RunnerInit, [channel.port2]);
  return { worker, port: channel.port1 };
}

/**
 * The base snapshot (runner.js `makeBaseSnapshot`: a fresh interpreter's memory, before any harness
 * or program): every runner of this realm loads Python's start from it, a fraction of a second where
 * a start from scratch takes seconds (a restart after a kill too). Made once by a worker in the
 * `snapshot` role and kept in Cache Storage for the next visit, keyed by Pyodide's version, the
 * runners' environment and the recipe. Where it cannot be had, runners start from scratch, as before.
 */
const SNAPSHOT_CACHE = "code-a1-base-snapshot";
const SNAPSHOT_MAKE_MS = 120_000;
let baseSnapshot: Promise<Uint8Array | undefined> | undefined;

const snapshotKey = (pyodidePath?: string) =>
  new URL(`base-${pyodideVersion}-${RUNNER_ENV.PYTHONHASHSEED}-${BASE_SNAPSHOT_RECIPE}.snapshot`, new URL(pyodidePath ?? "/pyodide/", self.location.origin)).href;

async function snapshotCache(): Promise<Cache | undefined> {
  return typeof caches === "undefined" ? undefined : caches.open(SNAPSHOT_CACHE).catch(() => undefined);
}

function makeSnapshot(pyodidePath?: string): Promise<Uint8Array> {
  return new Promise<Uint8Array>((resolve, reject) => {
    const { worker, port } = startWorker("snapshot", pyodidePath);
    const end = (error?: string, bytes?: Uint8Array) => {
      clearTimeout(timer);
      worker.terminate();
      port.close();
      if (bytes) resolve(bytes);
      else reject(new Error(error));
    };
    const timer = setTimeout(() => end(`no snapshot within ${SNAPSHOT_MAKE_MS / 1000} s`), SNAPSHOT_MAKE_MS);
    worker.onError((message) => end(message));
    port.onmessage = (e: MessageEvent<Uint8Array | string>) => {
      if (e.data instanceof Uint8Array) return end(undefined, e.data);
      const m = (() => { try { return JSON.parse(String(e.data)) as { error?: string }; } catch { return {}; } })();
      end(m.error ?? "the snapshot worker broke its protocol");
    };
  });
}

function getBaseSnapshot(pyodidePath?: string): Promise<Uint8Array | undefined> {
  baseSnapshot ??= (async () => {
    const key = snapshotKey(pyodidePath);
    const cache = await snapshotCache();
    const hit = await cache?.match(key).catch(() => undefined);
    if (hit) return new Uint8Array(await hit.arrayBuffer());
    const bytes = await makeSnapshot(pyodidePath);
    baseSnapshotStats.made++;
    // Kept for the next visit (older keys go): best effort, a full quota only costs that visit a start.
    void (async () => {
      for (const old of (await cache?.keys()) ?? []) if (old.url !== key) await cache?.delete(old);
      await cache?.put(key, new Response(bytes.slice()));
    })().catch(() => undefined);
    return bytes;
  })().catch(() => undefined);
  return baseSnapshot;
}

/** A snapshot a runner could not load (another build, a damaged entry): dropped, made again next time. */
function dropBaseSnapshot(pyodidePath?: string): void {
  baseSnapshot = undefined;
  void snapshotCache().then((cache) => cache?.delete(snapshotKey(pyodidePath))).catch(() => undefined);
}

/** This realm's base snapshots made, and its runners started from one or from scratch (tests read it). */
export const baseSnapshotStats = { made: 0, loaded: 0, fresh: 0 };

const spawnWorkerRunner = (pyodidePath?: string): SpawnRunner => async (role, onEvent, onExit, signal) => {
  const snapshot = await Promise.race([
    getBaseSnapshot(pyodidePath),
    new Promise<undefined>((resolve) => signal?.addEventListener("abort", () => resolve(undefined), { once: true })),
  ]);
  return new Promise<RunnerHost>((resolve, reject) => {
    const { worker, port } = startWorker(role, pyodidePath, snapshot);
    let ready = false;
    let exited = false;
    const exit = (why: string) => {
      if (exited) return;
      exited = true;
      worker.terminate();
      port.close();
      const where = pyodidePath ?? "/pyodide/";
      if (!ready) reject(new SandboxStartError(`the grader ${role} did not start: ${why}. Is Pyodide served at ${where} (npm run dev / preview, or dist/ on a static host)?`));
      onExit(why);
    };
    // A start the supervisor gave up on (it hangs): the worker goes.
    signal?.addEventListener("abort", () => exit("its start was given up"), { once: true });
    worker.onError((message) => exit(`grader worker failed: ${message}`));
    port.onmessage = (e: MessageEvent<string>) => {
      let m: RunnerPortMessage;
      try {
        m = JSON.parse(e.data) as RunnerPortMessage;
      } catch {
        return exit("the grader worker broke its protocol"); // not trusted any more
      }
      if (!m || typeof m !== "object") return exit("the grader worker broke its protocol");
      if (m.type === "ready") {
        ready = true;
        baseSnapshotStats[m.start === "snapshot" ? "loaded" : "fresh"]++;
        if (snapshot && m.start !== "snapshot") dropBaseSnapshot(pyodidePath);
        resolve({
          send: (request) => port.postMessage(request satisfies RunnerPortRequest),
          terminate: async () => exit("grader worker terminated"),
        });
      } else if (m.type === "failed" && !ready) exit(m.error);
      else if (m.type !== "probe" && m.type !== "tool") onEvent(m);
    };
    if (signal?.aborted) exit("its start was given up");
  });
};

/** Test and debugging aid: a sandbox worker's view of its own global scope after the lockdown. */
export async function probeSandboxScope(): Promise<Record<string, string>> {
  const { worker, port } = startWorker("sandbox");
  try {
    return await new Promise<Record<string, string>>((resolve, reject) => {
      port.onmessage = (e: MessageEvent<string>) => {
        const m = JSON.parse(e.data) as RunnerPortMessage;
        if (m.type === "ready") port.postMessage({ type: "probe" } satisfies RunnerPortRequest);
        else if (m.type === "probe") resolve(JSON.parse(m.report) as Record<string, string>);
        else if (m.type === "failed") reject(new Error(m.error));
      };
    });
  } finally {
    worker.terminate();
  }
}

/** A call to the tools worker that takes longer than this ends it (a fresh one takes the next call). */
const TOOL_TIMEOUT_MS = 60_000;

/**
 * arenise.py's parsing for the browser's import (src/core/arena/importers/arenise-sandbox.ts AreniseTools):
 * a grader worker in the `tools` role, locked down like every runner (no network, storage or
 * messaging but its port), that parses references and never runs them. One call at a time; a call
 * that fails or times out ends the worker.
 */
export function createBrowserAreniseTools(): AreniseTools & { close(): void } {
  let live: Promise<{ worker: SpawnedWorker; port: MessagePort }> | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  let nextId = 1;
  const stop = () => {
    const was = live;
    live = null;
    void was?.then(({ worker, port }) => { worker.terminate(); port.close(); }, () => undefined);
  };
  const start = () =>
    new Promise<{ worker: SpawnedWorker; port: MessagePort }>((resolve, reject) => {
      const { worker, port } = startWorker("tools");
      worker.onError((message) => reject(new SandboxStartError(`the import's parser did not start: ${message}`)));
      port.onmessage = (e: MessageEvent<string>) => {
        const m = JSON.parse(e.data) as RunnerPortMessage;
        if (m.type === "ready") resolve({ worker, port });
        else if (m.type === "failed") reject(new SandboxStartError(`the import's parser did not start: ${m.error}`));
      };
    });
  const call = (fn: "normalise" | "variants", args: unknown[]): Promise<string> => {
    const next = queue.then(async () => {
      live ??= start();
      const { port } = await live.catch((e: unknown) => { live = null; throw e; });
      const id = nextId++;
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => { stop(); reject(new Error(`parsing took over ${TOOL_TIMEOUT_MS / 1000} s`)); }, TOOL_TIMEOUT_MS);
        port.onmessage = (e: MessageEvent<string>) => {
          const m = JSON.parse(e.data) as RunnerPortMessage;
          if (!("id" in m) || m.id !== id) return;
          clearTimeout(timer);
          if (m.type === "tool") resolve(m.result);
          else {
            stop();
            reject(new Error(m.type === "failed" ? m.error : "the parser broke its protocol"));
          }
        };
        port.postMessage({ type: "tool", id, fn, args: JSON.stringify(args) } satisfies RunnerPortRequest);
      });
    });
    queue = next.catch(() => undefined);
    return next;
  };
  return {
    normalise: async (src, entry, types) => JSON.parse(await call("normalise", [src, entry, types])) as Normalised,
    variants: async (src, returns) => JSON.parse(await call("variants", [src, returns])) as Mutant[],
    close: stop,
  };
}
