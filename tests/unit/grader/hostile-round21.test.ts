/**
 * Round 21 (issue 27): a stranger agent (14 minutes) on round 20 (9fa7721): verdicts a clean CPython
 * contradicts. C is fixed (the line is compiled under exec's own filename, "<string>"); A is fixed
 * since (every refused line a candidate does not call is compiled in its place: verdicts.ts
 * `inPlace`); B is open, kept as `it.fails` (docs/SECURITY.md, Not guaranteed): they pass while the
 * grader still differs from CPython here, and fail (to become `it`) when it is fixed.
 * A. Compile-time program code on a line candidates never run: CPython compiles EVERY line of the
 *    suite in the program's interpreter (an inert line of literals too); a SyntaxWarning there runs
 *    the program's `warnings.showwarning`. The grader compiled only lines it called.
 * B. The harness's call is observable: the caller's frame, the argument's reference count.
 * C. The compiled line's warning carries the grader's filename, not CPython's.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne, OK_FAIL, OK_PASS, UNWARN } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();

// Counts the warnings CPython shows while compiling the suite's lines.
const WARN_PROG =
  "import collections\n_w = collections._sys.modules['warnings']\n_w.simplefilter('always')\nseen = []\n" +
  "_w.showwarning = lambda *a, **k: seen.append(1)\ndef f(x):\n    return x + len(seen)";
const REF = "def f(x):\n    return x + 1";

describe("A. a SyntaxWarning while CPython compiles an inert line runs the program's showwarning", () => {
  it("`assert (1, 2)` (a line of literals) then a valid line: CPython passes", async () => {
    const lines = ["assert (1, 2)", "assert f(0) == 1"];
    expect(suiteTruth(WARN_PROG, [...lines, UNWARN]).slice(0, 2)).toEqual([true, true]);
    expect(suiteTruth(REF, lines)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", REF, lines, WARN_PROG);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("golden: `assert '\\d' != 0` (invalid escape, literals only) then a valid line", async () => {
    const lines = ["assert '\\d' != 0", "assert f(0) == 1"];
    expect(suiteTruth(WARN_PROG, [...lines, UNWARN]).slice(0, 2)).toEqual([true, true]);
    const got = await gradeGolden(grader, "f", REF, lines, WARN_PROG);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("wrong program passes: the warning makes f(1) == 1 in CPython (reference 0)", async () => {
    const prog = WARN_PROG.replace("x + len(seen)", "x * (1 + len(seen)) - 1");
    // CPython: the inert line's warning makes f(1) = 1 * 2 - 1 = 1, not the reference's 0.
    const ref = "def f(x):\n    return x - 1";
    const l2 = ["assert (1, 2)", "assert f(1) == 0"];
    expect(suiteTruth(prog, [...l2, UNWARN]).slice(0, 2)).toEqual([true, false]);
    expect(suiteTruth(ref, l2)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", ref, l2, prog);
    expect(got[1], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
});

describe("A, the class: every line a candidate does not call is still compiled in its place", () => {
  it("a line whose call the grader skips (the reference raises on it) still warns, as CPython compiles it", async () => {
    const ref = "def f(x):\n    if x < 0:\n        raise ValueError(x)\n    return x + 1";
    const lines = ["assert f(-1) == '\\d'", "assert f(0) == 1"];
    expect(suiteTruth(WARN_PROG, [...lines, UNWARN]).slice(0, 2)).toEqual([false, true]);
    const got = await gradeOne(grader, "f", ref, lines, WARN_PROG);
    expect(got[0], got.join(" | ")).toMatch(/^invalid\//);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("a program that counts compiles: two inert lines, then the count, in order", async () => {
    const prog = WARN_PROG.replace("x + len(seen)", "len(seen)");
    const ref = "def f(x):\n    return 2";
    const lines = ["assert (1, 2)", "assert '\\d' != 0", "assert f(0) == 2"];
    expect(suiteTruth(prog, [...lines, UNWARN]).slice(0, 3)).toEqual([true, true, true]);
    const got = await gradeOne(grader, "f", ref, lines, prog);
    expect(got[2], got.join(" | ")).toMatch(OK_PASS);
    // Wrong by one compile: a program whose answer counts one warning too many fails, as in CPython.
    const off = WARN_PROG.replace("x + len(seen)", "len(seen) + 1");
    expect(suiteTruth(off, [...lines, UNWARN])[2]).toBe(false);
    const wrong = await gradeOne(grader, "f", ref, lines, off);
    expect(wrong[2], wrong.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("warnings made errors: an inert line that does not compile there is skipped, and the next line still runs", async () => {
    const prog = "import collections\n_w = collections._sys.modules['warnings']\n_w.simplefilter('error')\ndef f(x):\n    return x + 1";
    const lines = ["assert (1, 2)", "assert f(0) == 1"];
    expect(suiteTruth(prog, [...lines, UNWARN]).slice(0, 2)).toEqual([false, true]);
    const got = await gradeOne(grader, "f", REF, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(/^invalid\//);
    expect(got[1], got.join(" | ")).toBe("valid/pass");
  }, 300_000);
});

describe("C. the warning of a called line: CPython's filename, not the harness's", () => {
  it("showwarning records the filename", async () => {
    const prog =
      "import collections\n_w = collections._sys.modules['warnings']\n_w.simplefilter('always')\nseen = []\n" +
      "_w.showwarning = lambda m, c, fn, ln, *a, **k: seen.append(fn)\ndef f(s):\n    return seen[-1] if seen else ''";
    const ref = "def f(s):\n    return '<string>'";
    const lines = ["assert f('\\d') == '<string>'"];
    expect(suiteTruth(prog, [...lines, UNWARN]).slice(0, 1)).toEqual([true]);
    const got = await gradeOne(grader, "f", ref, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});

describe("B. the harness's call frame and references are visible to the program", () => {
  // Closed by round 39: the entry point is called from a '<string>' module frame whose globals are the
  // program's namespace, as exec(line, ns) calls it.
  it("the caller's code name: '<module>' in CPython", async () => {
    const prog = "import collections\ndef f(x):\n    return collections._sys._getframe(1).f_code.co_name";
    const ref = "def f(x):\n    return '<module>'";
    const lines = ["assert f(0) == '<module>'"];
    expect(suiteTruth(prog, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", ref, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  // Open (docs/SECURITY.md, Not guaranteed): the harness's frame and references are visible to the program.
  it.fails("sys.getrefcount of the argument (no audit event)", async () => {
    const prog = "import collections\ndef f(xs):\n    return collections._sys.getrefcount(xs)";
    let k = -1;
    for (let i = 0; i < 8 && k < 0; i++) if (suiteTruth(prog, [`assert f([]) == ${i}`])[0]) k = i;
    expect(k).toBeGreaterThanOrEqual(0);
    const ref = `def f(xs):\n    return ${k}`;
    const lines = [`assert f([]) == ${k}`];
    const got = await gradeOne(grader, "f", ref, lines, prog);
    expect(got[0], `k=${k} ` + got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});
