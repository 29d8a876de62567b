/**
 * How good the base models are, measured the way the loop measures its players: codes and suites
 * sampled with the arena grammars at the training temperature (1.0), then run for real through the
 * grader (evaluateCodes / evaluateSuites in src/core/arena/metrics-evaluate.ts).
 *
 *   Code policy: plus-pass@1 and golden-pass@1 of `codesPerTask` samples per task.
 *   Test policy: for each task, suites written for its reference and each buggy variant
 *   (white-box, as in the duel); validity = share of lines that hold on the reference, plus
 *   pass@k, bug detection and, when the bench has mutants, mut@k.
 *
 * Pure core: the policies are reached through a sampling host (PolicyService in-thread or a
 * comlink Remote), the grader is injected.
 */
import { Rng } from "../rng.ts";
import type { BySplit } from "../arena/metrics.ts";
import { evaluateCodes, evaluateSuites, type Bench, type CodeEvaluation, type OnEvalProgress, type SuiteEvaluation } from "../arena/metrics-evaluate.ts";
import type { Task } from "../arena/task.ts";
import { taskSignature } from "../arena/task.ts";
import { decodeCode, decodeSuite, encodeCode } from "../arena/tokenizer.ts";
import type { Vocabulary } from "../arena/vocab.ts";
import type { Grader } from "../grader/types.ts";
import type { ConstraintSpec, ServiceSampleOptions } from "../policy/policy-service.ts";
import type { Rollout } from "../policy/sampler.ts";
import { CODE_MAX_TOKENS, SUITE_MAX_TOKENS, codeContext, codeSpec, suiteSpec, testContext } from "./contexts.ts";
import type { PretrainProgress } from "./pretrain.ts";

/** What evaluation needs of a policy host. */
export interface SampleHost {
  sample(prompts: number[][], constraint: ConstraintSpec, opts: ServiceSampleOptions): Promise<{ rollout: Rollout; rngState: readonly [number, number, number, number] }>;
}

export interface BaseEvalOptions {
  seed: number | string;
  /** Sampling temperature (the paper trains at 1.0). */
  temperature: number;
  /** Codes sampled per task. */
  codesPerTask: number;
  /** Suites sampled per program (reference and each buggy variant) of a task. */
  suitesPerProgram: number;
  /** Suite lines (config tests_per_suite). */
  maxLines: number;
  /** k of pass@k and mut@k. */
  k: number;
  /** Rows per sampling call (bounds memory). */
  sampleBatch: number;
}

export const BASE_EVAL_DEFAULTS: Readonly<Omit<BaseEvalOptions, "seed">> = {
  temperature: 1,
  codesPerTask: 8,
  suitesPerProgram: 2,
  maxLines: 8,
  k: 5,
  sampleBatch: 64,
};

/** The figures the manifest and the docs report (percentages, by split). */
export interface BaseFigures {
  temperature: number;
  /** Null when the Code policy was not evaluated. */
  code: { samplesPerTask: number; plusPass1: BySplit; goldenPass1: BySplit } | null;
  /** Null when the Test policy was not evaluated; mutK null when the bench had no mutants. */
  test: { suitesPerTask: number; validity: BySplit; passK: BySplit; mutK: BySplit | null; bugDetection: BySplit; k: number } | null;
}

/** Samples `n` codes per task from the Code policy; returns their canonical source by task id. */
export async function sampleCodes(host: SampleHost, vocab: Vocabulary, tasks: readonly Task[], opts: BaseEvalOptions): Promise<Record<string, string[]>> {
  const rows = tasks.flatMap((task) => Array.from({ length: opts.codesPerTask }, () => ({ task, prompt: codeContext(vocab, task) })));
  const completions = await sampleRows(host, rows, (task) => codeSpec(task), CODE_MAX_TOKENS, new Rng(opts.seed).fork("eval-codes"), opts);
  const out: Record<string, string[]> = {};
  rows.forEach((r, i) => (out[r.task.id] ??= []).push(decodeCode(vocab, completions[i])));
  return out;
}

/**
 * Samples suites from the Test policy, white-box: `suitesPerProgram` for the task's reference and
 * for each buggy variant. Returns the lines of each suite by task id.
 */
export async function sampleSuites(host: SampleHost, vocab: Vocabulary, tasks: readonly Task[], opts: BaseEvalOptions): Promise<Record<string, string[][]>> {
  const rows = tasks.flatMap((task) => {
    const sig = taskSignature(task);
    const programs = [task.reference, ...task.buggy_variants.map((v) => v.code)].map((src) => encodeCode(vocab, src, sig));
    return programs.flatMap((p) => Array.from({ length: opts.suitesPerProgram }, () => ({ task, prompt: testContext(vocab, task, p) })));
  });
  const completions = await sampleRows(host, rows, (task) => suiteSpec(task, opts.maxLines), SUITE_MAX_TOKENS, new Rng(opts.seed).fork("eval-suites"), opts);
  const out: Record<string, string[][]> = {};
  rows.forEach((r, i) => (out[r.task.id] ??= []).push(decodeSuite(vocab, completions[i]).split("\n").filter((l) => l !== "")));
  return out;
}

/** Constrained sampling of rows in batches of tasks sharing nothing but the host; one rng stream. */
async function sampleRows(
  host: SampleHost,
  rows: { task: Task; prompt: number[] }[],
  spec: (task: Task) => ConstraintSpec,
  maxNewTokens: number,
  rng: Rng,
  opts: BaseEvalOptions,
): Promise<number[][]> {
  const out: number[][] = [];
  let rngState = rng.state();
  // A sampling call takes one constraint, so rows are grouped by task (consecutive in `rows`).
  for (let start = 0; start < rows.length; ) {
    const task = rows[start].task;
    let end = start;
    while (end < rows.length && rows[end].task === task && end - start < opts.sampleBatch) end++;
    const result = await host.sample(rows.slice(start, end).map((r) => r.prompt), spec(task), { maxNewTokens, temperature: opts.temperature, rngState });
    rngState = result.rngState;
    out.push(...result.rollout.completions);
    start = end;
  }
  return out;
}

/** Samples from the base policies given (null skips one) and grades everything through `grader`. */
export async function evaluateBase(
  grader: Grader,
  bench: Bench,
  vocab: Vocabulary,
  codePolicy: SampleHost | null,
  testPolicy: SampleHost | null,
  overrides: Partial<BaseEvalOptions> & { seed: number | string },
  onProgress?: (e: PretrainProgress) => void,
): Promise<{ figures: BaseFigures; codes: CodeEvaluation | null; suites: SuiteEvaluation | null }> {
  const opts = { ...BASE_EVAL_DEFAULTS, ...overrides };
  const report: OnEvalProgress = (p) => onProgress?.({ type: "progress", phase: "eval", done: p.done, total: p.total, text: p.text });
  const figures: BaseFigures = { temperature: opts.temperature, code: null, test: null };
  let codes: CodeEvaluation | null = null;
  let suites: SuiteEvaluation | null = null;
  if (codePolicy) {
    onProgress?.({ type: "progress", phase: "eval", done: 0, total: 0, text: `sampling ${opts.codesPerTask} codes per task` });
    codes = await evaluateCodes(grader, bench, await sampleCodes(codePolicy, vocab, bench.tasks, opts), { onProgress: report });
    figures.code = { samplesPerTask: opts.codesPerTask, plusPass1: codes.plusPass1, goldenPass1: codes.goldenPass1 };
  }
  if (testPolicy) {
    onProgress?.({ type: "progress", phase: "eval", done: 0, total: 0, text: `sampling ${opts.suitesPerProgram} suites per program` });
    const samples = await sampleSuites(testPolicy, vocab, bench.tasks, opts);
    suites = await evaluateSuites(grader, bench, samples, { k: opts.k, onProgress: report });
    const hasMutants = bench.tasks.some((t) => (bench.mutants.get(t.id) ?? []).length > 0);
    figures.test = {
      suitesPerTask: bench.tasks.length ? samples[bench.tasks[0].id].length : 0,
      validity: suites.validity,
      passK: suites.passK,
      mutK: hasMutants ? suites.mutK : null,
      bugDetection: suites.bugDetection,
      k: suites.k,
    };
  }
  return { figures, codes, suites };
}
