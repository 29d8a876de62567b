/**
 * Task sets the app does not ship (imported from a JSONL, or carried by a bundle), stored by their
 * hash (taskSetHash of the file's task list): the hash a run on it records as task_set_hash (the
 * trainer hashes the tasks it trains on), and the one a bundle's run names. Storing the same set
 * twice keeps one record. Nothing is stored for a file that failed to import (the caller stores only
 * a finished import).
 */
import { taskSetHash } from "../core/bundle.ts";
import { validateTaskFile, type TaskFile } from "../core/arena/task.ts";
import type { ArenaDatabase, TaskSetRecord } from "./db.ts";
import { toStorageError } from "./errors.ts";

/** Validates and stores a task set; resolves with its record (the existing one when already stored). */
export async function saveTaskSet(db: ArenaDatabase, file: TaskFile, report: unknown[] = []): Promise<TaskSetRecord> {
  validateTaskFile(file, { strict: false });
  const hash = await taskSetHash(file.tasks);
  try {
    const existing = await db.get("task_sets", hash);
    if (existing) return existing;
    const record: TaskSetRecord = { hash, name: file.name, file, report, stored: Date.now() };
    await db.put("task_sets", record);
    return record;
  } catch (e) {
    throw toStorageError(e, "storing a task set");
  }
}

/** A stored task set by hash, or null. */
export async function loadTaskSet(db: ArenaDatabase, hash: string): Promise<TaskSetRecord | null> {
  return (await db.get("task_sets", hash)) ?? null;
}

/** Stored task sets, newest first. */
export async function listTaskSets(db: ArenaDatabase): Promise<TaskSetRecord[]> {
  return (await db.getAll("task_sets")).sort((a, b) => b.stored - a.stored);
}

/** The name a run's config gives a stored set (config task_set): `imported:` + its hash's first 16 hex digits. */
export function importedSetName(hash: string): `imported:${string}` {
  return `imported:${hash.slice(0, 16)}`;
}

/** The stored set a config's `imported:HASH16` names, or null (none stored, or not such a name). */
export async function findImportedSet(db: ArenaDatabase, name: string): Promise<TaskSetRecord | null> {
  const m = /^imported:([0-9a-f]{16})$/.exec(name);
  if (!m) return null;
  const keys = await db.getAllKeys("task_sets", IDBKeyRange.bound(m[1], `${m[1]}\uffff`));
  return keys.length > 0 ? loadTaskSet(db, keys[0]) : null;
}
