/**
 * Round 25 (issue 27): a stranger agent on round 24's fix (eeae683). Each test asserts CPython's truth
 * first (a clean Pyodide: the program exec'd, then each line in its namespace), then that the grader's
 * verdict is that truth or a refusal; each failed on eeae683. Fixed: `~` is not inert (a line holding
 * it is opaque: the rest of its suite refused), and an entry point missing from the namespace is a
 * marked error (the rest of the suite refused).
 * A. A refused line is compiled in its place, never run: CPython runs it. harness `call`'s ["C", src]
 *    step (verdicts.ts `compileOnly`) only compiles an inert line, and a side call (`sideCall`) only
 *    calls the entry point; `_opaque` takes `~` (ast.Invert) for inert. But `~True` / `~False` is not
 *    folded by the compiler: CPython 3.14 evaluates it when the line RUNS and emits a
 *    DeprecationWarning there ("Bitwise inversion '~' on bool is deprecated"), which runs the
 *    program's warning hook (`warnings.showwarning`). A hook that changes program state makes a later
 *    valid line's truth differ from what the grader computes on the state it never changed.
 * B. The entry point found only in the builtins is an UNMARKED error: harness `call` looks the entry
 *    point up in the namespace alone (`_lookup(ns, entry)`) and answers a plain `error` (NameError)
 *    where CPython's LOAD_NAME goes on to the builtins and calls the program's function there (its
 *    side effects happen). No cut follows, so a later line runs on a program that missed that call:
 *    a warning hook run by a later line's compile puts the entry point back into the namespace, and
 *    that line is graded on a call count CPython never had.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne, OK_FAIL, OK_PASS, UNWARN } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();
// The truth interpreter is shared by the file's tests: put the warnings machinery and the builtins back.
const UNBUILTIN = "import builtins; vars(builtins).pop('f', None)";

// A program whose warning hook counts the warnings it sees; f answers the count.
const HOOKED =
  "import collections\n_w = collections._sys.modules['warnings']\n_w.simplefilter('always')\nhits = []\n" +
  "def _hook(*a, **k):\n    hits.append(1)\n_w.showwarning = _hook\ndef f(x):\n    return len(hits)";
const REF_ONE = "def f(x):\n    return 1";

describe("A. a refused line is compiled, not run: `~True` warns only when CPython RUNS the line, and runs the program's hook", () => {
  it("an inert line `assert ~True == -2` (compile-only step): a correct program fails the next line", async () => {
    const lines = ["assert ~True == -2", "assert f(0) == 1"];
    expect(suiteTruth(HOOKED, [...lines, UNWARN]).slice(0, 2)).toEqual([true, true]);
    expect(suiteTruth(REF_ONE, lines)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", REF_ONE, lines, HOOKED);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("a bare expression `~False` (compile-only step): the same", async () => {
    const lines = ["~False", "assert f(0) == 1"];
    expect(suiteTruth(HOOKED, [...lines, UNWARN]).slice(0, 2)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", REF_ONE, lines, HOOKED);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("a side call whose answer is `~True` (the call is made, the rest of the line is not run)", async () => {
    const lines = ["assert f(0) == ~True", "assert f(1) == 1"];
    expect(suiteTruth(HOOKED, [...lines, UNWARN]).slice(0, 2)).toEqual([false, true]);
    const got = await gradeOne(grader, "f", REF_ONE, lines, HOOKED);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("a side call whose message is `~True` (run where the assert fails)", async () => {
    const lines = ["assert f(0) == 5, ~True", "assert f(1) == 1"];
    expect(suiteTruth(HOOKED, [...lines, UNWARN]).slice(0, 2)).toEqual([false, true]);
    const got = await gradeOne(grader, "f", REF_ONE, lines, HOOKED);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("a wrong program passes: the reference answers 0, CPython's count is 1", async () => {
    const ref = "def f(x):\n    return 0";
    const lines = ["assert ~True == -2", "assert f(0) == 0"];
    expect(suiteTruth(HOOKED, [...lines, UNWARN]).slice(0, 2)).toEqual([true, false]);
    expect(suiteTruth(ref, lines)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", ref, lines, HOOKED);
    expect(got[1], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("golden: the same, a correct program fails", async () => {
    const lines = ["assert ~True == -2", "assert f(0) == 1"];
    expect(suiteTruth(HOOKED, [...lines, UNWARN]).slice(0, 2)).toEqual([true, true]);
    const got = await gradeGolden(grader, "f", REF_ONE, lines, HOOKED);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});

// f moves itself into the builtins on its first call (LOAD_NAME still finds it there); the warning
// hook (a line's '\d' SyntaxWarning, at its compile) moves it back. f answers how often it ran.
const MOVER =
  "import collections\n_w = collections._sys.modules['warnings']\n_w.simplefilter('always')\n" +
  "_b = __builtins__ if type(__builtins__) is dict else vars(__builtins__)\n_g = globals()\ncalls = []\n" +
  "def f(x):\n    calls.append(x)\n    if len(calls) == 1:\n        _b['f'] = _g.pop('f')\n    return len(calls)\n" +
  "def _hook(*a, **k):\n    if 'f' in _b:\n        _g['f'] = _b.pop('f')\n_w.showwarning = _hook";
const REF_B = "def f(x):\n    return {1: 1, 2: 2, 3: 3, '\\\\d': 3}[x]";

describe("B. the entry point found only in the builtins: an unmarked NameError where CPython calls it", () => {
  it("a correct program fails: CPython's third call answers 3, the grader's second", async () => {
    const lines = ["assert f(1) == 1", "assert f(2) == 2", "assert f('\\d') == 3"];
    expect(suiteTruth(MOVER, [...lines, UNWARN, UNBUILTIN]).slice(0, 3)).toEqual([true, true, true]);
    expect(suiteTruth(REF_B, lines)).toEqual([true, true, true]);
    const got = await gradeOne(grader, "f", REF_B, lines, MOVER);
    expect(got[2], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("a wrong program passes (the reference answers 2 for the third line)", async () => {
    const ref = "def f(x):\n    return {1: 1, 2: 2, '\\\\d': 2}[x]";
    const lines = ["assert f(1) == 1", "assert f(2) == 2", "assert f('\\d') == 2"];
    expect(suiteTruth(MOVER, [...lines, UNWARN, UNBUILTIN]).slice(0, 3)).toEqual([true, true, false]);
    expect(suiteTruth(ref, lines)).toEqual([true, true, true]);
    const got = await gradeOne(grader, "f", ref, lines, MOVER);
    expect(got[2], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("golden: a correct program fails", async () => {
    const lines = ["assert f(1) == 1", "assert f(2) == 2", "assert f('\\d') == 3"];
    expect(suiteTruth(MOVER, [...lines, UNWARN, UNBUILTIN]).slice(0, 3)).toEqual([true, true, true]);
    const got = await gradeGolden(grader, "f", REF_B, lines, MOVER);
    expect(got[2], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});
