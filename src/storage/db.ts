/**
 * The IndexedDB database of Code-A1 Arena, typed once with idb's DBSchema, opened through versioned
 * migrations. Each migration only adds stores or indexes, so upgrading never loses stored runs.
 *
 * Stores (keys in brackets):
 * - runs [id]: config, status, timestamps, last complete step, RNG state.
 * - metrics [run, step]: StepMetrics of each complete step (version 4: with the later evaluation keys, null before).
 * - checkpoints [run, step]: both policies' weights (ArrayBuffers) plus the Mistake Book and RNG
 *   state at that step: everything needed to resume from it.
 * - mistakes [run, task, test]: the live Mistake Book, one record per entry.
 * - duels [run, step]: the last steps' duel records, for the UI.
 * - task_sets [hash]: task sets the app does not ship (imported JSONL), with their import report;
 *   a run names its set by task_set_hash, and bundles carry the set (task-sets.ts).
 */
import { openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames } from "idb";
import type { Config } from "../core/config/fields.ts";
import type { MistakeBook, MistakeEntry } from "../core/loop/mistake-book.ts";
import type { RunFailure } from "../core/loop/events.ts";
import { fillLaterEvalMetricKeys, migrateStepMetrics, type DuelRecord, type RunStatus, type StepMetrics } from "../core/loop/types.ts";
import type { SnapshotRun } from "../core/bundle.ts";
import type { RngState } from "../core/rng.ts";
import type { TaskFile } from "../core/arena/task.ts";
import { StorageBlockedError, toStorageError } from "./errors.ts";

export const DB_NAME = "code-a1-arena";

export type { RunStatus };

export interface RunRecord extends SnapshotRun {
  config: Config;
  /** When the run came in from an .a1run file (epoch ms); absent for runs trained here. Launch opens the latest run trained here. */
  imported?: number;
  /** Why it last stopped without finishing (a watchdog, an interrupted step), until its next committed step; never exported. */
  failure?: RunFailure;
}

export interface MetricsRecord {
  run: string;
  step: number;
  metrics: StepMetrics;
}

export interface CheckpointRecord {
  run: string;
  step: number;
  /** Retained (every checkpoint_every steps, at pause) or only the rolling resume point. */
  kept: boolean;
  /** Policy name ("code", "test", or "shared") -> serialised weights and optimiser state. */
  policies: Record<string, ArrayBuffer>;
  mistake_book: MistakeBook;
  rng_state: RngState | null;
  loop_state: unknown;
}

export interface MistakeRecord extends MistakeEntry {
  run: string;
  task: string;
}

export interface DuelsRecord {
  run: string;
  step: number;
  records: DuelRecord[];
}

export interface TaskSetRecord {
  /** taskSetHash(file.tasks): what runs on it record as task_set_hash. */
  hash: string;
  name: string;
  file: TaskFile;
  /** The import's per-task report (src/core/arena/importers/arenise.ts TaskReport[]), when it was imported here. */
  report: unknown[];
  /** Epoch ms. */
  stored: number;
}

export interface ArenaDB extends DBSchema {
  runs: { key: string; value: RunRecord; indexes: { "by-updated": number } };
  metrics: { key: [string, number]; value: MetricsRecord };
  checkpoints: { key: [string, number]; value: CheckpointRecord };
  mistakes: { key: [string, string, string]; value: MistakeRecord; indexes: { "by-run-task": [string, string] } };
  duels: { key: [string, number]; value: DuelsRecord };
  task_sets: { key: string; value: TaskSetRecord };
}

export type ArenaDatabase = IDBPDatabase<ArenaDB>;
type UpgradeTx = IDBPTransaction<ArenaDB, StoreNames<ArenaDB>[], "versionchange">;

/** Migration i takes the database from version i to i + 1; append only, never edit a shipped one. */
const MIGRATIONS: ((db: ArenaDatabase, tx: UpgradeTx) => void)[] = [
  // 0 -> 1: runs and what resuming needs.
  (db) => {
    db.createObjectStore("runs", { keyPath: "id" }).createIndex("by-updated", "updated");
    db.createObjectStore("metrics", { keyPath: ["run", "step"] });
    db.createObjectStore("checkpoints", { keyPath: ["run", "step"] });
    db.createObjectStore("mistakes", { keyPath: ["run", "task", "test"] }).createIndex("by-run-task", ["run", "task"]);
  },
  // 1 -> 2: duel records for the UI.
  (db) => {
    db.createObjectStore("duels", { keyPath: ["run", "step"] });
  },
  // 2 -> 3: imported task sets, by hash.
  (db) => {
    db.createObjectStore("task_sets", { keyPath: "hash" });
  },
  // 3 -> 4: evaluation keys added later (held-out compositional / family) read as not measured.
  (_db, tx) => {
    void (async () => {
      for (let cursor = await tx.objectStore("metrics").openCursor(); cursor; cursor = await cursor.continue()) {
        const record = cursor.value;
        if (fillLaterEvalMetricKeys(record.metrics as unknown as Record<string, unknown>)) await cursor.update(record);
      }
    })();
  },
  // 4 -> 5: the rollout rate `bug_detection` renamed `rollout_fail_rate`; gen_fail, fresh_fail_rate and the
  // hard-mutant / held-out bug-detection evaluation keys read as not measured.
  (_db, tx) => {
    void (async () => {
      for (let cursor = await tx.objectStore("metrics").openCursor(); cursor; cursor = await cursor.continue()) {
        const record = cursor.value;
        if (migrateStepMetrics(record.metrics as unknown as Record<string, unknown>)) await cursor.update(record);
      }
    })();
  },
];

export const DB_VERSION = MIGRATIONS.length;

export interface OpenOptions {
  name?: string;
  /** Open an older schema version (tests of migrations); default the latest. */
  version?: number;
  /** Another tab wants to upgrade: this connection is closed; tell the user to reload. */
  onVersionChange?: () => void;
}

/**
 * Open (and if needed upgrade) the database. A blocked upgrade rejects with StorageBlockedError
 * instead of hanging; a database written by a newer app rejects with StorageVersionError.
 */
export function openArenaDb(options: OpenOptions = {}): Promise<ArenaDatabase> {
  const name = options.name ?? DB_NAME;
  const version = options.version ?? DB_VERSION;
  if (!Number.isInteger(version) || version < 1 || version > DB_VERSION) {
    throw new RangeError(`database version must be in 1..${DB_VERSION}, got ${version}`);
  }
  return new Promise((resolve, reject) => {
    let gaveUp = false;
    let db: ArenaDatabase | undefined;
    openDB<ArenaDB>(name, version, {
      upgrade(database, oldVersion, newVersion, tx) {
        for (let v = oldVersion; v < (newVersion ?? version); v++) MIGRATIONS[v](database, tx);
      },
      blocked(currentVersion, blockedVersion) {
        gaveUp = true;
        reject(new StorageBlockedError(currentVersion, blockedVersion ?? version));
      },
      blocking() {
        db?.close();
        options.onVersionChange?.();
      },
    }).then(
      (opened) => {
        // The other tab closed after we gave up: do not keep a connection nobody holds.
        if (gaveUp) opened.close();
        else resolve((db = opened));
      },
      (e) => reject(toStorageError(e, "opening the database")),
    );
  });
}
