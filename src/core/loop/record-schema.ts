/**
 * The stored records of a run checked in depth: what the writer produces (types.ts DuelRecord,
 * mistake-book.ts MistakeEntry) is exactly what a reader accepts. Run bundles validate with these
 * on export and on import (src/core/bundle.ts), and the views read stored records through them
 * (src/ui/run-store.ts), so a record the app would not write never reaches a view.
 *
 * The checks walk the schema, not the data: a record nested a million levels deep fails at the
 * first level the schema does not expect, never by overflowing the stack.
 */
import { LINE_VALIDITIES, LINE_VERDICTS, CODE_STATUSES, type LineResult } from "../grader/types.ts";
import { isOneTestLine, type MistakeBookDelta, type MistakeEntry } from "./mistake-book.ts";
import type { DuelCode, DuelRecord, DuelSuite } from "./types.ts";

/** A stored record does not have the shape the app writes; the message names the field. */
export class RecordError extends TypeError {
  override name = "RecordError";
}

/** How many of each a record may hold, and how long its texts may be (bundle-bounds.ts gives a run's). */
export interface RecordLimits {
  codesPerRecord: number;
  suitesPerCode: number;
  linesPerSuite: number;
  bookTests: number;
  /** Entries one step's Mistake Book delta may add or change. */
  deltaEntries: number;
  completionChars: number;
  lineChars: number;
  reasonChars: number;
  taskIdChars: number;
  /** Steps of the run (a record's step, an entry's first/last step). */
  steps: number;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function fields(v: unknown, at: string, required: readonly string[], optional: readonly string[] = []): Record<string, unknown> {
  if (!isRecord(v)) throw new RecordError(`${at} must be an object`);
  for (const k of required) if (!Object.hasOwn(v, k)) throw new RecordError(`${at}.${k} is missing`);
  for (const k of Object.keys(v)) if (!required.includes(k) && !optional.includes(k)) throw new RecordError(`${at} has an unknown field ${JSON.stringify(k.slice(0, 40))}`);
  return v;
}

function list(v: unknown, at: string, max: number): unknown[] {
  if (!Array.isArray(v)) throw new RecordError(`${at} must be a list`);
  if (v.length > max) throw new RecordError(`${at} has ${v.length} items, more than the ${max} a run of this config writes`);
  return v;
}

function text(v: unknown, at: string, max: number): string {
  if (typeof v !== "string") throw new RecordError(`${at} must be a string`);
  if (v.length > max) throw new RecordError(`${at} has ${v.length} characters, more than ${max}`);
  return v;
}

function finite(v: unknown, at: string): number {
  if (typeof v !== "number" || !Number.isFinite(v)) throw new RecordError(`${at} must be a finite number`);
  return v;
}

function int(v: unknown, at: string, min: number, max: number): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) throw new RecordError(`${at} must be an integer in ${min}..${max}`);
  return v;
}

function oneOf<T extends string>(v: unknown, at: string, values: readonly T[]): T {
  if (!values.includes(v as T)) throw new RecordError(`${at} must be one of ${values.join(", ")}`);
  return v as T;
}

export function checkLineResult(v: unknown, at: string, lim: RecordLimits): LineResult {
  const r = fields(v, at, ["validity", "reason", "verdict"], ["corrected"]);
  oneOf(r.validity, `${at}.validity`, LINE_VALIDITIES);
  text(r.reason, `${at}.reason`, lim.reasonChars);
  oneOf(r.verdict, `${at}.verdict`, LINE_VERDICTS);
  if (r.corrected !== undefined) text(r.corrected, `${at}.corrected`, lim.lineChars);
  return v as LineResult;
}

export function checkMistakeEntry(v: unknown, at: string, lim: Pick<RecordLimits, "lineChars" | "completionChars" | "steps">): MistakeEntry {
  const e = fields(v, at, ["test", "frequency", "first_step", "last_step", "failed_code"]);
  text(e.test, `${at}.test`, lim.lineChars);
  if (!isOneTestLine(e.test as string)) throw new RecordError(`${at}.test must be one test line (no line break, not blank)`);
  text(e.failed_code, `${at}.failed_code`, lim.completionChars);
  int(e.frequency, `${at}.frequency`, 1, Number.MAX_SAFE_INTEGER);
  const first = int(e.first_step, `${at}.first_step`, 0, lim.steps);
  int(e.last_step, `${at}.last_step`, first, lim.steps);
  return v as MistakeEntry;
}

function checkDelta(v: unknown, at: string, step: number, task: string, lim: RecordLimits): MistakeBookDelta {
  const d = fields(v, at, ["task", "step", "added", "removed", "changed"]);
  if (d.task !== task) throw new RecordError(`${at}.task must be the record's task`);
  if (d.step !== step) throw new RecordError(`${at}.step must be the record's step`);
  list(d.added, `${at}.added`, lim.deltaEntries).forEach((e, i) => checkMistakeEntry(e, `${at}.added[${i}]`, lim));
  list(d.changed, `${at}.changed`, lim.deltaEntries).forEach((e, i) => checkMistakeEntry(e, `${at}.changed[${i}]`, lim));
  list(d.removed, `${at}.removed`, lim.deltaEntries).forEach((t, i) => text(t, `${at}.removed[${i}]`, lim.lineChars));
  return v as MistakeBookDelta;
}

function checkSuite(v: unknown, at: string, lim: RecordLimits): DuelSuite {
  const s = fields(v, at, ["text", "lines", "r_val", "r_adv", "reward"]);
  text(s.text, `${at}.text`, lim.completionChars);
  list(s.lines, `${at}.lines`, lim.linesPerSuite).forEach((l, i) => checkLineResult(l, `${at}.lines[${i}]`, lim));
  if (s.r_val !== null) finite(s.r_val, `${at}.r_val`);
  if (s.r_adv !== null) finite(s.r_adv, `${at}.r_adv`);
  finite(s.reward, `${at}.reward`);
  return v as DuelSuite;
}

function checkCode(v: unknown, at: string, bookTests: number, lim: RecordLimits): DuelCode {
  const c = fields(v, at, ["text", "status", "reward", "mistake_book_lines", "suites"]);
  text(c.text, `${at}.text`, lim.completionChars);
  oneOf(c.status, `${at}.status`, CODE_STATUSES);
  finite(c.reward, `${at}.reward`);
  const lines = list(c.mistake_book_lines, `${at}.mistake_book_lines`, lim.bookTests);
  if (lines.length !== 0 && lines.length !== bookTests) throw new RecordError(`${at}.mistake_book_lines has ${lines.length} verdicts for ${bookTests} Mistake Book tests`);
  lines.forEach((l, i) => checkLineResult(l, `${at}.mistake_book_lines[${i}]`, lim));
  list(c.suites, `${at}.suites`, lim.suitesPerCode).forEach((s, i) => checkSuite(s, `${at}.suites[${i}]`, lim));
  return v as DuelCode;
}

/** One duel record of `step`, exactly as score-task.ts duelRecord writes it. */
export function checkDuelRecord(v: unknown, at: string, step: number, lim: RecordLimits): DuelRecord {
  const r = fields(v, at, ["step", "task", "codes", "mistake_book_tests", "topvar", "mistake_book"]);
  if (r.step !== step) throw new RecordError(`${at}.step must be ${step}`);
  const task = text(r.task, `${at}.task`, lim.taskIdChars);
  const tests = list(r.mistake_book_tests, `${at}.mistake_book_tests`, lim.bookTests);
  tests.forEach((t, i) => text(t, `${at}.mistake_book_tests[${i}]`, lim.lineChars));
  const codes = list(r.codes, `${at}.codes`, lim.codesPerRecord);
  codes.forEach((c, i) => checkCode(c, `${at}.codes[${i}]`, tests.length, lim));
  const topvar = fields(r.topvar, `${at}.topvar`, ["std", "selected"]);
  const std = list(topvar.std, `${at}.topvar.std`, codes.length);
  if (std.length !== codes.length) throw new RecordError(`${at}.topvar.std must have one value per code (${codes.length})`);
  std.forEach((x, i) => finite(x, `${at}.topvar.std[${i}]`));
  list(topvar.selected, `${at}.topvar.selected`, codes.length).forEach((x, i) => int(x, `${at}.topvar.selected[${i}]`, 0, codes.length - 1));
  checkDelta(r.mistake_book, `${at}.mistake_book`, step, task, lim);
  return v as DuelRecord;
}

/**
 * Stored duel records, each checked alone: the valid ones and what was wrong with the others, so a
 * view shows what it can and says what it could not.
 */
export function readableDuelRecords(records: readonly { step: number; records: unknown }[], lim: RecordLimits): { records: DuelRecord[]; problems: string[] } {
  const ok: DuelRecord[] = [];
  const problems: string[] = [];
  for (const group of records) {
    if (!Array.isArray(group.records)) {
      problems.push(`duel records of step ${group.step}: not a list`);
      continue;
    }
    group.records.forEach((r: unknown, i) => {
      try {
        ok.push(checkDuelRecord(r, `step ${group.step} record ${i}`, group.step, lim));
      } catch (e) {
        problems.push((e as Error).message);
      }
    });
  }
  return { records: ok, problems };
}
