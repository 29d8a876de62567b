/**
 * Round 40: a stranger agent on 1045334, ~35 minutes. Each test asserts CPython's truth first (a clean
 * Pyodide: the program exec'd, then each line exec'd in its namespace), then that the grader's verdict
 * is exactly that truth (`valid/pass` where the line holds: OK_PASS would also take a refusal or an
 * `error`, which an honest program does not earn). Tests here FAIL on 1045334.
 *
 * A. A builtin entry point that reads its CALLER's locals sees the harness's locals dict.
 *    CPython's `exec(line, ns)` runs the line with ns as its globals AND its locals. Since round 39 the
 *    grader runs `r = f(*a)` (harness `_LINE_CALL`) with ns as globals but a locals dict of its own,
 *    `{"f": fn, "a": args}` (harness `_call`'s `line_locals`). A program whose entry point IS a builtin
 *    that works on the calling frame's locals (`calc = eval`, `run = exec`, `f = dir`; no import, no
 *    frame, no introspection, no audit event beyond `exec`/`compile`, which the sandbox allows) is
 *    called directly from that frame, so it reads and writes the harness's dict, not the program's
 *    namespace:
 *    - `eval('a * b')` finds the harness's `a` (the argument tuple) before the program's global `a`:
 *      a correct calculator fails (A1), and `eval('len(a)')`, a NameError in CPython, answers 1: a
 *      line CPython calls false passes (A2);
 *    - `exec('total = 5')` binds `total` in the throw-away dict, so the next line's
 *      `exec('assert total == 5')` raises NameError: a true line is `error` (A3);
 *    - `dir()` answers `['a', 'f']`, not the program's names `['__builtins__', 'f']`: a golden line
 *      fails (A4), and a reference that is `f = dir` is judged against the grader's answer: a true
 *      line is refused as wrong-answer and corrected to a line CPython calls false (A5).
 *    Not the round-21 class (a program that walks `sys._getframe(1)` on purpose): nothing here looks
 *    for the grader; the builtins read the frame as CPython defines them to.
 *    Root cause (a guess): harness `_call` execs `_LINE_CALL` with `line_locals` as the frame's locals;
 *    exec(line, ns) has ns there. (A fix must keep `f`, `a`, `r` out of the program's namespace, e.g.
 *    a code object whose names are constants, or refuse/mark entry points that are not Python
 *    functions or classes.)
 *    Fixed: `_LINE_CALL` is eval-mode '<string>' code `BOX[0](*BOX[1])` whose BOX is a constant (harness
 *    `_boxed_call`), eval'd with the program's namespace as globals and locals: the callee and the
 *    arguments come from no namespace, and what the entry point reads or binds is the program's.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne } from "./grade-lines.ts";

const { suiteTruth } = cleanPython();
const grader = sharedNodeGrader();

describe("A. a builtin entry point reads the harness's locals dict, not the program's namespace (harness `_call`, `_LINE_CALL`)", () => {
  it("A1. golden: `calc = eval` with globals a, b: CPython answers 42, the grader the argument tuple times 7", async () => {
    const prog = "a = 6\nb = 7\ncalc = eval";
    const lines = ["assert calc('a * b') == 42"];
    expect(suiteTruth(prog, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "calc", prog, lines, prog);
    expect(got[0], got.join(" | ")).toBe("valid/pass");
  }, 300_000);

  it("A2. golden: `calc = eval`: `calc('len(a)')` is a NameError in CPython, 1 in the grader (a false line passes)", async () => {
    const prog = "calc = eval";
    const lines = ["assert calc('len(a)') == 1"];
    expect(suiteTruth(prog, lines)).toEqual([false]);
    const got = await gradeGolden(grader, "calc", prog, lines, prog);
    expect(got[0], got.join(" | ")).not.toBe("valid/pass");
  }, 300_000);

  it("A3. golden: `run = exec`: a name one line binds is gone for the next (a true line is an error)", async () => {
    const prog = "run = exec";
    const lines = ["assert run('total = 5') == None", "assert run('assert total == 5') == None"];
    expect(suiteTruth(prog, lines)).toEqual([true, true]);
    const got = await gradeGolden(grader, "run", prog, lines, prog);
    expect(got, got.join(" | ")).toEqual(["valid/pass", "valid/pass"]);
  }, 300_000);

  it("A4. golden: `f = dir`: dir() lists the program's names in CPython, the harness's `a`, `f` in the grader", async () => {
    const prog = "f = dir";
    const lines = ["assert f() == ['__builtins__', 'f']"];
    expect(suiteTruth(prog, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", prog, lines, prog);
    expect(got[0], got.join(" | ")).toBe("valid/pass");
  }, 300_000);

  it("A5. generated: a reference `f = dir` is run from the harness's frame: a true line is judged wrong-answer", async () => {
    const ref = "f = dir";
    const lines = ["assert f() == ['__builtins__', 'f']"];
    expect(suiteTruth(ref, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", ref, lines, ref);
    expect(got[0], got.join(" | ")).toBe("valid/pass");
  }, 300_000);
});
