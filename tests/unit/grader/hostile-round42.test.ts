/**
 * Round 42: a stranger agent on bc029df, ~25 minutes. Each test asserts CPython's truth first, then
 * that the grader's verdict is that truth. Tests here FAIL on bc029df (and on 08764cc, where they were
 * marked `it.fails`).
 *
 * A. Standard input is an I/O ERROR in the grader, an empty stream in CPython. The runner sets
 *    Pyodide's stdin to `{ error: true }` (runner.js `startRunner`: "Standard input reads nothing"),
 *    so every read raises `OSError: [Errno 29] I/O error`. CPython with nothing on its standard input
 *    (`python3 prog.py < /dev/null`, a test harness, a clean Pyodide whose stdin is at EOF) reads
 *    EOF: `input()` raises EOFError and `sys.stdin.read()` returns ''. No audit event is raised and
 *    nothing is refused, so the step is an UNMARKED outcome: the grader grades the program's OSError
 *    path, which CPython never takes (the class rounds 29-32 closed for refusals, here for the
 *    environment). No search for the grader's objects: just the interpreter's standard input.
 *    - A1 `sys.stdin.read()` (sys through `collections._sys`, which SECURITY.md names as reachable) is
 *      '' in CPython: an honest program's true lines are `error` here (unmarked);
 *    - A2 a wrong program (its right answer only on `except OSError`) PASSES lines CPython fails,
 *      golden and generated. (hostile.test.ts "read the runner's standard input" even asserts this
 *      shape as a `pass`.)
 *    `input()` itself is NOT in the class: it raises the audit event `builtins.input`, which the
 *    sandbox refuses and marks (a marked `error`, by design). `sys.stdin.read`/`readline`/`buffer`
 *    raise no event.
 *    Root cause (a guess): runner.js `pyodide.setStdin({ error: true })`; EOF would be
 *    `setStdin({ stdin: () => null })` (or `autoEOF`), which is what "reads nothing" means.
 *    Truth: a clean Pyodide whose stdin is at EOF (`stdin: () => null`), as native CPython
 *    (`python3 < /dev/null`: EOFError, '') also answers.
 *    Found at the end of a session and left open (`it.fails`); fixed the next: the runner's stdin is at
 *    EOF (`setStdin({ stdin: () => null })`), and hostile.test.ts's "read the runner's standard input"
 *    now asserts the EOF reading.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne } from "./grade-lines.ts";

const grader = sharedNodeGrader();
/** A clean Pyodide with nothing on its standard input (EOF), as `python3 < /dev/null`. */
const { suiteTruth } = cleanPython();

const REF = "def f(x):\n    return x";

describe("A. standard input raises OSError where CPython reads EOF (unmarked: the program's OSError path is graded)", () => {
  it("A1. sys.stdin.read() is '' in CPython; in the grader it raised: an honest program's true lines are errors", async () => {
    const prog = "import collections\ndef f(x):\n    return x + len(collections._sys.stdin.read())";
    const lines = ["assert f(4) == 4", "assert f(5) == 5"];
    expect(suiteTruth(prog, lines)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", REF, lines, prog);
    expect(got, got.join(" | ")).toEqual(["valid/pass", "valid/pass"]); // before the fix: valid/error, valid/error ("raised OSError: [Errno 29] I/O error")
  }, 300_000);

  it("A2. a wrong program (right only where reading stdin raises OSError) passes lines CPython fails", async () => {
    const prog = "import collections\ndef f(x):\n    try:\n        collections._sys.stdin.readline()\n    except OSError:\n        return x\n    return -1";
    const lines = ["assert f(3) == 3", "assert f(7) == 7"];
    expect(suiteTruth(prog, lines)).toEqual([false, false]);
    const wrong = /^valid\/fail$|^invalid\/|^valid\/error$/;
    const golden = await gradeGolden(grader, "f", REF, lines, prog);
    const generated = await gradeOne(grader, "f", REF, lines, prog);
    for (const v of [...golden, ...generated]) expect(v, `golden ${golden.join(" | ")}; generated ${generated.join(" | ")}`).toMatch(wrong); // before the fix: valid/pass x 4
  }, 300_000);
});
