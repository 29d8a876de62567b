/**
 * Round 29: a stranger agent on ed7dbfd. Each test asserts CPython's truth first (a clean Pyodide: the
 * program exec'd, then each line exec'd in its namespace), then that the grader's verdict is that
 * truth or a refusal; the reproducers fail on ed7dbfd. Fixed in the same stop (harness.py): A and B,
 * the audit hooks let a lazy import of the standard library through (`_stdlib_read`: the `import`
 * event and the stdlib archive opened for reading; what it loads is gone with the unit's restore),
 * and a Pyodide finder that survived the lockdown as a class is dropped; C, `__future__` and dotted
 * names under an allowed package import; E, a name that is not in the standard library raises
 * ModuleNotFoundError; A-F together, whatever the grader refuses where CPython would have gone on
 * (an audit event, a replaced os function, an import of a stdlib module off the list) marks the step
 * (`_REFUSED`): a marked `error`, however the program handled the error. `open`, `input` and the
 * other builtins are the program's again (the hook refuses what they would reach). Open, kept as
 * `it.fails` (docs/SECURITY.md, Not guaranteed): D.
 * A. A codec the snapshot has not loaded cannot be looked up. `str.encode` / `bytes.decode` with any
 *    encoding off the C fast paths (utf-8, latin-1, ascii and their spellings) goes through the codec
 *    registry, whose search function (`encodings.search_function`, Python code of the module
 *    `encodings`) imports `encodings.<name>` on first use. Under the grader that import reaches the
 *    builtins module's guarded `__import__` with the caller `encodings` (so CPython's real import, not
 *    the allow-list: harness.py `_GUARDED_IMPORT_SRC`), and the real import of a module not in
 *    `sys.modules` raises the audit event `import`, which the default-deny hook refuses (harness.py
 *    `_audit` / `_audit_judge`: RuntimeError "blocked by the grader sandbox: import"). The sandbox's
 *    snapshot has `encodings.utf_16` and `utf_32` but not `unicode_escape`, `utf_8_sig`, `utf_16_le`,
 *    `cp1252`, `cp437`, `idna`, ...: `s.encode('latin-1').decode('unicode_escape')` (the common way to
 *    unescape a string) raises RuntimeError when graded, where CPython loads the codec and decodes.
 *    No introspection, no import statement: a plain str method. A program whose `except Exception`
 *    falls back (a decode with a fallback encoding) gets the fallback's value: a right program fails,
 *    a program right only on its fallback passes (a Code policy can learn that the grader has no
 *    `unicode_escape`, and a detector of the grader needs nothing more than this), and a reference
 *    with such a fallback is "corrected" (judge, same hook) to a line CPython calls false. The same
 *    holds for any stdlib code that imports lazily a module the snapshot lacks; the codec registry
 *    is the one an ordinary program reaches (the allowed modules' own lazy imports, `copy` for a
 *    UserDict subclass's `copy()`, `typing` for singledispatch, `decimal` for `_pylong`, are loaded).
 *    Fix: load every `encodings` submodule at setup (as `_C_IMPORTS`), before the snapshot, in both
 *    roles (or the ones `encodings.aliases` names).
 * B. `from <allowed package> import <name it lacks>` raises RuntimeError, not ImportError. An import
 *    statement of an allowed module is CPython's real import since ed7dbfd (harness.py `_IMPORT_SRC`:
 *    `real(...)`), and for a package (`collections`, `re`, `string`) CPython's `_handle_fromlist` then
 *    tries each name the package lacks as a submodule (`collections.Mapping`), expecting
 *    ModuleNotFoundError, which it swallows so that IMPORT_FROM raises ImportError ("cannot import
 *    name"). Under the grader that submodule import raises the audit event `import`, and the hook
 *    (harness.py `_audit`) raises RuntimeError("blocked by the grader sandbox: import"), which
 *    `_handle_fromlist` does not swallow. So the classic compatibility idiom `try: from collections
 *    import Mapping / except ImportError: ...` (collections.Mapping left in 3.10) does not load when
 *    graded (every line `skipped`), where CPython loads it and passes; inside a function, `except
 *    ImportError` does not catch it. A real submodule the snapshot has not loaded (`from string import
 *    templatelib`, 3.14) is refused the same way. Fix: in the sandbox's and judge's hooks, answer the
 *    `import` event of a name under an allowed package with ModuleNotFoundError(name=that name) (what
 *    CPython raises for a submodule that does not exist), and load the allowed packages' submodules
 *    (`string.templatelib`, `collections.abc`) at setup.
 * C. `from __future__ import annotations` does not load. The future import is a compiler directive,
 *    but it also runs IMPORT_NAME `__future__` at run time (fromlist a tuple), which the allow-list
 *    refuses (harness.py `_IMPORT_SRC`: ImportError "import of '__future__' is not allowed"): every line
 *    is `skipped` for one of the most common first lines of typed Python, where CPython passes. Likewise
 *    `import collections.abc` (the name `collections.abc` is not in ALLOWED_IMPORTS) is refused while
 *    `from collections import abc` loads. Possibly meant as the allow-list's policy ("Not guaranteed",
 *    "The import allow-list is a convenience"), but `__future__` gives a program nothing to run, and
 *    submodules of allowed packages are a program's own modules. Fix: allow `__future__` and the
 *    dotted names under an allowed package (loaded at setup).
 * D. Every audited operation costs the program one Python frame under the recursion limit. The audit
 *    hook is a Python function (harness.py `_audit`, `_audit_judge`, installed by `setup` with
 *    `sys.addaudithook`): CPython calls it for each event the program raises, and its frame counts
 *    against the limit like the program's own. `id(x)` raises `builtins.id`, and `compile()` raises
 *    `compile`: in a clean CPython both are C calls with no frame, so they succeed at the limit
 *    (depth 1000); graded, the hook's frame is the 1001st and the call raises RecursionError. Round 28
 *    made the program's depth CPython's, so this frame is now the whole difference: a program that
 *    counts how deep it gets (catching RecursionError, round 28's shape) while calling `id()` (a
 *    memo or visited set keyed by id) on each level counts 994 where CPython counts 995, a right
 *    program fails and a wrong one passes; a recursion that calls id() at the deepest level CPython
 *    completes raises instead (`error` for a program, `invalid` for a reference: no flip). The same
 *    holds for an import statement inside a function: IMPORT_NAME calls the program's builtins'
 *    `__import__`, which is a Python function in the grader (harness.py `_IMPORT_SRC`, `restricted`)
 *    and CPython's C builtin in a clean run, so `import math` at depth 1000 raises RecursionError
 *    when graded (a count of 994 again). Fix: a hook
 *    with no Python frame (a C callable that raises on an event outside the allowed set), or, where
 *    the hook must stay Python, give the program the frame back only inside the hook (not possible in
 *    pure Python: say so under Not guaranteed).
 * E. A refused import is ImportError, where CPython's import of a module that does not exist is
 *    ModuleNotFoundError. The allow-list's `__import__` (harness.py `_IMPORT_SRC`) raises
 *    `ImportError('import of %r is not allowed ...')` for every name off the list. For a module a clean
 *    Pyodide does not have either (`numpy`, not installed), CPython raises ModuleNotFoundError (its
 *    subclass), so the optional-dependency idiom `try: import numpy as np / except
 *    ModuleNotFoundError: np = None` loads in CPython and passes, and does not load when graded (every
 *    line `skipped`); a program that reads the exception's type gets another value. (For a module that
 *    exists, `import sys`, the refusal itself is the allow-list's documented policy, not this.) Fix:
 *    raise ModuleNotFoundError(message, name=name) for a refused name: a subclass of ImportError, so
 *    every `except ImportError` still catches it.
 * F. A denied builtin is a NameError a program can catch. `open`, `input`, `exit`... are removed from a
 *    program's builtins (harness.py `_DENIED_BUILTINS`), so calling one raises NameError, an Exception;
 *    in a clean Pyodide `open` works on its in-memory file system. A program that writes and reads back
 *    a scratch file under a defensive `except Exception` takes its fallback when graded: a right
 *    program fails, a program right only on its fallback passes. The denial itself is the threat
 *    model's (rule 6); what could change is how it surfaces. Fix for A, B, E and F together: make what
 *    the grader refuses (a denied builtin, a refused import, the hook's refusal) raise an exception
 *    `except Exception` does not catch (a BaseException subclass of the harness's), which `call` and
 *    `load` turn into a marked `error`, so that a program's fallback never runs where CPython's would not.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne, OK_FAIL, OK_PASS } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();

// Unescape a string (`'a\\nb'` -> `'a\nb'`); a defensive fallback keeps the text as it is.
const UNESCAPE = "def f(s):\n    try:\n        return s.encode('latin-1').decode('unicode_escape')\n    except Exception:\n        return s";
// Decode with a fallback encoding: cp1252, else latin-1.
const DECODE = "def f(s):\n    data = s.encode('latin-1')\n    try:\n        return data.decode('cp1252')\n    except Exception:\n        return data.decode('latin-1')";
// UTF-16 code units of a str (a BOM-less codec), falling back to the code point count.
const UNITS = "def f(s):\n    try:\n        return len(s.encode('utf-16-le')) // 2\n    except Exception:\n        return len(s)";

describe("A. a codec the snapshot has not loaded: its lazy import is refused by the audit hook", () => {
  it("unescape: a right program fails a line CPython passes", async () => {
    const lines = ["assert f('a\\\\nb') == 'a\\nb'"];
    expect(suiteTruth(UNESCAPE, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", UNESCAPE, lines, UNESCAPE);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("unescape: a program right only on its fallback passes a line CPython fails", async () => {
    const lines = ["assert f('a\\\\nb') == 'a\\\\nb'"];
    expect(suiteTruth(UNESCAPE, lines)).toEqual([false]);
    const got = await gradeGolden(grader, "f", UNESCAPE, lines, UNESCAPE);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("unescape, generated suite: the reference's right line is judged wrong", async () => {
    const lines = ["assert f('a\\\\nb') == 'a\\nb'"];
    expect(suiteTruth(UNESCAPE, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", UNESCAPE, lines, UNESCAPE);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("unescape: a reference's wrong-answer line is corrected to a line CPython calls false", async () => {
    const lines = ["assert f('a\\\\nb') == 0"];
    const r = await grader.grade({
      tasks: [{ id: "t", entry_point: "f", reference: UNESCAPE }],
      codes: [{ task: "t", code: UNESCAPE }],
      suites: [{ code: 0, text: lines.join("\n") }],
      limits: { test_ms: 1000, max_lines: 8 },
    });
    const corrected = r.suites[0][0].corrected;
    expect(corrected).toBeDefined();
    expect(suiteTruth(UNESCAPE, [corrected as string]), corrected).toEqual([true]);
  }, 300_000);
  it("decode with a fallback encoding: a right program fails", async () => {
    const lines = ["assert f('\\x80') == '\\u20ac'"];
    expect(suiteTruth(DECODE, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", DECODE, lines, DECODE);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("UTF-16 code units: a wrong program (its fallback counts code points) passes", async () => {
    const lines = ["assert f('a\\U0001F600') == 2"];
    expect(suiteTruth(UNITS, lines)).toEqual([false]);
    const got = await gradeGolden(grader, "f", UNITS, lines, UNITS);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("the codecs the snapshot has (utf-8 spellings, utf-16, utf-32) agree with CPython", async () => {
    const code = "def f(s):\n    return (s.encode('UTF8'), s.encode('utf_8'), len(s.encode('utf-16')), len(s.encode('utf-32')))";
    const lines = ["assert f('a') == (b'a', b'a', 4, 8)"];
    expect(suiteTruth(code, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", "def f(s):\n    return 0", ["assert f('a') == 0"], code);
    expect(got[0], got.join(" | ")).toMatch(/^valid\/fail$/);
  }, 300_000);
});

// collections.Mapping left in 3.10: CPython raises ImportError, the idiom falls back to collections.abc.
const COMPAT = "try:\n    from collections import Mapping\nexcept ImportError:\n    from collections import abc\n    Mapping = abc.Mapping\ndef f(x):\n    return isinstance(x, Mapping)";
// Inside a function: `except ImportError` reports the name as missing.
const HAS_NAME = "def f(name):\n    try:\n        exec('from re import ' + name, {})\n        return True\n    except ImportError:\n        return False";
const HAS_COUNTER = "def f(x):\n    try:\n        from collections import OrderedCounter\n        return True\n    except ImportError:\n        return False";

describe("B. from an allowed package, a name it lacks: RuntimeError from the audit hook, not ImportError", () => {
  it("the compatibility idiom `try: from collections import Mapping / except ImportError` does not load", async () => {
    const lines = ["assert f({}) == True", "assert f([]) == False"];
    expect(suiteTruth(COMPAT, lines)).toEqual([true, true]);
    const got = await gradeGolden(grader, "f", COMPAT, lines, COMPAT);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("generated suite: the same program as its own reference does not load in the judge either, so its lines are refused", async () => {
    const lines = ["assert f({}) == True"];
    expect(suiteTruth(COMPAT, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", COMPAT, lines, COMPAT);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("inside a function, `except ImportError` catches it as in CPython", async () => {
    const lines = ["assert f(0) == False"];
    expect(suiteTruth(HAS_COUNTER, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", HAS_COUNTER, lines, HAS_COUNTER);
    expect(got[0], got.join(" | ")).toBe("valid/pass");
  }, 300_000);
  it("a name the package has imports as in CPython", async () => {
    const lines = ["assert f('NOFLAG') == True"];
    expect(suiteTruth(HAS_NAME, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", HAS_NAME, lines, HAS_NAME);
    expect(got[0], got.join(" | ")).toBe("valid/pass");
  }, 300_000);
  it("a real submodule the snapshot has not loaded (string.templatelib) is refused", async () => {
    const code = "from string import templatelib\ndef f(x):\n    return x";
    const lines = ["assert f(1) == 1"];
    expect(suiteTruth(code, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", code, lines, code);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});

describe("C. `from __future__ import annotations` (and `import collections.abc`) do not load", () => {
  it("from __future__ import annotations: a right program's lines are skipped", async () => {
    const code = "from __future__ import annotations\ndef f(x: int) -> int:\n    return x + 1";
    const lines = ["assert f(1) == 2"];
    expect(suiteTruth(code, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", code, lines, code);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("import collections.abc: a right program's lines are skipped", async () => {
    const code = "import collections.abc\ndef f(x):\n    return isinstance(x, collections.abc.Mapping)";
    const lines = ["assert f({}) == True"];
    expect(suiteTruth(code, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", code, lines, code);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});

// How deep the recursion gets, each level first calling id() (a visited set keyed by id would).
const ID_COUNT = "def f(x):\n    d = [0]\n    def g():\n        id(d)\n        d[0] += 1\n        g()\n    try:\n        g()\n    except RecursionError:\n        pass\n    return d[0]";
const ID_REC = "def f(n):\n    seen = set()\n    def g(k):\n        if id(k) in seen:\n            return 0\n        return 0 if k == 0 else 1 + g(k - 1)\n    return g(n)";

describe("D. the audit hook's Python frame counts against the recursion limit (id() at the limit)", () => {
  it.fails("a program that counts its depth, calling id() on each level: a right program fails", async () => {
    const lines = ["assert f(0) == 995"];
    expect(suiteTruth(ID_COUNT, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", "def f(x):\n    return 995", lines, ID_COUNT);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it.fails("golden: a wrong program passes a line CPython fails", async () => {
    const lines = ["assert f(0) == 994"];
    expect(suiteTruth(ID_COUNT, lines)).toEqual([false]);
    const got = await gradeGolden(grader, "f", "def f(x):\n    return 995", lines, ID_COUNT);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it.fails("generated suite, the program its own reference: its right line is judged wrong", async () => {
    const lines = ["assert f(0) == 995"];
    expect(suiteTruth(ID_COUNT, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", ID_COUNT, lines, ID_COUNT);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it.fails("an import statement inside the recursive function (the program's __import__ is a Python function): a right program fails", async () => {
    const code = ID_COUNT.replace("id(d)", "import math");
    const lines = ["assert f(0) == 995"];
    expect(suiteTruth(code, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", "def f(x):\n    return 995", lines, code);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it.fails("compile() on each level: a wrong program passes a line CPython fails", async () => {
    const code = ID_COUNT.replace("id(d)", "compile('1', '', 'eval')");
    const lines = ["assert f(0) == 994"];
    expect(suiteTruth(code, lines)).toEqual([false]);
    const got = await gradeGolden(grader, "f", "def f(x):\n    return 995", lines, code);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("a recursion that calls id() at the deepest level CPython completes: `error` or refused, never a flip", async () => {
    const lines = ["assert f(994) == 994", "assert f(993) == 993"];
    expect(suiteTruth(ID_REC, lines)).toEqual([true, true]);
    const golden = await gradeGolden(grader, "f", "def f(n):\n    return n", lines, ID_REC);
    expect(golden[0], golden.join(" | ")).toMatch(OK_PASS);
    expect(golden[1], golden.join(" | ")).toBe("valid/pass");
    const generated = await gradeOne(grader, "f", ID_REC, lines, ID_REC);
    expect(generated[0], generated.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});

describe("E. a refused import raises ImportError, where CPython raises ModuleNotFoundError for a module it lacks", () => {
  it("the optional-dependency idiom `except ModuleNotFoundError` does not load", async () => {
    const code = "try:\n    import numpy as np\nexcept ModuleNotFoundError:\n    np = None\ndef f(x):\n    return sum(x) if np is None else int(np.sum(x))";
    const lines = ["assert f([1, 2]) == 3"];
    expect(suiteTruth(code, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", code, lines, code);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("a program that reads the exception's type: a right program fails", async () => {
    const code = "try:\n    import numpy as np\nexcept ImportError as e:\n    np = type(e).__name__\ndef f(x):\n    return np";
    const lines = ["assert f(0) == 'ModuleNotFoundError'"];
    expect(suiteTruth(code, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", code, lines, code);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("`except ImportError` catches the refusal as it catches CPython's error", async () => {
    const code = "try:\n    import numpy as np\nexcept ImportError:\n    np = None\ndef f(x):\n    return np is None";
    const lines = ["assert f(0) == True"];
    expect(suiteTruth(code, lines)).toEqual([true]);
    expect(await gradeGolden(grader, "f", code, lines, code)).toEqual(["valid/pass"]);
  }, 300_000);
});

const SCRATCH = "def f(x):\n    try:\n        with open('/tmp/scratch.txt', 'w') as fh:\n            fh.write(str(x))\n        with open('/tmp/scratch.txt') as fh:\n            return int(fh.read()) + 1\n    except Exception:\n        return x";

describe("F. a denied builtin (open) is a NameError the program's `except Exception` catches", () => {
  it("a right program that round-trips through a scratch file fails", async () => {
    const lines = ["assert f(1) == 2"];
    expect(suiteTruth(SCRATCH, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", "def f(x):\n    return x + 1", lines, SCRATCH);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("a program right only on its fallback passes a line CPython fails", async () => {
    const lines = ["assert f(1) == 1"];
    expect(suiteTruth(SCRATCH, lines)).toEqual([false]);
    const got = await gradeGolden(grader, "f", "def f(x):\n    return x + 1", lines, SCRATCH);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
});

describe("what the fix lets through, and what it still refuses", () => {
  it("the stdlib archive opened for reading reads as in CPython; opened for writing, the step is a marked error", async () => {
    const read = "def f(x):\n    with open('/lib/python314.zip', 'rb') as fh:\n        return list(fh.read(2))";
    const lines = ["assert f(0) == [80, 75]"];
    expect(suiteTruth(read, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", read, lines, read);
    expect(got, got.join(" | ")).toEqual(["valid/pass"]);
    const write = "def f(x):\n    try:\n        open('/lib/python314.zip', 'ab').close()\n        return 'wrote'\n    except Exception:\n        return 'refused'";
    const r = await grader.grade({
      tasks: [{ id: "t", entry_point: "f", reference: "def f(x):\n    return 'refused'" }],
      codes: [{ task: "t", code: write }],
      golden: [{ code: 0, text: "assert f(0) == 'refused'\nassert f(1) == 'refused'" }],
      limits: { test_ms: 1000, max_lines: 8 },
    });
    expect(r.golden[0].map((l) => l.verdict)).toEqual(["error", "error"]);
    expect(r.golden[0][0].reason).toMatch(/blocked by the grader sandbox: open/);
  }, 300_000);
  it("CPython's own probing is not a refusal: a missing file opened for reading, a missing module through the import system", async () => {
    for (const [probe, caught] of [["open('/no/such/file')", "FileNotFoundError"], ["__import__('no_such_module_q', None, None, [])", "ImportError"]]) {
      const code = `def f(x):\n    try:\n        ${probe}\n        return 'found'\n    except ${caught}:\n        return 'missing'`;
      const lines = ["assert f(0) == 'missing'"];
      expect(suiteTruth(code, lines)).toEqual([true]);
      expect(await gradeGolden(grader, "f", code, lines, code), probe).toEqual(["valid/pass"]);
    }
  }, 300_000);
  it("the JavaScript bridge's modules stay out of reach, by an import statement or C's import shape", async () => {
    for (const how of ["import js as m", "m = __import__('js', None, None, [])", "m = __import__('pyodide.ffi', None, None, [])"]) {
      const code = `def f(x):\n    try:\n        ${how}\n        return 'bridge'\n    except BaseException:\n        return 'none'`;
      const got = await gradeGolden(grader, "f", "def f(x):\n    return 'none'", ["assert f(0) == 'none'"], code);
      expect(got[0], how).toMatch(/^valid\/(error|pass)$/);
      const bridge = await gradeGolden(grader, "f", "def f(x):\n    return 'none'", ["assert f(0) == 'bridge'"], code);
      expect(bridge[0], how).not.toBe("valid/pass");
    }
  }, 300_000);
});
