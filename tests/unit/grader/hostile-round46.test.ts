/**
 * Round 46 (issue 27, a stranger agent, 35 minutes, pointed at the supervisor's batching and failure
 * paths, the evaluation paths (runJobs, mutants, the duel step's request) and tasks as input).
 *
 * Found, one class: **golden lines past the request's `max_lines` are dropped unread.**
 * Every suite of a request, golden ones included, is cut to `limits.max_lines` lines
 * (supervisor.ts `planTask`: `suiteLines(text).slice(0, max_lines)`, and harness.py's `plan` the same
 * way) and the lines past it get no LineResult at all: not `invalid`, not anything. A caller that
 * counts a program's passes over the lines it got back (`passCounts`, `passesAll`) then counts only
 * the first `max_lines` golden tests, and a program that fails a later one is graded as if it passed
 * the task's golden tests (CPython runs every line of the golden suite; the assertion fails there).
 * Two ways in, neither needing a hostile program:
 *   A. The duel step (step.ts) sends a task's golden tests as one golden suite under
 *      `max_lines = max(tests_per_suite, mistake_book_top_k)` (8 in the presets), whatever the task's
 *      golden count. An imported task (Settings > Task sets: `taskProblems(..., { strict: false })`
 *      allows 1 to 1000 golden tests; an MBPP `test_list` or a HumanEval `check` with 10+ asserts is
 *      ordinary) has more. In the golden-tests and CURE modes, whose program reward is the golden
 *      pass rate (`goldenReward`), a program that passes the first 8 of 10 golden tests and fails the
 *      last two is rewarded 1.0 (CPython: 8/10 = 0.8). Root cause: `max_lines` ignores the golden
 *      suite's length; the grader drops lines silently instead of refusing or grading them.
 *   B. runJobs (metrics-evaluate.ts) sets `max_lines` to the longest test list *of the batch* (in
 *      entries), but a golden entry may hold a `\r` (`taskProblems` refuses `\n` only, strict too;
 *      `suiteLines` and the harness split on `\r`, as CPython's tokenizer does), so one entry is
 *      several lines and the suite outgrows the count. Which lines are graded then depends on the
 *      other jobs that share the batch: alone, a program failing the last golden line `passesAll`
 *      (golden-pass@1, task-check's weak-golden count, the import's variant screen); batched with a
 *      job whose list is longer, the same job fails. A job's verdict depends on its batch-mates, and
 *      alone it contradicts CPython. Root cause: `maxLines` counts entries, the grader counts lines.
 *
 * Fixed: a golden suite is read whole (supervisor `planTask`, harness `plan`: `max_lines` is a
 *   generated suite's N); runJobs' and Play's max_lines count a suite's lines as the grader splits them
 *   (`suiteLines`); a golden test holding \r is refused as a task's test like one holding \n (it is two
 *   lines to Python); the step's max_lines is N (its golden suites, Mistake Book tests and CURE's
 *   as-written suites read whole). B now asserts the refusal and, for a job built outside the task
 *   checks, verdicts that are CPython's and the same alone or batched.
 *
 * Tried, held (nothing to report):
 * - supervisor failure paths: a kill during the load of a candidate's second unit (after an
 *   interrupted timeout ended its first suite) only replaces that candidate's own load verdict; the
 *   kill timer and `end` drop late events (`live.pending = null` before retire); events of another id
 *   are ignored, `-1` only from the runner's own code; the warm spare is a fresh runner started after
 *   the live one is ready, never a runner that ran a unit; a crashed runner costs its step an `error`
 *   and the candidate's rest (`stopped`), the next candidate starts on a new runner; no call is made
 *   twice across a restart (`at += ran` counts only steps that answered; a step in flight when a
 *   runner dies is charged, never re-sent).
 * - the judge's reference units: `load` is shared across a task's suites, but a reference's load is a
 *   pristine interpreter's each unit; a reference kill ends its own suite only.
 * - runJobs' dedup key holds task, code and every list, so two jobs merged are the same request
 *   content; results are mapped back by slot.
 * - the duel step's Mistake Book tests are one golden suite each (round 44); CURE's as-written suites
 *   are at most `tests_per_suite` lines, under `max_lines`.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { arenaV1, tasksOfSplit } from "../../../src/core/arena/task-suite.ts";
import { taskProblems, taskSignature, type Task } from "../../../src/core/arena/task.ts";
import { presetConfig } from "../../../src/core/config/index.ts";
import { taskVocabulary } from "../../../src/core/duel/contexts.ts";
import { duelStep } from "../../../src/core/duel/step.ts";
import { scriptedPlayer } from "../duel/scripted-player.ts";
import { Rng } from "../../../src/core/rng.ts";
import { runJobs } from "../../../src/core/arena/metrics-evaluate.ts";
import { passesAll } from "../../../src/core/arena/metrics.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();

const file = arenaV1();
const base = tasksOfSplit(file, "train").find((t) => t.id === "sum-positive")!;
/** sum-positive's bug: negatives counted. Passes every golden line on positives, fails one on a negative. */
const BUG = "def f(xs):\n    return sum(xs)";
const positives = (n: number) => Array.from({ length: n }, (_, k) => `assert f([${k + 1}]) == ${k + 1}`);

describe("A. the duel step grades only the first max_lines golden tests (golden-tests mode)", () => {
  // Ten golden tests, as an imported MBPP/HumanEval task has them: the last two on negatives.
  const golden = [...positives(8), "assert f([-1]) == 0", "assert f([3, -2]) == 3"];
  const task: Task = { ...base, golden_tests: golden };
  const vocab = taskVocabulary(file);
  const sig = taskSignature(task);
  const player = scriptedPlayer(vocab, sig, BUG, "assert f([3]) == 3");

  it("a program failing golden tests 9 and 10 is rewarded 8/10, not 1", async () => {
    // The task is admissible as an import (1-1000 golden tests).
    expect(taskProblems(task, { strict: false })).toEqual([]);
    // CPython: the reference passes all ten, BUG the first eight only.
    expect(suiteTruth(task.reference, golden)).toEqual(golden.map(() => true));
    expect(suiteTruth(BUG, golden)).toEqual([...Array(8).fill(true), false, false]);
    const config = presetConfig("classroom", { mode: "golden-tests", tasks_per_step: 1, num_generations: 2, tests_per_suite: 8, mistake_book_top_k: 8, seed: 5, eval_every: 0 });
    const out = await duelStep({ config, vocab, tasks: [task], code: player, test: player, grader }, { step: 1, book: { tasks: {} }, rng: new Rng(5).state() });
    const rewards = out.duels[0].codes.map((c) => c.reward);
    // Before a fix: [1, 1] (lines 9 and 10 were never graded: the golden suite came back with 8 lines).
    expect(rewards).toEqual([0.8, 0.8]);
  }, 300_000);
});

describe("B. runJobs: a golden entry holding \\r is several lines, and its verdict depends on the batch", () => {
  // Two golden entries (strict's 2-4), each seven lines joined by \r: fourteen lines, the last false for BUG.
  const first = positives(7).join("\r");
  const second = [...positives(13).slice(7), "assert f([-1]) == 0"].join("\r");
  const task: Task = { ...base, golden_tests: [first, second] };
  const lines = [first, second].flatMap((g) => g.split("\r"));

  it("a golden test holding \\r is refused as a task's test, as one holding \\n is", () => {
    // Before the fix: admissible even under the built-in suite's strict rules (only \n was refused).
    for (const strict of [true, false]) {
      expect(taskProblems(task, { strict }).filter((p) => p.startsWith("golden_tests"))).toEqual(["golden_tests[0]: must be one line 'assert f(...) == ...'", "golden_tests[1]: must be one line 'assert f(...) == ...'"]);
    }
  });

  it("a program failing the 14th golden line fails its golden tests, alone or batched", async () => {
    // CPython reads \r as a line break: fourteen statements; BUG fails the last.
    expect(lines).toHaveLength(14);
    expect(suiteTruth(task.reference, lines)).toEqual(lines.map(() => true));
    expect(suiteTruth(BUG, lines)).toEqual([...Array(13).fill(true), false]);
    expect(suiteTruth(BUG, task.golden_tests)).toEqual([true, false]);

    // Alone in its batch (max_lines = 12: the longest list here is the 12 plus lines of evaluateCodes' first pass).
    const plus12 = positives(12);
    const [alone] = await runJobs(grader, [task], [{ task: task.id, code: BUG, suites: [plus12], golden: [task.golden_tests] }], { testMs: 1000 });
    // Beside a job whose list is 20 entries long (max_lines = 20).
    const [batched] = await runJobs(grader, [task], [
      { task: task.id, code: BUG, suites: [plus12], golden: [task.golden_tests] },
      { task: task.id, code: task.reference, suites: [positives(20)] },
    ], { testMs: 1000 });
    const shape = (ls: { validity: string; verdict: string }[]) => ls.map((l) => `${l.validity}/${l.verdict}`);
    // The same job, the same grader: the same verdicts whatever shares its batch.
    expect(shape(alone.golden[0])).toEqual(shape(batched.golden[0]));
    // And CPython's: BUG does not pass its golden tests. Before a fix: alone, 12 lines came back, all pass.
    expect(passesAll(alone.code, alone.golden[0])).toBe(false);
  }, 300_000);
});

describe("C. the grader's own contract: max_lines is a generated suite's N; a golden suite is read whole", () => {
  it("twelve golden lines with max_lines 3 come back as twelve verdicts, a generated suite's as three", async () => {
    const lines = [...positives(11), "assert f([-1]) == 0"];
    expect(suiteTruth(BUG, lines)).toEqual([...Array(11).fill(true), false]);
    const r = await grader.grade({
      tasks: [{ id: base.id, entry_point: "f", reference: base.reference }],
      codes: [{ task: base.id, code: BUG }],
      suites: [{ code: 0, text: lines.join("\n") }],
      golden: [{ code: 0, text: lines.join("\r") }],
      limits: { test_ms: 1000, max_lines: 3 },
    });
    expect(r.golden[0].map((l) => l.verdict)).toEqual([...Array(11).fill("pass"), "fail"]); // before the fix: three passes
    expect(r.suites[0].map((l) => l.verdict)).toEqual(["pass", "pass", "pass"]);
  }, 120_000);
});
