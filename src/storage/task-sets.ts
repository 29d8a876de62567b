/**
 * Task sets the app does not ship (imported from a JSONL, or carried by a bundle), stored by their
 * hash (taskSetHash of the task file): the hash a run records as task_set_hash. Storing the same set
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
  const hash = await taskSetHash(file);
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
