/**
 * The Mistake Book: per task, the reference-corrected tests that candidates failed, with a frequency
 * (../shared/spec/code-a1.md, "Mistake Book"; reference code/rl/trainer_a1.py MistakeBook.update).
 *
 * Pure and serialisable: a book is a plain JSON object, every update returns a new book and the
 * delta that turns the old one into the new one (for IndexedDB and the UI). Update order follows
 * the reference: first -1 for every pass of a stored test (delete at <= 0), then +1 for every
 * failure of a new test (insert at 1). Each occurrence counts: a test failed by three codes gains 3.
 */
import type { LineResult } from "../grader/types.ts";
import { suiteLines } from "../grader/verdicts.ts";
import { own, setOwn } from "../own.ts";

export interface MistakeEntry {
  /** The reference-corrected line, `assert f(ARGS) == REFERENCE_OUTPUT`: the key within a task. */
  test: string;
  frequency: number;
  /** Step of the first failure that inserted the entry. */
  first_step: number;
  /** Step of the latest failure. */
  last_step: number;
  /** The candidate code that failed it most recently. */
  failed_code: string;
}

/** Book: task id -> entries. Tasks without entries are absent. */
export interface MistakeBook {
  tasks: Record<string, MistakeEntry[]>;
}

/** What one step did to one task's entries. */
export interface MistakeBookDelta {
  task: string;
  step: number;
  /** Entries that did not exist before the step. */
  added: MistakeEntry[];
  /** Tests whose entries were deleted (frequency reached 0). */
  removed: string[];
  /** Entries that existed before and after, with their new values. */
  changed: MistakeEntry[];
}

/** One task's outcome in one step, from the codes that loaded. */
export interface MistakeBookOutcome {
  /** Reference-corrected new tests a candidate failed, with that candidate; one item per failure. */
  failed: { test: string; code: string }[];
  /** Stored tests a candidate passed; one item per pass. */
  passed: string[];
  /** Stored tests the grader refused on replay (`invalid`): no test, dropped from the book. */
  refused?: string[];
}

/** One candidate of a task as graded this step (input of mistakeBookOutcome). */
export interface GradedCandidate {
  code: string;
  /** Only codes that loaded ("ok") update the book, as in the reference. */
  loaded: boolean;
  /** The graded suites written for this code; executable lines carry `corrected`. */
  suites: readonly (readonly LineResult[])[];
  /** This code's verdicts on the Mistake Book tests shown this step (same order as those tests). */
  bookLines: readonly LineResult[];
}

/**
 * Adapter from graded results to a MistakeBookOutcome: executable new lines (valid or
 * reference-corrected) that a loaded code did not pass are failures, stored under their corrected
 * text; Mistake Book tests it passed are passes. Invalid lines never enter the book.
 *
 * bookTests: the tests shown this step (topMistakes), shared by every candidate of the task.
 */
export function mistakeBookOutcome(bookTests: readonly string[], candidates: readonly GradedCandidate[]): MistakeBookOutcome {
  const failed: MistakeBookOutcome["failed"] = [];
  const passed: string[] = [];
  const refused = new Set<string>();
  for (const c of candidates) {
    // Refusal is the line's, not the candidate's (the judge's reading of it): any candidate tells.
    c.bookLines.forEach((line, i) => {
      if (line.validity === "invalid" && i < bookTests.length) refused.add(bookTests[i]);
    });
    if (!c.loaded) continue;
    for (const line of c.suites.flat()) {
      if (line.validity === "invalid" || line.verdict === "pass") continue;
      if (line.corrected === undefined) throw new TypeError("grader contract: an executable line has no `corrected` text");
      failed.push({ test: line.corrected, code: c.code });
    }
    if (c.bookLines.length !== bookTests.length) {
      throw new RangeError(`${c.bookLines.length} Mistake Book verdicts for ${bookTests.length} Mistake Book tests`);
    }
    c.bookLines.forEach((line, i) => {
      if (line.verdict === "pass") passed.push(bookTests[i]);
    });
  }
  return { failed, passed, refused: [...refused] };
}

export function emptyMistakeBook(): MistakeBook {
  return { tasks: {} };
}

/**
 * Retrieval order: frequency descending, then older first (first_step ascending), then test text
 * (code-unit order) so that equal books always give equal lists.
 */
export function compareEntries(a: MistakeEntry, b: MistakeEntry): number {
  return b.frequency - a.frequency || a.first_step - b.first_step || (a.test < b.test ? -1 : a.test > b.test ? 1 : 0);
}

/**
 * A task's entries, [] when it has none. Task ids are input (task files, bundles) and a valid one
 * may be "constructor": only the book's own keys count.
 */
export function taskEntries(book: MistakeBook, task: string): MistakeEntry[] {
  return own(book.tasks, task) ?? [];
}

/** The book with `task`'s entries replaced (the task dropped when there are none); `book` is not modified. */
export function withTaskEntries(book: MistakeBook, task: string, entries: MistakeEntry[]): MistakeBook {
  const tasks = Object.fromEntries(Object.entries(book.tasks).filter(([t]) => t !== task));
  if (entries.length > 0) setOwn(tasks, task, entries);
  return { tasks };
}

/** The k most frequent tests of a task; every candidate of the task gets this same list. */
export function topMistakes(book: MistakeBook, task: string, k: number): MistakeEntry[] {
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`mistake_book_top_k must be a non-negative integer, got ${k}`);
  return taskEntries(book, task).slice().sort(compareEntries).slice(0, k);
}

/** Number of entries over all tasks. */
export function mistakeBookSize(book: MistakeBook): number {
  return Object.values(book.tasks).reduce((a, es) => a + es.length, 0);
}

/**
 * Apply one step's outcome to one task. Returns the new book (the input is not modified) and the
 * delta.
 *
 * Example: entries {A: 2}; outcome passed [A, A], failed [B by code c] at step 5 -> A reaches 0
 * and is deleted, B is inserted {frequency 1, first_step 5, last_step 5, failed_code c}; delta
 * added [B], removed [A], changed [].
 */
export function updateMistakeBook(
  book: MistakeBook,
  task: string,
  step: number,
  outcome: MistakeBookOutcome,
): { book: MistakeBook; delta: MistakeBookDelta } {
  if (!Number.isInteger(step) || step < 0) throw new RangeError(`step must be a non-negative integer, got ${step}`);
  const before = taskEntries(book, task);
  const entries = new Map(before.map((e) => [e.test, { ...e }]));
  for (const test of outcome.refused ?? []) entries.delete(test);
  for (const test of outcome.passed) {
    const e = entries.get(test);
    if (!e) continue; // a pass of a test that was already deleted this step
    e.frequency -= 1;
    if (e.frequency <= 0) entries.delete(test);
  }
  for (const { test, code } of outcome.failed) {
    const e = entries.get(test);
    if (e) {
      e.frequency += 1;
      e.last_step = step;
      e.failed_code = code;
    } else {
      entries.set(test, { test, frequency: 1, first_step: step, last_step: step, failed_code: code });
    }
  }
  const after = [...entries.values()].sort(compareEntries);
  return { book: withTaskEntries(book, task, after), delta: diffEntries(task, step, before, after) };
}

/** Delta between two versions of a task's entries. */
export function diffEntries(task: string, step: number, before: readonly MistakeEntry[], after: readonly MistakeEntry[]): MistakeBookDelta {
  const old = new Map(before.map((e) => [e.test, e]));
  const now = new Map(after.map((e) => [e.test, e]));
  const added: MistakeEntry[] = [];
  const changed: MistakeEntry[] = [];
  for (const e of after) {
    const o = old.get(e.test);
    if (!o) added.push(e);
    else if (!sameEntry(o, e)) changed.push(e);
  }
  const removed = before.filter((e) => !now.has(e.test)).map((e) => e.test);
  return { task, step, added, removed, changed };
}

/** Apply a delta (as stored) to a book: the inverse of diffEntries, used when a run is reloaded. */
export function applyMistakeBookDelta(book: MistakeBook, delta: MistakeBookDelta): MistakeBook {
  const entries = new Map(taskEntries(book, delta.task).map((e) => [e.test, e]));
  for (const t of delta.removed) entries.delete(t);
  for (const e of [...delta.added, ...delta.changed]) entries.set(e.test, { ...e });
  return withTaskEntries(book, delta.task, [...entries.values()].sort(compareEntries));
}

/** True when a delta changes nothing. */
export function isEmptyDelta(d: MistakeBookDelta): boolean {
  return d.added.length === 0 && d.removed.length === 0 && d.changed.length === 0;
}

/**
 * Whether `test` is one line as the grader reads a suite (no \n or \r, not blank): what the loop
 * stores (a corrected line), and what a replay gives exactly one verdict (round 47).
 */
export function isOneTestLine(test: string): boolean {
  return !/[\r\n]/.test(test) && suiteLines(test).length === 1;
}

/** Check a value read from outside (a bundle) is a MistakeBook; throws naming the bad field. */
export function validateMistakeBook(value: unknown, where = "mistake_book"): MistakeBook {
  if (!isRecord(value) || !isRecord(value.tasks)) throw new TypeError(`${where}: expected {tasks: {...}}`);
  for (const [task, entries] of Object.entries(value.tasks)) {
    if (!Array.isArray(entries)) throw new TypeError(`${where}.tasks[${JSON.stringify(task)}]: expected an array`);
    const seen = new Set<string>();
    entries.forEach((e: unknown, i) => {
      const at = `${where}.tasks[${JSON.stringify(task)}][${i}]`;
      if (!isRecord(e)) throw new TypeError(`${at}: expected an object`);
      const keys = Object.keys(e).sort().join(",");
      if (keys !== "failed_code,first_step,frequency,last_step,test") throw new TypeError(`${at}: unexpected fields (${keys})`);
      if (typeof e.test !== "string" || typeof e.failed_code !== "string") throw new TypeError(`${at}: test and failed_code must be strings`);
      if (!isOneTestLine(e.test)) throw new TypeError(`${at}.test: must be one test line (no line break, not blank)`);
      for (const k of ["frequency", "first_step", "last_step"] as const) {
        const v = e[k];
        if (typeof v !== "number" || !Number.isInteger(v) || v < (k === "frequency" ? 1 : 0)) throw new TypeError(`${at}.${k}: bad value ${String(v)}`);
      }
      if (seen.has(e.test)) throw new TypeError(`${at}: duplicate test`);
      seen.add(e.test);
    });
  }
  return value as unknown as MistakeBook;
}

function sameEntry(a: MistakeEntry, b: MistakeEntry): boolean {
  return a.frequency === b.frequency && a.first_step === b.first_step && a.last_step === b.last_step && a.failed_code === b.failed_code;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
