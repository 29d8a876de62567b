/**
 * Round 55 (issue 27): the judge's per-suite reference units, the memory restore after a unit that
 * kept a large heap (runner.js `restore`, the unit flag `more`), the warm spare.
 * Truth is a clean Pyodide (clean-python.ts): the program exec'd, then ONE suite's lines in its
 * namespace, as CPython runs each suite in a process of its own.
 *
 * Class A (found on the round's base; fixed): the restore of a heap a program kept across its own
 * suites (`more`) was charged to the program's NEXT suite. runner.js `handle` emitted `done` and only
 * then restored (zero-filled every byte past the snapshot), while the host (supervisor.ts
 * `RunnerSlot.unit`) had already sent the next unit and armed its load's kill timer (load_ms +
 * max(200, load_ms)) at send time. A program can grow the wasm heap by ~3.8 GiB WITHOUT touching
 * it, in a millisecond: `bytearray().extend(it)` mallocs `it.__length_hint__()` bytes up front
 * (PyByteArray_FromStringAndSize(NULL, n): no memset) and an iterator that ends at once frees them
 * (nesting two keeps both alive, so the heap grows to ~3.8 GiB). The restore's fill then touched
 * every one of those pages for the first time (page faults: 18 s for 4 GiB on this VM, seconds
 * on any machine), so the next suite's load was killed before the runner even read it: a program
 * whose suite 1 takes 1 ms was `timeout` on every later suite (another Test rollout's, the golden
 * suite), where a clean CPython passes them at once. The same held for the unit after ANY unit's
 * restore: another candidate's load (bounded there by the 64 MiB growth rule, once per runner).
 * Fix: the runner restores before its `done`, and the host times that as the unit's own (one
 * call's time after its last step); past it the runner is killed with no step in flight, the
 * program's one runner start: its verdicts so far stand, its later suites are `error` (not run),
 * never a verdict carried over from an earlier suite (A2).
 * What held (passing tests below): an honest candidate after such a program passes (the kept heap
 * never reaches the next candidate: every way out of a candidate's loop is a unit whose `more` is
 * false, whose heap check retires the runner without a restore), with the same sandbox starts.
 * By reading: the judge's reference units pass no `more` (any heap past 64 MiB of growth retires
 * the judge before its next unit, so no reference's restore is charged to another suite or task);
 * a reference's reload collects the last call's garbage under the reload's own limit (its own
 * suite's next line only); a reference whose load fails in a later suite's unit invalidates its
 * own task's lines only (supervisor.ts `load` is per task).
 * Not reached: the warm spare's start (it boots beside the next candidate's unit after a kill, on
 * the same cores: wall-clock dependent), the judge's reload time as the next line's (same suite).
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { GROW_UNTOUCHED_HEAD, OK_FAIL, OK_PASS, show } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();
const REF = "def f(x):\n    return x + 1";
const HONEST = REF;
const SUITES = [["assert f(1) == 2"], ["assert f(3) == 4", "assert f(4) == 5"]];
const GOLDEN = ["assert f(5) == 6"];
/**
 * Grows the heap by ~3.8 GiB in f(1), touching none of it: bytearray.extend allocates the iterator's
 * length hint up front (no memset), and the nested extend holds the first buffer while it allocates
 * the second. Every call takes a millisecond or so.
 */
const UNTOUCHED = [...GROW_UNTOUCHED_HEAD, "    return x + 1"].join("\n");
/** load_ms: far above an honest module body's load (a fresh runner's first one too); the host kills a load at 2 x load_ms. */
const LIMITS = { test_ms: 1000, load_ms: 250, max_lines: 8 };

/** Each program graded with SUITES and GOLDEN (in one batch): per program, per suite, per line. */
async function gradeSuites(programs: string[]): Promise<string[][][]> {
  const codes = programs.map((code) => ({ task: "t", code }));
  const r = await grader.grade({
    tasks: [{ id: "t", entry_point: "f", reference: REF }],
    codes,
    suites: codes.flatMap((_, c) => SUITES.map((lines) => ({ code: c, text: lines.join("\n") }))),
    golden: codes.map((_, c) => ({ code: c, text: GOLDEN.join("\n") })),
    limits: LIMITS,
  });
  const fmt = (l: { validity: string; verdict: string; reason: string }) => show(l) + (l.verdict === "pass" ? "" : ` (${l.reason})`);
  return programs.map((_, c) => [...r.suites.slice(c * SUITES.length, (c + 1) * SUITES.length), r.golden[c]].map((s) => s.map(fmt)));
}
const ALL_PASS = [...SUITES, GOLDEN].map((lines) => lines.map(() => "valid/pass"));

describe("A: a kept heap's restore is charged to the program's next suite", () => {
  // Fixed: the runner restores before a unit's `done`, timed by the host as that unit's (one call's
  // time); a restore past it kills the runner with no step in flight (the program's one start).
  it("A1: a program that grows (and never touches) ~3.8 GiB in suite 1 passes its later suites, as in CPython", async () => {
    // CPython: each suite in a process of its own; f(1) allocates and frees in a millisecond.
    for (const lines of [...SUITES, GOLDEN]) expect(suiteTruth(UNTOUCHED, lines)).toEqual(lines.map(() => true));
    expect((await gradeSuites([HONEST]))[0]).toEqual(ALL_PASS); // a live sandbox before counting
    const spawns = grader.spawns;
    const [got, honest] = await gradeSuites([UNTOUCHED, HONEST]);
    // The next candidate is untouched by it (held).
    expect(honest).toEqual(ALL_PASS);
    // Round 55 base (test_ms 5000): [["valid/pass"], ["valid/timeout (not run: an earlier call exceeded 5000 ms)", ...],
    // ["valid/timeout (...)"]]: suite 2's load killed at 500 ms while the runner zero-filled the kept
    // heap's untouched pages; the golden suite is not run.
    // CPython passes every line; a refusal (`invalid`, a marked `error`) is accepted, a `timeout` is not.
    for (const line of got.flat()) expect(line.replace(/ \(.*$/s, ""), JSON.stringify(got)).toMatch(OK_PASS);
    // One retirement at its last unit (round 54's rule), no kill besides.
    expect(grader.spawns - spawns).toBeLessThanOrEqual(1);
  }, 300_000);

  it("A2: its later suites are never answered by an earlier suite's verdicts: a wrong later answer is not a pass", async () => {
    // f(1) grows the heap as UNTOUCHED's does; every other answer is wrong (CPython: suite 1 passes, the rest fail).
    const wrong = UNTOUCHED.replace("    return x + 1", "    return x + 1 if x == 1 else x");
    expect(suiteTruth(wrong, SUITES[0])).toEqual([true]);
    for (const lines of [SUITES[1], GOLDEN]) expect(suiteTruth(wrong, lines)).toEqual(lines.map(() => false));
    const [got, honest] = await gradeSuites([wrong, HONEST]);
    expect(honest).toEqual(ALL_PASS);
    expect(got[0]).toEqual(["valid/pass"]);
    for (const line of [...got[1], ...got[2]]) expect(line.replace(/ \(.*$/s, ""), JSON.stringify(got)).toMatch(OK_FAIL);
  }, 300_000);
});

