/**
 * Round 32: a stranger agent on b2219b2, 30 minutes. Each test asserts CPython's truth first (a clean
 * Pyodide: the program exec'd, then each line exec'd in its namespace), then that the grader's verdict
 * is that truth or a refusal (grade-lines.ts OK_PASS / OK_FAIL).
 *
 * Found: two classes (A, B), 5 reproducers (plain `it`s that FAIL on b2219b2). The rest are boundaries.
 *
 * A. The harness runs a program's METACLASS methods while it describes an exception, where CPython
 *    runs nothing. `_exc_reason(e)` tests `type(e) not in _BUILTIN_EXCEPTIONS` (a frozenset): the
 *    membership test HASHES the class, i.e. calls `type(type(e)).__hash__`, a program's metaclass
 *    method (and its `__eq__` on a hash collision). Likewise `type(args[0]) in (str, int)` for a
 *    builtin exception compares a program-typed argument's class with `==`: the metaclass's `__eq__`
 *    runs first (its type is a subclass of `type`, so the reflected operand goes first). The comment
 *    above `_BUILTIN_EXCEPTIONS` assumes no program code runs there; it does. The step is an
 *    UNMARKED `error`, so the next line is graded on a state CPython never reaches (no refusal, no
 *    search for the grader: an ordinary metaclass). Repro: `class M(type): def __hash__(c): cnt[0] += 1;
 *    return 1`, `class E(Exception, metaclass=M)`, f(0) raises E, f(1) returns cnt[0]; lines
 *    `assert f(0) == 0` / `assert f(1) == 0`: CPython false, TRUE; grader error, FAIL (forged fail;
 *    `== 1` gives a forged pass).
 *    Fix: compare classes by identity only: `_BUILTIN_EXCEPTION_IDS = frozenset(map(id, ...))` and
 *    `id(t) in _BUILTIN_EXCEPTION_IDS` (ints hash in C), and `type(arg) is str or type(arg) is int`
 *    for the argument (the same audit for every `in`/`==` on a type the program chose).
 * B. An exception OUT of `call` drops the refusal mark. If `_call`'s own `except` handler raises
 *    (A's metaclass `__hash__` raising, say), the exception leaves `call` before `if _REFUSED`, and
 *    runner.js's `timed` turns a Python exception out of the harness into an UNMARKED
 *    `["error","raised ValueError"]`. A refused `import sys` caught earlier in the same step (round 29's
 *    fallback) is then not marked, and the next line is graded on the fallback. Repro: f(0) does
 *    `try: import sys; mode=0 except ImportError: mode=1`, then raises E whose metaclass `__hash__`
 *    raises; `assert f(0) == 0` / `assert f(1) == 0`: CPython false, TRUE; grader error, FAIL.
 *    Fix: in `call` and `load`, `try: out = _call(...) except BaseException: out = _marked("error",
 *    "the harness could not read the step's outcome")`, with the `_REFUSED` check after it (a
 *    `finally`); and in runner.js make a Python exception out of a step a MARKED error (`,1]`), since
 *    a step whose outcome the harness did not read may have left any state.
 *
 * Nothing found that leaks between candidates, runs a line in the judge, slows a batch or escapes.
 *
 * Fixed in the same stop (docs/SECURITY.md, round 32): A, the builtin exception classes are found by
 * identity (a loop of `is`), the argument's type by `is`, and a class's name is read as an exact str
 * (A2, found while fixing A: `E.__name__ = S('E')` with S a str subclass ran S's `__add__` in the
 * reason's text); B, `load` and `call` catch whatever escapes `_load` / `_call` (a marked error) and
 * read the mark after it, clearing it as they read it (so a refusal between two steps marks the
 * second: the hardening suggested below).
 *
 * Also tried (held):
 * - The window BETWEEN steps. `call` / `load` clear `_REFUSED` at their start and read it at their
 *   end, so a refusal recorded after one step's read and before the next step's clear would be
 *   dropped. The only program code that can run there is what the interpreter has pending at the
 *   next step's first eval-breaker check (the RESUME of `call`, before `del _REFUSED[:]`): a
 *   collection of the program's cyclic garbage (a `__del__` doing `try: import sys / except
 *   ImportError`). A program can steer the collector to the edge (`gc.set_threshold`, then allocate
 *   until `gc.get_count()[0]` is k short of it, for k = 0..12). Checked in-process with a
 *   `gc.callbacks` probe (the harness loaded as runner.js loads it, `load`/`call` called from JS as
 *   the runner calls them): the collection never ran in `call`'s prologue. It ran inside the program
 *   (k < 0), or inside the NEXT step after the clear (in the entry point, the audit hook, or
 *   `compile_line`), where the refusal is recorded and the step is marked. The reason: the harness's
 *   tail after the program returns makes no net tracked allocation (its lists die at once, and a
 *   deallocation lowers the young count in 3.14), and Pyodide's JS-to-Python call of `call` makes
 *   none either, so nothing crosses the threshold after the last check of a step. Pinned below
 *   (section "held: a collection pending at a step's end").
 *   Suggested hardening anyway (cheap, closes the window by construction): do not clear the list
 *   at the START of a step; read-and-clear it at the END (`out = _call(...); refused = bool(_REFUSED);
 *   del _REFUSED[:]`), and treat a non-empty list found at the start of a step as this step's refusal.
 *   Then a refusal anywhere between two steps marks the second one.
 * - Finalizers at the argument release and during the call, warning hooks in a line's compile:
 *   marked (round 31's tests cover them; re-checked with the sweep above).
 * - Odd line shapes (boundaries below): a leading space, tab, BOM, NBSP, U+000B, U+001C, U+2028, U+3000,
 *   a trailing backslash or NUL: CPython cannot compile them and the grader calls them invalid; a
 *   leading form feed, a trailing `;` or `\r`: CPython runs them and the grader grades them as it
 *   does. A `\r` inside a line splits it in two for the grader (as for CPython's tokenizer), each
 *   part graded on its own (the second a refused repeat). No difference.
 * - Equality across types (`assert f(0) == 1` where f returns 1.0 or True: CPython true, the grader
 *   a fail) is the documented rule 5 (`Types are kept`, semantics.test.ts), not a new class.
 * - Exception reasons: an int argument is shown only below 10**40 (41 digits), under the smallest
 *   int digit limit a program can set (640), so a program that lowers it cannot make `_exc_reason`
 *   raise out of `call`.
 * - The base snapshot: it is keyed by Pyodide's version, wasm size and RUNNER_ENV, taken before the
 *   harness runs; PYTHONHASHSEED is checked after a reload. No program-visible difference found in the
 *   few minutes spent (round 31 checked the settings list).
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne, OK_FAIL, OK_PASS } from "./grade-lines.ts";

const { suiteTruth } = cleanPython();
const grader = sharedNodeGrader();

// Cyclic garbage whose finalizer imports sys (CPython: mode 1; the grader refuses it: mode 2), made at
// the end of f(k) with the collector's young count left k short of its threshold; f(1000) collects
// and reads the mode.
const GAP =
  "mode = [0]\n_gc = __import__('gc', None, None, [])\nkeep = []\n" +
  "class D:\n    def __del__(self):\n        try:\n            import sys\n            mode[0] = 1\n        except ImportError:\n            mode[0] = 2\n" +
  "def f(k):\n    if k >= 1000:\n        _gc.collect()\n        return mode[0]\n    _gc.set_threshold(100)\n    _gc.collect()\n" +
  "    d = D()\n    d.me = d\n    del d\n    while _gc.get_count()[0] < 100 - k:\n        keep.append([])\n    return 0\n";
const REF = "def f(k):\n    return 1 if k >= 1000 else 0";

const META = (hash: string) =>
  "cnt = [0]\nmode = [0]\nclass M(type):\n    def __hash__(cls):\n" + hash + "class E(Exception, metaclass=M):\n    pass\n";
const REF0 = "def f(x):\n    return 0";

describe("A. a program's metaclass runs while the harness describes its exception (unmarked)", () => {
  const prog = META("        cnt[0] += 1\n        return 1\n") + "def f(x):\n    if x == 0:\n        raise E()\n    return cnt[0]";
  it("generated suite: `assert f(0) == 0` / `assert f(1) == 0` (CPython false, true): forged fail", async () => {
    const lines = ["assert f(0) == 0", "assert f(1) == 0"];
    expect(suiteTruth(prog, lines)).toEqual([false, true]);
    expect(suiteTruth(REF0, lines)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", REF0, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("golden suite: `assert f(1) == 1` after the raise (CPython false): forged pass", async () => {
    const lines = ["assert f(0) == 0", "assert f(1) == 1"];
    expect(suiteTruth(prog, lines)).toEqual([false, false]);
    const got = await gradeGolden(grader, "f", REF0, lines, prog);
    expect(got[1], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("a builtin exception whose argument's class has a metaclass `__eq__` (`type(arg) in (str, int)`)", async () => {
    const p =
      "cnt = [0]\nclass M(type):\n    def __eq__(cls, other):\n        cnt[0] += 1\n        return False\n    __hash__ = type.__hash__\n" +
      "class X(metaclass=M):\n    pass\ndef f(x):\n    if x == 0:\n        raise ValueError(X())\n    return cnt[0]";
    const lines = ["assert f(0) == 0", "assert f(1) == 0"];
    expect(suiteTruth(p, lines)).toEqual([false, true]);
    const got = await gradeOne(grader, "f", REF0, lines, p);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});

describe("A2 (found in A's fix): a class whose `__name__` is a str subclass", () => {
  it("the harness's text of the exception's name runs no method of it (CPython's `except` runs none)", async () => {
    const p =
      "cnt = [0]\nclass S(str):\n    def __add__(self, other):\n        cnt[0] += 1\n        return str.__add__(self, other)\n" +
      "    def __str__(self):\n        cnt[0] += 1\n        return str.__str__(self)\n    def __hash__(self):\n        cnt[0] += 1\n        return 1\n" +
      "class E(Exception):\n    pass\nE.__name__ = S('E')\ndef f(x):\n    if x == 0:\n        raise E()\n    return cnt[0]";
    const lines = ["assert f(0) == 0", "assert f(1) == 0"];
    expect(suiteTruth(p, lines)).toEqual([false, true]);
    const got = await gradeOne(grader, "f", REF0, lines, p);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});

describe("B. an exception out of `call` drops the refusal mark (an unmarked error from the runner)", () => {
  const prog =
    META("        raise ValueError('x')\n") +
    "def f(x):\n    if x == 0:\n        try:\n            import sys\n            mode[0] = 0\n        except ImportError:\n            mode[0] = 1\n        raise E()\n    return mode[0]";
  it("generated suite: `assert f(0) == 0` / `assert f(1) == 0` (CPython false, true)", async () => {
    const lines = ["assert f(0) == 0", "assert f(1) == 0"];
    expect(suiteTruth(prog, lines)).toEqual([false, true]);
    const got = await gradeOne(grader, "f", REF0, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("golden suite: a program right only on the fallback passes a line CPython fails", async () => {
    const lines = ["assert f(0) == 0", "assert f(1) == 1"];
    expect(suiteTruth(prog, lines)).toEqual([false, false]);
    const got = await gradeGolden(grader, "f", REF0, lines, prog);
    expect(got[1], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
});

describe("held: a collection pending at a step's end runs inside the next step (marked)", () => {
  it("golden suites, k = 0..8: the reading line is a pass or a marked error, never a fail", async () => {
    const out: string[] = [];
    for (let k = 0; k <= 8; k++) {
      const lines = [`assert f(${k}) == 0`, "assert f(1000) == 1"];
      if (k === 0 || k === 8) expect(suiteTruth(GAP, lines)).toEqual([true, true]);
      const got = await gradeGolden(grader, "f", REF, lines, GAP);
      out.push(`${k}: ${got.join(" | ")}`);
      expect(got[1], out.join("\n")).toMatch(OK_PASS);
    }
  }, 300_000);
  it("generated suite: the same, graded against the reference", async () => {
    const lines = ["assert f(0) == 0", "assert f(1000) == 1", "assert f(3) == 0", "assert f(1000) == 1"];
    expect(suiteTruth(GAP, lines)).toEqual([true, true, true, true]);
    const got = await gradeOne(grader, "f", REF, lines, GAP);
    for (const g of got) expect(g, got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("control: the same program without the refused import passes every line", async () => {
    const prog = GAP.replace("            import sys\n", "");
    const lines = ["assert f(0) == 0", "assert f(1000) == 1"];
    expect(suiteTruth(prog, lines)).toEqual([true, true]);
    const got = await gradeGolden(grader, "f", REF, lines, prog);
    expect(got, got.join(" | ")).toEqual(["valid/pass", "valid/pass"]);
  }, 300_000);
});

describe("held: odd line shapes agree with CPython (or are refused)", () => {
  const ref = "def f(x):\n    return x + 1";
  const shapes = [
    " assert f(0) == 1", "\tassert f(1) == 2", "\fassert f(2) == 3", "\ufeffassert f(3) == 4", "assert f(4) == 5 \\",
    "assert f(5) == 6\r", "assert f(6) == 7;", "\u00a0assert f(8) == 9", "assert f(10) == 11\u2028", "assert f(11)\u3000== 12",
  ];
  it("each shape: CPython's truth, then the grader's verdict is that truth or a refusal", async () => {
    for (const s of shapes) {
      const [truth] = suiteTruth(ref, [s]);
      const [got] = await gradeGolden(grader, "f", ref, [s]);
      expect(got, JSON.stringify(s)).toMatch(truth ? OK_PASS : OK_FAIL);
      if (!truth) expect(got, JSON.stringify(s)).toMatch(/^invalid\//);
    }
  }, 300_000);
});
