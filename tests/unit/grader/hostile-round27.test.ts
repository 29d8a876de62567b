/**
 * Round 27 (issue 27): a stranger agent on 89ef46f. Each test asserts CPython's truth first (a clean
 * Pyodide: the program exec'd, then each line exec'd in its namespace), then that the grader's
 * verdict is that truth or a refusal; each fails on 89ef46f. Fixed: A (first by lowering the
 * recursion limit, which round 28 found a program reads; since then load and call run the program as
 * deep as a clean Pyodide's runner does: harness.py CALL_DEPTH; `error` for a program and `invalid`
 * for a reference where the call raises RecursionError)
 * and C (the program compiles as "<string>"). Open, kept as `it.fails` (docs/SECURITY.md, Not
 * guaranteed): B (the harness has no way to stop pending collector work without a call, and a call
 * checks the eval breaker).
 * A. The entry point is called at another stack depth than `exec(line, ns)` calls it. CPython runs a
 *    test line as a module frame of its own (the line's code) under exec's caller, so at least two
 *    Python frames (the caller's and the line's) sit under the program's first frame, and every
 *    frame counts against the recursion limit (1000; the harness refuses to raise it). The harness
 *    calls the entry point straight from its `call` frame (harness.py `call`: `value = fn(*args)`; the
 *    line's compiled code is never run), one frame in all, the JavaScript host beneath it holding
 *    none. So a recursive program (or a recursive reference) gets at least one frame more than under
 *    any CPython that execs the line: `def f(n): return 0 if n == 0 else 1 + f(n - 1)` returns for
 *    f(998) when graded and raises RecursionError in CPython (a clean Pyodide's runPython: f(995) is
 *    the last that holds; a native `python3` script that execs the line: f(997)). No introspection is
 *    needed: plain recursion, the commonest shape of a correct program and of a hand-written
 *    reference, and a Test policy picks the argument. A line CPython fails is `valid/pass` for a
 *    recursive program; a line false for a recursive reference in CPython is `valid`, and a
 *    `wrong-answer` line on it is corrected to a line CPython calls false (the Mistake Book keeps it).
 * B. The harness runs Python bytecode between the call's return and the reading of its value, where
 *    CPython's line runs none that checks the eval breaker. After `f(...)` returns, CPython's line
 *    only builds the answer (LOAD_CONST, BUILD_LIST) and compares (COMPARE_OP): no instruction there
 *    runs what the interpreter has pending (a collection the last allocations scheduled, with its
 *    `gc.callbacks` and the finalizers of cyclic garbage; a pending signal handler), so it runs after
 *    the comparison. The harness's `call` goes on to `canonical(value)`, a Python function whose
 *    RESUME checks the breaker: the program's collector callback (or a `__del__` of its garbage) runs
 *    BEFORE the value is read, and may change it (`out.append(...)` on the list it returned). So a
 *    program whose value is right when CPython compares fails, and one whose value is wrong passes,
 *    with no introspection and no harness object: rule 0's "the harness itself runs no program code
 *    CPython would not" (round 20 closed the same gap for a `__del__` of the arguments, not for code
 *    the breaker runs). harness.py `call`: `text = canonical(value)` (and `_set_rebound`, `_lit`) run
 *    as Python after `fn(*args)`.
 * C. The program is compiled under another filename than exec gives it. `exec(program, ns)` compiles
 *    the text as "<string>"; harness `load` compiles it as "<candidate>" (`compile(tree, "<candidate>",
 *    "exec")`), so its functions' `co_filename`, its tracebacks' frames (and whatever formats them,
 *    `traceback`, a warning's filename) read otherwise when graded. Round 21 fixed the same for a
 *    line's compile ("<test>"), not for the program's own.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne, OK_FAIL, OK_PASS } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();

// Plain recursion: f(n) holds n + 1 frames of its own.
const RECURSIVE = "def f(n):\n    return 0 if n == 0 else 1 + f(n - 1)";
const ITERATIVE = "def f(n):\n    return n";

describe("A. the entry point is called one frame from the harness, not from the line's frame under exec's caller", () => {
  it("a recursive program passes a line CPython fails with RecursionError", async () => {
    const lines = ["assert f(998) == 998"];
    expect(suiteTruth(RECURSIVE, lines)).toEqual([false]);
    expect(suiteTruth(ITERATIVE, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", ITERATIVE, lines, RECURSIVE);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("a recursive reference: a line CPython fails on the reference itself is valid", async () => {
    const lines = ["assert f(998) == 998"];
    expect(suiteTruth(RECURSIVE, lines)).toEqual([false]);
    const got = await gradeOne(grader, "f", RECURSIVE, lines, ITERATIVE);
    expect(got[0], got.join(" | ")).not.toMatch(/^valid\//);
  }, 300_000);
  it("a recursive reference: a wrong-answer line is corrected to a line CPython calls false", async () => {
    const lines = ["assert f(998) == 0"];
    const r = await grader.grade({
      tasks: [{ id: "t", entry_point: "f", reference: RECURSIVE }],
      codes: [{ task: "t", code: ITERATIVE }],
      suites: [{ code: 0, text: lines.join("\n") }],
      limits: { test_ms: 1000, max_lines: 8 },
    });
    const corrected = r.suites[0][0].corrected;
    if (corrected !== undefined) expect(suiteTruth(RECURSIVE, [corrected]), corrected).toEqual([true]);
  }, 300_000);
  it("golden: a recursive program passes a line CPython fails", async () => {
    const lines = ["assert f(998) == 998"];
    expect(suiteTruth(RECURSIVE, lines)).toEqual([false]);
    const got = await gradeGolden(grader, "f", ITERATIVE, lines, RECURSIVE);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
});

// The program's collector callback appends to the list f returned, once, at the first collection after
// f armed it; f's last allocations (a display of 60 lists: no breaker check among them) schedule one.
const GC_PROGRAM = (body: string) =>
  "import collections\n_gc = collections._sys.modules['gc']\nout = []\narmed = []\n" +
  "def _cb(phase, info):\n    if armed and phase == 'stop':\n        armed.clear()\n        out.append('late')\n" +
  "_gc.callbacks.append(_cb)\n_gc.set_threshold(10)\n" +
  "def f(x):\n" + body + "    armed.append(1)\n    return (out" + ", []".repeat(60) + ")[0]";
const GC_RIGHT = GC_PROGRAM("    out.clear()\n    out.append(x)\n");
const REF_LIST = "def f(x):\n    return [x]";
describe("B. pending collector work (gc callbacks, finalizers of garbage) runs in the harness before the value is read", () => {
  it.fails("a program whose value is right when CPython compares fails", async () => {
    const lines = ["assert f(1) == [1]", "assert f(2) == [2]"];
    expect(suiteTruth(GC_RIGHT, lines)).toEqual([true, true]);
    expect(suiteTruth(REF_LIST, lines)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", REF_LIST, lines, GC_RIGHT);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it.fails("a program whose value is wrong when CPython compares passes", async () => {
    const ref = "def f(x):\n    return [x, 'late']";
    const lines = ["assert f(1) == [1, 'late']"];
    expect(suiteTruth(GC_RIGHT, lines)).toEqual([false]);
    expect(suiteTruth(ref, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", ref, lines, GC_RIGHT);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it.fails("golden: a program whose value is right when CPython compares fails", async () => {
    const lines = ["assert f(1) == [1]"];
    expect(suiteTruth(GC_RIGHT, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", REF_LIST, lines, GC_RIGHT);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});

const FILENAME = "def f(x):\n    return f.__code__.co_filename";
const FILENAME_TB = "def f(x):\n    try:\n        1 / x\n    except ZeroDivisionError as e:\n        return e.__traceback__.tb_frame.f_code.co_filename";
describe("C. the program is compiled as <candidate>, where exec(program, ns) compiles it as <string>", () => {
  it("a program that reads its own code's filename", async () => {
    const ref = "def f(x):\n    return '<string>'";
    const lines = ["assert f(0) == '<string>'"];
    expect(suiteTruth(FILENAME, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", ref, lines, FILENAME);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("a program that reads the filename of its exception's traceback", async () => {
    const ref = "def f(x):\n    return '<string>'";
    const lines = ["assert f(0) == '<string>'"];
    expect(suiteTruth(FILENAME_TB, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", ref, lines, FILENAME_TB);
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});
