/**
 * Round 12 of issue 27 (an attack on 2d90632's run-time-compiler refusal and e806ef6's held judge).
 * Each test FAILS on the grader as it is. Truth is a clean Pyodide (the grader's CPython 3.14, hash
 * seed 0 as the runners): a line's validity is what the reference ALONE answers (the reference
 * exec'd, then that line); a candidate's verdict is its suite run after the program.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";

const grader = sharedNodeGrader();
const { holds } = cleanPython();

// A trusted reference that applies named methods in order ("apply these operations to a value"):
// it names no eval/exec/compile/__import__/breakpoint, so the judge loads it. Its arguments, the
// method names, come from test lines (untrusted).
const APPLY = "def apply_ops(value, ops):\n    for name, args in ops:\n        value = getattr(value, name)(*args)\n    return value";

// A line whose method names walk from a str to the judge harness's own globals (copyreg's builtins,
// the guarded __import__'s `frame` = sys._getframe, the harness `call` frame) and pop `getattr` from
// `_state["builtins"]`, the dict every later reference load copies its builtins from. The judge is
// not restored between a task's reference units (e806ef6), so this outlives the line's own unit.
const POISON = "assert apply_ops('', [('__reduce_ex__', [2]), ('__getitem__', [0]), ('__getattribute__', ['__globals__']), " +
  "('__getitem__', ['__builtins__']), ('__getitem__', ['__import__']), ('__getattribute__', ['__globals__']), ('__getitem__', ['frame']), " +
  "('__call__', [1]), ('__getattribute__', ['f_globals']), ('__getitem__', ['_state']), ('__getitem__', ['builtins']), " +
  "('pop', ['getattr']), ('__getattribute__', ['__name__'])]) == 'getattr'";
// Another candidate's ordinary line: true on the reference alone.
const PLAIN = "assert apply_ops('ab', [('upper', [])]) == 'AB'";

describe("a test line that walks a getattr-chain reference into the held judge's state", () => {
  it("does not change the reference's answer to another candidate's suite of the task", async () => {
    expect(holds(APPLY, PLAIN)).toBe(true);
    const r = await grader.grade({
      tasks: [{ id: "ops", entry_point: "apply_ops", reference: APPLY }],
      codes: [{ task: "ops", code: APPLY }, { task: "ops", code: APPLY }],
      suites: [{ code: 0, text: POISON }, { code: 1, text: PLAIN }],
      limits: { test_ms: 1000 },
    });
    const judged = r.suites[1][0];
    expect(`${judged.validity}/${judged.verdict}`, `${JSON.stringify(r.suites[0][0])} ${JSON.stringify(judged)}`).toBe("valid/pass");
  }, 300_000);

  // The poison line itself: hostile-round13.test.ts (it now meets no frame and is invalid).
  it("answers the other suite alone as it does after the poison (control)", async () => {
    const r = await grader.grade({
      tasks: [{ id: "ops", entry_point: "apply_ops", reference: APPLY }],
      codes: [{ task: "ops", code: APPLY }],
      suites: [{ code: 0, text: PLAIN }],
      limits: { test_ms: 1000 },
    });
    expect(`${r.suites[0][0].validity}/${r.suites[0][0].verdict}`).toBe("valid/pass");
  }, 300_000);
});
