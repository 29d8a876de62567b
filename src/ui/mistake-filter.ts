/** Mistake Book browser: flatten, filter, search and sort the book's entries (pure). */
import type { MistakeBook, MistakeBookDelta, MistakeEntry } from "../core/loop/mistake-book.ts";
import { compareEntries, taskEntries, withTaskEntries } from "../core/loop/mistake-book.ts";

export interface MistakeRow extends MistakeEntry {
  task: string;
}

export type MistakeSort = "frequency" | "first_step" | "last_step" | "task";

export interface MistakeFilter {
  /** Only this task ("" or undefined: all). */
  task?: string;
  /** Case-insensitive substring of the test, the failing program or the task id. */
  query?: string;
  minFrequency?: number;
  sort?: MistakeSort;
}

export function mistakeRows(book: MistakeBook): MistakeRow[] {
  return Object.entries(book.tasks).flatMap(([task, entries]) => entries.map((e) => ({ ...e, task })));
}

/** Tasks with their entry counts, most entries first (then by id). */
export function mistakeTasks(book: MistakeBook): { task: string; count: number }[] {
  return Object.entries(book.tasks)
    .map(([task, es]) => ({ task, count: es.length }))
    .sort((a, b) => b.count - a.count || (a.task < b.task ? -1 : 1));
}

export function filterMistakes(rows: readonly MistakeRow[], f: MistakeFilter = {}): MistakeRow[] {
  const q = (f.query ?? "").trim().toLowerCase();
  const min = f.minFrequency ?? 0;
  const out = rows.filter(
    (r) =>
      (!f.task || r.task === f.task) &&
      r.frequency >= min &&
      (!q || r.test.toLowerCase().includes(q) || r.failed_code.toLowerCase().includes(q) || r.task.toLowerCase().includes(q)),
  );
  const byTask = (a: MistakeRow, b: MistakeRow) => (a.task < b.task ? -1 : a.task > b.task ? 1 : 0);
  switch (f.sort ?? "frequency") {
    case "frequency":
      return out.sort((a, b) => compareEntries(a, b) || byTask(a, b));
    case "first_step":
      return out.sort((a, b) => a.first_step - b.first_step || compareEntries(a, b));
    case "last_step":
      return out.sort((a, b) => b.last_step - a.last_step || compareEntries(a, b));
    case "task":
      return out.sort((a, b) => byTask(a, b) || compareEntries(a, b));
  }
}

/**
 * Apply one step's delta to a book (the inverse direction of diffEntries in mistake-book.ts): the
 * live view follows TrainerEvent "step" deltas without reloading the whole book.
 */
export function applyMistakeBookDelta(book: MistakeBook, delta: MistakeBookDelta): MistakeBook {
  const removed = new Set(delta.removed);
  const changed = new Map(delta.changed.map((e) => [e.test, e]));
  const kept = taskEntries(book, delta.task).filter((e) => !removed.has(e.test)).map((e) => changed.get(e.test) ?? e);
  const known = new Set(kept.map((e) => e.test));
  return withTaskEntries(book, delta.task, [...kept, ...delta.added.filter((e) => !known.has(e.test))].sort(compareEntries));
}
