/**
 * Round 26 (issue 27): a stranger agent on 9205861. Each test asserts CPython's truth first (a clean
 * Pyodide: the program exec'd, then each line in its namespace), then that the grader's verdict is
 * that truth or a refusal; each fails on 9205861. Fixed: A (harness `_compile_line`: a line compiles
 * from a frame whose builtins are the builtins module, as exec's caller) and D (`_fresh_namespace`
 * writes no `__name__`; the guarded import tells a program's call by its module None). Open, kept as
 * `it.fails` (docs/SECURITY.md, Not guaranteed): B (a program's builtins are its own copy, so that a
 * reference loaded in the judge, which is not restored, cannot leave a name for the next one) and C
 * (the sandbox's intern table; round 15's open class, from the program's side).
 * A. A line's compile imports through the CALLER's builtins, not the harness's. CPython's parser folds a
 *    non-ASCII identifier (`ｆ`) with `unicodedata.normalize`, which it gets by
 *    `_PyImport_GetModuleAttrString("unicodedata", ...)` -> `PyImport_Import`: that calls the
 *    `__import__` of the CURRENT FRAME's globals' `__builtins__`. Under `exec(line, ns)` that frame is
 *    the code that calls exec, whose builtins are the builtins module, so a program that rebinds
 *    `builtins.__import__` (`len.__self__.__import__ = hook`: a plain module attribute, no audit
 *    event) runs its hook in every compile of such a line (or makes the compile raise, so the line
 *    does not hold). The harness compiles the line in its own `call` frame (harness.py `call`,
 *    `compile(src, "<string>", "exec")`, and the ["C", src] compile-only step), whose `__builtins__`
 *    is the harness's private copy (`__builtins__ = dict(vars(_builtins_module))`), so the program's
 *    hook never runs and a compile CPython refuses succeeds: rounds 20-24 followed the program's
 *    `sys.modules['unicodedata']` into the compile, not the import the compile makes. An ASCII line
 *    does it too: a `\N{...}` escape makes the compile import `unicodedata` for its name table
 *    (`PyCapsule_Import`, the same `PyImport_Import`) the first time the interpreter reads one, and the
 *    sandbox's snapshot has not read one.
 * B. The program's builtins are a copy, not the builtins module's dict. `exec(code, {})` puts the
 *    caller's builtins into the namespace: in CPython `__builtins__` IS `vars(builtins)`, so a name the
 *    program sets on the builtins module (`len.__self__.X = ...`, the module `len.__self__` reaches) is
 *    found by its own global lookups, and a name it sets in `__builtins__` is an attribute of the
 *    module. harness `_fresh_namespace` gives each program `dict(_state["builtins"])`, a copy (and
 *    `_exec_builtins` restores that copy, where CPython's exec restores `vars(builtins)`): the two
 *    never see each other's writes, so a program reads another value than in CPython.
 * C. The sandbox's intern table is not a clean interpreter's. CPython rebuilds a folded set display of
 *    name-like strs (`intern_constants`) when an equal str was interned before, and the rebuilt
 *    frozenset can iterate in another order. Rounds 5 and 8 made the LINE's displays ignore the table;
 *    the PROGRAM's own displays are compiled at load (harness `load`) in an interpreter whose snapshot
 *    interned every identifier of harness.py (`_call_of`, `_is_const`, ...), which a clean CPython has
 *    not: a program whose set display names them iterates it otherwise when graded. The reference runs
 *    on the same table, so a true line is `wrong-answer`, and its corrected line is false in CPython.
 * D. The program's namespace holds a `__name__` that exec's does not. `exec(code, ns)` adds only
 *    `__builtins__`, so the program's `__name__` is the builtins' (`'builtins'`), and so is every class's
 *    `__module__`; harness `_fresh_namespace` writes `"__name__": "__candidate__"`, so `__name__`, a
 *    class's `__module__` and its `str()` (`<class 'A'>` for a class of `builtins`) read otherwise when
 *    graded. (The truth here execs into `{}`; a host that execs into `{"__name__": "__main__"}` would
 *    still differ from `__candidate__`.)
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython, freshTruth } from "./clean-python.ts";
import { gradeGolden, gradeOne, OK_FAIL, OK_PASS } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();

// The program's import hook counts the imports it sees (and imports as before); f answers whether it saw one.
const COUNTER =
  "_b = len.__self__\n_orig = _b.__import__\nhits = []\n" +
  "def _hook(*a, **k):\n    hits.append(a[0])\n    return _orig(*a, **k)\n_b.__import__ = _hook\n" +
  "def f(x):\n    return min(len(hits), 1)";
// The program's import hook refuses every import: CPython cannot compile a line that folds a name.
const REFUSER =
  "_b = len.__self__\n_orig = _b.__import__\n" +
  "def _hook(*a, **k):\n    raise ImportError('no imports here')\n_b.__import__ = _hook\n" +
  "def f(x):\n    return 0";
// The truth interpreter is shared by the file's tests: put the builtins' import back.
const UNHOOK = "len.__self__.__import__ = _orig";
const REF_ONE = "def f(x):\n    return 1";
const REF_ZERO = "def f(x):\n    return 0";

describe("A. a line's compile imports unicodedata through the caller's builtins: the program's __import__ hook", () => {
  it("a correct program fails: the compile of `ｆ(0)` runs the program's hook in CPython", async () => {
    const lines = ["assert ｆ(0) == 1", "assert f(1) == 1"];
    expect(suiteTruth(COUNTER, [...lines, UNHOOK]).slice(0, 2)).toEqual([true, true]);
    expect(suiteTruth(REF_ONE, lines)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", REF_ONE, lines, COUNTER);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("a wrong program passes: CPython's compile of the line raises (the hook refuses the import)", async () => {
    const lines = ["assert ｆ(0) == 0", "assert f(1) == 0"];
    expect(suiteTruth(REFUSER, [...lines, UNHOOK]).slice(0, 2)).toEqual([false, true]);
    expect(suiteTruth(REF_ZERO, lines)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", REF_ZERO, lines, REFUSER);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("golden: a correct program fails", async () => {
    const lines = ["assert ｆ(0) == 1", "assert f(1) == 1"];
    expect(suiteTruth(COUNTER, [...lines, UNHOOK]).slice(0, 2)).toEqual([true, true]);
    const got = await gradeGolden(grader, "f", REF_ONE, lines, COUNTER);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("golden: a wrong program passes", async () => {
    const lines = ["assert ｆ(0) == 0"];
    expect(suiteTruth(REFUSER, [...lines, UNHOOK]).slice(0, 1)).toEqual([false]);
    const got = await gradeGolden(grader, "f", REF_ZERO, lines, REFUSER);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("a refused line compiled in its place (a syntax error holding a full-width name): the next line", async () => {
    const lines = ["ｆｏｏ ｂａｒ", "assert f(1) == 1"];
    expect(suiteTruth(COUNTER, [...lines, UNHOOK]).slice(0, 2)).toEqual([false, true]);
    expect(suiteTruth(REF_ONE, lines)).toEqual([false, true]);
    const got = await gradeOne(grader, "f", REF_ONE, lines, COUNTER);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("a side call (an assert with a message) whose name is full-width: the next line", async () => {
    const lines = ["assert ｆ(0) == 1, 'folded'", "assert f(1) == 1"];
    expect(suiteTruth(COUNTER, [...lines, UNHOOK]).slice(0, 2)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", REF_ONE, lines, COUNTER);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("an ASCII line: a `\\N{...}` escape makes the compile import unicodedata's name table (first time)", async () => {
    const lines = ["assert f('\\N{DIGIT ONE}') == 1", "assert f(1) == 1"];
    expect((await freshTruth(COUNTER, lines)).slice(0, 2)).toEqual([true, true]);
    expect(suiteTruth(REF_ONE, lines)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", REF_ONE, lines, COUNTER);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("an ASCII line, a wrong program passes: CPython cannot compile `\\N{...}` when the import is refused", async () => {
    const lines = ["assert f('\\N{DIGIT ONE}') == 0"];
    expect((await freshTruth(REFUSER, lines)).slice(0, 1)).toEqual([false]);
    expect(suiteTruth(REF_ZERO, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", REF_ZERO, lines, REFUSER);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
});

const WRITES_MODULE =
  "len.__self__.ANSWER = 7\n" +
  "def f(x):\n    try:\n        return ANSWER\n    except NameError:\n        return 0";
const WRITES_DICT =
  "__builtins__['ANSWER'] = 7\n" +
  "def f(x):\n    return getattr(len.__self__, 'ANSWER', 0)";
const UNSET = "vars(len.__self__).pop('ANSWER', None)";
const REF_SEVEN = "def f(x):\n    return 7";

describe("B. the program's builtins are a copy of the builtins module's dict, not the dict CPython's exec gives it", () => {
  it.fails("a name set on the builtins module is found by the program's global lookup: a correct program fails", async () => {
    const lines = ["assert f(0) == 7"];
    expect(suiteTruth(WRITES_MODULE, [...lines, UNSET]).slice(0, 1)).toEqual([true]);
    expect(suiteTruth(REF_SEVEN, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", REF_SEVEN, lines, WRITES_MODULE);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it.fails("a name set in __builtins__ is an attribute of the builtins module: a correct program fails", async () => {
    const lines = ["assert f(0) == 7"];
    expect(suiteTruth(WRITES_DICT, [...lines, UNSET]).slice(0, 1)).toEqual([true]);
    const got = await gradeOne(grader, "f", REF_SEVEN, lines, WRITES_DICT);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it.fails("a wrong program passes (golden): CPython finds the module's name, the grader's copy does not", async () => {
    const lines = ["assert f(0) == 0"];
    expect(suiteTruth(WRITES_MODULE, [...lines, UNSET]).slice(0, 1)).toEqual([false]);
    const got = await gradeGolden(grader, "f", REF_SEVEN, lines, WRITES_MODULE);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
});

// A set display of name-like strs, two of them identifiers of harness.py (found by a seeded search).
const ORDER =
  "def f(x):\n    return list({'zz241', 'zz967', 'zz1558', '_call_of', '_is_const', 'zz1014', 'zz920'})";
const CLEAN = "assert f(0) == ['zz1014', '_is_const', 'zz241', 'zz1558', 'zz967', 'zz920', '_call_of']";
const GRADED = "assert f(0) == ['zz1014', '_is_const', 'zz241', 'zz920', 'zz967', '_call_of', 'zz1558']";

describe("C. a program's own set display of names the harness interned iterates otherwise when graded", () => {
  it.fails("golden: the reference itself fails a line CPython holds, and passes one CPython fails", async () => {
    expect(await freshTruth(ORDER, [CLEAN, GRADED])).toEqual([true, false]);
    const got = await gradeGolden(grader, "f", ORDER, [CLEAN]);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
    const wrong = await gradeGolden(grader, "f", ORDER, [GRADED]);
    expect(wrong[0], wrong.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it.fails("generated: a true line is wrong-answer (the reference iterates as the grader's sandbox does)", async () => {
    expect(await freshTruth(ORDER, [CLEAN])).toEqual([true]);
    const got = await gradeOne(grader, "f", ORDER, [CLEAN]);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});

const NAMED = "class A:\n    pass\ndef f(x):\n    return [__name__, A.__module__, str(A)]";
const NAMED_LINE = "assert f(0) == ['builtins', 'builtins', \"<class 'A'>\"]";

describe("D. the program's __name__ and its classes' __module__ are not exec's", () => {
  it("golden: the reference itself fails a line CPython holds", async () => {
    expect(suiteTruth(NAMED, [NAMED_LINE])).toEqual([true]);
    const got = await gradeGolden(grader, "f", NAMED, [NAMED_LINE]);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("generated: a true line is wrong-answer", async () => {
    const got = await gradeOne(grader, "f", NAMED, [NAMED_LINE]);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});
