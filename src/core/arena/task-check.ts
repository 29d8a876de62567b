/**
 * The suite's invariants (issue 3, section 2), checked by real execution through the grader:
 * 1. every reference passes its golden tests and all of its plus tests;
 * 2. every buggy variant fails at least one plus test (no equivalent "bugs");
 * 3. for at least a third of the tasks some variant passes ALL golden tests ("weak golden"), which
 *    is where training on golden tests is fooled;
 * 4. every reference and variant round-trips exactly through the tokenizer (when one is given);
 * 5. the suite's size: >= 60 tasks, >= 45 train, >= 15 heldout, >= 100 random plus inputs per task.
 * Used by `npm run tasks -- check` and by the unit tests on the real suite.
 */
import type { Grader } from "../grader/types.ts";
import { runJobs, type Job } from "./metrics-evaluate.ts";
import { passesAll } from "./metrics.ts";
import { buildPlusTests, type PlusTests, type RunPython } from "./plus.ts";
import { taskSignature, type Task, type TaskFile } from "./task.ts";
import type { RoundTrip } from "./task-round-trip.ts";

/** Suite-size floors of the built-in suite. */
export const SUITE_FLOORS = { tasks: 60, train: 45, heldout: 15, plusRandom: 100 } as const;

export interface CheckReport {
  tasks: number;
  train: number;
  heldout: number;
  /** Tasks where some buggy variant passes all golden tests. */
  weak_golden: number;
  /** Empty when every invariant holds; each entry names the task and what failed. */
  violations: string[];
}

export interface CheckDeps {
  grader: Grader;
  runPython: RunPython;
  /** decode(encode(code)) for arena-Python (createRoundTrip); the round-trip invariant is skipped without it. */
  roundTrip?: RoundTrip;
}

export interface CheckOptions {
  /** Built-in suite rules: size floors and the weak-golden share (default true). */
  strict?: boolean;
  /** Plus-test seed (default 0). */
  seed?: number;
  onProgress?: (text: string) => void;
}

export interface CheckDetails extends CheckReport {
  plus: Map<string, PlusTests>;
  /** Per task: which variants pass all golden tests. */
  weakVariants: Map<string, number[]>;
}

/** Runs every invariant on a validated task file. */
export async function checkTasks(file: TaskFile, deps: CheckDeps, opts: CheckOptions = {}): Promise<CheckDetails> {
  const strict = opts.strict ?? true;
  const tasks = file.tasks;
  const violations: string[] = [];
  const plus = new Map<string, PlusTests>();

  // 1. Plus tests: boundary cases + >= 100 seeded inputs, expected values from the reference.
  for (const [i, t] of tasks.entries()) {
    const p = await buildPlusTests(t, deps.runPython, { seed: opts.seed ?? 0 });
    plus.set(t.id, p);
    for (const e of p.referenceErrors.slice(0, 3)) violations.push(`${t.id}: reference raises on an input satisfying input_spec: ${e}`);
    if (strict && p.lines.length - p.boundary < SUITE_FLOORS.plusRandom) {
      violations.push(`${t.id}: only ${p.lines.length - p.boundary} distinct random plus inputs (need ${SUITE_FLOORS.plusRandom}): widen input_spec`);
    }
    opts.onProgress?.(`plus tests ${i + 1}/${tasks.length}`);
  }

  // 2. Reference and every variant on golden + plus tests, in grader batches.
  const jobs: Job[] = tasks.flatMap((t) =>
    [t.reference, ...t.buggy_variants.map((v) => v.code)].map((code) => ({
      task: t.id,
      code,
      suites: [plus.get(t.id)!.lines],
      golden: [t.golden_tests],
    })),
  );
  const results = await runJobs(deps.grader, tasks, jobs, {
    onProgress: (done, total) => opts.onProgress?.(`graded ${done}/${total} references and variants`),
  });

  let r = 0;
  const weakVariants = new Map<string, number[]>();
  for (const t of tasks) {
    const ref = results[r++];
    if (ref.code.status !== "ok") violations.push(`${t.id}: reference does not load (${ref.code.status}: ${ref.code.reason})`);
    ref.golden[0].forEach((l, i) => {
      if (l.validity !== "valid" || l.verdict !== "pass") {
        violations.push(`${t.id}: reference fails golden_tests[${i}] (${l.validity}/${l.verdict}: ${l.reason})`);
      }
    });
    const badPlus = ref.suites[0].findIndex((l) => l.validity !== "valid" || l.verdict !== "pass");
    if (badPlus >= 0) {
      const l = ref.suites[0][badPlus];
      violations.push(`${t.id}: reference fails plus test '${plus.get(t.id)!.lines[badPlus]}' (${l.validity}/${l.verdict}: ${l.reason})`);
    }
    const weak: number[] = [];
    t.buggy_variants.forEach((v, i) => {
      const res = results[r++];
      if (passesAll(res.code, res.suites[0])) {
        violations.push(`${t.id}: buggy_variants[${i}] passes every plus test (equivalent to the reference?): ${v.bug}`);
      }
      if (passesAll(res.code, res.golden[0])) weak.push(i);
    });
    weakVariants.set(t.id, weak);
  }
  const weakGolden = [...weakVariants.values()].filter((w) => w.length > 0).length;

  // 3. Exact round trip through the tokenizer.
  if (deps.roundTrip) {
    for (const t of tasks) {
      if (t.outside_arena) continue;
      [t.reference, ...t.buggy_variants.map((v) => v.code)].forEach((code, i) => {
        const what = i === 0 ? "reference" : `buggy_variants[${i - 1}]`;
        try {
          const back = deps.roundTrip!(code, taskSignature(t));
          if (back !== code) violations.push(`${t.id}: ${what} does not round-trip through the tokenizer: got ${JSON.stringify(back)}`);
        } catch (e) {
          violations.push(`${t.id}: ${what} is not arena-Python: ${(e as Error).message}`);
        }
      });
    }
  }

  // 4. Suite-level floors.
  const train = tasks.filter((t) => t.split === "train").length;
  const heldout = tasks.length - train;
  if (strict) {
    if (tasks.length < SUITE_FLOORS.tasks) violations.push(`suite: ${tasks.length} tasks (need >= ${SUITE_FLOORS.tasks})`);
    if (train < SUITE_FLOORS.train) violations.push(`suite: ${train} train tasks (need >= ${SUITE_FLOORS.train})`);
    if (heldout < SUITE_FLOORS.heldout) violations.push(`suite: ${heldout} heldout tasks (need >= ${SUITE_FLOORS.heldout})`);
    if (3 * weakGolden < tasks.length) {
      violations.push(`suite: only ${weakGolden} tasks have a variant passing all golden tests (need >= 1/3 of ${tasks.length})`);
    }
  }
  return { tasks: tasks.length, train, heldout, weak_golden: weakGolden, violations, plus, weakVariants };
}

/** Reads the one-line summary `npm run tasks -- check` ends with. */
export function checkSummary(d: CheckReport): CheckReport {
  return { tasks: d.tasks, train: d.train, heldout: d.heldout, weak_golden: d.weak_golden, violations: d.violations };
}

/** Tasks with a given id, for narrowing a check (`--only`). */
export function selectTasks(tasks: Task[], ids: string[]): Task[] {
  const missing = ids.filter((id) => !tasks.some((t) => t.id === id));
  if (missing.length > 0) throw new Error(`no task with id ${missing.join(", ")}`);
  return tasks.filter((t) => ids.includes(t.id));
}
