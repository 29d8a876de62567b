/**
 * Round 41: a stranger agent on 4c811a2, ~35 minutes, pointed at the supervisor's TypeScript side.
 * Each test asserts CPython's truth first (a clean Pyodide: the program exec'd, then each line exec'd
 * in its namespace), then that the grader's verdict is exactly that truth. Tests here FAIL on 4c811a2.
 *
 * A. A generated line whose reference RETURNED a value in time, which the grader cannot use (no
 *    literal form: NaN, a frozenset; or past the canonical size bound), is not called by candidates.
 *    SECURITY.md ("Calls of refused lines") says a refused line's call is made "only where the
 *    reference's own call of it returned a value (within half the candidate's limit)", i.e. it skips
 *    lines the reference raised on, timed out on or was not run on. Here the reference returned (fast),
 *    but its step is the harness's own `error` ("output has no literal form", harness `_call` /
 *    `_lit`) or `fail` ("too large", `canonical`), so `candidateLines` sees no "ok" output and
 *    compiles the line only (`inPlace`, `called` false). CPython calls the candidate there; a program
 *    that keeps state (a call log, a memo) answers the next valid line otherwise: a true line fails.
 *    Root cause (a guess): verdicts.ts `candidateLines` takes `called` from the reference STEP being
 *    "ok", which mixes "the reference returned in time" with "the grader could write the value".
 *
 * B. An answer that writes `set()` under a repeated dict key (`{1: set(), 1: set()}`): the number of
 *    `set` loads the runner requires is counted on the CANONICAL answer (verdicts.ts `callOf`:
 *    `emptySets(line[3])`, a dict with its repeated keys merged: one empty set), while the compiled
 *    line loads `set` once per WRITTEN `set()` (two). Harness `_call`'s name check
 *    (`len(loads) != 1 + sets`) then makes every call of the line a MARKED error:
 *    - golden: an honest program gets `valid/error` on a true line, and the rest of the suite is
 *      `error` ("not graded: line 1 left the program in a state CPython would not");
 *    - generated: the reference's own step is that error, so the line is refused and (as in A) no
 *      candidate makes the call CPython makes: a program that keeps state fails a later true line.
 *    Root cause (a guess): `emptySets` counts the canonical answer, not the line as written (the
 *    arguments travel as written since round 38, the answer does not).
 *
 * Fixed: A, verdicts.ts `returned`: a reference step that returned a value the harness cannot write
 * (no literal form, too large, not builtin) counts as returned, so candidates make the call. B, the
 * judge refuses a line whose answer writes more `set()` than its value holds (harness `_parse_line`,
 * `_empty_sets`); the line is opaque (it calls `set`), so the rest of the suite is refused: B wants
 * CPython's pass or a refusal, never an error or a fail.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne } from "./grade-lines.ts";

/** An honest program's true line: CPython's pass or a refusal, never an error or a fail. */
const PASS_OR_REFUSED = /^valid\/pass$|^invalid\//;

const { suiteTruth } = cleanPython();
const grader = sharedNodeGrader();

describe("A. a reference that returned a value the grader cannot write: candidates skip the call CPython makes", () => {
  it("A1. NaN output (no literal form): a program keeping a call log fails the next true line", async () => {
    const ref = "def f(s):\n    return float(s)";
    const prog = "seen = []\ndef f(s):\n    seen.append(s)\n    return float(len(seen))";
    const lines = ["assert f('nan') == 0.0", "assert f('2.0') == 2.0"];
    expect(suiteTruth(ref, lines)).toEqual([false, true]);
    expect(suiteTruth(prog, lines)).toEqual([false, true]);
    const got = await gradeOne(grader, "f", ref, lines, prog);
    expect(got[1], got.join(" | ")).toBe("valid/pass");
  }, 300_000);

  it("A2. frozenset output (no literal form): the same", async () => {
    const ref = "def f(xs):\n    return frozenset(xs) if len(xs) == 3 else len(xs)";
    const prog = "seen = []\ndef f(xs):\n    seen.append(xs)\n    return frozenset(xs) if len(xs) == 3 else len(seen)";
    const lines = ["assert f([1, 2, 3]) == 0", "assert f([5, 6]) == 2"];
    expect(suiteTruth(ref, lines)).toEqual([false, true]);
    expect(suiteTruth(prog, lines)).toEqual([false, true]);
    const got = await gradeOne(grader, "f", ref, lines, prog);
    expect(got[1], got.join(" | ")).toBe("valid/pass");
  }, 300_000);

  it("A3. an output past the canonical size bound (30,000 items): the same", async () => {
    const ref = "def f(n):\n    return list(range(n))";
    const prog = "seen = []\ndef f(n):\n    seen.append(n)\n    return list(range(n)) if n > 10 else list(range(len(seen)))";
    const lines = ["assert f(30000) == []", "assert f(2) == [0, 1]"];
    expect(suiteTruth(ref, lines)).toEqual([false, true]);
    expect(suiteTruth(prog, lines)).toEqual([false, true]);
    const got = await gradeOne(grader, "f", ref, lines, prog);
    // The candidate's own call returns past the size bound too: a value not read in full leaves the
    // rest of its suite ungraded (rule 6's mark, by design), an error, never the forged fail of before.
    expect(got[1], got.join(" | ")).toMatch(/^valid\/pass$|^invalid\/|^valid\/error$/);
  }, 300_000);
});

describe("B. `set()` under a repeated dict key in the answer: the set() count is the canonical answer's, not the line's", () => {
  it("B1. golden: an honest program gets error on a true line, and on the rest of its suite", async () => {
    const prog = "def f(n):\n    return {n: set()}";
    const lines = ["assert f(1) == {1: set(), 1: set()}", "assert f(2) == {2: set()}"];
    expect(suiteTruth(prog, lines)).toEqual([true, true]);
    const got = await gradeGolden(grader, "f", prog, lines, prog);
    // CPython's pass, or a refusal (since the fix: the line is refused, and opaque: it calls set()).
    for (const g of got) expect(g, got.join(" | ")).toMatch(PASS_OR_REFUSED);
  }, 300_000);

  it("B2. generated: the reference's step errors, the line is refused, and no candidate makes its call", async () => {
    const ref = "def f(n):\n    return {n: set()}";
    const prog = "seen = []\ndef f(n):\n    seen.append(n)\n    return {len(seen): set()}";
    const lines = ["assert f(1) == {1: set(), 1: set()}", "assert f(2) == {2: set()}"];
    expect(suiteTruth(ref, lines)).toEqual([true, true]);
    expect(suiteTruth(prog, lines)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", ref, lines, prog);
    expect(got[1], got.join(" | ")).toMatch(PASS_OR_REFUSED);
  }, 300_000);
});
