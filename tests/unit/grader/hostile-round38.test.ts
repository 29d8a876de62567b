/**
 * Round 38: a stranger agent on d95a17a, ~30 minutes. Each test asserts CPython's truth first (a clean
 * Pyodide: the program exec'd, then each line exec'd in its namespace), then that the grader's verdict
 * is that truth or a refusal (grade-lines.ts OK_PASS / OK_FAIL). Tests here FAIL on d95a17a.
 *
 * A. A dict display that repeats a key is not built as CPython builds it (round 35's class, for dicts).
 *    CPython compiles `{1: 1, 1: 2, ..., 1: 9}` to BUILD_MAP 9: the dict is presized for nine entries
 *    (`_PyDict_NewPresized`), then holds one key, and keeps its larger table: `__sizeof__()` is 188.
 *    The runners (and the judge) rebuild the dict from its one key and value: `__sizeof__()` is 120.
 *    No import, no frame: a program (or a reference) that reads the size of its argument answers
 *    otherwise than in CPython. A correct program fails a golden line CPython passes (A1), and a true
 *    generated line of a reference that returns the size is judged against the grader's 120 (A2).
 *    Root cause (a guess): harness `_literal` / `_from_canon` build a dict display from its distinct
 *    keys (the canonical value), not with BUILD_MAP's presize of the WRITTEN item count (the list's
 *    `_build_list` follows the compiler since round 35; dicts do not). The line fuzzer's `_layout`
 *    compares `__sizeof__` but its generated dicts evidently never repeat a key 6+ times.
 *    Fixed: an argument holding a dict display travels as its written entries (`_display`), and
 *    `_build_dict` builds it as the compiler does (chunks: BUILD_MAP n presized for up to 15 written
 *    entries, MAP_ADD for 16-17, DICT_UPDATE of the later chunks); the line fuzzer now writes dicts of
 *    5 to 35 entries with repeated keys and lists of 3 to 33 items, and compares their sizes.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne, OK_PASS } from "./grade-lines.ts";

const { suiteTruth } = cleanPython();
const grader = sharedNodeGrader();

const SIZE = "def f(d):\n    return type(d).__sizeof__(d)";
const REPEATED = "{1: 1, 1: 2, 1: 3, 1: 4, 1: 5, 1: 6, 1: 7, 1: 8, 1: 9}";

describe("A. a dict display repeating a key is built without CPython's presize (harness `_literal` / `_from_canon`)", () => {
  it("A1. golden: a correct program fails a line CPython passes", async () => {
    const lines = [`assert f(${REPEATED}) == 188`];
    expect(suiteTruth(SIZE, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", SIZE, lines, SIZE);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);

  it("A2. generated: a true line of the reference itself is not passed", async () => {
    const lines = [`assert f(${REPEATED}) == 188`, "assert f({0: 0, 0.0: 1, -0.0: 2, False: 3, 0: 4, 0: 5}) == 188"];
    expect(suiteTruth(SIZE, lines)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", SIZE, lines, SIZE);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});
