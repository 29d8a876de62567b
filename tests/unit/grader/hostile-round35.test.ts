/**
 * Round 35: a stranger agent on 11f5cdf, ~30 minutes. Each test asserts CPython's truth first (a clean
 * Pyodide: the program exec'd, then each line exec'd in its namespace), then that the grader's verdict
 * is that truth or a refusal (grade-lines.ts OK_PASS / OK_FAIL). Tests here FAIL on 11f5cdf.
 *
 * A. Arguments are not built as CPython builds them: a list display's capacity. CPython compiles
 *    `[1, 2]` to BUILD_LIST 2 (exactly 2 slots) and `[1, 2, 3]` to BUILD_LIST 0 + LIST_EXTEND of a
 *    constant tuple (8 slots); the runners rebuild a list argument with a list comprehension
 *    (harness `_from_canon`: appended one by one, 4 slots for 1-4 items). `list.__sizeof__()` (and
 *    `sys.getsizeof`) reads the capacity: no import, no frame, no refcount.
 *    Measured (wasm32, `__sizeof__`, clean / grader): [1] 24/36, [1, 2] 28/36, [[1, 2]] 24/36,
 *    5 items 44/52, 9 items 60/84, 13 items 76/84, 17 items 92/116; 31 and 40 items agree; dict
 *    displays (9-22 int or str keys) and tuples agree.
 *    Why: `_from_canon` builds "l" by a comprehension (and `_literal` likewise in the judge); CPython's
 *    BUILD_LIST n allocates exactly n, and LIST_EXTEND of a folded tuple resizes once to n.
 *    Fixed: harness `_build_list` builds a list argument as the compiler does (exactly n slots up to
 *    30 elements, a folded constant tuple extended into an empty list for 3 to 30 constants, appends
 *    past 30); the line fuzzer (scripts/bench/line-fuzz.ts `_layout`) now compares every argument's
 *    type, `__sizeof__` and shared objects with CPython's, not only its value.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne, OK_FAIL, OK_PASS } from "./grade-lines.ts";

const { suiteTruth } = cleanPython();
const grader = sharedNodeGrader();

const SIZEOF = "def f(xs):\n    return xs.__sizeof__()";

describe("A. a list argument's capacity is not CPython's (harness `_from_canon`)", () => {
  it("A1. a reference reading `__sizeof__`: a true line is wrong-answer, corrected to a line CPython calls false", async () => {
    const lines = ["assert f([1, 2]) == 28"];
    expect(suiteTruth(SIZEOF, lines)).toEqual([true]);
    expect(suiteTruth(SIZEOF, ["assert f([1, 2]) == 36"])).toEqual([false]); // the grader's corrected answer
    const got = await gradeOne(grader, "f", SIZEOF, lines);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);

  it("A2. golden: a program reading `__sizeof__` fails a line CPython passes (forged fail)", async () => {
    const lines = ["assert f([1]) == 24"];
    expect(suiteTruth(SIZEOF, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", "def f(xs):\n    return 0", lines, SIZEOF);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);

  it("A3. golden: a wrong program that is right only under the grader's capacity passes (forged pass)", async () => {
    const prog = "def f(xs):\n    return sum(xs) if xs.__sizeof__() == 36 else -1";
    const lines = ["assert f([1, 2]) == 3"];
    expect(suiteTruth(prog, lines)).toEqual([false]);
    const got = await gradeGolden(grader, "f", "def f(xs):\n    return sum(xs)", lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
});
