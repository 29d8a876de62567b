/**
 * Round 57 (issue 27): round 55's fix (9da13e8: the runner restores its memory before a unit's
 * `done`, and the host, supervisor.ts `RunnerSlot.unit` `complete()`/`arm()`, times that restore as
 * the unit's own: one call's time after its last step; past it the runner is killed with no step in
 * flight and the unit counts as retired), memory (growth touched or not, the `more` flag, the 64 MiB
 * rule), and the judge's units and plans.
 * Truth is a clean Pyodide (clean-python.ts): the program exec'd, then ONE suite's lines in its
 * namespace, as CPython runs each suite in a process of its own.
 *
 * Class A (found on 9da13e8 + d7b2d0a; fixed): a restore past its time in a suite that an
 * INTERRUPTED timeout cut short turns the program's later suites into `timeout`, a verdict carried
 * over from another suite. A program grows the wasm heap by ~3.8 GiB without touching it in suite
 * 1's first line (round 55's `bytearray().extend` of an iterator whose `__length_hint__` is
 * gigabytes), then loops in Python on suite 1's second line, f(2), before its third, f(6)
 * (interrupted: a `timeout` step, which ends only its own suite, round 52's rule; the suite is cut). The unit is `more` (suites follow), so the runner keeps
 * the heap and restores it before `done`; the first touch of the untouched pages takes seconds,
 * past the host's restore timer (test_ms + max(200, test_ms)), which kills the runner with no step
 * in flight (`end(null, true)`: retired, not stopped). supervisor.ts `run`, step 3, then takes the
 * retired-and-cut branch: `run.ended = cut ? steps[steps.length - 1] : ["error", "not run: ..."]`,
 * i.e. the suite's interrupted `timeout` step, and verdicts.ts `judgeCandidate` reads
 * `run.ended[0] === "timeout"` as "an earlier call timed out" for EVERY later suite: suite 2 and the
 * golden suite are `valid/timeout (not run: an earlier call exceeded 1000 ms)`, where a clean
 * CPython passes both (they never call f(2); each suite is a process of its own) and where round
 * 55's own text promises "its later suites `error` (not run), never a verdict carried over". The
 * same branch was reachable before (a suite cut by an interrupted timeout whose unit also left the
 * runner unfit: a loaded library, a file), but with `more` a heap never retired a runner before
 * round 55, so this way in (the restore timer) is new.
 * Root cause: supervisor.ts `run` step 3, `if (retired) { run.ended = cut ? steps[...] : ... }`: a
 * cut suite's step is a `timeout` the runner INTERRUPTED (its own suite's), not a step in flight at a
 * kill; only `stopped` (a kill or crash with a step in flight) means the candidate's later calls
 * timed out. Fix (suggested): in the retired branch, record the cut suite as `timedOut` (as the
 * non-retired branch does: `run.timedOut.add(calls[at].group!)`) and set `run.ended` to the marked
 * `["error", "not run: an earlier suite left the sandbox unfit"]` whatever `cut` is (a failed load
 * keeps its own result: `load[0] !== "ok"` already answered that suite's calls). Fixed so: a
 * retired unit's later suites are `error` (not run) whatever ended it; a cut suite's rest `timeout`.
 *
 * What held: the same program with its loop on suite 1's last line (not a cut:
 * `steps.length - 1 === pending.length`) gets `error` (not run) on its later suites (tried, not kept);
 * the same program without the timeout (round 55's A1, there with test_ms 1000: a test here, dropped
 * as its duplicate) gets `error` (not run) on its later suites, and an honest candidate after either program passes
 * every suite with at most one sandbox start per attacking candidate. Measured (scratch, not
 * committed): the restore's fill of a touched heap costs about what the program's own fill of it
 * costs (1.2 GiB: 83 ms for `bytearray(n)` in a call, 95 ms to restore), so an honest program that
 * touches what it grows cannot pass the one-call restore budget; the untouched first touch is ~5 s
 * per GiB here. By reading and measurement: a judge plan is never checked for heap growth (runner.js
 * `handle`, plan branch), but the largest plan request the supervisor sends (25 lines of 2,000
 * characters, or 207 deep-nested lines) grows the judge's heap by 6 MiB, far under the 64 MiB rule,
 * and the next reference unit's restore of it runs on that unit's load timer in a few ms.
 * Not reached: the judge's restore timer (referenceMs + grace) with a reference that grows the heap
 * untouched by up to 64 MiB from literal arguments (no builtin found that allocates a literal's
 * size without writing it); the warm spare started beside a restore-timer kill.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { GROW_UNTOUCHED_HEAD, OK_PASS } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();
const REF = "def f(x):\n    return x + 1";
const HONEST = REF;
/** Suite 1 has f(2), which the attacking program loops on (an interrupted `timeout`), before its last line: the suite is cut. */
const SUITES = [["assert f(1) == 2", "assert f(2) == 3", "assert f(6) == 7"], ["assert f(3) == 4", "assert f(4) == 5"]];
const GOLDEN = ["assert f(5) == 6"];
/** Round 55's program: f(1) grows the heap by ~3.8 GiB, touching none of it, in a millisecond. */
const GROW = GROW_UNTOUCHED_HEAD;
/** GROW, then f(2) loops in Python (interruptible): CPython never ends that call; every other call returns x + 1. */
const GROW_THEN_LOOP = [...GROW, "    while x == 2:", "        pass", "    return x + 1"].join("\n");
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
  const fmt = (l: { validity: string; verdict: string; reason: string }) => `${l.validity}/${l.verdict}` + (l.verdict === "pass" ? "" : ` (${l.reason})`);
  return programs.map((_, c) => [...r.suites.slice(c * SUITES.length, (c + 1) * SUITES.length), r.golden[c]].map((s) => s.map(fmt)));
}
const ALL_PASS = [...SUITES, GOLDEN].map((lines) => lines.map(() => "valid/pass"));
const verdictOf = (line: string) => line.replace(/ \(.*$/s, "");

describe("A: a restore killed after an interrupted timeout carries that timeout to the program's later suites", () => {
  it("A1: suite 2 and the golden suite, which CPython passes, are not `timeout` (they were)", async () => {
    // CPython: suite 2 and the golden suite never call f(2), each runs in a process of its own: all pass.
    for (const lines of [SUITES[1], GOLDEN]) expect(suiteTruth(GROW_THEN_LOOP, lines)).toEqual(lines.map(() => true));
    // (Suite 1's f(2) never returns in CPython: a `timeout` is its verdict; f(1) holds.)
    expect(suiteTruth(GROW_THEN_LOOP, SUITES[0].slice(0, 1))).toEqual([true]);
    expect((await gradeSuites([HONEST]))[0]).toEqual(ALL_PASS); // a live sandbox before counting
    const spawns = grader.spawns;
    const [got, honest] = await gradeSuites([GROW_THEN_LOOP, HONEST]);
    // Held: the next candidate is untouched, one runner start for the attacker.
    expect(honest).toEqual(ALL_PASS);
    expect(grader.spawns - spawns).toBeLessThanOrEqual(1);
    expect(got[0].map(verdictOf), JSON.stringify(got)).toEqual(["valid/pass", "valid/timeout", "valid/timeout"]);
    // On 9da13e8 + d7b2d0a: [["valid/pass", "valid/timeout (exceeded 1000 ms)", "valid/timeout (not run: ...)"],
    //  ["valid/timeout (not run: an earlier call exceeded 1000 ms)", "valid/timeout (not run: ...)"],
    //  ["valid/timeout (not run: an earlier call exceeded 1000 ms)"]].
    // (With the loop on suite 1's LAST line nothing is cut, and the later suites are `error` (not run): held.)
    // A pass or a refusal (`invalid`, a marked `error`: "not run") is what CPython allows; `timeout` is not.
    for (const line of [...got[1], ...got[2]]) expect(verdictOf(line), JSON.stringify(got)).toMatch(OK_PASS);
  }, 120_000);
});

