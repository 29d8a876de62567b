/**
 * Round 43: a stranger agent on attack43, ~35 minutes. Each test asserts a clean CPython's truth
 * first (a clean Pyodide, `clean-python.ts`), then that the grader's verdicts are that truth. The
 * tests FAIL on the current code (that is the proof).
 *
 * A. A value of a BUILTIN type the canonical form cannot write cuts the rest of the suite. `_canon`
 *    (harness.py) raises `_ProgramObject` for every type it has no tag for, and `_call` turns every
 *    `_NotBuiltin` into a MARKED `fail` (`_marked`: "the program's state may now differ from
 *    CPython's"); `judgeCandidate` (verdicts.ts) then grades every later line of that suite `error`
 *    ("not graded: line k left the program in a state CPython would not"). The mark exists for a
 *    program's own objects, whose `__eq__`/`__ne__`/`__hash__`/`__bool__` CPython's comparison would
 *    run (SECURITY.md rule 0, Not guaranteed "return their own objects"). But bytes, complex, range,
 *    a generator, a builtin function, Ellipsis, NotImplemented are the interpreter's own C types:
 *    CPython's `value == literal` runs no program code for them (C richcompare, or object's identity
 *    compare), and the program's state after the line is exactly CPython's. So an honest-but-wrong
 *    program that returns `b'x'` (or `1j`, `range(0)`, a generator, ...) on ONE line loses every
 *    later TRUE line of that suite, golden and generated: CPython's truth [False, True, True], the
 *    grader's `valid/fail | valid/error | valid/error`. A forged fail on lines the program passes in
 *    CPython (an `error` with a refusal reason that is false: nothing left CPython's path). The value
 *    need not be at the top: `[b'x']`, `(1, 1j)` cut the same way. No search for the grader, no
 *    import, no frame: an ordinary wrong answer of a builtin type.
 *    Root cause (a guess): "cannot be written as canonical text" is conflated with "is a program's
 *    object". A fix: mark only where the unwritable value (transitively) holds an instance of a class
 *    the program made (a heap type, or a type whose comparison/hash slots are not the builtins');
 *    an unwritable builtin value is an unmarked `fail`.
 *    (Related, NOT submitted as new: `assert f(1) == 1` with `f` returning `1+0j`, `frozenset({1})`
 *    for `{1}`, `{1: 0}.keys()` for `{1}` hold in CPython and `fail` here: SECURITY.md rule 5 "types
 *    are kept", a documented divergence.)
 *
 * Fixed: `_call` asks `_inert` (harness.py) of a value `_canon` cannot write: builtin through and through
 *    (bytes, bytearray, complex, range, Ellipsis, NotImplemented, a static builtin class, inside the
 *    builtin containers) is an unmarked `fail` ("returned a value with no literal form"), the rest of
 *    the suite graded as usual. Not in the fix, by design: a generator, a function, a method (a builtin
 *    one too) or anything holding a program's object stays marked: its release can run the program's
 *    code (a generator's `finally`, a weak reference's callback, a module's teardown when the value held
 *    its last reference), so the state after the line may not be CPython's (SECURITY.md, Not
 *    guaranteed, "return their own objects"). B asserts that boundary.
 *
 * What held (tried, nothing got through in the time): float tolerance and `-0.0`/NaN inside sets and
 * dict keys (exact text, consistent with CPython for every writable literal); `_literal` on unary
 * signs, bools under `-`, unhashable set elements and dict keys (refused, side call where CPython
 * makes one, never opaque wrongly); side calls of refused lines and the `set()` load count (a
 * `set()` outside the call is opaque, so the count check never cuts an honest suite); the judge's
 * `max_lines`/blank splitting; JS `checkCanonical`'s node budget against the harness's (a "u" str
 * costs its length in JS but 1 node in Python: the 200,000-character cap keeps every value under
 * JS's 100,000 nodes, by 7 characters at the tightest); the interrupt buffer's one-shot SIGINT and
 * `timed`'s accounting; `KeyboardInterrupt`/`SystemExit` raised by the program (an `error`, as a line
 * that raises); compiled-code reuse across a unit's reloads (only observable through state outside
 * the module, round 15's known class).
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { expectOnlyFirstLineFails, gradeOne } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();
const REF = "def f(x):\n    return x";
const LINES = ["assert f(0) == 0", "assert f(1) == 1", "assert f(2) == 2"];

describe("A. a builtin value with no canonical form (bytes, complex, range...) cuts the rest of the suite", () => {
  for (const bad of ["b'x'", "1j", "range(0)", "...", "[b'x']", "(1, 1j)", "{0: bytearray(2)}", "NotImplemented", "int"]) {
    it(`A. returning ${bad} on line 1: CPython's later lines hold; the grader graded them error`, () => expectOnlyFirstLineFails(grader, suiteTruth, bad), 300_000);
  }
});

describe("B. a value whose release can run the program's code stays marked (the rest of its suite is not graded)", () => {
  // A generator's finally runs when CPython releases it right after the comparison; a program's object
  // beside a builtin value; a builtin function, which may hold the last reference to its module.
  const marked: [string, string][] = [
    ["a generator suspended in try/finally", "def g():\n    try:\n        yield 1\n    finally:\n        pass\n\ndef f(x):\n    if x == 0:\n        it = g()\n        next(it)\n        return it\n    return x"],
    ["bytes beside a program's object with __del__", "class O:\n    def __del__(self):\n        pass\n\ndef f(x):\n    return [b'x', O()] if x == 0 else x"],
    ["a generator expression", "def f(x):\n    return (i for i in []) if x == 0 else x"],
    ["a builtin function", "def f(x):\n    return len if x == 0 else x"],
  ];
  for (const [what, prog] of marked) {
    it(`B. ${what}: fail, then the rest not graded`, async () => {
      expect(suiteTruth(prog, LINES)).toEqual([false, true, true]);
      const got = await gradeOne(grader, "f", REF, LINES, prog);
      expect(got, got.join(" | ")).toEqual(["valid/fail", "valid/error", "valid/error"]);
    }, 300_000);
  }
});
