/**
 * Test-time scaling (issue 5, section 5; the paper's "Test-time scaling"): sample n programs for a
 * task, let the Test policy write suites for them (white-box, one program in each context), rank
 * every program by its pass rate on ALL the task's generated suites, keep the top one. The
 * reference is never consulted: suites run as written (the grader's golden mode), as they would at
 * test time, where no reference exists.
 *
 *   pass_rate(i) = (lines of the pooled suites program i passes) / (lines of the pooled suites)
 *   choice       = argmax_i pass_rate(i), ties to the lowest index (deterministic)
 *   ranked       = mean over tasks of plus_pass(choice)
 *   plain        = mean over tasks of mean_i plus_pass(i)     (plus-pass@1 of plain sampling)
 *
 * Pooling the suites (as CodeT does) rather than judging each program only by the suites written
 * for it keeps a program from being ranked by tests tailored to itself.
 */
import type { BySplit } from "../arena/metrics.ts";
import { meanBySplit } from "../arena/metrics.ts";
import { runJobs, type Bench, type CodeEvaluation, type Job } from "../arena/metrics-evaluate.ts";
import type { Task } from "../arena/task.ts";
import type { Grader } from "../grader/types.ts";
import { sampleSuites, type SampledPrograms, type Sampler, type SamplingOptions } from "./sampling.ts";
import { own } from "../own.ts";

export interface RankedTask {
  task: string;
  split: Task["split"];
  /** Pass rate of each program on the pooled generated suites, in [0, 1]. */
  passRates: number[];
  /** Index of the kept program. */
  choice: number;
  /** Whether the kept program passes every plus test. */
  chosenPlusPass: boolean;
  /** Share of the n programs that pass every plus test (plain sampling's plus-pass@1 on this task). */
  plainPlusPass: number;
}

export interface TestTimeScaling {
  suitesPerCode: number;
  perTask: RankedTask[];
  /** plus-pass@1 of the ranked choice, fractions by split. */
  ranked: BySplit;
  /** plus-pass@1 of plain sampling (the same programs), fractions by split. */
  plain: BySplit;
}

/** Index of the largest value, the first on ties; -1 for an empty list. */
export function argmaxFirst(xs: readonly number[]): number {
  let best = -1;
  for (let i = 0; i < xs.length; i++) if (best < 0 || xs[i] > xs[best]) best = i;
  return best;
}

/**
 * Rank already sampled and plus-graded programs (`codes` from evaluateCodes over `programs.texts`)
 * by suites the Test policy writes for them. Sampling draws from forks of `o.seed` labelled
 * `tts-<task>`, so it is deterministic and independent of the evaluation's own suites.
 */
export async function rankByGeneratedTests(
  test: Sampler,
  bench: Bench,
  tasks: readonly Task[],
  programs: SampledPrograms,
  codes: CodeEvaluation,
  o: Pick<SamplingOptions, "vocab" | "temperature" | "seed" | "testsPerSuite" | "onProgress"> & { grader: Grader; suitesPerCode: number },
): Promise<TestTimeScaling> {
  if (!Number.isInteger(o.suitesPerCode) || o.suitesPerCode < 1) throw new RangeError(`suitesPerCode must be a positive integer, got ${o.suitesPerCode}`);
  const plusOf = new Map(codes.perTask.map((p) => [p.task, p.plusPass]));
  for (const t of tasks) {
    if (!own(programs.tokens, t.id) || !plusOf.has(t.id)) throw new RangeError(`test-time scaling: no graded programs for task '${t.id}'`);
  }
  const suites = await sampleSuites(test, tasks, (t) => programs.tokens[t.id], o.suitesPerCode, "tts", o);
  o.onProgress?.({ phase: "rank", done: 0, total: tasks.length, text: `ranking programs of ${tasks.length} tasks by generated tests` });

  // Every program of a task against every suite of the task, as written.
  const jobs: Job[] = tasks.flatMap((t) => programs.texts[t.id].map((code) => ({ task: t.id, code, golden: suites[t.id] })));
  const results = await runJobs(o.grader, bench.tasks, jobs, {
    onProgress: (done, total) => o.onProgress?.({ phase: "rank", done, total, text: `ran ${done}/${total} programs on generated suites` }),
  });
  let i = 0;
  const perTask = tasks.map((t): RankedTask => {
    const passRates = programs.texts[t.id].map(() => {
      const r = results[i++];
      const lines = r.golden.flat();
      if (r.code.status !== "ok" || lines.length === 0) return 0;
      return lines.filter((l) => l.verdict === "pass").length / lines.length;
    });
    const plus = plusOf.get(t.id)!;
    const choice = argmaxFirst(passRates);
    return {
      task: t.id,
      split: t.split,
      passRates,
      choice,
      chosenPlusPass: plus[choice] ?? false,
      plainPlusPass: plus.length ? plus.filter(Boolean).length / plus.length : NaN,
    };
  });
  return {
    suitesPerCode: o.suitesPerCode,
    perTask,
    ranked: meanBySplit(perTask.map((p) => ({ split: p.split, value: p.chosenPlusPass ? 1 : 0 }))),
    plain: meanBySplit(perTask.map((p) => ({ split: p.split, value: p.plainPlusPass }))),
  };
}
