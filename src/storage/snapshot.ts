/**
 * Between IndexedDB and run bundles: read a whole run as a RunSnapshot (for export), and store an
 * imported snapshot as a NEW run, never overwriting one (a taken id gets a suffix).
 */
import { taskSetHash, type RunSnapshot } from "../core/bundle.ts";
import { importedSetName } from "./task-sets.ts";
import type { ArenaDatabase, RunRecord } from "./db.ts";
import { RunNotFoundError, StorageRoomError } from "./errors.ts";
import { freeRunId, loadDuels, loadMetrics, loadMistakeBook, runRange } from "./runs.ts";
import { Requests, inTransaction } from "./transaction.ts";

/** Everything of a stored run. */
export async function snapshotRun(db: ArenaDatabase, runId: string): Promise<RunSnapshot> {
  const record = await db.get("runs", runId);
  if (!record) throw new RunNotFoundError(runId);
  const { config, imported: _imported, failure: _failure, ...run } = record;
  const checkpoints = (await db.getAll("checkpoints", runRange(runId))).map((c) => ({
    step: c.step,
    kept: c.kept,
    policies: Object.fromEntries(Object.entries(c.policies).map(([k, b]) => [k, new Uint8Array(b)])),
    mistake_book: c.mistake_book,
    rng_state: c.rng_state,
    loop_state: c.loop_state,
  }));
  const duels = (await loadDuels(db, runId)).map((d) => ({ step: d.step, records: d.records }));
  // A run on a stored (imported) task set carries the set, so the bundle re-runs anywhere.
  const taskSet = await db.get("task_sets", run.task_set_hash);
  return {
    run, config, metrics: await loadMetrics(db, runId), mistake_book: await loadMistakeBook(db, runId), checkpoints, duels,
    ...(taskSet ? { task_set: taskSet.file } : {}),
  };
}

/** About how many bytes storing a snapshot takes (weights plus its records as JSON), for the quota check. */
export function storedBytes(s: RunSnapshot): number {
  const weights = s.checkpoints.reduce((a, c) => a + Object.values(c.policies).reduce((b, w) => b + w.length, 0), 0);
  const books = s.checkpoints.reduce((a, c) => a + JSON.stringify(c.mistake_book).length, 0);
  return weights + books + JSON.stringify([s.metrics, s.mistake_book, s.duels, s.task_set ?? null]).length;
}

/**
 * Refuse before writing when the browser's estimate leaves less room than `needed` (plus a margin:
 * IndexedDB stores records larger than their JSON). `estimate` is navigator.storage.estimate, absent
 * where the browser has none (then the write itself reports a full disk: StorageQuotaError).
 */
export async function checkRoom(estimate: (() => Promise<StorageEstimate>) | undefined, needed: number, what: string): Promise<void> {
  if (!estimate) return;
  const { quota, usage } = await estimate();
  if (quota === undefined || usage === undefined) return;
  const free = Math.max(0, quota - usage);
  if (needed * 1.5 > free) throw new StorageRoomError(what, needed, free);
}

/** Own copy of the bytes (a bundle's entries may be views into one large buffer). */
const ownBuffer = (b: Uint8Array): ArrayBuffer => b.slice().buffer as ArrayBuffer;

/**
 * Store an imported run in one transaction. Returns the stored record; its id is the bundle's, or a
 * free variant of it when that id is taken. Imported runs are stored "paused", marked `imported`,
 * and their times clamped to the import time: a file's clock (year 2286) never sorts it first.
 */
export async function storeSnapshot(db: ArenaDatabase, s: RunSnapshot, now = Date.now()): Promise<RunRecord> {
  // A bundled set is also kept under the hash of its task list (what a new run on it records), and
  // the run's config names it, so a re-run trains on the bundled set.
  const setHash = s.task_set ? await taskSetHash(s.task_set.tasks) : null;
  const config = setHash ? { ...s.config, task_set: importedSetName(setHash) } : s.config;
  return inTransaction(db, ["runs", "metrics", "checkpoints", "mistakes", "duels", "task_sets"], "importing a run", async (tx) => {
    const id = await freeRunId(tx, s.run.id);
    const updated = Math.min(s.run.updated, now);
    const record: RunRecord = { ...s.run, id, config, status: s.run.status === "running" ? "paused" : s.run.status, created: Math.min(s.run.created, updated), updated, imported: now };
    const ops = new Requests();
    ops.add(tx.objectStore("runs").add(record));
    for (const m of s.metrics) ops.add(tx.objectStore("metrics").add({ run: id, step: m.step, metrics: m }));
    for (const [task, entries] of Object.entries(s.mistake_book.tasks)) {
      for (const e of entries) ops.add(tx.objectStore("mistakes").add({ ...e, run: id, task }));
    }
    for (const d of s.duels) ops.add(tx.objectStore("duels").add({ run: id, step: d.step, records: d.records }));
    for (const c of s.checkpoints) {
      const policies = Object.fromEntries(Object.entries(c.policies).map(([k, b]) => [k, ownBuffer(b)]));
      ops.add(tx.objectStore("checkpoints").add({ ...c, run: id, policies }));
    }
    // The bundled task set (checked against task_set_hash by importBundle), kept once per hash.
    for (const hash of new Set(s.task_set ? [s.run.task_set_hash, setHash!] : [])) {
      if (!(await tx.objectStore("task_sets").get(hash))) {
        ops.add(tx.objectStore("task_sets").put({ hash, name: s.task_set!.name, file: s.task_set!, report: [], stored: Date.now() }));
      }
    }
    await ops.all();
    return record;
  });
}
