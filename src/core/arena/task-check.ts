/**
 * The suite's invariants (issue 3, section 2), checked by real execution through the grader:
 * 1. every reference passes its golden tests and all of its plus tests;
 * 2. every buggy variant fails at least one plus test (no equivalent "bugs");
 * 3. for at least a third of the tasks some variant passes ALL golden tests ("weak golden"), which
 *    is where training on golden tests is fooled;
 * 4. every reference and variant round-trips exactly through the tokenizer (when one is given);
 * 5. the suite's size: >= 60 tasks, >= 45 train, >= 15 heldout, >= 100 random plus inputs per task;
 *    a generated suite (arena-v2 splits): >= 1,000 tasks and the split floors of GENERATED_FLOORS;
 * 6. a generated suite's splits measure transfer (splitProblems, from each task's `family`): no
 *    heldout_compositional combination occurs in train while each of its primitives does, and each
 *    heldout_family task has a primitive no train task has; no held-out reference equals a train
 *    reference or buggy variant up to integer constants (split-leaks.ts).
 * Used by `npm run tasks -- check` and by the unit tests on the real suite.
 */
import type { Grader } from "../grader/types.ts";
import { FIRST_PASS_LINES, runJobs } from "./metrics-evaluate.ts";
import { passesAll } from "./metrics.ts";
import { buildPlusTests, type PlusTests, type RunPython } from "./plus.ts";
import { isHeldout, taskSignature, type Task, type TaskFile } from "./task.ts";
import type { RoundTrip } from "./task-round-trip.ts";
import { taskLeaks } from "./split-leaks.ts";

/** Suite-size floors of the built-in suite. */
export const SUITE_FLOORS = { tasks: 60, train: 45, heldout: 15, plusRandom: 100 } as const;
/** Size floors of a generated suite (one that uses the arena-v2 splits). */
export const GENERATED_FLOORS = { tasks: 1000, train: 500, heldout_compositional: 50, heldout_family: 50 } as const;

export interface CheckReport {
  tasks: number;
  train: number;
  /** All held-out tasks, whatever their held-out split. */
  heldout: number;
  heldout_compositional: number;
  heldout_family: number;
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
  /**
   * Execute only this many tasks, spread evenly over the file (a deterministic sample, for fast
   * tests); the structural invariants and the floors still cover every task. Default: all.
   */
  sample?: number;
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
  const tasks = opts.sample === undefined ? file.tasks : sampleTasks(file.tasks, opts.sample);
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

  // 2. References on golden + every plus test; variants on golden + the boundary lines first, and
  //    only those passing all of these on the remaining plus lines (as evaluateCodes does: most
  //    variants fail early, which makes checking a generated suite of 1,000+ tasks affordable).
  const progress = (what: string) => (done: number, total: number) => opts.onProgress?.(`graded ${done}/${total} ${what}`);
  const refs = await runJobs(
    deps.grader, tasks,
    tasks.map((t) => ({ task: t.id, code: t.reference, suites: [plus.get(t.id)!.lines], golden: [t.golden_tests] })),
    { onProgress: progress("references") },
  );
  const variants = tasks.flatMap((t) => t.buggy_variants.map((v, i) => ({ t, v, i })));
  const first = await runJobs(
    deps.grader, tasks,
    variants.map(({ t, v }) => ({ task: t.id, code: v.code, suites: [plus.get(t.id)!.lines.slice(0, FIRST_PASS_LINES)], golden: [t.golden_tests] })),
    { onProgress: progress("buggy variants (boundary pass)") },
  );
  const again = variants.flatMap((x, k) =>
    passesAll(first[k].code, first[k].suites[0]) && plus.get(x.t.id)!.lines.length > FIRST_PASS_LINES ? [k] : []);
  const second = await runJobs(
    deps.grader, tasks,
    again.map((k) => ({ task: variants[k].t.id, code: variants[k].v.code, suites: [plus.get(variants[k].t.id)!.lines.slice(FIRST_PASS_LINES)] })),
    { onProgress: progress("buggy variants (full pass)") },
  );
  const passesPlus = first.map((r) => passesAll(r.code, r.suites[0]));
  again.forEach((k, j) => { passesPlus[k] = passesAll(second[j].code, second[j].suites[0]); });

  const weakVariants = new Map<string, number[]>(tasks.map((t) => [t.id, []]));
  tasks.forEach((t, r) => {
    const ref = refs[r];
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
  });
  variants.forEach(({ t, v, i }, k) => {
    if (passesPlus[k]) violations.push(`${t.id}: buggy_variants[${i}] passes every plus test (equivalent to the reference?): ${v.bug}`);
    if (passesAll(first[k].code, first[k].golden[0])) weakVariants.get(t.id)!.push(i);
  });
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

  // 4. Suite-level floors and splits (over the whole file, sampled or not).
  const all = file.tasks;
  const count = (split: Task["split"]) => all.filter((t) => t.split === split).length;
  const train = count("train");
  const sizes = { train, heldout: all.length - train, heldout_compositional: count("heldout_compositional"), heldout_family: count("heldout_family") };
  const generated = isGenerated(file);
  if (strict) {
    const floors: Record<string, number> = generated ? GENERATED_FLOORS : SUITE_FLOORS;
    if (all.length < floors.tasks) violations.push(`suite: ${all.length} tasks (need >= ${floors.tasks})`);
    for (const k of ["train", "heldout", "heldout_compositional", "heldout_family"] as const) {
      if (floors[k] !== undefined && sizes[k] < floors[k]) violations.push(`suite: ${sizes[k]} ${k} tasks (need >= ${floors[k]})`);
    }
    if (3 * weakGolden < tasks.length) {
      violations.push(`suite: only ${weakGolden} tasks have a variant passing all golden tests (need >= 1/3 of ${tasks.length})`);
    }
  }
  if (generated) violations.push(...splitProblems(all));
  return { tasks: all.length, ...sizes, weak_golden: weakGolden, violations, plus, weakVariants };
}

/** Whether a suite uses the generated (arena-v2) splits. */
export function isGenerated(file: TaskFile): boolean {
  return file.tasks.some((t) => t.split === "heldout_compositional" || t.split === "heldout_family");
}

/**
 * The one-line summary `npm run tasks -- check` ends with: `{tasks, train, heldout, weak_golden,
 * violations}`, or for a generated suite `{tasks, train, heldout_compositional, heldout_family,
 * weak_golden, violations}`.
 */
export function checkSummary(d: CheckReport, generated = d.heldout_compositional + d.heldout_family > 0): Record<string, unknown> {
  const splits = generated
    ? { heldout_compositional: d.heldout_compositional, heldout_family: d.heldout_family }
    : { heldout: d.heldout };
  return { tasks: d.tasks, train: d.train, ...splits, weak_golden: d.weak_golden, violations: d.violations };
}

/** `n` tasks spread evenly over the list (the first always included), in file order. */
export function sampleTasks(tasks: Task[], n: number): Task[] {
  if (!Number.isInteger(n) || n < 1) throw new Error(`sample must be a positive integer, got ${n}`);
  if (n >= tasks.length) return tasks.slice();
  return Array.from({ length: n }, (_, i) => tasks[Math.floor((i * tasks.length) / n)]);
}

/**
 * The transfer splits of a generated suite, from each task's `family` (`aggregation/predicate/type`):
 * a heldout_compositional task's combination never occurs in train, while its aggregation and its
 * predicate family each do (with that input type); a heldout_family task has an aggregation or a
 * predicate family that no train task has; and no held-out reference equals, up to integer
 * constants, a train task's reference or buggy variant (split-leaks.ts).
 */
export function splitProblems(tasks: Task[]): string[] {
  const out: string[] = [];
  const parts = (t: Task) => {
    const p = (t.family ?? "").split("/");
    return p.length === 3 && p.every((x) => x !== "") ? { agg: p[0], pred: p[1], type: p[2] } : null;
  };
  const trainCombos = new Set<string>();
  const trainAggs = new Set<string>();
  const trainPreds = new Set<string>();
  const anyAgg = new Set<string>();
  const anyPred = new Set<string>();
  for (const t of tasks) {
    const p = parts(t);
    if (!p) {
      out.push(`${t.id}: family must be 'aggregation/predicate/type' in a generated suite, got ${JSON.stringify(t.family)}`);
      continue;
    }
    if (t.split === "heldout") out.push(`${t.id}: split 'heldout' in a generated suite (use heldout_compositional or heldout_family)`);
    if (t.split !== "train") continue;
    trainCombos.add(`${p.agg}/${p.pred}/${p.type}`);
    trainAggs.add(`${p.agg}/${p.type}`);
    trainPreds.add(`${p.pred}/${p.type}`);
    anyAgg.add(p.agg);
    anyPred.add(p.pred);
  }
  // Novelty up to constants: no train reference or buggy variant is a held-out reference with other integers.
  for (const leak of taskLeaks(tasks)) out.push(`${leak.heldout}: held out, but its reference (up to integer constants) is the ${leak.where}`);
  for (const t of tasks) {
    const p = parts(t);
    if (!p || !isHeldout(t.split)) continue;
    if (t.split === "heldout_compositional") {
      if (trainCombos.has(t.family!)) out.push(`${t.id}: heldout_compositional, but its combination ${t.family} occurs in train`);
      if (!trainAggs.has(`${p.agg}/${p.type}`)) out.push(`${t.id}: heldout_compositional, but aggregation ${p.agg} never occurs in train on ${p.type}`);
      if (!trainPreds.has(`${p.pred}/${p.type}`)) out.push(`${t.id}: heldout_compositional, but predicate ${p.pred} never occurs in train on ${p.type}`);
    }
    if (t.split === "heldout_family" && anyAgg.has(p.agg) && anyPred.has(p.pred)) {
      out.push(`${t.id}: heldout_family, but both its aggregation ${p.agg} and its predicate ${p.pred} occur in train`);
    }
  }
  return out;
}

/** Tasks with a given id, for narrowing a check (`--only`). */
export function selectTasks(tasks: Task[], ids: string[]): Task[] {
  const missing = ids.filter((id) => !tasks.some((t) => t.id === id));
  if (missing.length > 0) throw new Error(`no task with id ${missing.join(", ")}`);
  return tasks.filter((t) => ids.includes(t.id));
}
