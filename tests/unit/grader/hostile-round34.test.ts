/**
 * Round 34: a stranger agent on 885675a, 25 minutes. Each test asserts CPython's truth first (a clean
 * Pyodide: the program exec'd, then each line exec'd in its namespace), then that the grader's verdict
 * is that truth or a refusal (grade-lines.ts OK_PASS / OK_FAIL).
 *
 * Found: two classes in the program's `__import__` (harness.py `_IMPORT_SRC`, as reworked in round 33),
 * reproducers are plain `it`s that FAIL on 885675a; the rest are boundaries (pass).
 *
 * Fixed in the same stop (docs/SECURITY.md, round 34): a name whose root nothing on the import system
 * finds goes to CPython's own import (CPython's error: the first missing parent, a malformed name), a
 * root in sys.modules is refused (marked), an import call of another shape (no name, more arguments)
 * is refused (marked), and where the program changed the import system since setup (`sys.meta_path`,
 * `sys.path_hooks`, `sys.path`, `sys.path_importer_cache`) any import the allow-list does not cover is
 * refused (marked): the grader cannot tell what CPython would find there.
 *
 * A. "Missing" is the HARNESS's own ModuleNotFoundError, not CPython's: for a name whose root is neither
 *    allowed, nor found at setup, nor a sys.modules key, `_IMPORT_SRC` ends with
 *    `raise ModuleNotFoundError('No module named %r' % (name,), name=name)` for the WHOLE name. CPython's
 *    import walks the name's parents first, and checks its shape:
 *    A1. a dotted name with a missing root: `import zz_missing.sub` raises, in CPython, "No module named
 *        'zz_missing'" with `e.name == 'zz_missing'` (the first missing parent); the grader says
 *        'zz_missing.sub'. A program returning `e.name` / `str(e)` (a common "which optional dependency is
 *        missing" idiom, e.g. `import numpy.linalg`) is graded on another value, unmarked.
 *    A2. a name with an empty part: `__import__('.heapq')` (level 0) is ValueError "Empty module name" in
 *        CPython 3.14, ModuleNotFoundError in the grader (`except ValueError` / `except ImportError` take
 *        different branches); `__import__('..x')` is "No module named '.'" in CPython.
 *    A3. a dotted name under a module the program put in sys.modules (`collections._sys.modules['zzp'] =
 *        42`, then `import zzp.x`): CPython "No module named 'zzp.x'; 'zzp' is not a package"; the
 *        walk compares the whole name only, so the grader's own message, unmarked.
 *    A4. the program's `__import__` is a Python function: its argument errors are the interpreter's
 *        messages for Python functions (`__import__()`: "missing 1 required positional argument: 'name'"),
 *        not the builtin's ("missing required argument 'name' (pos 1)"), unmarked.
 *    Why: round 33 handed CPython's own import only the odd shapes it listed (non-str, negative level,
 *    empty name); the common "missing" case still fabricates CPython's error.
 *    Fix: for a name that is not importable, let CPython raise: call `real(name, ...)` only when no
 *    ancestor of it can be found (A1-A3 are then CPython's own errors) - or compute the root check on
 *    every dotted prefix AND hand the raise to `real` under an audit hook that refuses (marks) any find
 *    that succeeds; for A4, take `*args, **kwargs` and hand a call of any other shape to `real` (it
 *    raises CPython's TypeError before importing anything) - or mark it.
 *
 * B. The import system the program CHANGED is never consulted: `importable` (`STDLIB`) is frozen at
 *    setup from sys.path's entries, and a name outside it and outside sys.modules is "missing" without
 *    a look. CPython's import runs whatever the program installed, all reachable without `import sys`
 *    (`collections._sys`): a finder on `sys.meta_path` (its `find_spec` runs for every import not in
 *    sys.modules: a counter differs; it may return a spec whose loader builds the module: the import
 *    SUCCEEDS in CPython), an entry appended to `sys.path` (`'/lib/python314.zip/json'` makes
 *    `import scanner` find json/scanner.py), and likewise `sys.path_hooks` / `path_importer_cache`.
 *    The grader raises an unmarked ModuleNotFoundError, so the program's `except ImportError` fallback
 *    is graded as CPython's path (forged fail of a right program, forged pass of a golden line true only
 *    on the fallback).
 *    Why: round 33's "what the import system finds" is computed once, for the import system as setup
 *    left it; the program can change it in its own unit.
 *    Fix: at the "missing" decision, compare `sys.meta_path`, `sys.path_hooks`, `sys.path` and
 *    `sys.path_importer_cache` (identity of the lists and of their items, read by C) with setup's; if
 *    anything changed, refuse with a mark (`audit('grader.refused', 'import ' + name)`). Or mark every
 *    "missing" whose root is not found by the setup-time finders.
 *
 * Also tried (held, boundary tests below or no difference seen):
 * - an undotted missing name, statement and `from` forms (CPython's message and `name`: test);
 * - `__import__(name, fromlist=[...])` (a list: CPython's import, its own errors); an allowed import with a
 *   program finder installed (sys.modules first, in both); a float/None level (refused, marked);
 *   `import json` (marked); `__import__(name='math')` keyword form.
 * - verdicts.ts: call keys (valid repeats are refused, side calls keyed by position: no collision with a
 *   call key), the cut after a marked step (read from invalid lines' side and compile steps too).
 * - Known, not counted: the reporting function itself sits in program-reachable globals
 *   (`__import__.__globals__['audit'] = lambda *a: None` and the next `import sys` is refused UNMARKED);
 *   this is round 30 B's class (a program that rewrites the grader's state for its own unit, Not
 *   guaranteed), now through the report channel instead of the list. Suggest: pass `audit` as a
 *   default argument and have the hook refuse `object.__setattr__` on the harness's own functions.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne, OK_FAIL, OK_PASS } from "./grade-lines.ts";

const { suiteTruth } = cleanPython();
const grader = sharedNodeGrader();

const refReturning = (v: string) => "def f(x):\n    return " + v;

describe("A. a missing module: the harness's ModuleNotFoundError, not CPython's", () => {
  it("A1. `import zz_missing.sub`: e.name is the first missing parent in CPython (forged fail)", async () => {
    const prog = "def f(x):\n    try:\n        import zz_missing.sub\n    except ImportError as e:\n        return e.name\n    return None";
    const lines = ["assert f(0) == 'zz_missing'"];
    expect(suiteTruth(prog, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", refReturning("'zz_missing'"), lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);

  it("A1 golden: the harness's name passes a line CPython fails (forged pass)", async () => {
    const prog = "def f(x):\n    try:\n        import zz_missing.sub\n    except ImportError as e:\n        return str(e)\n    return None";
    const lines = ["assert f(0) == \"No module named 'zz_missing.sub'\""];
    expect(suiteTruth(prog, lines)).toEqual([false]);
    const got = await gradeGolden(grader, "f", refReturning("0"), lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);

  it("A2. `__import__('.heapq')`: ValueError in CPython, ModuleNotFoundError in the grader", async () => {
    const prog =
      "def f(x):\n    try:\n        __import__('.heapq' if x == 0 else '..zz')\n    except ValueError:\n        return 1\n" +
      "    except ImportError as e:\n        return e.name\n    return 3";
    const lines = ["assert f(0) == 1", "assert f(1) == '.'"];
    expect(suiteTruth(prog, lines)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", refReturning("1 if x == 0 else '.'"), lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);

  it("A3. `import zzp34.x` under a non-package the program put in sys.modules: CPython's 'is not a package'", async () => {
    const prog =
      "import collections\ncollections._sys.modules['zzp34'] = 42\n" +
      "def f(x):\n    try:\n        import zzp34.x\n    except ImportError as e:\n        return 'not a package' in str(e)\n    return None";
    const lines = ["assert f(0) == True"];
    expect(suiteTruth(prog, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", refReturning("True"), lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);

  it("A4. `__import__()`: the builtin's argument error in CPython, a Python function's in the grader", async () => {
    const prog = "def f(x):\n    try:\n        __import__()\n    except TypeError as e:\n        return '(pos 1)' in str(e)\n    return None";
    const lines = ["assert f(0) == True"];
    expect(suiteTruth(prog, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", refReturning("True"), lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});

const FINDER_COUNT =
  "import collections\ncalls = []\nclass Finder:\n    @classmethod\n    def find_spec(cls, name, path=None, target=None):\n        calls.append(name)\n        return None\n" +
  "def f(x):\n    mp = collections._sys.meta_path\n    mp.insert(0, Finder)\n    try:\n        import zzmod34\n    except ImportError:\n        pass\n    finally:\n        mp.remove(Finder)\n    return calls";

const FINDER_MODULE =
  "import collections\nclass Loader:\n    def create_module(self, spec):\n        return None\n    def exec_module(self, m):\n        m.answer = 42\n" +
  "class Finder:\n    @classmethod\n    def find_spec(cls, name, path=None, target=None):\n        return type(collections.__spec__)(name, Loader()) if name.startswith('zzgen34') else None\n" +
  "def f(x):\n    mp = collections._sys.meta_path\n    mp.insert(0, Finder)\n    try:\n        m = __import__('zzgen34_' + str(x))\n        return m.answer\n    except ImportError:\n        return -1\n    finally:\n        mp.remove(Finder)";

const PATH_ENTRY =
  "import collections\n" +
  "def f(x):\n    p = collections._sys.path\n    p.append('/lib/python314.zip/json')\n    try:\n        import scanner\n        return scanner.__name__\n    except ImportError:\n        return 'missing'\n    finally:\n        p.remove('/lib/python314.zip/json')";

describe("B. an import hook the program installed is never consulted", () => {
  it("B1. a sys.meta_path finder's find_spec runs for a missing import in CPython (counter), not in the grader", async () => {
    const lines = ["assert f(0) == ['zzmod34']"];
    expect(suiteTruth(FINDER_COUNT, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", refReturning("['zzmod34']"), lines, FINDER_COUNT);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);

  it("B2. a finder that builds the module: the import succeeds in CPython (forged fail)", async () => {
    const lines = ["assert f(1) == 42"];
    expect(suiteTruth(FINDER_MODULE, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", refReturning("42"), lines, FINDER_MODULE);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);

  it("B2 golden: the fallback passes a line CPython fails (forged pass)", async () => {
    const lines = ["assert f(2) == -1"];
    expect(suiteTruth(FINDER_MODULE, lines)).toEqual([false]);
    const got = await gradeGolden(grader, "f", refReturning("0"), lines, FINDER_MODULE);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);

  it("B3. a sys.path entry the program appended (json's folder in the stdlib zip): `import scanner` finds it in CPython", async () => {
    const lines = ["assert f(0) == 'scanner'"];
    expect(suiteTruth(PATH_ENTRY, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", refReturning("'scanner'"), lines, PATH_ENTRY);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});

describe("held: boundaries of the program's __import__", () => {
  it("an undotted missing name (`import zz3`, `from zz3 import a`): the grader's error is CPython's (message and name)", async () => {
    const prog =
      "def f(x):\n    try:\n        if x == 0:\n            import zz3\n        else:\n            from zz3 import a\n    except ImportError as e:\n        return [type(e).__name__, e.name, str(e)]\n    return None";
    const lines = ["assert f(0) == ['ModuleNotFoundError', 'zz3', \"No module named 'zz3'\"]", "assert f(1) == ['ModuleNotFoundError', 'zz3', \"No module named 'zz3'\"]"];
    expect(suiteTruth(prog, lines)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", refReturning("['ModuleNotFoundError', 'zz3', \"No module named 'zz3'\"]"), lines, prog);
    expect(got, got.join(" | ")).toEqual(["valid/pass", "valid/pass"]);
  }, 300_000);

  it("a list fromlist goes to CPython's import: e.name of a missing name is CPython's", async () => {
    const prog = "def f(x):\n    try:\n        __import__('zz_missing2.sub', None, None, ['a'])\n    except ImportError as e:\n        return e.name\n    return None";
    const lines = ["assert f(0) == 'zz_missing2'"];
    expect(suiteTruth(prog, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", refReturning("'zz_missing2'"), lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);

  it("an allowed import with a program finder installed is CPython's (sys.modules first); keyword name= works", async () => {
    const prog =
      "import collections\ncalls = []\nclass Finder:\n    @classmethod\n    def find_spec(cls, name, path=None, target=None):\n        calls.append(name)\n        return None\n" +
      "def f(x):\n    mp = collections._sys.meta_path\n    mp.insert(0, Finder)\n    try:\n        import heapq\n        m = __import__(name='math')\n        return [len(calls), m.__name__]\n    finally:\n        mp.remove(Finder)";
    const lines = ["assert f(0) == [0, 'math']"];
    expect(suiteTruth(prog, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", refReturning("[0, 'math']"), lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);

  it("a float level (CPython's TypeError) and an off-list stdlib import are refused, never a flip", async () => {
    const prog =
      "def f(x):\n    try:\n        if x == 0:\n            __import__('zz', None, None, (), 0.0)\n        else:\n            import json\n    except TypeError:\n        return 1\n    except ImportError:\n        return 2\n    return 3";
    const lines = ["assert f(0) == 2", "assert f(1) == 2"];
    expect(suiteTruth(prog, lines)).toEqual([false, false]);
    const got = await gradeGolden(grader, "f", refReturning("0"), lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
    expect(got[1], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
});
