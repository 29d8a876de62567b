/**
 * The Duel view's "bugs caught" story, as data: for each loaded code of a duel record, the first
 * test line (of its suites, in order) that broke it, with what the reference returned for that call
 * and what the code did instead. Pure, so it is tested in Node.
 *
 * The grader's LineResult carries both halves: `corrected` is `assert CALL == REFERENCE OUTPUT`
 * (the line as judged), and a failed line's `reason` ends in `expected X, got Y` (verdicts.ts); an
 * error or timeout says what the code raised or that it ran too long.
 */
import type { LineResult } from "../core/grader/types.ts";
import type { DuelRecord } from "../core/loop/types.ts";
import { exposesBug } from "./verdicts.ts";

export interface BugCatch {
  /** Index of the code in the record, of the suite written for it, and of the line in the suite. */
  code: number;
  suite: number;
  line: number;
  /** The test as the code was judged on it (reference-corrected). */
  test: string;
  /** `f(ARGS)`. */
  call: string;
  /** What the reference returned for the call. */
  reference: string;
  /** What the code returned, or what happened instead ("raised ...", "timed out ..."). */
  program: string;
  /** How many of the code's suites broke it. */
  suitesBroke: number;
}

/**
 * First catch per code that loaded and was broken by a suite, in code order.
 *
 * Example: a line judged `assert f([2, 3]) == 1` that failed with reason `expected 1, got 0` gives
 * {call: "f([2, 3])", reference: "1", program: "0"}.
 */
export function bugCatches(record: DuelRecord): BugCatch[] {
  const out: BugCatch[] = [];
  record.codes.forEach((c, code) => {
    if (c.status !== "ok") return;
    const broke = c.suites.map((s) => s.lines.findIndex((l) => exposesBug(l) && l.corrected !== undefined));
    const suite = broke.findIndex((k) => k >= 0);
    if (suite < 0) return;
    const line = broke[suite];
    const l = c.suites[suite].lines[line];
    const { call, reference } = splitAssert(l.corrected!);
    out.push({ code, suite, line, test: l.corrected!, call, reference, program: programOutcome(l), suitesBroke: broke.filter((k) => k >= 0).length });
  });
  return out;
}

/** `assert CALL == VALUE` -> its call and value (the first ` == ` outside the call's brackets). */
export function splitAssert(test: string): { call: string; reference: string } {
  const body = test.replace(/^assert\s+/, "");
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (quote) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if ("([{".includes(ch)) depth++;
    else if (")]}".includes(ch)) depth--;
    else if (depth === 0 && body.startsWith(" == ", i)) return { call: body.slice(0, i), reference: body.slice(i + 4) };
  }
  return { call: body, reference: "" };
}

/** What the code did on the line: its value for a failure, else what the grader says happened. */
export function programOutcome(l: LineResult): string {
  if (l.verdict === "fail") {
    const got = /(?:^|; )expected .*?, got (.*)$/s.exec(l.reason);
    if (got) return got[1];
  }
  const last = l.reason.split("; ").at(-1) ?? "";
  if (l.verdict === "timeout") return `timed out${last ? ` (${last})` : ""}`;
  if (l.verdict === "error") return `raised ${last || "an error"}`;
  return last || l.verdict;
}
