/**
 * Round 31: a stranger agent on 55fc970. Each test asserts CPython's truth first (a clean Pyodide: the
 * program exec'd, then each line exec'd in its namespace), then that the grader's verdict is that
 * truth or a refusal (grade-lines.ts OK_PASS / OK_FAIL). The reproducers are plain `it`s that FAIL on
 * 55fc970; the boundaries pass. Fixed in the same stop (docs/SECURITY.md, round 31): A-C, `load` and
 * `call` read the mark once, as the step ends (`_load` / `_call` do the work); D, setup's filter is
 * undone before the snapshot, the judge's parses ignore warnings by themselves, and the truth helper
 * no longer sets a filter.
 *
 * The shared class: round 29 made every step that met a refusal a marked `error` (`_REFUSED`: the
 * audit hook and the program's `__import__` append to it; `load` and `call` test it), so that a
 * program's fallback after a refused operation (`try: import sys / except ImportError:`) is never
 * graded as CPython's path. But `call` tests the list at ONE point (right after the entry point
 * returns), and program code also runs in a step OUTSIDE that window. A refusal met there is recorded
 * and then dropped (the next step starts with `del _REFUSED[:]`): the step is unmarked, the program
 * has taken its fallback path, and the next valid line is graded on a state CPython never reaches.
 * This needs no search for the grader (unlike round 30 B): an ordinary `except ImportError` suffices.
 *
 * A. A refusal while an inert line compiles in its place (the `["C", text]` step). `call` compiles
 *    the line (`_compile_line`) and returns `["ok",""]` without looking at `_REFUSED`. The compile
 *    runs the program's `warnings.showwarning` on a SyntaxWarning (`assert (1, 2)`, `'\d'`), as in
 *    CPython (round 21); a hook that does `import sys` gets the refusal (ImportError) in the grader
 *    and the module in CPython. Repro: program sets `mode` to 1 (import ok) or 2 (ImportError) in
 *    its showwarning, f(x) = x + mode; suite `assert (1, 2)` / `assert f(0) == 1`: CPython true,
 *    grader valid/fail (a forged fail; a program right only on the fallback gets a forged pass).
 *    Fix: in the "C" branch return `_marked("error", _refusal())` when `_REFUSED` is non-empty (the
 *    cut in judgeCandidate already reads a C step's mark, since `line.key` is the compile key).
 * B. A refusal in a finalizer run when the call's arguments are released. `call` checks `_REFUSED`
 *    right after the entry point returns, THEN drops the arguments (`args = fn = None`, round 20: as
 *    CPython releases them before comparing), which runs a `__del__` (or weakref callback) the
 *    program hung on an argument. A refused import caught there is never seen. Repro:
 *    `f(xs)` appends a `D()` whose `__del__` does `try: import sys; mode=1 except ImportError: mode=2`;
 *    `assert f([]) == 1` / `assert f([0]) == 3`: CPython true, true; grader pass, FAIL.
 *    (The same window holds whatever runs after the check and before the step returns: a finalizer of
 *    cyclic garbage that the harness's own allocations in `canonical` collect, round 27's open class,
 *    meets an unmarked refusal too.)
 *    Fix: test `_REFUSED` again after the release (and after anything else that may run program code
 *    before the step returns), or better, test it once at the very end of `call` / `load` (in a
 *    `finally`-like tail that turns any outcome into the marked error).
 * C. A refusal while a CALLED line compiles, when that compile then raises. `call`'s inner
 *    `try: code = _compile_line(src) except BaseException: return _outcome("error", ...)` returns an
 *    UNMARKED error whatever `_REFUSED` holds. A showwarning hook that catches the refused import and
 *    then raises (so the line does not compile, in CPython too: the line fails there, `error` is fine
 *    for it) leaves the fallback state for the next line. Repro: `assert f('\d') == 1` (hook: import,
 *    mode, raise) / `assert f(0) == 1`: CPython false, true; grader error, FAIL.
 *    Fix: `_marked("error", _refusal()) if _REFUSED else _outcome(...)` in that except, as the outer one.
 *    The general fix for A-C: a single exit point of `call`/`load` that checks `_REFUSED` after every
 *    bit of program code the step can run.
 *
 * D. The sandbox's warning filters are not a clean CPython's. setup() runs
 *    `warnings.simplefilter("ignore")` (for its own parses) before the snapshot, so every candidate
 *    starts with ('ignore', None, Warning, None, 0) in front of CPython's default filters. A program
 *    that relies on the defaults (a UserWarning is shown once, 'default'), e.g.
 *    `with warnings.catch_warnings(record=True) as log: warnings.warn('x')` then `len(log)`, or a
 *    `showwarning` it installs without its own `simplefilter`, sees nothing in the grader and one
 *    warning in CPython. Repro: f(x) = x + len(log); `assert f(0) == 1`: clean Pyodide true (checked
 *    by clean-python.ts, which since this fix sets no filter), grader valid/fail. Note: the test
 *    helper's truth (clean-python.ts `suiteOn`) itself runs `warnings.simplefilter("ignore")` before
 *    the program, so it says false here and hides the class; its truth is not a clean CPython's.
 *    Fix: in setup, ignore warnings only around the harness's own work (`warnings.catch_warnings()`
 *    around setup's imports; the plan's parses run in the judge, where `catch_warnings` or a saved
 *    and restored `warnings.filters` works), so the snapshot keeps CPython's default filters; and
 *    drop the `simplefilter("ignore")` from `suiteOn` (UNWARN already restores showwarning).
 * Held (checked, no test kept): a program's view of the interpreter's settings matches a clean Pyodide's
 * (gc enabled and thresholds, recursion limit, switch interval, argv, sys.flags, encodings, environ's
 * names, int digit limit, sys.path length, float repr style); only the warning filters (D) differ.
 * Held (plain, passing tests below): the control (the same hooks without the refused import: the
 * grader agrees with CPython); a refusal in a `__del__` run DURING the call (marked); a refused
 * import caught in the compile of a called line that still compiles (marked, after the call).
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne, OK_FAIL, OK_PASS, UNWARN } from "./grade-lines.ts";

const { suiteTruth } = cleanPython();
const grader = sharedNodeGrader();

// showwarning: CPython imports sys (mode 1); the grader refuses it (mode 2).
const HOOK = (tail: string) =>
  "import collections\n_w = collections._sys.modules['warnings']\n_w.simplefilter('always')\nmode = [0]\n" +
  "def _hook(*a, **k):\n    try:\n        import sys\n        mode[0] = 1\n    except ImportError:\n        mode[0] = 2\n" + tail +
  "_w.showwarning = _hook\n";
const REF1 = "def f(x):\n    return x + 1";

describe("A. a refusal in the compile of an inert line (the C step) is not marked", () => {
  const prog = HOOK("") + "def f(x):\n    return x + mode[0]";
  it("generated suite: `assert (1, 2)` then `assert f(0) == 1` (CPython true)", async () => {
    const lines = ["assert (1, 2)", "assert f(0) == 1"];
    expect(suiteTruth(prog, [...lines, UNWARN]).slice(0, 2)).toEqual([true, true]);
    expect(suiteTruth(REF1, lines)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", REF1, lines, prog);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("golden suite: `'\\d'` (invalid escape) then `assert f(0) == 1` (CPython true)", async () => {
    const lines = ["'\\d'", "assert f(0) == 1"];
    expect(suiteTruth(prog, [...lines, UNWARN]).slice(0, 2)).toEqual([true, true]);
    const got = await gradeGolden(grader, "f", REF1, lines, prog);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("forged pass: a program right only on the fallback (mode 2) passes a line CPython fails", async () => {
    const wrong = HOOK("") + "def f(x):\n    return x + mode[0] - 1";
    const lines = ["assert (1, 2)", "assert f(0) == 1"];
    expect(suiteTruth(wrong, [...lines, UNWARN]).slice(0, 2)).toEqual([true, false]);
    const got = await gradeOne(grader, "f", REF1, lines, wrong);
    expect(got[1], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
});

// __del__ on an object the program hung on its argument: runs when the line releases the arguments.
const DEL = (body: string) =>
  "mode = [0]\nclass D:\n    def __del__(self):\n" + body + "def f(xs):\n    xs.append(D())\n    return len(xs) + mode[0]";
const DEL_IMPORT = "        try:\n            import sys\n            mode[0] = 1\n        except ImportError:\n            mode[0] = 2\n";
const REF2 = "def f(xs):\n    return 2 * len(xs) + 1";

describe("B. a refusal in a finalizer run at the argument release (after the check) is not marked", () => {
  it("generated suite: `assert f([]) == 1` then `assert f([0]) == 3` (CPython true, true)", async () => {
    const prog = DEL(DEL_IMPORT);
    const lines = ["assert f([]) == 1", "assert f([0]) == 3"];
    expect(suiteTruth(prog, lines)).toEqual([true, true]);
    expect(suiteTruth(REF2, lines)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", REF2, lines, prog);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("golden suite, a weakref callback instead of __del__ (CPython true, true)", async () => {
    const prog =
      "mode = [0]\nclass D:\n    pass\nkeep = []\n" +
      "def _cb(r):\n    try:\n        import sys\n        mode[0] = 1\n    except ImportError:\n        mode[0] = 2\n" +
      "_wr = __import__('weakref', None, None, [])\n" +
      "def f(xs):\n    d = D()\n    xs.append(d)\n    keep.append(_wr.ref(d, _cb))\n    return len(xs) + mode[0]";
    const lines = ["assert f([]) == 1", "assert f([0]) == 3"];
    expect(suiteTruth(prog, lines)).toEqual([true, true]);
    const got = await gradeGolden(grader, "f", REF2, lines, prog);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});

describe("C. a refusal in the compile of a called line that then does not compile: an unmarked error", () => {
  it("`assert f('\\d') == 1` (the hook raises) then `assert f(0) == 1` (CPython false, true)", async () => {
    const prog = HOOK("    raise ValueError('no')\n") + "def f(x):\n    return mode[0]";
    const ref = "def f(x):\n    return 1";
    const lines = ["assert f('\\d') == 1", "assert f(0) == 1"];
    expect(suiteTruth(prog, [...lines, UNWARN]).slice(0, 2)).toEqual([false, true]);
    expect(suiteTruth(ref, lines)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", ref, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});

describe("held: boundaries", () => {
  it("control: the showwarning hook without the refused import agrees with CPython", async () => {
    const prog = HOOK("").replace("        import sys\n", "") + "def f(x):\n    return x + mode[0]";
    const lines = ["assert (1, 2)", "assert f(0) == 1", "assert f(1) == 2"];
    expect(suiteTruth(prog, [...lines, UNWARN]).slice(0, 3)).toEqual([true, true, true]);
    const got = await gradeOne(grader, "f", REF1, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(/^invalid\//);
    expect(got.slice(1), got.join(" | ")).toEqual(["valid/pass", "valid/pass"]);
    // A wrong program (off by one without the hook's mode) still fails, as in CPython.
    const wrong = prog.replace("x + mode[0]", "x + mode[0] + 1");
    expect(suiteTruth(wrong, [...lines, UNWARN]).slice(1, 3)).toEqual([false, false]);
    const bad = await gradeOne(grader, "f", REF1, lines, wrong);
    expect(bad.slice(1), bad.join(" | ")).toEqual(["valid/fail", "valid/fail"]);
  }, 300_000);
  it("a refused import in a __del__ that runs DURING the call is marked", async () => {
    const prog = "mode = [0]\nclass D:\n    def __del__(self):\n" + DEL_IMPORT + "def f(xs):\n    D()\n    return len(xs) + mode[0]";
    const lines = ["assert f([]) == 1", "assert f([0]) == 2"];
    expect(suiteTruth(prog, lines)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", "def f(xs):\n    return len(xs) + 1", lines, prog);
    expect(got[0], got.join(" | ")).toMatch(/^valid\/error/);
    expect(got[1], got.join(" | ")).toMatch(/^valid\/error/);
  }, 300_000);
  it("a refused import caught in the compile of a called line that still compiles is marked", async () => {
    const prog = HOOK("") + "def f(x):\n    return mode[0]";
    const lines = ["assert f('\\d') == 1", "assert f(0) == 1"];
    expect(suiteTruth(prog, [...lines, UNWARN]).slice(0, 2)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", "def f(x):\n    return 1", lines, prog);
    expect(got[0], got.join(" | ")).toMatch(/^valid\/error/);
    expect(got[1], got.join(" | ")).toMatch(/^valid\/error/);
  }, 300_000);
});

describe("D. the sandbox starts with warnings ignored (setup's simplefilter), a clean CPython does not", () => {
  const prog =
    "import collections\n_w = collections._sys.modules['warnings']\n" +
    "def f(x):\n    with _w.catch_warnings(record=True) as log:\n        _w.warn('careful')\n    return x + len(log)";
  it("catch_warnings(record=True) records a UserWarning in CPython: `assert f(0) == 1` holds", async () => {
    const lines = ["assert f(0) == 1"];
    expect(suiteTruth(prog, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", REF1, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("forged pass: `assert f(0) == 0` fails in CPython", async () => {
    const lines = ["assert f(0) == 0"];
    expect(suiteTruth(prog, lines)).toEqual([false]);
    const got = await gradeGolden(grader, "f", "def f(x):\n    return x", lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("a program that reads the filters: the first is CPython's default, not an 'ignore' of every Warning", async () => {
    const p2 = "import collections\n_w = collections._sys.modules['warnings']\ndef f(x):\n    return _w.filters[0][0]";
    const lines = ["assert f(0) == 'default'"];
    expect(suiteTruth(p2, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", p2, lines, p2);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("the judge too: a reference that records a warning is judged wrong on a line CPython holds", async () => {
    const lines = ["assert f(0) == 1"];
    expect(suiteTruth(prog, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", prog, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("held: a program that sets its own filter first agrees with CPython", async () => {
    const p3 = prog.replace("as log:\n", "as log:\n        _w.simplefilter('always')\n");
    const lines = ["assert f(0) == 1"];
    expect(suiteTruth(p3, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", REF1, lines, p3);
    expect(got[0], got.join(" | ")).toEqual("valid/pass");
  }, 300_000);
});
