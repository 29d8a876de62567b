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
 *
 * Beside it, CodeT's dual execution agreement (Chen et al., 2022) on the same executions: programs
 * that pass exactly the same lines form a consensus set, scored |set| x (lines the set passes); the
 * kept program is the first of the best set. Pass rate alone keeps the program that agrees most with
 * the suites' answers, right or wrong; a wrong answer the suites share is outvoted only when
 * programs disagree with it, which is what the consensus size counts.
 *
 *   dual(i)      = |{ j : passed(j) = passed(i) }| x |passed(i)|
 *   dualRanked   = mean over tasks of plus_pass(argmax_i dual(i), ties to the lowest index)
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
  /** Index kept by dual execution agreement, and whether it passes every plus test. */
  dualChoice: number;
  dualPlusPass: boolean;
  /** Share of the n programs that pass every plus test (plain sampling's plus-pass@1 on this task). */
  plainPlusPass: number;
}

export interface TestTimeScaling {
  suitesPerCode: number;
  perTask: RankedTask[];
  /** plus-pass@1 of the ranked choice, fractions by split. */
  ranked: BySplit;
  /** plus-pass@1 of the dual-agreement choice, fractions by split. */
  dual: BySplit;
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
 * CodeT's dual execution agreement over one task's executions: `passed[i]` is program i's verdict on
 * each pooled line (a program that did not load passes none). Returns each program's score
 * |consensus set| x |lines passed|; the choice is argmaxFirst of it.
 */
export function dualAgreementScores(passed: readonly (readonly boolean[])[]): number[] {
  const key = (p: readonly boolean[]) => p.map((b) => (b ? "1" : "0")).join("");
  const sizes = new Map<string, number>();
  for (const p of passed) sizes.set(key(p), (sizes.get(key(p)) ?? 0) + 1);
  return passed.map((p) => sizes.get(key(p))! * p.filter(Boolean).length);
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
    const passed = programs.texts[t.id].map(() => {
      const r = results[i++];
      const lines = r.golden.flat();
      return lines.map((l) => r.code.status === "ok" && l.verdict === "pass");
    });
    const passRates = passed.map((p) => (p.length === 0 ? 0 : p.filter(Boolean).length / p.length));
    const plus = plusOf.get(t.id)!;
    const choice = argmaxFirst(passRates);
    const dualChoice = argmaxFirst(dualAgreementScores(passed));
    return {
      task: t.id,
      split: t.split,
      passRates,
      choice,
      chosenPlusPass: plus[choice] ?? false,
      dualChoice,
      dualPlusPass: plus[dualChoice] ?? false,
      plainPlusPass: plus.length ? plus.filter(Boolean).length / plus.length : NaN,
    };
  });
  return {
    suitesPerCode: o.suitesPerCode,
    perTask,
    ranked: meanBySplit(perTask.map((p) => ({ split: p.split, value: p.chosenPlusPass ? 1 : 0 }))),
    dual: meanBySplit(perTask.map((p) => ({ split: p.split, value: p.dualPlusPass ? 1 : 0 }))),
    plain: meanBySplit(perTask.map((p) => ({ split: p.split, value: p.plainPlusPass }))),
  };
}
