/** The Duel view's "bugs caught" view model: the breaking line, what the reference and the code returned. */
import { describe, expect, it } from "vitest";
import type { LineResult } from "../../../src/core/grader/types.ts";
import type { DuelCode, DuelRecord } from "../../../src/core/loop/types.ts";
import { bugCatches, programOutcome, splitAssert } from "../../../src/ui/bug-catch.ts";

const L = (validity: LineResult["validity"], verdict: LineResult["verdict"], reason = "", corrected?: string): LineResult => ({ validity, verdict, reason, corrected });
const code = (text: string, status: DuelCode["status"], suites: LineResult[][]): DuelCode => ({
  text, status, reward: 0, mistake_book_lines: [], suites: suites.map((lines) => ({ text: "", lines, r_val: 0, r_adv: 0, reward: 0 })),
});
const record = (codes: DuelCode[]): DuelRecord => ({ step: 3, task: "t", codes, mistake_book_tests: [], topvar: { std: [], selected: [] }, mistake_book: { task: "t", step: 3, added: [], removed: [], changed: [] } });

describe("bugCatches", () => {
  it("gives each broken loaded code its first breaking line, with both outputs", () => {
    const r = record([
      // Passes its first suite; its second suite's wrong-answer line (reference-corrected) breaks it.
      code("def f(xs):\n    return 0", "ok", [
        [L("valid", "pass", "", "assert f([]) == 0")],
        [L("invalid", "skipped", "raises"), L("wrong-answer", "fail", "answer 2, reference output 1; expected 1, got 0", "assert f([2, 3]) == 1")],
        [L("valid", "error", "ZeroDivisionError: division by zero", "assert f([0]) == 0")],
      ]),
      code("def f(xs):\n    return len(xs)", "ok", [[L("valid", "pass", "", "assert f([1]) == 1")]]), // never broken
      code("def f(xs:", "syntax-error", [[L("valid", "skipped", "", "assert f([1]) == 1")]]), // did not load
      code("def f(xs):\n    while True: pass", "ok", [[L("valid", "timeout", "exceeded 250 ms", "assert f(['a, b']) == 'x == y'")]]),
    ]);
    expect(bugCatches(r)).toEqual([
      { code: 0, suite: 1, line: 1, test: "assert f([2, 3]) == 1", call: "f([2, 3])", reference: "1", program: "0", suitesBroke: 2 },
      { code: 3, suite: 0, line: 0, test: "assert f(['a, b']) == 'x == y'", call: "f(['a, b'])", reference: "'x == y'", program: "timed out (exceeded 250 ms)", suitesBroke: 1 },
    ]);
  });

  it("splits an assert at its top-level ==, and names what a code did instead of returning", () => {
    expect(splitAssert("assert f([1, 2], 'a == b') == [3]")).toEqual({ call: "f([1, 2], 'a == b')", reference: "[3]" });
    expect(programOutcome(L("valid", "fail", "expected [1], got [1, 2]"))).toBe("[1, 2]");
    expect(programOutcome(L("valid", "error", "IndexError: list index out of range"))).toBe("raised IndexError: list index out of range");
  });
});
