/**
 * Round 22 (issue 27): a stranger agent on round 21's fix (cc5f53b: refused lines compiled in place).
 * Each test asserts CPython's truth first (a clean Pyodide: the program exec'd, then each line), then
 * that the grader's verdict is that truth or a refusal; each failed on cc5f53b. Both classes are fixed
 * in harness `call`: `_exec_builtins` puts `__builtins__` back before each line's compile (a called
 * line and one compiled in place), and the answer's strs are interned by the line's own compile only.
 * A. exec(line, ns) puts `__builtins__` back: CPython's exec of a line inserts `__builtins__` into a
 *    namespace that lacks it, before the line runs (builtin_exec). A program that deletes its own
 *    `__builtins__` at load sees it again from the first line on; the harness never execs a line in
 *    the program's namespace (call() looks the entry point up and calls it), so the program sees it
 *    missing.
 * B. The answer's strs are interned before the line is compiled: harness `call` interns them
 *    (`kept`) BEFORE compile(src); CPython interns a line's str constants when it creates the code
 *    object, AFTER the parser has emitted the line's SyntaxWarnings. A program's showwarning hook runs
 *    in between and can tell whether the answer's str is interned yet.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne, OK_FAIL, OK_PASS, UNWARN } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();

describe("A. exec(line, ns) inserts __builtins__ into the program's namespace; the harness does not", () => {
  const PROG = "def f(x):\n    return 1 if '__builtins__' in globals() else 0\ndel __builtins__";
  it("a correct program (CPython: 1) fails in the grader", async () => {
    const ref = "def f(x):\n    return 1";
    const lines = ["assert f(0) == 1"];
    expect(suiteTruth(PROG, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", ref, lines, PROG);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("a wrong program (CPython: 1, reference 0) passes in the grader", async () => {
    const ref = "def f(x):\n    return 0";
    const lines = ["assert f(0) == 0"];
    expect(suiteTruth(PROG, lines)).toEqual([false]);
    const got = await gradeOne(grader, "f", ref, lines, PROG);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("golden: the same", async () => {
    const lines = ["assert f(0) == 0", "assert f(1) == 0"];
    expect(suiteTruth(PROG, lines)).toEqual([false, false]);
    const got = await gradeGolden(grader, "f", "def f(x):\n    return 0", lines, PROG);
    for (const g of got) expect(g, got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("before the line compiles: a SyntaxWarning hook already sees it back", async () => {
    const prog =
      "import collections\n_w = collections._sys.modules['warnings']\n_w.simplefilter('always')\nseen = []\n" +
      "_w.showwarning = lambda *a, **k: seen.append('__builtins__' in globals())\ndef f(x):\n    return int(seen[-1]) if seen else -1\ndel __builtins__";
    const ref = "def f(x):\n    return 1";
    const lines = ["assert f('\\d') == 1"];
    expect(suiteTruth(prog, [...lines, UNWARN]).slice(0, 1)).toEqual([true]);
    const got = await gradeOne(grader, "f", ref, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("an inert line (only compiled in place) puts it back in CPython too", async () => {
    // The program deletes __builtins__ again on every call; only an exec between two calls restores it.
    const prog = "def f(x):\n    g = globals()\n    had = '__builtins__' in g\n    g.pop('__builtins__', None)\n    return int(had)\ndel __builtins__";
    const ref = "def f(x):\n    return 1";
    const lines = ["assert (1, 2)", "assert f(0) == 1"];
    expect(suiteTruth(prog, lines)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", ref, lines, prog);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});

// Whether the hook saw the answer's str already interned (built at run time: the program's source never holds it).
const INTERN_PROG =
  "import collections\n_sys = collections._sys\n_w = _sys.modules['warnings']\n_w.simplefilter('always')\nseen = []\n" +
  "def _hook(*a, **k):\n    s = ''.join(['qzx', 'wvq'])\n    seen.append(_sys.intern(s) is s)\n" +
  "_w.showwarning = _hook\ndef f(x):\n    return ''.join(['qzx', 'wvq']) if seen and seen[-1] else 'no'";
describe("B. the answer's strs are interned before the line compiles: a SyntaxWarning hook sees them early", () => {
  it("a correct program (CPython: not interned yet) fails in the grader", async () => {
    const ref = "def f(x):\n    return 'qzxwvq'";
    const lines = ["assert f('\\d') == 'qzxwvq'"];
    expect(suiteTruth(INTERN_PROG, [...lines, UNWARN]).slice(0, 1)).toEqual([true]);
    const got = await gradeOne(grader, "f", ref, lines, INTERN_PROG);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});
