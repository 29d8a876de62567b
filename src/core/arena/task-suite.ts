/**
 * The built-in task suite, validated once at import: `arenaV1()` is what the training loop, the CLI
 * and the UI use unless a task file is given. The data lives in tasks/arena-v1.json (format:
 * docs/TASKS.md); its invariants are checked by `npm run tasks -- check` and the unit tests.
 */
import raw from "./tasks/arena-v1.json";
import { arenaV2 } from "./arena-v2.ts";
import { validateTaskFile, type Split, type Task, type TaskFile } from "./task.ts";

let cached: TaskFile | null = null;

/** The arena-v1 suite (63 tasks: 47 train, 16 heldout). Throws TaskValidationError if the JSON was broken by an edit. */
export function arenaV1(): TaskFile {
  cached ??= validateTaskFile(raw);
  return cached;
}

/** Tasks of one split, in file order. */
export function tasksOfSplit(file: TaskFile, split: Split): Task[] {
  return file.tasks.filter((t) => t.split === split);
}

/**
 * The built-in task sets by name: arena-v1 (hand-written, 63 tasks) and arena-v2 (generated,
 * src/core/arena/arena-v2.ts). Command lines accept these names wherever they take a task file.
 */
export const BUILTIN_TASK_SETS: Readonly<Record<string, () => TaskFile>> = { "arena-v1": arenaV1, "arena-v2": arenaV2 };

/** A built-in task set by name, or null when `name` is not one (then it is a file path). */
/** Where the app finds a built-in set's evaluation bench (public/bench/, `npm run app-bench`). */
export function appBenchPath(name: string): string {
  return `/bench/${name}.json`;
}

export function builtinTaskSet(name: string): TaskFile | null {
  return Object.hasOwn(BUILTIN_TASK_SETS, name) ? BUILTIN_TASK_SETS[name]() : null;
}
