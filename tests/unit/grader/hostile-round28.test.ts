/**
 * Round 28: a stranger agent on 909fbc2. Each test asserts CPython's truth first (a clean Pyodide:
 * the program exec'd, then each line exec'd in its namespace), then that the grader's verdict is that
 * truth or a refusal; each fails on 909fbc2. Found with minutes left in stop 39 and kept as `it.fails`;
 * all three fixed in the next stop (harness.py): A, load and call run the program as deep as a clean
 * Pyodide's runner does (LOAD_DEPTH, CALL_DEPTH, `_deeper`) and the limit is CPython's again; B and C,
 * a program's `__import__` is CPython's import for the allow-list, and for C code's own imports
 * (PyImport_Import's shape) of a loaded module, `_pylong` and `typing` loaded at setup.
 * A. The recursion limit a program reads is not CPython's. Round 27's fix lowers the interpreter's
 *    limit by RECURSION_MARGIN (50) at setup (harness.py `setup`: `_sys.setrecursionlimit(
 *    _sys.getrecursionlimit() - RECURSION_MARGIN)`), and the sandbox is restored to that snapshot, so
 *    every program runs under 950 where a clean CPython has 1000. A program reads it with no frame,
 *    no collector and no harness object: `sys` is `collections._sys` (the allowed import copies every
 *    non-dunder attribute), and `getrecursionlimit` raises no audit event. Its value is wrong by 50
 *    when graded: a correct program fails, and a reference that reads it is "corrected" to a line
 *    CPython calls false. The same 50 frames show, with no `sys` at all, to a program that counts how
 *    deep it can recurse before RecursionError (and catches it: no RecursionError leaves the call, so
 *    "Recursion near the limit" does not cover the verdict).
 * B. An allowed import is not CPython's module. The candidate's `__import__` (harness.py `_IMPORT_SRC`,
 *    the `restricted` of `setup`) builds a NEW ModuleType on every import statement, filled from a
 *    copy of the public attributes, with no dunders but `__name__`/`__doc__`/`__all__`. In CPython an
 *    import statement returns `sys.modules[name]`, one object: two imports of `collections` are the
 *    same module, an attribute a program sets on it at load is there when a function imports it
 *    again, and the module has its `__spec__`/`__loader__`/`__file__`. No introspection of the grader:
 *    a program that caches on its module (or compares modules) is graded otherwise. ("The import
 *    allow-list is a convenience" documents what it forbids, not that what it allows differs.)
 * C. The interpreter's own imports go through the program's restricted `__import__`. CPython's C code
 *    imports by PyImport_Import, which calls the `__import__` of the CURRENT frame's globals'
 *    `__builtins__`: under a program's frame that is the program's builtins copy, whose `__import__`
 *    is the allow-list's `restricted` (harness.py `setup`: `candidate_builtins["__import__"] =
 *    restricted`), not the guarded one that lets the stdlib's imports through. Big-int division
 *    (`long.c` delegates to `_pylong.int_divmod` past a size) imports `_pylong` that way: `divmod`
 *    on large ints raises ImportError("import of '_pylong' is not allowed") when graded, where CPython
 *    computes it (no introspection, no import statement in the program: an arithmetic expression).
 *    A program that catches the error (a defensive `except Exception`) gets a wrong value's verdict.
 *    A PEP 695 generic class (`class Box[T]: ...`) is the same: its Generic base is built by
 *    typevarobject.c's `call_typing_func_object`, which imports `typing` by PyImport_Import under the
 *    program's module frame: the load raises ImportError, and every line is `skipped`.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne, OK_FAIL, OK_PASS } from "./grade-lines.ts";

const grader = sharedNodeGrader();
// The boundary tests below read the truth first; the numbers in their lines are what a clean Pyodide
// gives (the recursion limit 1000, less the runner's frames under the program).
const { suiteTruth } = cleanPython();

const LIMIT = "import collections\ndef f(x):\n    return collections._sys.getrecursionlimit()";
const LIMIT_REF = "def f(x):\n    return 1000";
// How deep a recursion gets before RecursionError, caught: no error leaves the call.
const DEPTH = "def f(x):\n    d = [0]\n    def g():\n        d[0] += 1\n        g()\n    try:\n        g()\n    except RecursionError:\n        pass\n    return d[0] > x";
const DEPTH_REF = "def f(x):\n    return True";

describe("A. the program reads a recursion limit 50 below CPython's (fixed)", () => {
  it("a program that returns sys.getrecursionlimit() fails a line CPython passes", async () => {
    const lines = ["assert f(0) == 1000"];
    expect(suiteTruth(LIMIT, lines)).toEqual([true]);
    expect(suiteTruth(LIMIT_REF, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", LIMIT_REF, lines, LIMIT);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("golden: a program that returns sys.getrecursionlimit() fails a line CPython passes", async () => {
    const lines = ["assert f(0) == 1000"];
    expect(suiteTruth(LIMIT, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", LIMIT_REF, lines, LIMIT);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("a wrong program that returns 950 passes a line CPython fails", async () => {
    const lines = ["assert f(0) == 950"];
    expect(suiteTruth(LIMIT, lines)).toEqual([false]);
    const got = await gradeGolden(grader, "f", LIMIT_REF, lines, LIMIT);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("a reference that reads the limit: its wrong-answer line is corrected to a line CPython calls false", async () => {
    const lines = ["assert f(0) == 0"];
    const r = await grader.grade({
      tasks: [{ id: "t", entry_point: "f", reference: LIMIT }],
      codes: [{ task: "t", code: LIMIT_REF }],
      suites: [{ code: 0, text: lines.join("\n") }],
      limits: { test_ms: 1000, max_lines: 8 },
    });
    const corrected = r.suites[0][0].corrected;
    if (corrected !== undefined) expect(suiteTruth(LIMIT, [corrected]), corrected).toEqual([true]);
  }, 300_000);
  it("a program that counts its recursion depth (RecursionError caught) fails a line CPython passes", async () => {
    const lines = ["assert f(960) == True"];
    expect(suiteTruth(DEPTH, lines)).toEqual([true]);
    expect(suiteTruth(DEPTH_REF, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", DEPTH_REF, lines, DEPTH);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  // How deep it got, exactly: the grader's stack under the program is a clean runner's.
  const COUNT = DEPTH.replace("return d[0] > x", "return d[0]");
  it("a program that returns how deep it could recurse gets CPython's count, at a call and at load", async () => {
    const lines = ["assert f(0) == 995"];
    expect(suiteTruth(COUNT, lines)).toEqual([true]);
    expect(await gradeOne(grader, "f", "def f(x):\n    return 995", lines, COUNT)).toEqual(["valid/pass"]);
    const atLoad = COUNT.replace("def f(x):", "def count(x):") + "\nAT_LOAD = count(0)\ndef f(x):\n    return AT_LOAD";
    const loadLines = ["assert f(0) == 995"];
    expect(suiteTruth(atLoad, loadLines)).toEqual([true]);
    expect(await gradeOne(grader, "f", "def f(x):\n    return 995", loadLines, atLoad)).toEqual(["valid/pass"]);
  }, 300_000);
  it("plain recursion: the deepest call CPython completes passes, one deeper does not", async () => {
    const recursive = "def f(n):\n    return 0 if n == 0 else 1 + f(n - 1)";
    const lines = ["assert f(995) == 995", "assert f(996) == 996"];
    expect(suiteTruth(recursive, lines)).toEqual([true, false]);
    const got = await gradeGolden(grader, "f", "def f(n):\n    return n", lines, recursive);
    expect(got[0]).toBe("valid/pass");
    expect(got[1], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
});

const SAME_MODULE = "import collections\ndef f(x):\n    import collections as c\n    return c is collections";
const MODULE_STATE = "import functools\nfunctools.calls = 0\ndef f(x):\n    import functools\n    return getattr(functools, 'calls', None)";
const MODULE_SPEC = "def f(x):\n    import math\n    return math.__spec__ is not None";
const TRUE_REF = "def f(x):\n    return True";
describe("B. every allowed import statement gives a new copy of the module, where CPython gives sys.modules[name] (fixed)", () => {
  it("two imports of one module are the same object in CPython", async () => {
    const lines = ["assert f(0) == True"];
    expect(suiteTruth(SAME_MODULE, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", TRUE_REF, lines, SAME_MODULE);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("an attribute the program set on a module at load is there when a function imports it again", async () => {
    const lines = ["assert f(0) == 0"];
    expect(suiteTruth(MODULE_STATE, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", "def f(x):\n    return 0", lines, MODULE_STATE);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("an imported module has its __spec__", async () => {
    const lines = ["assert f(0) == True"];
    expect(suiteTruth(MODULE_SPEC, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", TRUE_REF, lines, MODULE_SPEC);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("an allowed import is sys.modules' module; a missing module is ModuleNotFoundError; a stdlib one off the list is a refusal, not a path", async () => {
    const code = "import collections\ndef f(x):\n    try:\n        import no_such_module_xyz\n    except ModuleNotFoundError:\n        return collections.__spec__.name";
    const lines = ["assert f(0) == 'collections'"];
    expect(suiteTruth(code, lines)).toEqual([true]);
    expect(await gradeOne(grader, "f", "def f(x):\n    return 'collections'", lines, code)).toEqual(["valid/pass"]);
    // CPython imports os; the grader refuses it, and the program's fallback is not graded.
    const fallback = "def f(x):\n    try:\n        import os\n        return 'os'\n    except ImportError:\n        return 'no os'";
    const noOs = ["assert f(0) == 'no os'"];
    expect(suiteTruth(fallback, noOs)).toEqual([false]);
    const got = await gradeGolden(grader, "f", "def f(x):\n    return 'os'", noOs, fallback);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
});

// divmod(7**k, 3**(k//2)) with k = 30000: ints of ~2700 digits, past long.c's cut to _pylong.int_divmod.
const BIG_MOD = "def f(k):\n    try:\n        return divmod(7 ** k, 3 ** (k // 2))[1] > 0\n    except Exception:\n        return False";
describe("C. C code's imports (PyImport_Import) under a program's frame take the program's restricted __import__ (fixed)", () => {
  it("big-int divmod (delegated to _pylong) under a defensive except: a right program fails", async () => {
    const lines = ["assert f(30000) == True"];
    expect(suiteTruth(BIG_MOD, lines)).toEqual([true]);
    expect(suiteTruth(TRUE_REF, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", TRUE_REF, lines, BIG_MOD);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("golden: a wrong program passes a line CPython fails", async () => {
    const lines = ["assert f(30000) == False"];
    expect(suiteTruth(BIG_MOD, lines)).toEqual([false]);
    const got = await gradeGolden(grader, "f", TRUE_REF, lines, BIG_MOD);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("a program with a PEP 695 generic class (imports typing from C) does not load", async () => {
    const code = "class Box[T]:\n    pass\ndef f(x):\n    return x";
    const lines = ["assert f(2) == 2"];
    expect(suiteTruth(code, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", "def f(x):\n    return x", lines, code);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("big ints: the exact quotient and remainder, in the sandbox and in the judge (a reference that divides big ints)", async () => {
    const code = "def f(k):\n    q, r = divmod(7 ** k, 3 ** (k // 2))\n    return (q % 1000003, r % 1000003)";
    const lines = ["assert f(30000) == (358557, 59536)", "assert f(29998) == (0, 0)"];
    expect(suiteTruth(code, lines)).toEqual([true, false]);
    const got = await gradeOne(grader, "f", code, lines, code);
    expect(got[0], got.join(" | ")).toBe("valid/pass");
    expect(got[1], got.join(" | ")).toMatch(/^wrong-answer\//);
  }, 300_000);
});
