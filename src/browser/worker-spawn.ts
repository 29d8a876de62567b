/**
 * Where the app's policy and grader workers are created. From a page they are plain module workers.
 * From the trainer worker they are created by the page instead, which the trainer asks over a
 * MessagePort (`useRemoteSpawner`, page side `serveSpawner`): the new worker's first message (the
 * ports it talks through) goes from the trainer to it unchanged, so nothing else differs.
 *
 * Why: Firefox (ESR 153 seen) can block a worker's thread for good when that worker creates a worker.
 * The parent thread waits, processing nothing (no message, no timer), until the main thread has
 * registered the new worker's debugger, a wait it only makes while something listens for workers in
 * that process: WebDriver BiDi always does (every puppeteer session), DevTools too. The main thread's
 * wake-up goes to one waiter of a condition variable that the new worker's own idle thread also waits
 * on, so when the new worker is idle first (under CPU load) the parent is never woken, and the new
 * worker never gets its script either (WorkerPrivate::SetIsDebuggerRegistered notifies one waiter,
 * WaitForIsDebuggerRegistered waits on the same mCondVar). A worker created by the page registers its
 * debugger on the main thread at once, with no wait. A page whose worker creates and ends two module
 * workers in a loop hangs that worker within ~20 creations under puppeteer; without automation it did
 * not hang in 2,094 creations.
 */

export type SpawnKind = "policy" | "grader";

/** The part of a Worker its creators use: end it, and hear that its script failed. */
export interface SpawnedWorker {
  terminate(): void;
  onError(listener: (message: string) => void): void;
}

type SpawnRequest =
  | { type: "spawn"; id: number; kind: SpawnKind; name: string; init: unknown; transfer: Transferable[] }
  | { type: "terminate"; id: number };
type SpawnReply = { type: "error"; id: number; message: string };

/** A module worker of `kind`, created in this realm (the URLs are literal so that Vite bundles them). */
function createLocalWorker(kind: SpawnKind, name: string): Worker {
  return kind === "policy"
    ? new Worker(new URL("../../workers/policy.worker.ts", import.meta.url), { type: "module", name })
    : new Worker(new URL("../../workers/grader.worker.ts", import.meta.url), { type: "module", name });
}

/** What a worker's error event says (a script that failed to load gives no message). */
const errorText = (e: ErrorEvent): string => e.message || "its script did not load";

let remote: { port: MessagePort; nextId: number; errors: Map<number, (message: string) => void> } | null = null;

/**
 * Start a `kind` worker named `name` and post it `init` (transferring `transfer`) as its first
 * message: through the page when `useRemoteSpawner` was called in this worker, else here.
 */
export function spawnWorker(kind: SpawnKind, name: string, init: unknown, transfer: Transferable[]): SpawnedWorker {
  if (!remote) {
    const worker = createLocalWorker(kind, name);
    worker.postMessage(init, transfer);
    return {
      terminate: () => worker.terminate(),
      onError: (listener) => worker.addEventListener("error", (e) => listener(errorText(e))),
    };
  }
  const r = remote;
  const id = r.nextId++;
  const listeners: ((message: string) => void)[] = [];
  r.errors.set(id, (message) => listeners.forEach((l) => l(message)));
  r.port.postMessage({ type: "spawn", id, kind, name, init, transfer } satisfies SpawnRequest, transfer);
  return {
    terminate: () => {
      r.errors.delete(id);
      r.port.postMessage({ type: "terminate", id } satisfies SpawnRequest);
    },
    onError: (listener) => void listeners.push(listener),
  };
}

/** In the trainer worker, before any worker is spawned: create them through the page at `port` (its `serveSpawner`). */
export function useRemoteSpawner(port: MessagePort): void {
  const errors = new Map<number, (message: string) => void>();
  remote = { port, nextId: 0, errors };
  port.onmessage = (e: MessageEvent<SpawnReply>) => {
    if (e.data?.type === "error") errors.get(e.data.id)?.(e.data.message);
  };
}

/** Page side: create the workers the trainer asks for at `port`; `close` ends them all (the trainer went). */
export function serveSpawner(port: MessagePort): { close(): void } {
  const workers = new Map<number, Worker>();
  port.onmessage = (e: MessageEvent<SpawnRequest>) => {
    const m = e.data;
    if (m?.type === "spawn") {
      const worker = createLocalWorker(m.kind, m.name);
      workers.set(m.id, worker);
      worker.addEventListener("error", (ev) =>
        port.postMessage({ type: "error", id: m.id, message: errorText(ev) } satisfies SpawnReply));
      worker.postMessage(m.init, m.transfer);
    } else if (m?.type === "terminate") {
      workers.get(m.id)?.terminate();
      workers.delete(m.id);
    }
  };
  return {
    close() {
      for (const worker of workers.values()) worker.terminate();
      workers.clear();
      port.close();
    },
  };
}
