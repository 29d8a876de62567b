/**
 * Evaluation by real execution through the grader: the API the training loop, `npm run eval` and
 * the UI call. Everything runs in grader batches (Pyodide); metrics.ts turns the results into
 * numbers.
 *
 *   const bench = await prepareBench(grader, runPython, mutateSource, tasks);   // plus tests + mutants, once
 *   const codes = await evaluateCodes(grader, bench, { "sum-positive": [code1, code2] });
 *   const tests = await evaluateSuites(grader, bench, { "sum-positive": [suite1, suite2] }, { k: 5 });
 */
import type { CodeResult, GradeCode, GradeRequest, GradeSuite, Grader, LineResult } from "../grader/types.ts";
import { suiteLines } from "../grader/verdicts.ts";
import {
  catches, keepColumns, meanBySplit, mul, passAtK, passesAll, percent, perSuiteRate, suiteValid, unionAtK, validityRate,
  type BySplit,
} from "./metrics.ts";
import type { PlusTests } from "./plus.ts";
import type { Split, Task } from "./task.ts";
import { own } from "../own.ts";

/** Progress of a long evaluation: a typed event, as everywhere in the app. */
export interface EvalProgress {
  phase: "plus" | "mutants" | "codes" | "suites";
  done: number;
  total: number;
  text: string;
}
export type OnEvalProgress = (p: EvalProgress) => void;

/**
 * A first-order mutant of a task's reference (made by mutate.py, screened by prepareBench in
 * mutants.ts: equivalent ones dropped, hard ones marked).
 */
export interface Mutant {
  task: string;
  /** Operator and what it replaced, e.g. `compare:Lt->LtE`, `slice:upper+1`, `number:-1`. */
  operator: string;
  /** 1-based line of the mutated node in the reference. */
  line: number;
  code: string;
  /** Fails the default input; null when the task has none (no input_spec, or it breaks a precondition). */
  default_kill: boolean | null;
  /** Share of the screen's random inputs it fails (1 when it does not load). */
  random_kill: number;
  /** Counted by the hard-mutant metrics: default_kill not true and random_kill <= MUTANT_SCREEN.maxRandomKill. */
  hard: boolean;
}

/** What evaluation needs per task, built once (prepareBench in mutants.ts) and reused. */
export interface Bench {
  tasks: Task[];
  plus: Map<string, PlusTests>;
  mutants: Map<string, Mutant[]>;
}

/** One code to run, with test sets: `suites` are reference-corrected, `golden` run as written. */
export interface Job {
  task: string;
  code: string;
  suites?: string[][];
  golden?: string[][];
}

export interface JobResult {
  code: CodeResult;
  suites: LineResult[][];
  golden: LineResult[][];
}

export interface RunOptions {
  /** Codes per grader request: bounds request size and gives progress granularity. Default 64. */
  batch?: number;
  /** Per-line limit in ms (grader default when absent). */
  testMs?: number;
  onProgress?: (done: number, total: number) => void;
}

/**
 * Runs jobs through the grader in batches; results in job order. Identical jobs (same task, code
 * and test lists) run once and share one result: programs sampled at temperature 0.7 repeat a lot,
 * and a job is one grader unit (a fresh load of the code, then its calls), so a copy could only
 * differ where a line's time limit is met by chance. Progress counts the jobs given.
 */
export async function runJobs(grader: Grader, tasks: Task[], jobs: Job[], opts: RunOptions = {}): Promise<JobResult[]> {
  const unique: Job[] = [];
  const slotOf = new Map<string, number>();
  const slots = jobs.map((j) => {
    const key = JSON.stringify([j.task, j.code, j.suites ?? [], j.golden ?? []]);
    let slot = slotOf.get(key);
    if (slot === undefined) {
      slot = unique.length;
      slotOf.set(key, slot);
      unique.push(j);
    }
    return slot;
  });
  // covered[u]: how many given jobs the first u distinct ones stand for (progress in the caller's units).
  const copies = new Array<number>(unique.length).fill(0);
  for (const slot of slots) copies[slot]++;
  const covered = [0];
  for (const n of copies) covered.push(covered[covered.length - 1] + n);
  const results = await runDistinctJobs(grader, tasks, unique, { ...opts, onProgress: (done) => opts.onProgress?.(covered[done], jobs.length) });
  return slots.map((slot) => results[slot]);
}

async function runDistinctJobs(grader: Grader, tasks: Task[], jobs: Job[], opts: RunOptions): Promise<JobResult[]> {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const batch = opts.batch ?? 64;
  const out: JobResult[] = [];
  for (let start = 0; start < jobs.length; start += batch) {
    const part = jobs.slice(start, start + batch);
    const taskIds = [...new Set(part.map((j) => j.task))];
    const codes: GradeCode[] = part.map((j) => ({ task: j.task, code: j.code }));
    const suites: GradeSuite[] = [];
    const golden: GradeSuite[] = [];
    // Every line of every list is read: max_lines covers the longest suite as the grader splits it
    // (an entry may hold a line break; golden suites are read whole), so no job's verdicts depend
    // on the jobs beside it (round 46).
    let maxLines = 8;
    part.forEach((j, i) => {
      for (const s of j.suites ?? []) {
        const text = s.join("\n");
        suites.push({ code: i, text });
        maxLines = Math.max(maxLines, suiteLines(text).length);
      }
      for (const g of j.golden ?? []) golden.push({ code: i, text: g.join("\n") });
    });
    const request: GradeRequest = {
      tasks: taskIds.map((id) => {
        const t = byId.get(id);
        if (!t) throw new Error(`job for unknown task '${id}'`);
        return { id, entry_point: t.entry_point, reference: t.reference };
      }),
      codes,
      suites,
      golden,
      limits: { max_lines: maxLines, ...(opts.testMs ? { test_ms: opts.testMs } : {}) },
    };
    const result = await grader.grade(request);
    let si = 0;
    let gi = 0;
    part.forEach((j, i) => {
      const js = (j.suites ?? []).map(() => result.suites[si++]);
      const jg = (j.golden ?? []).map(() => result.golden[gi++]);
      out.push({ code: result.codes[i], suites: js, golden: jg });
    });
    opts.onProgress?.(Math.min(start + batch, jobs.length), jobs.length);
  }
  return out;
}

/**
 * Per-line limit when evaluating codes, mutants and variants, ms. References of the arena run in
 * microseconds on inputs this small, so anything slower is looping; it counts as a failed test.
 */
export const EVAL_TEST_MS = 250;
/** Plus lines of the first, cheap pass: boundary cases come first and catch most wrong codes. */
export const FIRST_PASS_LINES = 12;

function plusOf(bench: Bench, task: string): string[] {
  const p = bench.plus.get(task);
  if (!p) throw new Error(`no plus tests for task '${task}': build them with prepareBench`);
  return p.lines;
}

export interface CodeEvaluation {
  /** plusShare: per sample, the share of the task's plus tests it passes (partial credit). */
  perTask: { task: string; split: Split; plusPass: boolean[]; plusShare: number[]; goldenPass: boolean[] }[];
  /** Mean over tasks of the share of samples passing all plus tests. */
  plusPass1: BySplit;
  /**
   * Partial credit: mean over tasks of the mean share of plus tests a sample passes. A sample that
   * timed out in the boundary pass is not run further (a looping program would cost every line's
   * limit): its remaining lines count as failed.
   */
  plusShare: BySplit;
  /** Mean over tasks of the share of samples passing all golden tests. */
  goldenPass1: BySplit;
}

/**
 * Code metrics for n sampled codes per task (e.g. 8 at temperature 0.7): every code is run on its
 * task's plus tests and golden tests, with a `testMs` line limit (default EVAL_TEST_MS). Tasks
 * missing from `codesPerTask` are skipped.
 */
export async function evaluateCodes(
  grader: Grader,
  bench: Bench,
  codesPerTask: Record<string, string[]>,
  opts: { onProgress?: OnEvalProgress; batch?: number; testMs?: number } = {},
): Promise<CodeEvaluation> {
  const tasks = bench.tasks.filter((t) => own(codesPerTask, t.id)?.length);
  for (const id of Object.keys(codesPerTask)) {
    if (!bench.tasks.some((t) => t.id === id)) throw new Error(`evaluateCodes: unknown task '${id}'`);
  }
  // Pass 1: golden tests and the first plus lines (boundary cases) for every code; pass 2: the
  // remaining plus lines for every code that loaded and did not time out in pass 1 (a looping
  // sample costs 12 lines, not 100), so the share of plus tests passed is known (partial credit).
  const samples = tasks.flatMap((t) => own(codesPerTask, t.id)!.map((code) => ({ t, code })));
  const progress = (pass: string) => (done: number, total: number) =>
    opts.onProgress?.({ phase: "codes", done, total, text: `${pass}: graded ${done}/${total} codes` });
  const first = await runJobs(
    grader,
    bench.tasks,
    samples.map(({ t, code }) => ({ task: t.id, code, suites: [plusOf(bench, t.id).slice(0, FIRST_PASS_LINES)], golden: [t.golden_tests] })),
    { batch: opts.batch, testMs: opts.testMs ?? EVAL_TEST_MS, onProgress: progress("boundary pass") },
  );
  const rest = samples
    .map((s, i) => i)
    .filter((i) => first[i].code.status === "ok" && !first[i].suites[0].some((l) => l.verdict === "timeout") && plusOf(bench, samples[i].t.id).length > FIRST_PASS_LINES);
  const second = await runJobs(
    grader,
    bench.tasks,
    rest.map((i) => ({ task: samples[i].t.id, code: samples[i].code, suites: [plusOf(bench, samples[i].t.id).slice(FIRST_PASS_LINES)] })),
    { batch: opts.batch, testMs: opts.testMs ?? EVAL_TEST_MS, onProgress: progress("full pass") },
  );
  const plusPass = first.map((r) => passesAll(r.code, r.suites[0]));
  const passed = (lines: LineResult[]) => lines.filter((l) => l.verdict === "pass").length;
  const plusShare = first.map((r, i) => (r.code.status === "ok" ? passed(r.suites[0]) / plusOf(bench, samples[i].t.id).length : 0));
  rest.forEach((i, j) => {
    plusPass[i] = plusPass[i] && passesAll(second[j].code, second[j].suites[0]);
    plusShare[i] += passed(second[j].suites[0]) / plusOf(bench, samples[i].t.id).length;
  });
  let i = 0;
  const perTask = tasks.map((t) => {
    const idx = own(codesPerTask, t.id)!.map(() => i++);
    return {
      task: t.id,
      split: t.split,
      plusPass: idx.map((k) => plusPass[k]),
      plusShare: idx.map((k) => plusShare[k]),
      goldenPass: idx.map((k) => passesAll(first[k].code, first[k].golden[0])),
    };
  });
  return {
    perTask,
    plusPass1: meanBySplit(perTask.map((p) => ({ split: p.split, value: percent(p.plusPass) }))),
    plusShare: meanBySplit(perTask.map((p) => ({ split: p.split, value: (100 * p.plusShare.reduce((a, b) => a + b, 0)) / p.plusShare.length }))),
    goldenPass1: meanBySplit(perTask.map((p) => ({ split: p.split, value: percent(p.goldenPass) }))),
  };
}

export interface SuiteTaskEvaluation {
  task: string;
  split: Split;
  /** Per suite: every line valid on the reference. */
  valid: boolean[];
  /** kills[suite][mutant], every killable mutant. */
  kills: boolean[][];
  /** Per mutant: counted by the hard-mutant metrics (mutants.ts). */
  hard: boolean[];
  /** caught[suite][variant]. */
  caught: boolean[][];
  validity: number;
  passK: number;
  /** Old mut@k: union of the first k suites over every killable mutant. */
  mutK: number;
  /** Hard mutants: per suite, and union@k. NaN when the task has none. */
  mutSuite: number;
  mutHardK: number;
  /** Buggy variants: per suite (bug detection), and union@k. */
  bugDetection: number;
  bugK: number;
}

export interface SuiteEvaluation {
  k: number;
  perTask: SuiteTaskEvaluation[];
  /** Share of all suite lines that are valid. */
  validity: BySplit;
  passK: BySplit;
  /** Old mut@k (union, every killable mutant) and its Mul: kept beside the new ones for one release. */
  mutK: BySplit;
  /** pass@k x mut@k / 100 of the means (as the paper reports it). */
  mul: BySplit;
  /** Hard mutants killed, per suite and union@k, and Mul on each (pass@k x rate / 100 of the means). */
  mutSuite: BySplit;
  mutHardK: BySplit;
  mulSuite: BySplit;
  mulHardK: BySplit;
  /** Buggy variants caught, per suite (bug detection) and union@k. */
  bugDetection: BySplit;
  bugK: BySplit;
}

/**
 * Test metrics for n generated suites per task (each a list of `assert f(...) == ...` lines): the
 * suites run against the reference (validity), every killable mutant (mutant rates) and every buggy
 * variant (bug detection), reference-corrected as in training, with a `testMs` line limit
 * (default EVAL_TEST_MS).
 */
export async function evaluateSuites(
  grader: Grader,
  bench: Bench,
  suitesPerTask: Record<string, string[][]>,
  opts: { k?: number; onProgress?: OnEvalProgress; batch?: number; testMs?: number } = {},
): Promise<SuiteEvaluation> {
  const k = opts.k ?? 5;
  for (const id of Object.keys(suitesPerTask)) {
    if (!bench.tasks.some((t) => t.id === id)) throw new Error(`evaluateSuites: unknown task '${id}'`);
  }
  const tasks = bench.tasks.filter((t) => own(suitesPerTask, t.id)?.length);
  const jobs: Job[] = tasks.flatMap((t) => {
    const suites = own(suitesPerTask, t.id)!;
    const mutants = bench.mutants.get(t.id) ?? [];
    return [t.reference, ...mutants.map((m) => m.code), ...t.buggy_variants.map((v) => v.code)].map((code) => ({
      task: t.id,
      code,
      suites,
    }));
  });
  const results = await runJobs(grader, bench.tasks, jobs, {
    batch: opts.batch,
    testMs: opts.testMs ?? EVAL_TEST_MS,
    onProgress: (done, total) => opts.onProgress?.({ phase: "suites", done, total, text: `graded ${done}/${total} codes` }),
  });
  let i = 0;
  const perTask = tasks.map((t): SuiteTaskEvaluation => {
    const suites = own(suitesPerTask, t.id)!;
    const ref = results[i++];
    const benchMutants = bench.mutants.get(t.id) ?? [];
    const mutants = benchMutants.map(() => results[i++]);
    const variants = t.buggy_variants.map(() => results[i++]);
    const valid = ref.suites.map(suiteValid);
    const kills = suites.map((_, s) => mutants.map((m) => catches(m.code, m.suites[s])));
    const hard = benchMutants.map((m) => m.hard);
    const hardKills = keepColumns(kills, hard);
    const caught = suites.map((_, s) => variants.map((v) => catches(v.code, v.suites[s])));
    const hardCount = hard.filter(Boolean).length;
    return {
      task: t.id,
      split: t.split,
      valid,
      kills,
      hard,
      caught,
      validity: validityRate(ref.suites),
      passK: passAtK(valid.length, valid.filter(Boolean).length, k),
      mutK: unionAtK(kills, mutants.length, k),
      mutSuite: hardCount === 0 ? NaN : perSuiteRate(hardKills),
      mutHardK: unionAtK(hardKills, hardCount, k),
      bugDetection: perSuiteRate(caught),
      bugK: unionAtK(caught, variants.length, k),
    };
  });
  const by = (f: (p: SuiteTaskEvaluation) => number) => meanBySplit(perTask.map((p) => ({ split: p.split, value: f(p) })));
  const passK = by((p) => p.passK);
  const mulOf = (rate: BySplit) => Object.fromEntries((Object.keys(passK) as (keyof BySplit)[]).map((s) => [s, mul(passK[s], rate[s])])) as unknown as BySplit;
  const mutK = by((p) => p.mutK);
  const mutSuite = by((p) => p.mutSuite);
  const mutHardK = by((p) => p.mutHardK);
  return {
    k,
    perTask,
    validity: by((p) => p.validity),
    passK,
    mutK,
    mul: mulOf(mutK),
    mutSuite,
    mutHardK,
    mulSuite: mulOf(mutSuite),
    mulHardK: mulOf(mutHardK),
    bugDetection: by((p) => p.bugDetection),
    bugK: by((p) => p.bugK),
  };
}
