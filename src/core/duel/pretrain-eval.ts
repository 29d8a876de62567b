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
 * Sampling is evaluate.ts's (several tasks per call, per-row grammars, each call from a named fork
 * of the seed), so the base figures and a run's evaluation sample the same way. Pure core: the
 * policies are reached through a Sampler (PolicyService in-thread or a comlink Remote), the grader
 * is injected.
 */
import type { BySplit } from "../arena/metrics.ts";
import { evaluateCodes, evaluateSuites, type Bench, type CodeEvaluation, type OnEvalProgress, type SuiteEvaluation } from "../arena/metrics-evaluate.ts";
import { taskSignature, type Task } from "../arena/task.ts";
import { encodeCode } from "../arena/tokenizer.ts";
import type { Vocabulary } from "../arena/vocab.ts";
import type { Grader } from "../grader/types.ts";
import { samplePrograms, sampleSuites, type Sampler } from "./evaluate.ts";
import type { TrainerEvent } from "../loop/events.ts";

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
}

export const BASE_EVAL_DEFAULTS: Readonly<Omit<BaseEvalOptions, "seed">> = {
  temperature: 1,
  codesPerTask: 8,
  suitesPerProgram: 2,
  maxLines: 8,
  k: 5,
};

/** The figures the manifest and the docs report (percentages, by split). */
export interface BaseFigures {
  temperature: number;
  /** Null when the Code policy was not evaluated. */
  code: { samplesPerTask: number; plusPass1: BySplit; goldenPass1: BySplit } | null;
  /** Null when the Test policy was not evaluated; mutK null when the bench had no mutants. */
  test: { suitesPerTask: number; validity: BySplit; passK: BySplit; mutK: BySplit | null; bugDetection: BySplit; k: number } | null;
}

/**
 * The programs a task's suites are written for: its reference and each buggy variant (white-box,
 * as in the duel), as the Code policy's tokens.
 */
function referenceAndVariants(vocab: Vocabulary, task: Task): number[][] {
  const sig = taskSignature(task);
  return [task.reference, ...task.buggy_variants.map((v) => v.code)].map((src) => encodeCode(vocab, src, sig));
}

/** Samples from the base policies given (null skips one) and grades everything through `grader`. */
export async function evaluateBase(
  grader: Grader,
  bench: Bench,
  vocab: Vocabulary,
  codePolicy: Sampler | null,
  testPolicy: Sampler | null,
  overrides: Partial<BaseEvalOptions> & { seed: number | string },
  onProgress?: (e: Extract<TrainerEvent, { type: "progress" }>) => void,
): Promise<{ figures: BaseFigures; codes: CodeEvaluation | null; suites: SuiteEvaluation | null }> {
  const opts = { ...BASE_EVAL_DEFAULTS, ...overrides };
  const report: OnEvalProgress = (p) => onProgress?.({ type: "progress", phase: "eval", done: p.done, total: p.total, text: p.text });
  const figures: BaseFigures = { temperature: opts.temperature, code: null, test: null };
  let codes: CodeEvaluation | null = null;
  let suites: SuiteEvaluation | null = null;
  if (codePolicy) {
    onProgress?.({ type: "progress", phase: "eval", done: 0, total: 0, text: `sampling ${opts.codesPerTask} codes per task` });
    codes = await evaluateCodes(grader, bench, (await samplePrograms(codePolicy, bench.tasks, { vocab, samples: opts.codesPerTask, temperature: opts.temperature, seed: opts.seed })).texts, { onProgress: report });
    figures.code = { samplesPerTask: opts.codesPerTask, plusPass1: codes.plusPass1, goldenPass1: codes.goldenPass1 };
  }
  if (testPolicy) {
    onProgress?.({ type: "progress", phase: "eval", done: 0, total: 0, text: `sampling ${opts.suitesPerProgram} suites per program` });
    const samples = await sampleSuites(testPolicy, bench.tasks, (t) => referenceAndVariants(vocab, t), opts.suitesPerProgram, "base-suites", {
      vocab, temperature: opts.temperature, seed: opts.seed, testsPerSuite: opts.maxLines,
    });
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
