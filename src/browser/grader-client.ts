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
import { BASE_SNAPSHOT_RECIPE, RUNNER_ENV, type RunnerRole } from "../core/grader/runner.js";
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

function startWorker(role: RunnerInit["role"], pyodidePath?: string, start?: Snapshot): { worker: SpawnedWorker; port: MessagePort } {
  // The worker talks only through this port, never through its global postMessage (stripped); in the
  // trainer worker the page creates it (worker-spawn.ts says why). A snapshot is copied, not moved:
  // the next start takes it too.
  const channel = new MessageChannel();
  const init: RunnerInit = { port: channel.port2, role, pyodidePath, snapshot: start?.bytes, makeSnapshot: start?.make };
  const worker = spawnWorker("grader", `grader-${role}`, init, [channel.port2]);
  return { worker, port: channel.port1 };
}

/**
 * The base snapshot (runner.js `takeBaseSnapshot`: a fresh interpreter's memory, before any harness
 * or program): the runners of this realm load Python's start from it, a fraction of a second where a
 * start from scratch takes seconds (a restart after a kill too). Where there is none yet, the judge's
 * start (no candidate ever runs there) posts the snapshot of its own start: no extra Pyodide start,
 * and the sandbox after it already loads from it. Kept in Cache Storage for the next visit, keyed by
 * Pyodide's version, the runners' environment and the recipe; where it cannot be had, runners start
 * from scratch, as before.
 */
type Snapshot = { bytes?: Uint8Array; make?: boolean };
const SNAPSHOT_CACHE = "code-a1-base-snapshot";
const snapshot: { bytes?: Uint8Array; looked?: Promise<void>; making: boolean } = { making: false };

const snapshotKey = (pyodidePath?: string) =>
  new URL(`base-${pyodideVersion}-${RUNNER_ENV.PYTHONHASHSEED}-${BASE_SNAPSHOT_RECIPE}.snapshot`, new URL(pyodidePath ?? "/pyodide/", self.location.origin)).href;

const snapshotCache = (): Promise<Cache | undefined> =>
  typeof caches === "undefined" ? Promise.resolve(undefined) : caches.open(SNAPSHOT_CACHE).catch(() => undefined);

/** What a `role` runner starts with: the snapshot, or the task of making it, or neither. */
async function snapshotFor(role: RunnerRole, pyodidePath?: string): Promise<Snapshot> {
  snapshot.looked ??= (async () => {
    const hit = await (await snapshotCache())?.match(snapshotKey(pyodidePath));
    if (hit) snapshot.bytes ??= new Uint8Array(await hit.arrayBuffer());
  })().catch(() => undefined);
  await snapshot.looked;
  if (snapshot.bytes) return { bytes: snapshot.bytes };
  if (role !== "judge" || snapshot.making) return {};
  snapshot.making = true;
  return { make: true };
}

/** A judge's snapshot arrived: used from now on, and kept for the next visit (older keys go; best effort). */
function keepSnapshot(bytes: Uint8Array, pyodidePath?: string): void {
  snapshot.bytes = bytes;
  snapshot.making = false;
  baseSnapshotStats.made++;
  const key = snapshotKey(pyodidePath);
  void (async () => {
    const cache = await snapshotCache();
    for (const old of (await cache?.keys()) ?? []) if (old.url !== key) await cache?.delete(old);
    await cache?.put(key, new Response(bytes.slice()));
  })().catch(() => undefined);
}

/** A snapshot a runner could not load (another build, a damaged entry): dropped, made again. */
function dropSnapshot(pyodidePath?: string): void {
  snapshot.bytes = undefined;
  void snapshotCache().then((cache) => cache?.delete(snapshotKey(pyodidePath))).catch(() => undefined);
}

/** This realm's base snapshots made, and its runners started from one or from scratch (tests read it). */
export const baseSnapshotStats = { made: 0, loaded: 0, fresh: 0 };

const spawnWorkerRunner = (pyodidePath?: string): SpawnRunner => async (role, onEvent, onExit, signal) => {
  const start = await Promise.race([
    snapshotFor(role, pyodidePath),
    new Promise<Snapshot>((resolve) => signal?.addEventListener("abort", () => resolve({}), { once: true })),
  ]);
  return new Promise<RunnerHost>((resolve, reject) => {
    const { worker, port } = startWorker(role, pyodidePath, start);
    let ready = false;
    let exited = false;
    const exit = (why: string) => {
      if (exited) return;
      exited = true;
      if (start.make && !snapshot.bytes) snapshot.making = false; // the next judge's start makes it
      worker.terminate();
      port.close();
      const where = pyodidePath ?? "/pyodide/";
      if (!ready) reject(new SandboxStartError(`the grader ${role} did not start: ${why}. Is Pyodide served at ${where} (npm run dev / preview, or dist/ on a static host)?`));
      onExit(why);
    };
    // A start the supervisor gave up on (it hangs): the worker goes.
    signal?.addEventListener("abort", () => exit("its start was given up"), { once: true });
    worker.onError((message) => exit(`grader worker failed: ${message}`));
    port.onmessage = (e: MessageEvent<string | Uint8Array>) => {
      if (e.data instanceof Uint8Array) {
        if (start.make && !ready) keepSnapshot(e.data, pyodidePath);
        else exit("the grader worker broke its protocol");
        return;
      }
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
        if (start.bytes && m.start !== "snapshot") dropSnapshot(pyodidePath);
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
