/**
 * Round 56 (stranger, pointed at ad76e21/80d4079: each suite of a candidate a unit of its own, `more`
 * keeping the grown heap across its own suites, any retirement ending the candidate, a later suite's
 * failed load as each of its calls' results; and Play's attackPrograms/attackReport).
 *
 * Class A (Play, found): attackReport pairs the user's tests (parseUserTests: lines split on "\n"
 * only) with the grader's lines (verdicts.ts suiteLines: "\r\n", "\r" and "\n", as Python reads
 * source) by index. A test holding a lone "\r" is one test to Play and two lines to the grader, so
 * every later test is shown with ANOTHER line's validity and reason, the program rows hold more
 * lines than there are tests, and parseUserTests' 8-line bound (N) is bypassed (attackRequest sets
 * max_lines from suiteLines). Reach: a browser textarea's value normalizes CR to LF, so the view's
 * own input cannot carry it; any other caller of play-logic (a pasted suite through the API, a
 * test) can. Root cause: play-logic.ts parseUserTests splits on "\n" while the grader splits as
 * suiteLines does. Fixed the same session: parseUserTests reads the lines with suiteLines.
 *
 * Held (passing tests): a program that grows its heap past MAX_HEAP_GROWTH_BYTES in every suite
 * (touched, 100 MiB) with an interrupted timeout in its LAST suite (the unit both cut and retired:
 * run.ended is that timeout) keeps its earlier suites' verdicts, its last suite's later line is
 * `timeout`, and the next candidate is honest.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { show } from "./grade-lines.ts";
import { attackReport, attackRequest, parseUserTests } from "../../../src/ui/play-logic.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();
const REF = "def f(x):\n    return x + 1";
const HONEST = "def f(x):\n    return x + 1";

describe("A: Play's attack report pairs tests with the grader's lines by index", () => {
  it("shows each test with its own line's validity (a test holding a lone CR)", async () => {
    const text = "assert f(1) == 2\rassert f(2) == 99\nassert f(3) == 4";
    // Before the fix, Play read 2 tests (split on \n only) where the grader reads 3 lines.
    const tests = parseUserTests(text);
    expect(tests).toEqual(["assert f(1) == 2", "assert f(2) == 99", "assert f(3) == 4"]);
    // The app's rule: per test line, its validity on the reference. f(3) == 4 is valid.
    expect(suiteTruth(REF, ["assert f(3) == 4"])).toEqual([true]);
    const task = { id: "t", entry_point: "f", reference: REF };
    const programs = [{ label: "p", code: HONEST }];
    const result = await grader.grade(attackRequest(task, programs, tests));
    const report = attackReport(programs, tests, result);
    // The report's rows have as many lines as there are tests.
    expect(report.programs[0].lines.length, JSON.stringify(result.suites[0].map(show))).toBe(tests.length);
    expect(report.tests.map((t) => t.validity), JSON.stringify(report.tests)).toEqual(["valid", "wrong-answer", "valid"]);
  }, 120_000);
});

describe("held: a kept heap and an interrupted timeout in the last suite", () => {
  it("keeps the earlier suites' verdicts and the next candidate's", async () => {
    const prog = "def f(x):\n    t = bytearray(100 * 2 ** 20)\n    if x == 5:\n        while True:\n            pass\n    return x + 1 + t[x]";
    const SUITES = [["assert f(1) == 2", "assert f(2) == 3"], ["assert f(3) == 4"], ["assert f(5) == 6", "assert f(6) == 7"]];
    expect(suiteTruth(prog, SUITES[0])).toEqual([true, true]);
    expect(suiteTruth(prog, SUITES[1])).toEqual([true]);
    const codes = [prog, HONEST].map((code) => ({ task: "t", code }));
    const r = await grader.grade({
      tasks: [{ id: "t", entry_point: "f", reference: REF }],
      codes,
      suites: codes.flatMap((_, c) => SUITES.map((lines) => ({ code: c, text: lines.join("\n") }))),
      limits: { test_ms: 2000, max_lines: 8 },
    });
    const got = r.suites.map((s) => s.map(show));
    expect(got, JSON.stringify(r.suites)).toEqual([
      ["valid/pass", "valid/pass"], ["valid/pass"], ["valid/timeout", "valid/timeout"],
      ["valid/pass", "valid/pass"], ["valid/pass"], ["valid/pass", "valid/pass"],
    ]);
  }, 300_000);
});
