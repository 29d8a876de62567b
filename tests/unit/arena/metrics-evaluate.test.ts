/** evaluateCodes / evaluateSuites end to end: real Pyodide, real Node grader, real suite tasks. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluateCodes, evaluateSuites, runJobs, type Bench, type EvalProgress } from "../../../src/core/arena/metrics-evaluate.ts";
import { prepareBench } from "../../../src/core/arena/mutants.ts";
import { keepColumns, passAtK, perSuiteRate, unionAtK } from "../../../src/core/arena/metrics.ts";
import { arenaV1 } from "../../../src/core/arena/task-suite.ts";
import type { Task } from "../../../src/core/arena/task.ts";
import type { GradeRequest, Grader } from "../../../src/core/grader/types.ts";
import { createNodeGrader } from "../../../src/node/grader.ts";
import { createNodeRunPython, mutateSource } from "../../../src/node/python-runner.ts";

const byId = (id: string): Task => arenaV1().tasks.find((t) => t.id === id)!;
// Two train tasks and one heldout task; fizzbuzz's variant 0 passes all golden tests.
const tasks = [byId("fizzbuzz"), byId("count-greater"), byId("sum-two-largest")];

let grader: Grader;
let bench: Bench;
beforeAll(async () => {
  grader = await createNodeGrader();
  bench = await prepareBench(grader, createNodeRunPython(), mutateSource(), tasks);
}, 600_000);
afterAll(async () => {
  await grader?.close();
});

describe("evaluateCodes", () => {
  it("plus-pass@1 and golden-pass@1 by split: references pass, weak variants fool only the golden tests", async () => {
    const codes = Object.fromEntries(tasks.map((t) => [t.id, [t.reference, ...t.buggy_variants.map((v) => v.code)]]));
    const events: EvalProgress[] = [];
    const ev = await evaluateCodes(grader, bench, codes, { onProgress: (p) => events.push(p) });
    for (const p of ev.perTask) {
      expect(p.plusPass, p.task).toEqual([true, false, false, false]);
      expect(p.goldenPass[0], p.task).toBe(true);
    }
    const fizz = ev.perTask.find((p) => p.task === "fizzbuzz")!;
    expect(fizz.goldenPass).toEqual([true, true, false, false]); // checks 3 before 15: 3, 5, 7 still pass
    expect(ev.plusPass1).toEqual({ all: 25, train: 25, heldout: 25, heldout_compositional: NaN, heldout_family: NaN });
    const golden = ev.perTask.map((p) => (100 * p.goldenPass.filter(Boolean).length) / 4);
    expect(ev.goldenPass1.train).toBeCloseTo((golden[0] + golden[1]) / 2, 10);
    expect(ev.goldenPass1.heldout).toBeCloseTo(golden[2], 10);
    // Full pass for every code that loaded and did not time out in the 12 boundary lines (all 12
    // here), so partial credit is known: references pass every plus test, variants only some.
    const last = events.at(-1)!;
    expect(last.text).toMatch(/^full pass: graded \d+\/\d+ codes$/);
    expect(last.total).toBe(12);
    for (const p of ev.perTask) {
      expect(p.plusShare[0], p.task).toBe(1);
      for (const x of p.plusShare.slice(1)) expect(x, p.task).toBeLessThan(1);
    }
    expect(ev.plusShare.all).toBeGreaterThan(25);
    expect(events.some((e) => e.text === "boundary pass: graded 12/12 codes")).toBe(true);
  }, 300_000);

  it("rejects codes for a task that is not in the bench", async () => {
    await expect(evaluateCodes(grader, bench, { nope: ["def f(n):\n    return 1"] })).rejects.toThrow(/unknown task 'nope'/);
  });
});

describe("runJobs", () => {
  it("runs identical jobs once and gives every copy the same result, in job order", async () => {
    const t = byId("count-greater");
    const plus = bench.plus.get(t.id)!.lines;
    const wrong = t.buggy_variants[0].code;
    const jobs = [
      { task: t.id, code: t.reference, suites: [plus] },
      { task: t.id, code: wrong, suites: [plus] },
      { task: t.id, code: t.reference, suites: [plus] },
      { task: t.id, code: t.reference, suites: [plus.slice(0, 3)] }, // same code, other lines: its own job
      { task: t.id, code: wrong, suites: [plus] },
    ];
    const sent: GradeRequest[] = [];
    const counting: Grader = { grade: (r: GradeRequest) => (sent.push(r), grader.grade(r)), close: () => grader.close() };
    const progress: [number, number][] = [];
    const got = await runJobs(counting, tasks, jobs, { batch: 2, onProgress: (d, n) => progress.push([d, n]) });
    expect(sent.flatMap((r) => r.codes.map((c) => c.code))).toEqual([t.reference, wrong, t.reference]);
    const alone = await runJobs(grader, tasks, [jobs[0], jobs[1], jobs[3]]);
    expect(got).toEqual([alone[0], alone[1], alone[0], alone[2], alone[1]]);
    expect(got[0].suites[0].every((l) => l.verdict === "pass")).toBe(true);
    expect(got[1].suites[0].some((l) => l.verdict !== "pass")).toBe(true);
    // Progress in the caller's jobs: the first two distinct jobs stand for four of the five.
    expect(progress).toEqual([[4, 5], [5, 5]]);
  }, 120_000);
});

describe("evaluateSuites", () => {
  it("validity, pass@k, mutants and variants per suite and union@k, Mul on each, from real runs", async () => {
    const suites: Record<string, string[][]> = {};
    for (const t of tasks) {
      const plus = bench.plus.get(t.id)!.lines;
      suites[t.id] = [
        t.golden_tests, // all valid, weak on purpose
        plus, // every plus test: valid, and kills every kept mutant the default input does not (by construction)
        [t.golden_tests[0].replace(/== .*$/, "== 1234"), "assert f() == 0"], // wrong answer + invalid call
      ];
    }
    const ev = await evaluateSuites(grader, bench, suites, { k: 2 });
    for (const p of ev.perTask) {
      expect(p.valid, p.task).toEqual([true, true, false]);
      expect(p.passK, p.task).toBeCloseTo(passAtK(3, 2, 2), 10);
      const mutants = bench.mutants.get(p.task)!.length;
      expect(mutants, p.task).toBeGreaterThan(0);
      const plusKillable = bench.mutants.get(p.task)!.map((m) => m.default_kill !== true);
      expect(keepColumns([p.kills[1]], plusKillable)[0], p.task).toEqual(plusKillable.filter(Boolean).map(() => true));
      // The plus tests catch every hand-written bug (a suite invariant); golden tests miss the weak ones.
      expect(p.caught[1], p.task).toEqual([true, true, true]);
      // All lines valid except the wrong answer and the invalid call of the third suite.
      const lines = suites[p.task].flat().length;
      expect(p.validity, p.task).toBeCloseTo((100 * (lines - 2)) / lines, 10);
    }
    const fizz = ev.perTask.find((p) => p.task === "fizzbuzz")!;
    expect(fizz.caught[0]).toEqual([false, true, true]);
    // Golden tests 3, 5, 7 never reach 15: mutants of `n % 15 == 0` survive them.
    expect(unionAtK([fizz.kills[0]], fizz.kills[0].length, 1)).toBeLessThan(100);
    expect(ev.mul.all).toBeCloseTo((ev.passK.all * ev.mutK.all) / 100, 10);
    expect(ev.k).toBe(2);
    // Mutants and variants on the same two aggregations, hard mutants only for the new mutant figures.
    for (const p of ev.perTask) {
      expect(p.hard, p.task).toEqual(bench.mutants.get(p.task)!.map((m) => m.hard));
      const hardKills = keepColumns(p.kills, p.hard);
      const hard = p.hard.filter(Boolean).length;
      expect(p.mutSuite, p.task).toEqual(hard ? perSuiteRate(hardKills) : NaN);
      expect(p.mutHardK, p.task).toEqual(unionAtK(hardKills, hard, 2));
      expect(p.bugDetection, p.task).toBe(perSuiteRate(p.caught));
      expect(p.bugK, p.task).toBe(unionAtK(p.caught, p.caught[0].length, 2));
      // The suite of every plus test kills every hard mutant; the third suite (one wrong-answer
      // line judged as corrected) kills few: per suite sits between them, union@2 reaches 100.
      if (hard) expect(p.mutHardK, p.task).toBe(100);
    }
    expect(fizz.bugK).toBe(100);
    expect(ev.mulSuite.all).toBeCloseTo((ev.passK.all * ev.mutSuite.all) / 100, 10);
    expect(ev.mulHardK.all).toBeCloseTo((ev.passK.all * ev.mutHardK.all) / 100, 10);
    expect(ev.bugDetection.heldout).toBe(ev.perTask.find((p) => p.split === "heldout")!.bugDetection);
  }, 300_000);
});
