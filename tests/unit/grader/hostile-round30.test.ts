/**
 * Round 30: a stranger agent on 52bb804 (round 29's fix). Each test asserts CPython's truth first (a
 * clean Pyodide: the program exec'd, then each line exec'd in its namespace), then that the grader's
 * verdict is that truth or a refusal; the reproducers fail on 52bb804. Fixed in the same stop: A (the
 * file restored: the block once, above `_IMPORT_SRC`); B's one-attribute form (refusals outside the
 * hooks report to them by the audit event `grader.refused`: no list in any function's globals) and C
 * (every root a clean Pyodide imports is refused and marked: the standard library, frozen modules,
 * what is loaded at setup, the bridge; `__spec__` and `__loader__` are builtins again). Open, kept as
 * `it.fails` (docs/SECURITY.md, Not guaranteed): B through the collector (the harness's namespace is
 * as reachable to a program that searches for it as it ever was, rounds 21 and 26).
 * A. The committed harness.py is not Python: the grader cannot start, every batch is lost.
 *    52bb804 grew src/core/grader/harness.py from 57 KB to 33.8 MB: the six-line comment block meant
 *    for `_IMPORT_SRC` ("# A program's `__import__`: CPython's own import ... (round 29).") was
 *    inserted between EVERY character of the file (the shape of `text.replace("", block)`), so line 7
 *    is `"# A program's ...` and CPython raises `SyntaxError: unterminated string literal (detected at
 *    line 7)` when runner.js (`startRunner`, `pyodide.runPython(harnessSource, ...)`) loads it. Every
 *    runner start fails (`failed to start`), `createNodeGrader()`'s warm-up batch rejects, and so does
 *    every `grade()`: no program is graded, every batch of a run is lost (the browser worker imports
 *    the same file, `harness.py?raw`), and every grader test of the project fails. The diff stat of
 *    52bb804 says it (harness.py | 361432 +++). Removing every exact copy of the block gives back a
 *    59,863-character harness that compiles and is round 29's intended fix. Fix: restore the file (drop every copy of the block, then put it once above
 *    `_IMPORT_SRC` in place of the round-28 comment there, which it was meant to replace: that one
 *    still says "Nothing is loaded from files here"), and add a unit test that compiles harness.py with CPython
 *    (`python3 -c "compile(open(p).read(), p, 'exec')"`, or the clean Pyodide) so a corrupted harness
 *    fails one fast test instead of every slow one.
 * B. (On the harness as round 29 meant it: the block removed.) A program can
 *    clear the refusal mark. Round 29 made every step that met a refusal a marked `error`
 *    (`_REFUSED`: the audit hook, `refused`, and the program's `__import__` append to it; `load` and
 *    `call` test it after the step) so that a program's fallback after a refused operation is never
 *    graded as CPython's path. But the list is one object shared with the program: the program's
 *    `__import__` (`_tiny_function(_IMPORT_SRC, ...)`, its builtins' `__import__`) has it in its
 *    `__globals__` as `REFUSED`, and reading a function's `__globals__` raises no audit event. A
 *    program that catches the refusal and runs `__import__.__globals__['REFUSED'].clear()` leaves the
 *    step unmarked, and its fallback is graded: a program that answers wrongly on CPython's path (an
 *    `import sys` that CPython does) and rightly on the grader's passes a line CPython fails. (A
 *    program can tell the grader from CPython in other ways, rounds 21 and 26; this one defeats the
 *    very mark meant to neutralise the refused-operation fallback, with one attribute read.) The
 *    same list is reachable from `len.__self__.__import__.__globals__['restricted'].__globals__`
 *    and from any replaced os function (`os.system.__globals__['REFUSED']`, os is reachable through
 *    the C-level list-fromlist import), and, since the sandbox allows `gc.get_objects`, from the
 *    harness's own namespace dict (`_REFUSED`, second test): no Python object in the sandbox is out of
 *    a program's reach. Fix: make the mark not depend on a Python object the program can mutate:
 *    e.g. have the hook and the refusers also bump a counter outside the Python heap that runner.js
 *    reads after the step (a C-level side effect only the harness's JS half observes, such as a
 *    write to a file-system node the hook alone may open, checked and reset by runner.js), or, at
 *    least, refuse `gc.get_objects`/`get_referrers` in the sandbox, take the list out of every
 *    program-reachable function's globals (report through `sys.audit("grader.refused", ...)` to the
 *    hook, which a program cannot enumerate), and document that a program searching for the grader
 *    can still defeat the mark (Not guaranteed, with rounds 21 and 26).
 * C. A program's import of a Pyodide bridge module is an unmarked, catchable
 *    ModuleNotFoundError. The truth is a clean Pyodide, where `import pyodide` and `import js` succeed.
 *    The program's `__import__` (harness.py `_IMPORT_SRC`) refuses-and-marks only roots in
 *    `sys.stdlib_module_names`; `js`, `pyodide`, `pyodide_js`, `_pyodide` are not in it, so they fall
 *    to the last branch, `raise ModuleNotFoundError(...)`, with nothing appended to `_REFUSED`. The
 *    step is graded as the program's fallback: the ordinary "am I running in Pyodide / the browser?"
 *    probe (`try: import pyodide ... except ImportError: ...`, or `import js` for the DOM) takes the
 *    other branch, so a right program fails a line CPython passes and a program right only on the
 *    fallback passes a line CPython fails. This contradicts docs/SECURITY.md rule 6 ("the bridge's
 *    modules (`js`, `pyodide`) ... are refused. A step that met any refusal ... is a marked
 *    `error`"). (The list-fromlist path, `__import__('js', None, None, [])`, does reach the hook,
 *    which marks.) The same holds for the other names a clean Pyodide imports that are not in
 *    `sys.stdlib_module_names`: `__main__` (in sys.modules) and the frozen `__hello__`/`__phello__`.
 *    Likewise the two builtins round 29 still denies (`_DENIED_BUILTINS`: `__spec__`, `__loader__`):
 *    `exec(program, {})` finds the builtins module's own (`__spec__.name == 'builtins'`), the grader
 *    raises an unmarked NameError. Fix for these: give them back (the builtins module's `__spec__` and
 *    `__loader__`, BuiltinImporter, already reachable through `len.__self__`).
 *    Fix: in `_IMPORT_SRC`, mark (append to REFUSED and raise) every root a clean Pyodide can import,
 *    not only `sys.stdlib_module_names`: `_BRIDGE_ROOTS` (`micropip` only where a clean Pyodide has
 *    it), the roots in `sys.modules` at setup (`__main__`), and frozen modules (`_imp.is_frozen`).
 * Held (kept as plain tests): the generated-suite shape of B (the judge refuses a reference that calls
 * `__import__`); a fallback kept in a global across calls (the first call's marked step makes the
 * rest of the unit's lines refused too, in its suite and the next).
 */
import { describe, expect, it } from "vitest";
import type { SupervisedGrader } from "../../../src/core/grader/supervisor.ts";
import { createNodeGrader } from "../../../src/node/grader.ts";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne, OK_FAIL, OK_PASS } from "./grade-lines.ts";

const { suiteTruth } = cleanPython();

describe("A. the committed harness.py does not compile: the grader cannot start", () => {
  it("a right program's line CPython passes is graded (not a lost batch)", async () => {
    const code = "def f(x):\n    return x + 1";
    const lines = ["assert f(1) == 2"];
    expect(suiteTruth(code, lines)).toEqual([true]);
    let grader: SupervisedGrader | undefined;
    let got: string[];
    try {
      grader = await createNodeGrader();
      got = await gradeGolden(grader, "f", code, lines, code);
    } catch (e) {
      got = ["lost batch: " + String(e).slice(0, 300)];
    } finally {
      await grader?.close().catch(() => undefined);
    }
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});

describe("the restored harness", () => {
  const grader = sharedNodeGrader();

  it("the harness grades a right program (the control)", async () => {
    const code = "def f(x):\n    return x + 1";
    const lines = ["assert f(1) == 2", "assert f(2) == 4"];
    expect(suiteTruth(code, lines)).toEqual([true, false]);
    const got = await gradeGolden(grader, "f", code, lines, code);
    expect(got, got.join(" | ")).toEqual(["valid/pass", "valid/fail"]);
  }, 300_000);

  // Wrong on CPython's path (CPython imports sys), right on the grader's (the import refused).
  const CLEAR = "def f(x):\n    try:\n        import sys\n        return x\n    except ImportError:\n        __import__.__globals__['REFUSED'].clear()\n        return x + 1";
  describe("B. a program clears the refusal mark (`__import__.__globals__['REFUSED']`)", () => {
    it("without the clear, the refused import marks the step (round 29's mark works)", async () => {
      const code = CLEAR.replace("        __import__.__globals__['REFUSED'].clear()\n", "");
      const lines = ["assert f(1) == 2"];
      expect(suiteTruth(code, lines)).toEqual([false]);
      const got = await gradeGolden(grader, "f", "def f(x):\n    return x + 1", lines, code);
      expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
    }, 300_000);
    it("golden: a wrong program passes a line CPython fails", async () => {
      const lines = ["assert f(1) == 2"];
      expect(suiteTruth(CLEAR, lines)).toEqual([false]);
      const got = await gradeGolden(grader, "f", "def f(x):\n    return x + 1", lines, CLEAR);
      expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
    }, 300_000);
    // Held since 4a94fff: setup freezes what it made (gc.freeze), and the collector lists no frozen
    // object, so the harness's namespace is not among gc.get_objects()'s (it was it.fails before).
    it("the same through the collector (gc.get_objects, allowed in the sandbox): the harness's own `_REFUSED`", async () => {
      const code = CLEAR.replace("__import__.__globals__['REFUSED'].clear()", "gc = __import__('gc', None, None, [])\n        for o in gc.get_objects():\n            if type(o) is dict and type(o.get('_REFUSED')) is list:\n                o['_REFUSED'].clear()");
      const lines = ["assert f(1) == 2"];
      expect(suiteTruth(code, lines)).toEqual([false]);
      const got = await gradeGolden(grader, "f", "def f(x):\n    return x + 1", lines, code);
      expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
    }, 300_000);
    // Still open (docs/SECURITY.md, Not guaranteed, "A program that searches for the grader"): the
    // frames above a program's call are the harness's, and their globals are the harness's namespace.
    it.fails("the same through the frames above the call (`sys._getframe().f_back...f_globals`)", async () => {
      const code = CLEAR.replace("__import__.__globals__['REFUSED'].clear()", "import collections\n        fr = collections._sys._getframe(0)\n        while fr is not None:\n            if type(fr.f_globals.get('_REFUSED')) is list:\n                fr.f_globals['_REFUSED'].clear()\n            fr = fr.f_back");
      const lines = ["assert f(1) == 2"];
      expect(suiteTruth(code, lines)).toEqual([false]);
      const got = await gradeGolden(grader, "f", "def f(x):\n    return x + 1", lines, code);
      expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
    }, 300_000);
    it("generated suite: the program as its own reference (held: the judge refuses the reference's line)", async () => {
      const lines = ["assert f(1) == 2"];
      expect(suiteTruth(CLEAR, lines)).toEqual([false]);
      const got = await gradeOne(grader, "f", CLEAR, lines, CLEAR);
      expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
    }, 300_000);
  });
  // The classic "am I in Pyodide?" check: a clean Pyodide imports its bridge modules.
  const WHERE = "def f():\n    try:\n        import pyodide\n        return 'pyodide'\n    except ImportError:\n        return 'cpython'";
  describe("C. an import of a bridge module (`pyodide`, `js`) is an unmarked ModuleNotFoundError", () => {
    it("a right program fails a line CPython passes", async () => {
      const lines = ["assert f() == 'pyodide'"];
      expect(suiteTruth(WHERE, lines)).toEqual([true]);
      const got = await gradeGolden(grader, "f", WHERE, lines, WHERE);
      expect(got[0], got.join(" | ")).toMatch(OK_PASS);
    }, 300_000);
    it("a wrong program passes a line CPython fails", async () => {
      const lines = ["assert f() == 'cpython'"];
      expect(suiteTruth(WHERE, lines)).toEqual([false]);
      const got = await gradeGolden(grader, "f", "def f():\n    return 'pyodide'", lines, WHERE);
      expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
    }, 300_000);
    it("import __main__ (and the frozen __hello__): a right program fails a line CPython passes", async () => {
      for (const name of ["__main__", "__hello__"]) {
        const code = WHERE.replace("import pyodide", `import ${name}`);
        const lines = ["assert f() == 'pyodide'"];
        expect(suiteTruth(code, lines)).toEqual([true]);
        const got = await gradeGolden(grader, "f", code, lines, code);
        expect(got[0], name + ": " + got.join(" | ")).toMatch(OK_PASS);
      }
    }, 300_000);
    it("the two builtins still denied (`__spec__`, `__loader__`): an unmarked NameError, where exec(program, {}) finds the builtins module's", async () => {
      const code = "def f():\n    try:\n        return __spec__.name\n    except NameError:\n        return None";
      const lines = ["assert f() == 'builtins'"];
      expect(suiteTruth(code, lines)).toEqual([true]);
      const got = await gradeGolden(grader, "f", code, lines, code);
      expect(got[0], got.join(" | ")).toMatch(OK_PASS);
    }, 300_000);
    it("import js: a right program fails a line CPython passes", async () => {
      const code = WHERE.replace("import pyodide", "import js");
      const lines = ["assert f() == 'pyodide'"];
      expect(suiteTruth(code, lines)).toEqual([true]);
      const got = await gradeGolden(grader, "f", code, lines, code);
      expect(got[0], got.join(" | ")).toMatch(OK_PASS);
    }, 300_000);
  });
  // An optional module probed once, on the first call, its answer kept in a global (the memoised
  // "is X available?" idiom): wrong on CPython's path (sys imports), right on the grader's.
  const MEMO = "mode = None\ndef f(x):\n    global mode\n    if mode is None:\n        try:\n            import sys\n            mode = 'cpython'\n        except ImportError:\n            mode = 'grader'\n    return x + 1 if mode == 'grader' else x";
  describe("held: a fallback kept in a global across calls (a marked step poisons the rest of its unit)", () => {
    it("held: golden, the second line of a program whose first call took the fallback", async () => {
      const lines = ["assert f(0) == 1", "assert f(1) == 2"];
      expect(suiteTruth(MEMO, lines)).toEqual([false, false]);
      const got = await gradeGolden(grader, "f", "def f(x):\n    return x + 1", lines, MEMO);
      expect(got[1], got.join(" | ")).toMatch(OK_FAIL);
    }, 300_000);
    it("held: a second suite of the same unit, after a call that took the fallback", async () => {
      const r = await grader.grade({
        tasks: [{ id: "t", entry_point: "f", reference: "def f(x):\n    return x + 1" }],
        codes: [{ task: "t", code: MEMO }],
        golden: [{ code: 0, text: "assert f(0) == 1" }, { code: 0, text: "assert f(1) == 2" }],
        limits: { test_ms: 1000, max_lines: 8 },
      });
      const got = r.golden.map((s) => s.map((l) => `${l.validity}/${l.verdict}`).join(","));
      expect(suiteTruth(MEMO, ["assert f(0) == 1", "assert f(1) == 2"])).toEqual([false, false]);
      expect(got[1], got.join(" | ")).toMatch(OK_FAIL);
    }, 300_000);
  });
  describe("held: a program reports a 6 MB refusal of its own (the reason is capped)", () => {
    it("an honest candidate in the same batch is graded as CPython", async () => {
      const HUGE = "def f(x):\n    __import__.__globals__['audit']('grader.refused', 'x' * 6_000_000)\n    return x + 1";
      const honest = "def f(x):\n    return x + 1";
      const lines = ["assert f(1) == 2"];
      expect(suiteTruth(honest, lines)).toEqual([true]);
      const r = await grader.grade({
        tasks: [{ id: "t", entry_point: "f", reference: honest }],
        codes: [{ task: "t", code: HUGE }, { task: "t", code: honest }],
        golden: [{ code: 0, text: lines[0] }, { code: 1, text: lines[0] }],
        limits: { test_ms: 1000, max_lines: 8 },
      });
      expect(r.golden[0][0].verdict).toBe("error");
      expect(r.golden[0][0].reason.length).toBeLessThan(1000);
      expect(r.golden[1][0].verdict).toBe("pass");
    }, 300_000);
  });
});
