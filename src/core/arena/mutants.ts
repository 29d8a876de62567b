/**
 * Mutants of each reference, for mut@k: first-order AST mutants (operators modelled on
 * Cosmic-Ray's, see mutate.py) made in Python, then filtered through the grader: a mutant that
 * passes every plus test is dropped as (likely) equivalent, as the issue and EvalPlus-style
 * mutation scoring require. The Python runtime is injected (`runPython`) and so is the source of
 * mutate.py (`mutateSource`: Node reads the file, the browser imports it with `?raw`), so this
 * file stays runtime-free.
 */
import type { Grader } from "../grader/types.ts";
import { EVAL_TEST_MS, FIRST_PASS_LINES, runJobs, type Bench, type Mutant, type OnEvalProgress } from "./metrics-evaluate.ts";
import { passesAll } from "./metrics.ts";
import { buildPlusTests, type PlusOptions, type PlusTests, type RunPython } from "./plus.ts";
import type { Task } from "./task.ts";

export type { Mutant };

/** All first-order mutants of each task's reference, before the equivalence filter. */
export async function generateMutants(tasks: Task[], runPython: RunPython, mutateSource: string): Promise<Map<string, Mutant[]>> {
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
 * Keeps the mutants that fail at least one plus test (killable, hence not equivalent on the
 * input domain). Two passes so that looping mutants cost little: the first 12 plus lines for all,
 * then the full plus set only for the survivors. Returns the kept mutants per task, in order.
 */
export async function dropEquivalent(
  grader: Grader,
  tasks: Task[],
  mutants: Map<string, Mutant[]>,
  plus: Map<string, PlusTests>,
  onProgress?: OnEvalProgress,
): Promise<Map<string, Mutant[]>> {
  const all = tasks.flatMap((t) => mutants.get(t.id) ?? []);
  const killedBy = async (ms: Mutant[], lines: (m: Mutant) => string[], pass: string) => {
    const results = await runJobs(
      grader,
      tasks,
      ms.map((m) => ({ task: m.task, code: m.code, suites: [lines(m)] })),
      {
        testMs: EVAL_TEST_MS,
        onProgress: (done, total) => onProgress?.({ phase: "mutants", done, total, text: `${pass}: ${done}/${total} mutants` }),
      },
    );
    return ms.filter((_, i) => !passesAll(results[i].code, results[i].suites[0]));
  };
  const early = new Set(await killedBy(all, (m) => plus.get(m.task)!.lines.slice(0, FIRST_PASS_LINES), "boundary pass"));
  const late = new Set(await killedBy(all.filter((m) => !early.has(m)), (m) => plus.get(m.task)!.lines, "full pass"));
  const kept = new Map<string, Mutant[]>(tasks.map((t) => [t.id, []]));
  for (const m of all) if (early.has(m) || late.has(m)) kept.get(m.task)!.push(m);
  return kept;
}

export interface BenchOptions extends PlusOptions {
  onProgress?: OnEvalProgress;
}

/**
 * Everything evaluation needs, built once per task set: plus tests (seeded) and the mutants that
 * survive the equivalence filter.
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
  const mutants = await dropEquivalent(grader, tasks, generated, plus, opts.onProgress);
  return { tasks, plus, mutants };
}
