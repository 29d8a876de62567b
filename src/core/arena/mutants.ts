/**
 * Mutants of each reference, for the mutant metrics (metrics.ts): first-order AST mutants
 * (operators modelled on Cosmic-Ray's, listed in mutate.py) made in Python, then screened through
 * the grader, seeded and deterministic like the plus tests they run on:
 *
 * 1. equivalence: a mutant that passes every plus test is dropped as (likely) equivalent, as
 *    EvalPlus-style mutation scoring requires. The rest are "killable" (the old mut@k counts them all).
 * 2. hardness: a killable mutant is **hard** when the default input (plus.ts `defaultInput`: the
 *    empty list, 0, "") does not expose it and it survives at least three quarters of a random
 *    screen (MUTANT_SCREEN: the first 16 random plus inputs). A suite of default or arbitrary inputs then
 *    does not kill it by luck: only inputs that hit the changed branch or bound do, which is what a
 *    white-box Test policy should learn to write. The per-suite and union@k mutant metrics count
 *    hard mutants only.
 *
 * The Python runtime is injected (`runPython`) and so is the source of mutate.py (`mutateSource`:
 * Node reads the file, the browser imports it with `?raw`), so this file stays runtime-free. A
 * bench built by other operators or another screen has another `mutantsKey` (bench-file.ts).
 */
import type { Grader } from "../grader/types.ts";
import { EVAL_TEST_MS, FIRST_PASS_LINES, runJobs, type Bench, type Mutant, type OnEvalProgress } from "./metrics-evaluate.ts";
import { passesAll } from "./metrics.ts";
import { buildPlusTests, defaultInput, referenceProgram, type PlusOptions, type PlusTests, type RunPython } from "./plus.ts";
import { formatArgs } from "./task-literals.ts";
import type { Task } from "./task.ts";

/** The hardness screen; part of the bench key, so changing it rebuilds every cached bench. */
export const MUTANT_SCREEN = {
  /** Random plus inputs (after the boundary cases) every killable mutant is run on. */
  randomInputs: 16,
  /**
   * A hard mutant fails at most this share of them: random testing misses it three times in four.
   * Measured on arena-v2 (first 10 tasks of each split, base players, n 8): the base's suites kill
   * 85% of the other killable mutants per suite, 54% of these, whose share then rests on inputs
   * that aim at the changed code (docs/TASKS.md, "Mutants").
   */
  maxRandomKill: 0.25,
} as const;

export type { Mutant };

/** A mutant as mutate.py makes it, before the screen. */
export type RawMutant = Pick<Mutant, "task" | "operator" | "line" | "code">;

/** All first-order mutants of each task's reference, before the screen. */
export async function generateMutants(tasks: Task[], runPython: RunPython, mutateSource: string): Promise<Map<string, RawMutant[]>> {
  const program = [
    mutateSource,
    "import json as __json",
    `__json.dumps([mutants(__s) for __s in __json.loads(${JSON.stringify(JSON.stringify(tasks.map((t) => t.reference)))})])`,
  ].join("\n");
  const raw = JSON.parse(await runPython(program)) as { operator: string; line: number; code: string }[][];
  if (raw.length !== tasks.length) throw new Error(`mutate.py returned ${raw.length} mutant lists for ${tasks.length} tasks`);
  return new Map(tasks.map((t, i) => [t.id, raw[i].map((m) => ({ task: t.id, ...m }))]));
}

/**
 * The default-input test of each task (`assert f(DEFAULT) == reference output`), or none when the
 * task has no input_spec or its default input breaks a precondition or raises on the reference.
 */
export async function defaultLines(tasks: Task[], runPython: RunPython): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const t of tasks) {
    if (!t.input_spec) continue;
    const args = defaultInput(t);
    const [r] = JSON.parse(await runPython(referenceProgram(t, [args]))) as { ok?: string }[];
    if (r.ok !== undefined) out.set(t.id, `assert ${t.entry_point}(${formatArgs(args)}) == ${r.ok}`);
  }
  return out;
}

/**
 * The screen: every mutant runs on the default-input test, the first FIRST_PASS_LINES plus lines
 * (boundary cases) and the random screen in one grader job; those none of them kills then run on
 * every plus line (a looping mutant costs a few lines, not 100). Keeps the killable mutants, in
 * order, with `default_kill`, `random_kill` and `hard` set.
 */
export async function screenMutants(
  grader: Grader,
  tasks: Task[],
  mutants: Map<string, RawMutant[]>,
  plus: Map<string, PlusTests>,
  defaults: Map<string, string>,
  onProgress?: OnEvalProgress,
): Promise<Map<string, Mutant[]>> {
  const all = tasks.flatMap((t) => mutants.get(t.id) ?? []);
  const plusOf = (m: RawMutant) => plus.get(m.task)!;
  const screenOf = (m: RawMutant) => plusOf(m).lines.slice(plusOf(m).boundary, plusOf(m).boundary + MUTANT_SCREEN.randomInputs);
  const run = (ms: RawMutant[], suites: (m: RawMutant) => string[][], pass: string) =>
    runJobs(grader, tasks, ms.map((m) => ({ task: m.task, code: m.code, suites: suites(m) })), {
      testMs: EVAL_TEST_MS,
      onProgress: (done, total) => onProgress?.({ phase: "mutants", done, total, text: `${pass}: ${done}/${total} mutants` }),
    });
  // Suites of the screen job: [default?, boundary, random screen?] (a suite is never empty).
  const screenSuites = (m: RawMutant) => [defaults.has(m.task) ? [defaults.get(m.task)!] : [], plusOf(m).lines.slice(0, FIRST_PASS_LINES), screenOf(m)];
  const first = await run(all, (m) => screenSuites(m).filter((s) => s.length > 0), "screen");
  const screened = all.map((m, i): Mutant => {
    const { code, suites } = first[i];
    const [hasDefault, , hasScreen] = screenSuites(m).map((s) => s.length > 0);
    const default_kill = hasDefault ? !passesAll(code, suites[0]) : null;
    const screen = hasScreen ? suites[suites.length - 1] : [];
    const random_kill = screen.length === 0 ? 0 : code.status !== "ok" ? 1 : screen.filter((l) => l.verdict !== "pass").length / screen.length;
    return { ...m, default_kill, random_kill, hard: default_kill !== true && random_kill <= MUTANT_SCREEN.maxRandomKill };
  });
  const killedEarly = screened.map((_, i) => first[i].suites.some((s) => !passesAll(first[i].code, s)));
  const rest = screened.filter((_, i) => !killedEarly[i]);
  const full = await run(rest, (m) => [plusOf(m).lines], "full pass");
  const killedLate = new Set(rest.filter((_, i) => !passesAll(full[i].code, full[i].suites[0])));
  const kept = new Map<string, Mutant[]>(tasks.map((t) => [t.id, []]));
  screened.forEach((m, i) => {
    if (killedEarly[i] || killedLate.has(m)) kept.get(m.task)!.push(m);
  });
  return kept;
}

export interface BenchOptions extends PlusOptions {
  onProgress?: OnEvalProgress;
}

/**
 * Everything evaluation needs, built once per task set: plus tests (seeded) and the killable
 * mutants, screened for hardness.
 */
export async function prepareBench(
  grader: Grader,
  runPython: RunPython,
  mutateSource: string,
  tasks: Task[],
  opts: BenchOptions = {},
): Promise<Bench> {
  const plus = new Map<string, PlusTests>();
  for (const [i, t] of tasks.entries()) {
    plus.set(t.id, await buildPlusTests(t, runPython, opts));
    opts.onProgress?.({ phase: "plus", done: i + 1, total: tasks.length, text: `plus tests for ${t.id}` });
  }
  const generated = await generateMutants(tasks, runPython, mutateSource);
  const mutants = await screenMutants(grader, tasks, generated, plus, await defaultLines(tasks, runPython), opts.onProgress);
  return { tasks, plus, mutants };
}
