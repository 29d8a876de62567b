/**
 * Round 33: a stranger agent on cdd14ae, 25 minutes. Each test asserts CPython's truth first (a clean
 * Pyodide: the program exec'd, then each line exec'd in its namespace), then that the grader's verdict
 * is that truth or a refusal (grade-lines.ts OK_PASS / OK_FAIL).
 *
 * Found: two classes (A: the program's `__import__` refuses or misreports imports CPython makes, without a
 * mark, and runs program methods; B: "missing" is decided by a list that omits modules CPython finds),
 * 10 reproducers (plain `it`s that FAIL on cdd14ae). The rest are boundaries (pass).
 *
 * Fixed in the same stop (docs/SECURITY.md, round 33): the program's `__import__` hands a name that is
 * no str, a negative level and an empty name to CPython's import (its TypeError / ValueError, nothing
 * imported); a name or level of a subclass and a relative import are refused, marked; "missing" is
 * decided after the names the import system finds on sys.path and in the working directory (the
 * archives' and folders' entries) and after sys.modules (a module the program put there is refused,
 * marked). Two tests at the end pin what the fix's review added.
 *
 * A. A program's own `__import__` (the harness's `restricted`, harness.py `_IMPORT_SRC`) REFUSES,
 *    WITHOUT A MARK, imports that CPython's `__import__` makes, and runs program code CPython does not.
 *    Its first check is `if level != 0 or type(name) is not str: raise ImportError('... %r ...' % (name,))`:
 *    no `audit('grader.refused', ...)`, so the step is an ordinary (unmarked) outcome, and the program's
 *    `except ImportError` fallback is graded as CPython's path. Three shapes:
 *    A1. a str-SUBCLASS name: CPython's import takes any str (`PyUnicode_Check`): `__import__(S('math'))`
 *        returns math, `__import__(S('sys'))` returns sys. The grader raises ImportError, unmarked:
 *        a fallback for an allowed module (forged fail of a right program) and, worse, an UNMARKED
 *        refusal of an off-list module (`sys`): round 29's rule (a refused import marks the step) is
 *        bypassed by wrapping the name in a str subclass (forged pass of a program right only on its
 *        fallback).
 *    A2. a RELATIVE import (level > 0) that CPython resolves: a module that sets
 *        `__package__ = 'collections'` and then `from . import abc` gets collections.abc in CPython;
 *        the grader raises ImportError, unmarked.
 *    A3. a name that is not a str at all: CPython raises TypeError ("module name must be a string")
 *        and runs nothing of the object; the grader raises ImportError (another type: `except
 *        TypeError` / `except ImportError` take different branches) and formats the name with `%r`,
 *        i.e. runs the program's `__repr__` (a side effect CPython never has), unmarked.
 *    A4. argument errors CPython reports as ValueError: `__import__('')` ("Empty module name") and
 *        `__import__('math', None, None, (), -1)` ("level must be >= 0"); the grader raises
 *        ModuleNotFoundError / ImportError (an ImportError subclass: `except ValueError` does not catch it).
 *    A5. an int-subclass `level`: `level != 0` runs the program's `__ne__` (CPython's import reads the
 *        int by C: `__import__('math', None, None, (), L(0))` runs nothing of L), unmarked.
 *    Why: the shortcut for "odd" arguments predates round 29's marking and assumes such an import
 *    cannot succeed in CPython; it can, and its error type and side effects differ.
 *    Fix: in `_IMPORT_SRC`, (1) a non-str name: `return real(name, ...)` (CPython's own TypeError,
 *    no repr); (2) a str subclass: take `name = str.__str__(name)` (an exact copy, by C: no method of
 *    the subclass runs; CPython's import reads the characters only) and go on with the checks; (3)
 *    level > 0: resolve the absolute name as CPython does (`importlib._bootstrap._resolve_name` on
 *    `globals['__package__']` / `__spec__.parent`, read from the dict without running program code:
 *    exact str values only, else mark) and apply the allow-list to it, or simply mark it:
 *    `audit('grader.refused', 'a relative import')` before raising, so a program's fallback is never
 *    graded as CPython's. Never format a program object into the message (`%r` runs `__repr__`).
 *
 * B. An importable module of the standard library's archive that `sys.stdlib_module_names` does not list
 *    is "missing" for the grader, unmarked. The program's `__import__` refuses (marked) a name whose
 *    root is in `importable` (harness.py setup: stdlib_module_names, frozen names, what is loaded at
 *    setup, the bridge roots) and raises ModuleNotFoundError for any other name, "as in CPython". But
 *    a clean Pyodide imports more than that set: `_sysconfigdata__emscripten_wasm32-emscripten` (a
 *    file of python_stdlib.zip; sysconfig imports it by that name) is not in stdlib_module_names and
 *    not loaded at setup, so `__import__('_sysconfigdata__emscripten_wasm32-emscripten')` returns the
 *    module in CPython and raises an UNMARKED ModuleNotFoundError in the grader: a program's
 *    `except ImportError` fallback is graded as CPython's path (forged fail / forged pass).
 *    B2. the same for a name a program put in `sys.modules` itself (`collections._sys.modules['mymod'] =
 *    collections`, no import of sys needed): CPython's `import mymod` returns it (sys.modules first);
 *    the grader's `__import__` raises an unmarked ModuleNotFoundError (the name is not in `importable`).
 *    Fix for both: let a name through to `real` when `sys.modules` holds it (read by the harness with
 *    an exact-str key), and mark instead of "missing" whatever the import system could find.
 *    (Checked the zip's other unlisted names: `_ast_unparse`, `_pydatetime`, `_pyrepl`,
 *    `annotationlib`, `compression`, `__phello__` are refused WITH a mark: listed or frozen.)
 *    Fix: build `importable` from what the import system can find, not from a list: at setup (before
 *    the lockdown) add every top-level name `pkgutil.iter_modules(sys.path)` yields (the stdlib zip's
 *    entries, the lib-dynload and site-packages directories) and `sys.builtin_module_names`; or, more
 *    robustly, in `_IMPORT_SRC` mark every refused name unless the import system cannot find it
 *    (`importlib.machinery.PathFinder.find_spec(root)` is None, run by the harness with the refusal
 *    hook's reads allowed), so "missing" means missing in CPython too.
 *
 * Also tried (held):
 * - `_exc_reason` with a str-subclass argument of a builtin exception: none of its methods run (test).
 * - A non-str key in the program's namespace: a marked error or CPython's verdict (test).
 * - Exact-str import statements: `import math` CPython's, `import sys` a marked error (test).
 * - Reading of harness code for program hooks: `_canon` (exact types, C `encode`/`hex`/`repr`),
 *   `_from_canon`/`_const` (exact keys), `_scan_json` (captured C scanner, parse_* captured),
 *   `_lookup`/`_set_rebound`/`_name_loads` (exact strs, C ops), `_compile_line` (real compile, module
 *   builtins), the audit hook (`_stdlib_read` type-checks every argument; a null byte or an unencodable
 *   surrogate in a path fails in `open` before the "open" event, as in CPython). Found nothing else that
 *   runs program code or refuses unmarked; frames, recursion-depth and audit-hook-frame effects are the
 *   documented open items (rounds 21, 29 D).
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne, OK_FAIL, OK_PASS } from "./grade-lines.ts";

const { suiteTruth } = cleanPython();
const grader = sharedNodeGrader();

const REF1 = "def f(x):\n    return 1";

const SUB = (mod: string) =>
  "class S(str):\n    pass\n" +
  "def f(x):\n    try:\n        m = __import__(S('" + mod + "'))\n        return 1\n    except ImportError:\n        return 2";

describe("A1. a str-subclass name: the program's __import__ refuses it, unmarked", () => {
  it("an allowed module (math): a right program fails (forged fail)", async () => {
    const prog = SUB("math");
    const lines = ["assert f(0) == 1"];
    expect(suiteTruth(prog, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", REF1, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("an off-list module (sys): the fallback is graded unmarked (forged pass, round 29's mark bypassed)", async () => {
    const prog = SUB("sys");
    const lines = ["assert f(0) == 2"];
    expect(suiteTruth(prog, lines)).toEqual([false]);
    const got = await gradeGolden(grader, "f", REF1, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("control: the same with an exact str 'sys' is a marked error (round 29)", async () => {
    const prog = SUB("sys").replace("__import__(S('sys'))", "__import__('sys')");
    const lines = ["assert f(0) == 2"];
    expect(suiteTruth(prog, lines)).toEqual([false]);
    const got = await gradeGolden(grader, "f", REF1, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
});

describe("A2. a relative import CPython resolves (__package__ set by the program)", () => {
  const prog =
    "__package__ = 'collections'\n" +
    "def f(x):\n    try:\n        from . import abc\n        return 1 if abc.Sized is not None else 3\n    except ImportError:\n        return 2";
  it("`from . import abc` with __package__ = 'collections': a right program fails (forged fail)", async () => {
    const lines = ["assert f(0) == 1"];
    expect(suiteTruth(prog, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", REF1, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("golden: the fallback passes a line CPython fails (forged pass)", async () => {
    const lines = ["assert f(0) == 2"];
    expect(suiteTruth(prog, lines)).toEqual([false]);
    const got = await gradeGolden(grader, "f", REF1, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
});

describe("A3. a name that is not a str: another exception type, and the program's __repr__ runs", () => {
  const prog =
    "cnt = [0]\nclass X:\n    def __repr__(self):\n        cnt[0] += 1\n        return 'X'\n" +
    "def f(x):\n    if x == 1:\n        return cnt[0]\n    try:\n        __import__(X())\n    except TypeError:\n        return 1\n    except ImportError:\n        return 2\n    return 3";
  it("`__import__(X())`: CPython TypeError (1), the grader ImportError (2)", async () => {
    const lines = ["assert f(0) == 1", "assert f(1) == 0"];
    expect(suiteTruth(prog, lines)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", REF1.replace("return 1", "return 1 if x == 0 else 0"), lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});

describe("A4. argument errors CPython raises as ValueError", () => {
  const prog =
    "def f(x):\n    try:\n        if x == 0:\n            __import__('')\n        else:\n            __import__('math', None, None, (), -1)\n" +
    "    except ValueError:\n        return 1\n    except ImportError:\n        return 2\n    return 3";
  it("`__import__('')` and a negative level: CPython ValueError (1), the grader ImportError (2)", async () => {
    const lines = ["assert f(0) == 1", "assert f(1) == 1"];
    expect(suiteTruth(prog, lines)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", REF1, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});

describe("A5. an int-subclass level: the program's __ne__ runs in the grader's import", () => {
  it("`__import__('math', None, None, (), L(0))` with L.__ne__ counting: CPython 0, the grader 1", async () => {
    const prog =
      "cnt = [0]\nclass L(int):\n    def __ne__(self, o):\n        cnt[0] += 1\n        return int.__ne__(self, o)\n" +
      "def f(x):\n    __import__('math', None, None, (), L(0))\n    return cnt[0]";
    const lines = ["assert f(0) == 0"];
    expect(suiteTruth(prog, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", "def f(x):\n    return 0", lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});

describe("held: the harness's description of an exception runs nothing of a str-subclass argument", () => {
  it("`raise ValueError(S('x'))` with S's __str__/__add__/__hash__ counting: the count stays CPython's (0)", async () => {
    const prog =
      "cnt = [0]\nclass S(str):\n    def __str__(self):\n        cnt[0] += 1\n        return 'x'\n    def __add__(self, o):\n        cnt[0] += 1\n        return 'x'\n" +
      "    def __radd__(self, o):\n        cnt[0] += 1\n        return 'x'\n    def __hash__(self):\n        cnt[0] += 1\n        return 1\n    def __len__(self):\n        cnt[0] += 1\n        return 1\n" +
      "def f(x):\n    if x == 0:\n        raise ValueError(S('x'))\n    return cnt[0]";
    const lines = ["assert f(0) == 0", "assert f(1) == 0"];
    expect(suiteTruth(prog, lines)).toEqual([false, true]);
    const got = await gradeOne(grader, "f", "def f(x):\n    return 0", lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});

describe("held: a program's namespace with a non-str key is a marked error, never a flip", () => {
  it("`globals()[S('g')] = 1` with S's __eq__ counting: the next line is refused or CPython's", async () => {
    const prog =
      "cnt = [0]\nclass S(str):\n    def __eq__(self, o):\n        cnt[0] += 1\n        return str.__eq__(self, o)\n    __hash__ = str.__hash__\n" +
      "def f(x):\n    if x == 0:\n        globals()[S('g')] = 5\n        return 0\n    return cnt[0]";
    const lines = ["assert f(0) == 0", "assert f(1) == 0", "assert f(2) == 1"];
    const truth = suiteTruth(prog, lines);
    const got = await gradeGolden(grader, "f", "def f(x):\n    return 0", lines, prog);
    for (let i = 0; i < lines.length; i++) expect(got[i], got.join(" | ") + " truth " + truth.join(",")).toMatch(truth[i] ? OK_PASS : OK_FAIL);
  }, 300_000);
});

describe("held: exact-str imports (statements) are CPython's or marked", () => {
  it("`import math` passes; `import sys` caught is a marked error (round 29)", async () => {
    const prog = "def f(x):\n    try:\n        if x == 0:\n            import math\n        else:\n            import sys\n        return 1\n    except ImportError:\n        return 2";
    const lines = ["assert f(0) == 1", "assert f(1) == 2"];
    expect(suiteTruth(prog, lines)).toEqual([true, false]);
    const got = await gradeGolden(grader, "f", REF1, lines, prog);
    expect(got[0], got.join(" | ")).toBe("valid/pass");
    expect(got[1], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
});


describe("B. a stdlib-archive module not in sys.stdlib_module_names is 'missing', unmarked", () => {
  const prog =
    "def f(x):\n    try:\n        m = __import__('_sysconfigdata__emscripten_wasm32-emscripten')\n        return 1\n    except ImportError:\n        return 2";
  it("a right program fails (forged fail)", async () => {
    const lines = ["assert f(0) == 1"];
    expect(suiteTruth(prog, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", REF1, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("golden: a program right only on its fallback passes (forged pass)", async () => {
    const lines = ["assert f(0) == 2"];
    expect(suiteTruth(prog, lines)).toEqual([false]);
    const got = await gradeGolden(grader, "f", REF1, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("held: the zip's other unlisted names (`_ast_unparse`, `_pydatetime`, `annotationlib`, `__phello__`) are marked refusals", async () => {
    for (const mod of ["_ast_unparse", "_pydatetime", "annotationlib", "__phello__"]) {
      const p = prog.replace("_sysconfigdata__emscripten_wasm32-emscripten", mod);
      const lines = ["assert f(0) == 2"];
      expect(suiteTruth(p, lines)).toEqual([false]);
      const got = await gradeGolden(grader, "f", REF1, lines, p);
      expect(got[0], mod + ": " + got.join(" | ")).toMatch(OK_FAIL);
    }
  }, 300_000);
});

describe("B2. a module the program put in sys.modules is 'missing' for the grader, unmarked", () => {
  const prog =
    "import collections\ncollections._sys.modules['mymod'] = collections\n" +
    "def f(x):\n    try:\n        import mymod\n        return 1\n    except ImportError:\n        return 2";
  it("`import mymod`: CPython 1 (sys.modules), the grader 2 (forged fail)", async () => {
    const lines = ["assert f(0) == 1"];
    expect(suiteTruth(prog, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", REF1, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});

describe("found in the fix's review: a level CPython reads by __index__, and a name nothing finds", () => {
  it("a level with __index__: CPython imports by it (here math); the grader never does it unmarked", async () => {
    const prog = "class L:\n    def __index__(self):\n        return 0\ndef f(x):\n    try:\n        __import__('sys', None, None, (), L())\n        return 1\n    except ImportError:\n        return 2";
    const lines = ["assert f(0) == 1", "assert f(0) == 2"];
    expect(suiteTruth(prog, lines)).toEqual([true, false]);
    const got = await gradeGolden(grader, "f", REF1, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
    expect(got[1], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("a missing module is still CPython's ModuleNotFoundError, unmarked: a fallback CPython takes is graded", async () => {
    const prog = "def f(x):\n    try:\n        import numpy_nowhere_to_be_found\n        return 1\n    except ModuleNotFoundError:\n        return 2";
    const lines = ["assert f(0) == 2"];
    expect(suiteTruth(prog, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", "def f(x):\n    return 2", lines, prog);
    expect(got).toEqual(["valid/pass"]);
  }, 300_000);
});
