/**
 * Round 48 (issue 27): the browser's import of untrusted task files (docs/TASKS.md "Bring your own
 * tasks", docs/SECURITY.md "Imported tasks in the browser"), with real Pyodide: the references run
 * through the Node grader's sandbox (`sandboxRuntime`), the parsing in a trusted Pyodide as the
 * browser's `tools` worker does. The truth is a fresh clean Pyodide (`freshTruth`).
 *
 * Found: one class, two shapes. The import decides two of its checks INSIDE the reference's own
 * interpreter, with names the reference's module can rebind, and then stores code that never had
 * those statements:
 *
 * A. A forged golden pass. The probe's wrapper (`probeModule`, arenise-sandbox.ts) answers
 *    `bool(expected is not None and v == expected)` for each golden input; `bool` is looked up in the
 *    module's globals, which the ORIGINAL reference's module-level statements share. A record whose
 *    code starts with `bool = lambda v: True` (a statement the entry point does not use, so
 *    `normalise` drops it: "line 1: unused module-level statement dropped") gets every golden test
 *    "passed". Step 5 (meaning preserved) compares the renamed reference with the original's REPR
 *    (honest), never with the test's expected value, so nothing else notices. Result: a task imported
 *    as "trainable" whose stored reference fails its own stored golden tests in CPython
 *    (`assert f('hello') == 7` for a vowel counter), i.e. golden tests that reward a wrong program and
 *    fail a correct one; `npm run tasks -- check` invariant 1 does not hold for the imported file.
 * B. A forged return type. The same wrapper's `_a1_ty` reads `type(v) is int` etc. with the module's
 *    `type`; `type = lambda v: int` at module level makes every answer an `int`. A reference that
 *    returns `'many'` (a str) on every drawn input of length 4 or more is imported as a trainable
 *    `returns: int` task (alone, without the statement, it is refused: "type: the reference returns
 *    str ... not int"); its plus tests then read `assert f('hello') == 'many'` for an int task.
 *
 * Root cause: the golden check and the type check trust values computed by wrapper code that runs in
 * the reference's namespace after the reference's own module code (round 4's control showed the
 * wrapper's names are rebindable, but the import's test only forged `repr` with `bool`, which the
 * meaning check then refuses; `bool` or `type` alone gets through). Fix direction: decide the golden
 * pass and the type on the supervisor's side from the canonical value (or bind the wrapper's
 * builtins before the reference loads), or refuse a reference whose dropped module-level statements
 * bind a name at all.
 *
 * Tried that held: the parser (`normalise`, `variants`) never running the text (decorators, defaults,
 * module-level code leave no mark on the tools Pyodide); a module-level statement whose names the
 * entry point uses (refused by name); a forged `repr` (the meaning check refuses it); a float-
 * returning reference with a forged `type` (`/` is refused by `normalise` before any run); the
 * builtins module's poison (the harness has its own builtins; the next task gets its solo report).
 * Not pursued (trusted by design): the command line's `pythonRuntime`, where the references run
 * unsandboxed in the user's own shared Pyodide (`abs.__self__.type = ...` there would also reach the
 * next task's probe and arenise.py's own runs).
 *
 * Fixed: the probe module execs the reference in a namespace of its own with a builtins dict of its
 * own (arenise-sandbox.ts `probeModule`, as the CLI's `probeOriginal` runs it in a namespace of its
 * own); the preconditions, the reference's guards, are evaluated there; the wrapper's golden, type and
 * repr checks read the module's names, which the reference no longer binds. arenise-hostile.test.ts's
 * forge case, which asserted the forged answers reached the import, now asserts they do not.
 */
import { loadPyodide, type PyodideInterface } from "pyodide";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importArenaTasks, pythonRuntime, type AreniseResult } from "../../../../src/core/arena/importers/arenise.ts";
import { sandboxRuntime, type AreniseTools } from "../../../../src/core/arena/importers/arenise-sandbox.ts";
import { createRoundTrip } from "../../../../src/core/arena/task-round-trip.ts";
import type { SupervisedGrader } from "../../../../src/core/grader/supervisor.ts";
import { createNodeGrader } from "../../../../src/node/grader.ts";
import { areniseSource, mutateSource } from "../../../../src/node/python-runner.ts";
import { freshTruth } from "../../grader/clean-python.ts";

const jsonl = (...recs: unknown[]) => recs.map((r) => JSON.stringify(r)).join("\n") + "\n";

const body = "def count_vowels(string):\n    count = 0\n    for ch in string:\n        if ch in 'aeiouAEIOU':\n            count += 1\n    return count";
/** A: honest code, golden tests that are false for it ('hello' has 2 vowels, 'sky' none). */
const wrongGolden = ["assert count_vowels('hello') == 7", "assert count_vowels('sky') == 3", "assert count_vowels('AEIOU') == 5"];
const forgedGold = { task_id: 1, text: "Count the vowels in a string.", code: `bool = lambda v: True\n${body}`, test_list: wrongGolden };
const plainGold = { task_id: 2, text: "Count the vowels in a string.", code: body, test_list: wrongGolden };
/** B: an "int" task whose reference answers a str on every input of 4 or more characters. */
const strBody = body.replace("return count", "return count if len(string) < 4 else 'many'");
const shortTests = ["assert count_vowels('sky') == 0", "assert count_vowels('aei') == 3", "assert count_vowels('ab') == 1"];
const forgedType = { task_id: 3, text: "Count the vowels in a string.", code: `type = lambda v: int\n${strBody}`, test_list: shortTests };
const plainType = { task_id: 4, text: "Count the vowels in a string.", code: strBody, test_list: shortTests };

/** The parsing like the browser's tools worker: one trusted Pyodide. */
function ownTools(): AreniseTools {
  let live: Promise<PyodideInterface> | null = null;
  const run = async (src: string) => {
    const p = await (live ??= loadPyodide());
    try {
      return p.runPython(src, { globals: p.globals.get("dict")() }) as string;
    } catch (e) {
      live = null;
      throw e;
    }
  };
  const rt = pythonRuntime(run, areniseSource(), mutateSource());
  return { normalise: rt.normalise, variants: rt.variants };
}

describe("round 48: the import's golden and type checks run on names the reference rebinds", () => {
  let grader: SupervisedGrader;
  let result: AreniseResult;
  const byId = (id: string) => ({ report: result.report.find((r) => r.id === id)!, task: result.file.tasks.find((t) => t.id === id) });
  beforeAll(async () => {
    grader = await createNodeGrader();
    const deps = { grader, roundTrip: createRoundTrip(), runtime: sandboxRuntime(grader, ownTools(), { callMs: 500 }) };
    result = await importArenaTasks(jsonl(forgedGold, plainGold, forgedType, plainType), "mbpp", deps);
  }, 300_000);
  afterAll(() => grader?.close());

  it("A: a module-level `bool = lambda v: True` imports a task whose reference fails its own golden tests", async () => {
    // Truth: the honest vowel counter fails the first two tests in CPython.
    expect(await freshTruth(body, wrongGolden)).toEqual([false, false, true]);
    // Control: the same record without the statement is refused for it.
    expect(byId("mbpp-2").report.status).toBe("refused");
    expect(byId("mbpp-2").report.reason).toMatch(/the reference fails test 1/);
    // The app: every task it imports as trainable must have a reference that passes its golden tests.
    const { report, task } = byId("mbpp-1");
    if (report.status === "trainable") {
      expect(task, "a trainable task is in the file").toBeDefined();
      const truth = await freshTruth(task!.reference, task!.golden_tests);
      expect(truth, `stored golden tests ${JSON.stringify(task!.golden_tests)} of a trainable task`).toEqual(task!.golden_tests.map(() => true));
    }
    expect(report.status).toBe("refused"); // fails now: "trainable", golden tests f('hello') == 7, f('sky') == 3
  }, 120_000);

  it("B: a module-level `type = lambda v: int` imports an int task whose reference returns str", async () => {
    // Truth: the reference returns a str on a 5-character input; the task's golden tests hold.
    expect(await freshTruth(strBody, ["assert type(count_vowels('hello')) is str", ...shortTests])).toEqual([true, true, true, true]);
    // Control: without the statement the import sees the str and refuses the task.
    expect(byId("mbpp-4").report.status).toBe("refused");
    expect(byId("mbpp-4").report.reason).toMatch(/type: the reference returns str/);
    // The app: a trainable task's reference returns its declared type on its inputs in CPython.
    const { report, task } = byId("mbpp-3");
    if (report.status === "trainable") {
      expect(task!.returns).toBe("int");
      expect(await freshTruth(task!.reference, ["assert type(f('hello')) is int"]), "type(f('hello')) is int for a returns:int task").toEqual([true]);
    }
    expect(report.status).toBe("refused"); // fails now: "trainable", returns int, f('hello') == 'many'
  }, 120_000);
});
