/**
 * The evaluation bench as a file: `npm run eval`'s cache (runs/bench-KEY.json) and the app's
 * quick-look bench (public/bench/<set>.json, `npm run app-bench`). A file is keyed by the tasks it
 * was built for, so a bench is never read for other tasks: the key is the first 16 hex digits of the
 * tasks' taskSetHash (their canonical JSON, in order).
 */
import { taskSetHash } from "../bundle.ts";
import type { Bench } from "./metrics-evaluate.ts";
import type { Mutant } from "./mutants.ts";
import type { PlusTests } from "./plus.ts";
import type { Task } from "./task.ts";

export interface BenchFile {
  key: string;
  plus: [string, PlusTests][];
  mutants: [string, Mutant[]][];
}

/** The key of a bench built for `tasks` (in this order). */
export async function benchKey(tasks: readonly Task[]): Promise<string> {
  return (await taskSetHash(tasks)).slice(0, 16);
}

/** A bench as the JSON-ready file. */
export async function benchFile(bench: Bench): Promise<BenchFile> {
  return { key: await benchKey(bench.tasks), plus: [...bench.plus], mutants: [...bench.mutants] };
}

/**
 * The bench a parsed file holds for `tasks`, or null when it was built for other tasks or is not a
 * bench file at all (`found`: the file's own key, for the message).
 */
export async function benchFromFile(tasks: Task[], file: unknown): Promise<{ bench: Bench | null; key: string; found: string | null }> {
  const key = await benchKey(tasks);
  const f = file as Partial<BenchFile> | null;
  const found = typeof f === "object" && f !== null && typeof f.key === "string" ? f.key : null;
  if (found !== key || !Array.isArray(f!.plus) || !Array.isArray(f!.mutants)) return { bench: null, key, found };
  return { bench: { tasks, plus: new Map(f!.plus), mutants: new Map(f!.mutants) }, key, found };
}
