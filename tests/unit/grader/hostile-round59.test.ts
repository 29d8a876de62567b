/**
 * Round 59 (issue 27, stranger, on the worktree's tip): from verdicts to rewards (rewards.ts,
 * score-task.ts, mistake-book.ts, topvar.ts) and the verl reward module (export/arena_reward.py)
 * against them. Truth is a clean Pyodide (clean-python.ts: the program exec'd, then ONE suite's lines
 * in its namespace, as CPython runs each suite in a process of its own) and the method
 * (../shared/spec/code-a1.md, "Rewards", "Mistake Book", "Optimisation") applied to CPython's verdicts
 * with the loop's own functions.
 *
 * Class A (found; fixed: a first kill ends only its own suite, see below): a kill in ONE suite of a program is counted as a bug found by EVERY later
 * suite of that program (other Test rollouts), by its Mistake Book replays and its golden suite. A
 * program whose call loops inside one C call (`sum(range(10 ** 15))` on f(2): the runner cannot
 * interrupt it, the supervisor kills it) is graded on suite 1's f(2) `timeout` (CPython: never
 * returns, a failed test: right); but suite 2 (another rollout, which never calls f(2)) and the
 * replayed stored test are `valid/timeout (not run: an earlier call exceeded 300 ms)`, where CPython,
 * running each suite in its own process, passes them. rewards.ts counts every executable line that is
 * not `pass` as failed (`suiteCounts`, `bookCounts`, `codeReward`), and mistake-book.ts
 * (`mistakeBookOutcome`) stores each as a failure: suite 2's writer gets gen_fail 2/8 for two tests
 * the program passes, hist_fail becomes 1 for every suite of the code (its stored test "failed"), R_C
 * falls from 0.875 to 0.125, the book gains `assert f(3) == 4` and `assert f(4) == 5` (no program
 * failed them in CPython) and keeps `assert f(5) == 6` that the program passed (the method: -1, deleted
 * at 0). Either policy can do this: the Code policy writes the loop, the Test policy writes the f(2)
 * line that reaches it (and so moves its siblings' R_T and TopVar's spread).
 * Root cause: supervisor.ts `run` (`if (stopped) { run.ended = steps[last]; break; }`) and verdicts.ts
 * `judgeCandidate`/`lineVerdict` (`stopped` -> `timeout`, "not run") turn the one-kill resource rule
 * (SECURITY.md rule 4) into a verdict on lines never run, and the loop cannot tell it from a real
 * timeout: LineResult has no mark for "not run" (round 57's `error (not run)` after a retired unit is
 * the same refusal and is counted as a failure the same way).
 * Fix (suggested): give lines the grader did not run a verdict of their own (e.g. `skipped` with
 * validity kept, or a `not_run: true` flag) on every "not run" path (kill, crash, retired unit, a
 * suite's marked cut), and have rewards.ts (`suiteCounts`: neither passed nor failed; `bookCounts`:
 * no test), mistake-book.ts (`mistakeBookOutcome`: neither failed nor passed) and arena_reward.py
 * skip them; or, cheaper and closer to CPython, run a killed candidate's later suites on a fresh
 * runner (each suite is a process of its own in CPython), bounding the cost by suites, not by kills.
 * Fixed so (supervisor.ts `run`, step 3): a first kill ends its own suite only; the later suites run
 * on the runner that replaces the killed one (the start the kill costs anyway), without the call in
 * flight at the kill (its arguments: in a later suite it and the rest of that suite are `timeout`,
 * A3); a second kill ends the candidate as before (at most two kills and two starts, A4). Left: a
 * program with two or more killing calls still has the suites after its second kill `timeout`.
 *
 * Class B (found; fixed: both sides sum a sorted copy one addition at a time): TopVar's choice depends on the order of a code's suites and differs from
 * arena_reward.py's for the same R_T. topvar.ts `populationStd` sums with a left-to-right `reduce`;
 * arena_reward.py `population_std` with `sum()`, which since CPython 3.12 (the export's Pyodide is
 * 3.14) is compensated (Neumaier). Two codes whose suites score the same multiset of R_T (the same
 * program twice, its rollouts in another order) have exactly equal spreads (the method: population
 * std of each code's R_T; ties go to the lower index, topvar.ts and arena_reward.py alike); with a
 * Mistake Book of 3 tests (hist_fail 2/3, R_T in 96ths) the TypeScript sums round differently
 * (0.18680698751903657 vs 0.1868069875190366) and TopVar trains the Test policy on code 1, while
 * arena_reward.py (and exact arithmetic) picks code 0. reward-parity.test.ts requires equal choices.
 * Root cause: topvar.ts `populationStd` (and arena_reward.py `population_std`): float sums whose
 * result depends on order and on the summation algorithm, compared with `>`.
 * Fix (suggested): compute the spread order-independently and identically on both sides, e.g. sum a
 * sorted copy with the same plain loop in both languages (not `sum()` in Python: a `for` loop with
 * `+=`), or compare spreads with a tolerance (|a - b| <= 1e-12 counts as a tie, lower index wins).
 *
 * What held (asserted inside A1, B1): the kill stays in its program (an honest program after it passes
 * every suite, one runner start); a code's R_T rows as the real grader scores them are the same
 * multiset when its suites are. By reading (not kept as tests, for time): `suiteCounts`/`suite_counts`
 * (wrong-answer counted invalid and executable, repeats invalid, failed_first_n over the first N),
 * `bookCounts` (a refused replay is no test), `codeReward` and `rAdv` cases, the book's order
 * (refused, then -1 per pass, then +1 per failure) and its tie-break by UTF-16 code units on both
 * sides, lines past max_lines (the grader returns none; both sides count lines read), a suite with no
 * executable line (R_adv 0, R_C from the book alone, as reward.py). arena_reward.py `grade_suite`
 * grades each suite alone, so on the same sandbox outcomes it passes class A's suite 2: the verl side
 * disagrees with the arena there too.
 * Not reached: the retired-unit path's reward effect with a real grader (needs round 55's 3.8 GiB
 * heap; by reading it is the same: `error (not run)` counted as failed), the CURE mode's suite scores.
 */
import { readFileSync } from "node:fs";
import { loadPyodide, type PyodideInterface } from "pyodide";
import { beforeAll, describe, expect, it } from "vitest";
import type { LineResult } from "../../../src/core/grader/types.ts";
import { mistakeBookOutcome, updateMistakeBook, type MistakeBook } from "../../../src/core/loop/mistake-book.ts";
import { duelRecord, scoreTask, type TaskGrading } from "../../../src/core/loop/score-task.ts";
import { topVar } from "../../../src/core/loop/topvar.ts";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();
const REF = "def f(x):\n    return x + 1";
const OPTS = { alpha: 0.5, n: 8, topvarK: 1 };

/** Grade one task: per code, its suites (generated), then its stored tests each a golden suite of its own (as step.ts). */
async function gradeTask(programs: string[], suitesOf: string[][][], book: string[], testMs = 1000): Promise<TaskGrading> {
  const suites: { code: number; text: string }[] = [];
  const golden: { code: number; text: string }[] = [];
  const at = programs.map((_, c) => ({
    suites: suitesOf[c].map((lines) => suites.push({ code: c, text: lines.join("\n") }) - 1),
    book: book.map((t) => golden.push({ code: c, text: t }) - 1),
  }));
  const r = await grader.grade({ tasks: [{ id: "t", entry_point: "f", reference: REF }], codes: programs.map((code) => ({ task: "t", code })), suites, golden, limits: { test_ms: testMs, max_lines: 8 } });
  return {
    task: "t",
    codes: programs.map((text, c) => ({ text, status: r.codes[c].status })),
    suites: at.map((a, c) => a.suites.map((i, s) => ({ text: suitesOf[c][s].join("\n"), lines: r.suites[i] }))),
    bookTests: book,
    bookLines: at.map((a) => a.book.map((i) => (r.golden[i].length === 1 ? r.golden[i][0] : { validity: "invalid", reason: "", verdict: "skipped" }))),
  };
}

/** A LineResult as CPython's verdict gives it (the corrected text of an executable line kept). */
const asCPython = (l: LineResult, holds: boolean): LineResult => ({ ...l, reason: "", verdict: holds ? "pass" : "timeout" });

describe("A: a kill in one suite is counted as a bug found by the program's other suites and its Mistake Book replay", () => {
  // f(2) loops inside one C call: the runner cannot interrupt it, the supervisor kills it.
  const KILL = "def f(x):\n    if x == 2:\n        sum(range(10 ** 15))\n    return x + 1";
  const SUITE1 = ["assert f(1) == 2", "assert f(2) == 3"];
  const SUITE2 = ["assert f(3) == 4", "assert f(4) == 5"];
  const BOOK = ["assert f(5) == 6"];

  // Fixed: a first kill ends its own suite only; the later suites run on the runner that replaces
  // the killed one, without the killing call (it and the rest of its suite: `timeout`).
  it("A1: R_T, R_C and the Mistake Book are the method's on CPython's verdicts (they were not)", async () => {
    // CPython: suite 2 and the stored test never call f(2), each a process of its own: they hold.
    expect(suiteTruth(KILL, SUITE2)).toEqual([true, true]);
    expect(suiteTruth(KILL, BOOK)).toEqual([true]);
    expect(suiteTruth(KILL, SUITE1.slice(0, 1))).toEqual([true]); // (f(2) never returns: a timeout, a failed test)
    const spawns = grader.spawns;
    const g = await gradeTask([KILL, REF], [[SUITE1, SUITE2], [SUITE1, SUITE2]], BOOK, 300);
    // Held: the kill stays in its program (the honest one after it passes all), one runner start.
    expect(g.suites[1].map((s) => s.lines.map((l) => l.verdict))).toEqual([["pass", "pass"], ["pass", "pass"]]);
    expect(g.bookLines[1].map((l) => l.verdict)).toEqual(["pass"]);
    expect(grader.spawns - spawns).toBeLessThanOrEqual(1);
    expect(g.suites[0][0].lines.map((l) => l.verdict)).toEqual(["pass", "timeout"]);

    // The method on CPython's verdicts: the killed call fails; every line it did not reach holds.
    const truth: TaskGrading = {
      ...g,
      suites: g.suites.map((row, c) => row.map((s, j) => ({ ...s, lines: s.lines.map((l, n) => asCPython(l, !(c === 0 && j === 0 && n === 1))) }))),
      bookLines: g.bookLines.map((row) => row.map((l) => asCPython(l, true))),
    };
    const want = scoreTask(truth, OPTS);
    const got = scoreTask(g, OPTS);
    const show = (s: typeof got) => ({ R_C: s.codeRewards, R_T: s.testRewards, failed: s.outcome.failed.map((f) => f.test), passed: s.outcome.passed });
    // Spec: R_adv = (gen_fail - hist_fail + 1) / 2; suite 2 of code 0: gen_fail 0, hist_fail 0 -> 0.5,
    // R_T = 0.5 * 2/8 + 0.5 * 0.5 = 0.375; R_C = mean_j (Pass_hist + Pass_new,j) / 2 = (0.75 + 1) / 2 = 0.875;
    // the book takes f(2)'s corrected line only, and the stored test loses one (passed by both codes).
    expect(show(want)).toEqual({ R_C: [0.875, 1], R_T: [[0.40625, 0.375], [0.375, 0.375]], failed: ["assert f(2) == 3"], passed: BOOK.concat(BOOK) });
    // App: suite 2 and the replay are `timeout (not run)`, counted as failures:
    // R_C [0.125, 1], R_T [[0.15625, 0.1875], ...], failed [f(2), f(3), f(4)], passed [f(5)] (code 1's only).
    expect(show(got), JSON.stringify(g.suites[0][1].lines)).toEqual(show(want));
  });

  it("A3: the killing call in every suite costs one kill: each suite's lines before it are graded, it and the rest are timeout", async () => {
    const S1 = ["assert f(1) == 2", "assert f(2) == 3", "assert f(3) == 4"];
    const S2 = ["assert f(4) == 5", "assert f(2) == 3"];
    const S3 = ["assert f(2) == 3", "assert f(6) == 7"];
    const truth = [[true, false, false], [true, false], [false, false]]; // CPython: each suite hangs at f(2)
    for (const [i, lines] of [S1, S2, S3].entries()) expect(suiteTruth(KILL, lines.slice(0, truth[i].indexOf(false)))).toEqual(truth[i].slice(0, truth[i].indexOf(false)));
    const spawns = grader.spawns;
    const t0 = performance.now();
    const g = await gradeTask([KILL, REF], [[S1, S2, S3], [S1, S2, S3]], BOOK, 300);
    expect(g.suites[0].map((s) => s.lines.map((l) => l.verdict))).toEqual(truth.map((row) => row.map((t) => (t ? "pass" : "timeout"))));
    expect(g.bookLines[0].map((l) => l.verdict)).toEqual(["pass"]);
    expect(g.suites[1].flat().flatMap((s) => s.lines.map((l) => l.verdict))).toEqual(Array(7).fill("pass"));
    expect(grader.spawns - spawns).toBeLessThanOrEqual(1); // one kill
    expect(performance.now() - t0).toBeLessThan(20_000);
  });

  it("A4: two kills end the candidate: at most two runner starts, later suites not run", async () => {
    const TWO = "def f(x):\n    if x in (2, 3):\n        sum(range(10 ** 15))\n    return x + 1";
    const S = [["assert f(2) == 3"], ["assert f(3) == 4"], ["assert f(4) == 5"]];
    const spawns = grader.spawns;
    const g = await gradeTask([TWO, REF], [S, S], [], 300);
    expect(g.suites[0].map((s) => s.lines.map((l) => l.verdict))).toEqual([["timeout"], ["timeout"], ["timeout"]]);
    expect(g.suites[1].map((s) => s.lines.map((l) => l.verdict))).toEqual([["pass"], ["pass"], ["pass"]]);
    expect(grader.spawns - spawns).toBeLessThanOrEqual(2);
  });

  it("A2: no entry the method would not store enters the book, none it would delete stays", async () => {
    const g = await gradeTask([KILL], [[SUITE1, SUITE2]], BOOK, 300);
    let book: MistakeBook = { tasks: { t: [{ test: BOOK[0], frequency: 1, first_step: 1, last_step: 1, failed_code: "x" }] } };
    book = updateMistakeBook(book, "t", 2, mistakeBookOutcome(g.bookTests, [{ code: KILL, loaded: true, suites: g.suites[0].map((s) => s.lines), bookLines: g.bookLines[0] }])).book;
    // Method: + f(2)'s corrected line (the one test the program fails in CPython); f(5) passed -> 0 -> deleted.
    expect(book.tasks.t.map((e) => e.test)).toEqual(["assert f(2) == 3"]);
  });
});

describe("B: TopVar's choice depends on suite order, and arena_reward.py picks another code for the same R_T", () => {
  let py: PyodideInterface;
  beforeAll(async () => {
    py = await loadPyodide();
    py.runPython(readFileSync(new URL("../../../src/core/export/arena_reward.py", import.meta.url), "utf8"));
  }, 120_000);
  // f is wrong from 10 on; the Mistake Book shows 3 stored tests of which it passes 1 (hist_fail 2/3).
  const BUGGY = "def f(x):\n    return x + 1 if x < 10 else x";
  const BOOK = ["assert f(1) == 2", "assert f(10) == 11", "assert f(11) == 12"];
  /** A suite of 8 lines: u valid (g of them failed by BUGGY), 8 - u the reference raises on (invalid). */
  const suite = ([u, g]: number[]) => [
    ...Array.from({ length: g }, (_, k) => `assert f(${20 + k}) == ${21 + k}`),
    ...Array.from({ length: u - g }, (_, k) => `assert f(${k}) == ${k + 1}`),
    ...Array.from({ length: 8 - u }, (_, k) => `assert f('s${k}') == 0`),
  ];
  const UG = [[1, 0], [7, 1], [2, 2], [8, 4], [7, 4], [7, 5], [6, 2], [7, 1]];
  const ORDER = [3, 1, 4, 0, 5, 2, 7, 6];

  it("B1: two codes with the same suites' R_T in another order tie, and the lower index wins (code 1 was chosen before)", async () => {
    const g = await gradeTask([BUGGY, BUGGY], [UG.map(suite), ORDER.map((i) => suite(UG[i]))], BOOK);
    const s = scoreTask(g, OPTS);
    // The rows are the same multiset (the method's spread is a function of it): equal exactly.
    expect([...s.testRewards[0]].sort()).toEqual([...s.testRewards[1]].sort());
    // TopVar (spec: top-1 by population std; topvar.ts: ties go to the lower index) -> code 0.
    // arena_reward.py agrees for the same record (the verl side):
    const record = duelRecord(1, g, s, { task: "t", step: 1, added: [], removed: [], changed: [] });
    const pyScores = py.globals.get("score_task")(py.globals.get("json").loads(JSON.stringify(record)), 0.5, 8, 1);
    const pySelected = pyScores.get("topvar").get("selected").toJs();
    expect(pySelected).toEqual([0]);
    // App: std [0.18680698751903657, 0.1868069875190366] -> selected [1].
    expect({ selected: s.topvar.selected, std: s.topvar.std }).toEqual({ selected: pySelected, std: [s.topvar.std[0], s.topvar.std[0]] });
  });

  it("B2: topVar itself, on the same values in another order (no grader)", () => {
    const row = [0.14583333333333331, 0.5520833333333333, 0.2708333333333333, 0.7083333333333333, 0.6458333333333333, 0.6770833333333333, 0.5208333333333333, 0.5520833333333333];
    expect(topVar([row, ORDER.map((i) => row[i])], 1).selected).toEqual([0]);
  });
});
