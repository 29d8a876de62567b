/**
 * Round 49: a stranger agent on attack49, ~30 minutes, on 1b23da7. Each test asserts a clean
 * CPython's truth first (a clean Pyodide, `clean-python.ts`), then that the grader's verdicts are that
 * truth. The tests FAIL on the current code (that is the proof).
 *
 * One class, what round 43's fix left: a value BUILTIN THROUGH AND THROUGH that the canonical form
 * stops reading at its SIZE or DEPTH bound (more than 20,000 nodes, more than 200,000 characters,
 * nested deeper than 100) is still a MARKED `fail`, so every later line of its suite is `error`
 * ("not graded: line k left the program in a state CPython would not"), for a candidate and, worse,
 * for EVERY candidate of a task when the line's reference output is that value.
 *   `_call` (harness.py) consults `_inert` only for `_ProgramObject` (a type with no tag); a
 *   `_NotBuiltin` raised for size or depth ("too large", "nested deeper than 100") goes straight to
 *   `_marked("fail", ...)`. And `_inert` itself gives up (False, i.e. marked) at the same node and
 *   depth budget. Round 23 marked "every value not read in full" because the unread rest might hold a
 *   program's object that CPython's comparison would run; but a str, a list of ints, a set of ints, a
 *   list nested 150 deep hold none: CPython's `value == literal` and the release run no program
 *   code (C richcompare, the trashcan), and the state after the line is exactly CPython's.
 *
 * A. A candidate (honest but wrong, no import, no frame) returns `'a' * 300000`, `[0] * 30000`,
 *    `set(range(30000))` or a list nested 150 deep on line 1: CPython `[False, True, True]`; the
 *    grader `valid/fail | valid/error | valid/error`, generated and golden alike (a forged fail of two
 *    lines the program passes). A nested list is a natural output (a linked list or tree as lists).
 * B. The Test policy's reward hack (a line of its grammar, `assert f(literals) == literal`): a first
 *    line whose REFERENCE output is such a value, e.g. `assert f(30000) == []` for `f(n) = [0] * n`.
 *    The reference step is `fail` "returned a non-builtin value: too large", so the line is
 *    `invalid/skipped` and (round 41, `returned`) every candidate makes its call in its place; that
 *    side call's step is marked, and `judgeCandidate` cuts the rest of the suite: the REFERENCE ITSELF
 *    graded as a candidate gets `invalid/skipped | valid/error | valid/error`, where CPython holds
 *    lines 2 and 3. An `error` counts as a failed executable line (rewards.ts `suiteCounts`), so one
 *    such line lowers every correct program's R_C and raises the tester's R_adv on the rest of the
 *    suite. Same with a 300,000-character str and a list nested 150 deep.
 *    Root cause (a guess): "not read in full" is conflated with "may hold a program's object". A fix:
 *    decide inertness by a walk of its own (iterative, a larger budget than canonical's, or "holds
 *    no heap-type instance"), and mark only where that walk finds (or cannot rule out) a program's
 *    object; a value past canonical's bounds but inert is a plain `fail` (a reference's: `returned`,
 *    as now, with an unmarked side call).
 *
 * Fixed: `_call` asks `_inert` of every value the canonical form does not read (no tag, or past its
 *    size or depth), and `_inert` walks a value without recursion up to 200,000 values (its own
 *    budget, `_INERT_WALK`, ten times canonical's): builtin through and through, it is a plain `fail`
 *    ("returned a value with no literal form: too large ..."), the rest of the suite graded. A value
 *    past that walk stays marked (semantics.test.ts: `set(range(250000))`).
 *
 * What held (tried, nothing got through in the time): `_inert`'s boundary itself (static builtin
 *    classes, ranges, bytearray, complex: no program code in comparison or release; complex(1, 0) ==
 *    1 holding in CPython is rule 5's "types are kept"); round 44's corrected-line limits (the
 *    corrected line's nesting is max(call, literal), the call's spans never deeper than the original
 *    line; `_lit` round trips of -0.0, huge ints, infinities, empty sets; the plan's per-line cap
 *    against a corrected line's values); round 46's golden-whole reading against `planTask`'s
 *    packing and `markRepeats` across parts; round 47's `isOneTestLine` against the harness's split
 *    (`suiteLines`' PYTHON_BLANK is exactly Python's `str.strip()` whitespace, checked over every
 *    code point); round 45's `pinLocalTime` (Emscripten's `_tzset_js` names the zone from the offset,
 *    `UTC+0000`, so `time.tzname` reads no host zone name); CURE's as-written suites read whole
 *    (the Test policy's grammar bounds a suite at N lines).
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { expectOnlyFirstLineFails, gradeOne } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();

const DEEP = "def nest(n):\n    x = []\n    for _ in range(n):\n        x = [x]\n    return x\n\n";

describe("A. a builtin value past canonical's size or depth bound cuts the rest of the candidate's suite", () => {
  for (const bad of ["'a' * 300000", "[0] * 30000", "set(range(30000))", "nest(150)"]) {
    it(`A. returning ${bad} on line 1: CPython's later lines hold; the grader graded them error`, () => expectOnlyFirstLineFails(grader, suiteTruth, bad, DEEP), 300_000);
  }
});

describe("B. a test line whose reference output is such a value cuts the suite for every candidate, the reference itself included", () => {
  const cases: [string, string, string[]][] = [
    ["a list of 30,000 zeros", "def f(n):\n    return [0] * n", ["assert f(30000) == []", "assert f(1) == [0]", "assert f(2) == [0, 0]"]],
    ["a list nested 150 deep", "def f(n):\n    x = []\n    for _ in range(n):\n        x = [x]\n    return x", ["assert f(150) == []", "assert f(1) == [[]]", "assert f(2) == [[[]]]"]],
    ["a str of 300,000 characters", "def f(n):\n    return 'a' * n", ["assert f(300000) == ''", "assert f(1) == 'a'", "assert f(2) == 'aa'"]],
  ];
  for (const [what, ref, lines] of cases) {
    it(`B. ${what}: the reference graded as a candidate loses lines 2-3, which hold in CPython`, async () => {
      expect(suiteTruth(ref, lines)).toEqual([false, true, true]);
      const got = await gradeOne(grader, "f", ref, lines);
      // Line 1's refusal is fine (no literal form); before the fix lines 2-3 were valid/error | valid/error.
      expect(got[0], got.join(" | ")).toMatch(/^invalid\//);
      expect(got.slice(1), got.join(" | ")).toEqual(["valid/pass", "valid/pass"]);
    }, 300_000);
  }
});
