/**
 * Importing an `.a1run` from a stranger, off the page's thread: the bundle worker
 * (workers/bundle.worker.ts) runs importRunFile, so inflating, hashing, checking every record and
 * storing never block the page; the page shows its progress and Cancel terminates the worker
 * (IndexedDB aborts the unfinished transaction: nothing is stored).
 */
import * as Comlink from "comlink";
import { checkBundleSize, importBundle, type ImportProgress } from "../core/bundle.ts";
import { openArenaDb } from "../storage/db.ts";
import { checkRoom, storedBytes, storeSnapshot } from "../storage/snapshot.ts";

export type { ImportProgress };

/** What the bundle worker exposes. */
export interface RunImporter {
  /** Check and store the file's run; resolves with its new id. */
  importFile(file: Blob, onProgress: (p: ImportProgress) => void): Promise<string>;
}

/** The worker side: read, check in depth, check the room left, store in one transaction. */
export async function importRunFile(file: Blob, report: (p: ImportProgress) => void): Promise<string> {
  const onProgress = throttled(report);
  checkBundleSize(file.size);
  onProgress({ phase: "read", done: 0, total: file.size, text: "reading the file" });
  const snapshot = await importBundle(new Uint8Array(await file.arrayBuffer()), { onProgress });
  const needed = storedBytes(snapshot);
  await checkRoom(navigator.storage?.estimate ? () => navigator.storage.estimate() : undefined, needed, "this run");
  onProgress({ phase: "store", done: 0, total: 1, text: "storing the run" });
  const db = await openArenaDb();
  try {
    return (await storeSnapshot(db, snapshot)).id;
  } finally {
    db.close();
  }
}

/** Progress is sent to the page at most every PROGRESS_MS (and at each new phase): each message re-renders a view there. */
const PROGRESS_MS = 100;
function throttled(report: (p: ImportProgress) => void): (p: ImportProgress) => void {
  let last = -Infinity;
  let phase = "";
  return (p) => {
    const now = performance.now();
    if (p.phase === phase && now - last < PROGRESS_MS) return;
    [last, phase] = [now, p.phase];
    report(p);
  };
}

/** The page side: one worker per import, ended when it settles or when `signal` aborts (Cancel). */
export async function importInWorker(makeWorker: () => Worker, file: Blob, onProgress: (p: ImportProgress) => void, signal?: AbortSignal): Promise<string> {
  signal?.throwIfAborted();
  const worker = makeWorker();
  const remote = Comlink.wrap<RunImporter>(worker);
  // Messages already posted by the worker are still delivered after it ends: none reaches the page once this settles.
  let settled = false;
  const report = (p: ImportProgress) => void (settled || signal?.aborted || onProgress(p));
  try {
    return await new Promise<string>((resolve, reject) => {
      const onAbort = () => reject(new Error("Import cancelled; nothing was stored."));
      signal?.addEventListener("abort", onAbort, { once: true });
      worker.addEventListener("error", (e) => reject(new Error(`the import worker failed: ${e.message || "it ran out of memory or could not start"}; nothing was stored.`)));
      remote.importFile(file, Comlink.proxy(report)).then(resolve, reject);
    });
  } finally {
    settled = true;
    worker.terminate();
  }
}
