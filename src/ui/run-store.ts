/** RunStore over IndexedDB (src/storage): what the views read about stored runs. */
import type { ArenaDatabase, RunRecord } from "../storage/db.ts";
import { deleteRun, getRun, listRuns, loadDuels, loadMetrics, loadMistakeBook } from "../storage/runs.ts";
import type { RunStore, RunSummary } from "./deps.ts";
import { bundleBounds, recordLimits } from "../core/bundle-bounds.ts";
import { readableDuelRecords } from "../core/loop/record-schema.ts";

function summary(r: RunRecord): RunSummary {
  return { id: r.id, name: r.name, config: r.config, status: r.status, step: r.step, updated: r.updated, imported: r.imported !== undefined, failure: r.failure ?? null };
}

/** One lazily opened connection shared by the run store and the bundles. */
export function sharedConnection(open: () => Promise<ArenaDatabase>): () => Promise<ArenaDatabase> {
  let db: Promise<ArenaDatabase> | null = null;
  return () =>
    (db ??= open().catch((e) => {
      db = null; // let a later call retry (e.g. after the user closes a blocking tab)
      throw e;
    }));
}

export function indexedDbRunStore(conn: () => Promise<ArenaDatabase>): RunStore {
  return {
    async list() {
      return (await listRuns(await conn())).map(summary);
    },
    async load(runId) {
      const d = await conn();
      const [run, metrics, duels, mistakeBook] = await Promise.all([getRun(d, runId), loadMetrics(d, runId), loadDuels(d, runId), loadMistakeBook(d, runId)]);
      // Views get only records the app would write (the bundle's schema); the rest is named, not shown.
      const readable = readableDuelRecords(duels, recordLimits(bundleBounds(run.config, run.step), run.step));
      return { run: summary(run), metrics, duels: readable.records, mistakeBook, problems: readable.problems };
    },
    async delete(runId) {
      await deleteRun(await conn(), runId);
    },
  };
}
