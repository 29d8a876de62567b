/**
 * The evaluation bench as a file: `npm run eval`'s cache (runs/bench-KEY-MUTANTS.json) and the
 * app's quick-look bench (public/bench/<set>.json, `npm run app-bench`). A file is read only for
 * what it was built for, named by two keys:
 * - `key`: the tasks, the first 16 hex digits of their taskSetHash (canonical JSON, in order);
 * - `mutants_key`: how its mutants were made, 12 hex digits of SHA-256 over mutate.py's source and
 *   the hardness screen (mutants.ts MUTANT_SCREEN), so new operators or another screen rebuild it.
 */
import { strToU8 } from "fflate";
import { sha256Hex, taskSetHash } from "../bundle.ts";
import type { Bench } from "./metrics-evaluate.ts";
import { MUTANT_SCREEN, type Mutant } from "./mutants.ts";
import type { PlusTests } from "./plus.ts";
import type { Task } from "./task.ts";

export interface BenchFile {
  key: string;
  mutants_key: string;
  plus: [string, PlusTests][];
  mutants: [string, Mutant[]][];
}

/** The key of a bench built for `tasks` (in this order). */
export async function benchKey(tasks: readonly Task[]): Promise<string> {
  return (await taskSetHash(tasks)).slice(0, 16);
}

/** The key of the mutants mutate.py (`mutateSource`) and the current screen make. */
export async function mutantsKey(mutateSource: string): Promise<string> {
  return (await sha256Hex(strToU8(JSON.stringify({ mutate: mutateSource, screen: MUTANT_SCREEN })))).slice(0, 12);
}

/** A bench as the JSON-ready file. */
export async function benchFile(bench: Bench, mutateSource: string): Promise<BenchFile> {
  return { key: await benchKey(bench.tasks), mutants_key: await mutantsKey(mutateSource), plus: [...bench.plus], mutants: [...bench.mutants] };
}

/**
 * The bench a parsed file holds for `tasks` and the mutants of `mutateSource`, or null when it was
 * built for other tasks, with other mutants, or is not a bench file at all (`found`: the file's own
 * keys, for the message, as `KEY/MUTANTS_KEY`).
 */
export async function benchFromFile(tasks: Task[], file: unknown, mutateSource: string): Promise<{ bench: Bench | null; key: string; found: string | null }> {
  const key = `${await benchKey(tasks)}/${await mutantsKey(mutateSource)}`;
  const f = file as Partial<BenchFile> | null;
  const found = typeof f === "object" && f !== null && typeof f.key === "string" ? `${f.key}/${typeof f.mutants_key === "string" ? f.mutants_key : "none"}` : null;
  if (found !== key || !Array.isArray(f!.plus) || !Array.isArray(f!.mutants)) return { bench: null, key, found };
  return { bench: { tasks, plus: new Map(f!.plus), mutants: new Map(f!.mutants) }, key, found };
}
