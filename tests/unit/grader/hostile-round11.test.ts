/**
 * Round 11 of issue 27 (an attack on e806ef6's held judge, d96088a's interned answers and 565b815's
 * per-suite reloads). Each test FAILS on the grader as it is. Truth is a clean Pyodide (the grader's
 * CPython 3.14, hash seed 0 as the runners): a line's validity is what the reference ALONE answers
 * (a fresh interpreter, the reference exec'd, then that line); a candidate's verdict is its suite run
 * after the program in a fresh interpreter.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { freshTruth } from "./clean-python.ts";

const grader = sharedNodeGrader();


// A reference that reads a Python literal (round 10's own: a trusted reference, untrusted arguments).
const ELEMENTS = "def elements(text):\n    return list(eval(text))";
// A test line (valid: the reference answers []) whose argument, compiled by the reference's eval,
// binds three names: CPython interns a code object's NAMES for good (immortal), unlike its constants.
const INTERN_LINE = 'assert elements("[zebra for zebra in ()] + [quokka for quokka in ()] + [platypus for platypus in ()]") == []';
// A line whose answer holds none of those strs (so nothing interns them first), and whose argument,
// compiled by the eval, folds a set display of them: CPython rebuilds the folded frozenset (another
// iteration order) when equal strs were interned before. On a fresh interpreter: ['p', 'z', 'q'].
const SET_LINE = "assert elements(\"[w[0] for w in {'zebra', 'quokka', 'platypus'}]\") == ['p', 'z', 'q']";

/*
 * e806ef6: a task's reference units after the first continue from the interpreter the first left
 * (`hold`/`continues`), so nothing is restored between the task's suites, of ALL its candidates.
 * One candidate's suite (the Test policy's lines for candidate 0) leaves names in the judge's intern
 * table; another candidate's suite of the same task is then answered by a reference whose eval
 * iterates the folded set in the other order: its true line is `wrong-answer`, with a corrected line
 * false on the reference alone (a Mistake Book test no correct program passes).
 */
describe("a test line that interns names in the held judge", () => {
  it("does not change the reference's answer to another candidate's suite of the task", async () => {
    expect(await freshTruth(ELEMENTS, [SET_LINE])).toEqual([true]);
    expect(await freshTruth(ELEMENTS, [INTERN_LINE])).toEqual([true]);
    const r = await grader.grade({
      tasks: [{ id: "lit", entry_point: "elements", reference: ELEMENTS }],
      codes: [{ task: "lit", code: ELEMENTS }, { task: "lit", code: ELEMENTS }],
      suites: [{ code: 0, text: INTERN_LINE }, { code: 1, text: SET_LINE }],
      limits: { test_ms: 1000 },
    });
    const judged = r.suites[1][0];
    if (judged.corrected) expect.soft((await freshTruth(ELEMENTS, [judged.corrected]))[0], `corrected line ${judged.corrected} on the reference alone`).toBe(true);
    // Refused, never forged: a reference that evals its input would run the lines in the judge.
    expect(judged, JSON.stringify(judged)).toMatchObject({ validity: "invalid", verdict: "skipped", reason: expect.stringMatching(/may not compile code at run time/) });
    expect(judged.corrected).toBeUndefined();
  }, 300_000);
});

/*
 * The same through the sandbox (565b815's per-suite reloads): a candidate's suites run in one unit,
 * each on the program freshly loaded, but the interpreter is not: a generated-suite line the Test
 * policy wrote interns the names, and the candidate's GOLDEN line (expected value from the golden
 * answer, not the judge) then fails, while in CPython the golden suite after the program passes.
 */
describe("a test line that interns names in the candidate's unit", () => {
  it("does not change the candidate's verdict on its golden suite", async () => {
    const r = await grader.grade({
      tasks: [{ id: "lit", entry_point: "elements", reference: ELEMENTS }],
      codes: [{ task: "lit", code: ELEMENTS }],
      suites: [{ code: 0, text: INTERN_LINE }],
      golden: [{ code: 0, text: SET_LINE }],
      limits: { test_ms: 1000 },
    });
    expect(r.suites[0][0].verdict).toBe("skipped"); // refused on the reference: never run on the candidate
    expect(await freshTruth(ELEMENTS, [SET_LINE])).toEqual([true]);
    expect(r.golden[0][0].verdict, JSON.stringify(r.golden[0][0])).toBe("pass");
  }, 300_000);
});

/*
 * The blunt form of the held judge: with an eval-ing reference a test line runs code in the judge
 * (audit events allowed: `object.__getattr__`, `sys._getframe`), reaches the harness's namespace
 * through the frame stack and rebinds `list` in `_state["builtins"]`, which every later load of the
 * task copies. Before e806ef6 the judge was restored before each suite, so this reached only the
 * line's own suite (the Test policy's own lines); now it answers every later suite of the task, of
 * every candidate: another candidate's true line is `wrong-answer`, its corrected line false.
 */
describe("a test line that takes over an eval-ing reference", () => {
  it("does not change the reference's answer to another candidate's suite", async () => {
    const SYS = "[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == 'catch_warnings'][0].__init__.__globals__['sys']";
    const payload = `[S._getframe(2).f_globals['_state']['builtins'].__setitem__('list', tuple) for S in [${SYS}]] and []`;
    const POISON = `assert elements(${JSON.stringify(payload)}) == []`;
    const VICTIM = 'assert elements("[1, 2]") == [1, 2]';
    expect(await freshTruth(ELEMENTS, [VICTIM])).toEqual([true]);
    const r = await grader.grade({
      tasks: [{ id: "lit", entry_point: "elements", reference: ELEMENTS }],
      codes: [{ task: "lit", code: ELEMENTS }, { task: "lit", code: ELEMENTS }],
      suites: [{ code: 0, text: POISON }, { code: 1, text: VICTIM }],
      limits: { test_ms: 1000 },
    });
    const judged = r.suites[1][0];
    if (judged.corrected) expect.soft((await freshTruth(ELEMENTS, [judged.corrected]))[0], `corrected line ${judged.corrected} on the reference alone`).toBe(true);
    expect(judged, `${JSON.stringify(r.suites[0][0])} ${JSON.stringify(judged)}`).toMatchObject({ validity: "invalid", verdict: "skipped", reason: expect.stringMatching(/may not compile code at run time/) });
    expect(judged.corrected).toBeUndefined();
  }, 300_000);
});

/*
 * Worse: the task's LAST reference unit is `hold` too, so the judge is not restored after it (before
 * e806ef6 every unit was followed by a restore, "while the host reads the results"). The next plan
 * (runner.js: a `plan` request restores nothing, only the next unit does) parses the next task's lines
 * on the interpreter the taken-over reference left, in this batch or the NEXT one. Here a line of
 * batch 1 rebinds the harness's `_parse_line`, and in batch 2 another task's true line
 * `assert dbl(1) == 2` is planned as a call of dbl(5): `wrong-answer`, corrected to the false
 * `assert dbl(1) == 10` (a Mistake Book test no correct program passes), and the correct candidate fails.
 */
describe("a test line that takes over an eval-ing reference at the end of a batch", () => {
  it("does not change how the next batch's lines are read", async () => {
    const SYS = "[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == 'catch_warnings'][0].__init__.__globals__['sys']";
    const SWAP = "(lambda o: lambda t, e, s=None: (lambda r: (r[0].replace('0x1\\\"', '0x5\\\"'), r[1], r[2], r[3].replace('0x1\\\"', '0x5\\\"')))(o(t, e, s)))";
    const payload = `[G.__setitem__('_parse_line', ${SWAP}(G['_parse_line'])) for G in [S._getframe(2).f_globals for S in [${SYS}]]] and []`;
    const POISON = `assert elements(${JSON.stringify(payload)}) == []`;
    expect(POISON.length).toBeLessThan(2000);
    const first = await grader.grade({
      tasks: [{ id: "lit", entry_point: "elements", reference: ELEMENTS }],
      codes: [{ task: "lit", code: ELEMENTS }],
      suites: [{ code: 0, text: POISON }],
      limits: { test_ms: 1000 },
    });
    expect(first.suites[0][0].validity, JSON.stringify(first.suites[0][0])).toBe("invalid"); // refused: the poison never runs
    const DBL = "def dbl(x):\n    return x * 2";
    const VICTIM = "assert dbl(1) == 2";
    expect(await freshTruth(DBL, [VICTIM])).toEqual([true]);
    const r = await grader.grade({
      tasks: [{ id: "dbl", entry_point: "dbl", reference: DBL }],
      codes: [{ task: "dbl", code: DBL }],
      suites: [{ code: 0, text: VICTIM }],
      limits: { test_ms: 1000 },
    });
    const judged = r.suites[0][0];
    if (judged.corrected) expect.soft((await freshTruth(DBL, [judged.corrected]))[0], `corrected line ${judged.corrected}`).toBe(true);
    expect(`${judged.validity}/${judged.verdict}`, JSON.stringify(judged)).toBe("valid/pass");
  }, 300_000);
});

/*
 * The same hole as a time bomb: the next plan has no step limit (only the supervisor's 60 s answer
 * timer), so a `_parse_line` rebound to loop in C stalls the NEXT batch's first plan for 60 s, then
 * costs a judge kill and a start, charged to no candidate and no reference suite (rule 4: "No line
 * shape restarts the judge").
 */
describe("a test line that leaves the held judge looping for the next plan", () => {
  it("costs the next batch no judge restart and no stall", async () => {
    const SYS = "[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == 'catch_warnings'][0].__init__.__globals__['sys']";
    const payload = `[G.__setitem__('_parse_line', lambda *a: any(iter(int, 1))) for G in [S._getframe(2).f_globals for S in [${SYS}]]] and []`;
    const POISON = `assert elements(${JSON.stringify(payload)}) == []`;
    const first = await grader.grade({
      tasks: [{ id: "lit", entry_point: "elements", reference: ELEMENTS }],
      codes: [{ task: "lit", code: ELEMENTS }],
      suites: [{ code: 0, text: POISON }],
      limits: { test_ms: 1000 },
    });
    expect(first.suites[0][0].validity, JSON.stringify(first.suites[0][0])).toBe("invalid"); // refused: the poison never runs
    const DBL = "def dbl(x):\n    return x * 2";
    const judges = grader.judgeSpawns;
    const t0 = performance.now();
    const r = await grader.grade({
      tasks: [{ id: "dbl", entry_point: "dbl", reference: DBL }],
      codes: [{ task: "dbl", code: DBL }],
      suites: [{ code: 0, text: "assert dbl(1) == 2" }],
      limits: { test_ms: 1000 },
    });
    const ms = performance.now() - t0;
    expect(r.suites[0][0].verdict).toBe("pass");
    expect({ judgeStarts: grader.judgeSpawns - judges, slow: ms > 20_000 }, `${Math.round(ms)} ms`).toEqual({ judgeStarts: 0, slow: false });
  }, 300_000);
});
