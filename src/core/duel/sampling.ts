/**
 * The players' programs and suites for evaluation, sampled task by task in batched calls: several
 * tasks per sample call (per-row grammars, up to EVAL_BATCH_ROWS rows), each call drawing from a
 * fork of `new Rng(seed)` named after the role and the chunk, so a checkpoint, task list and seed
 * give the same samples. Shared by evaluate.ts (the metrics), rank.ts (test-time scaling),
 * pretrain-eval.ts (the base figures) and the Play view; it sits below all of them.
 *
 *   const programs = await samplePrograms(code, tasks, { vocab, samples: 4, seed: 1 });
 *   programs.texts["max3"];   // 4 canonical programs
 */
import type { EvalProgress } from "../arena/metrics-evaluate.ts";
import { decodeCode, decodeSuite } from "../arena/tokenizer.ts";
import type { Task } from "../arena/task.ts";
import type { Vocabulary } from "../arena/vocab.ts";
import { suiteLines } from "../grader/verdicts.ts";
import type { PolicyService } from "../policy/policy-service.ts";
import { Rng } from "../rng.ts";
import { CODE_MAX_TOKENS, SUITE_MAX_TOKENS, codeContext, codeSpec, suiteSpec, testContext } from "./contexts.ts";

/** What evaluation needs of a policy: sampling only (in-thread PolicyService or a worker's proxy). */
export type Sampler = Pick<PolicyService, "sample">;

/** Evaluation progress: the grader phases of metrics-evaluate.ts plus sampling and ranking. */
export interface PlayerEvalProgress {
  phase: EvalProgress["phase"] | "sample" | "rank";
  done: number;
  total: number;
  text: string;
}

/** How the players are sampled (evaluatePlayers' options extend these). */
export interface SamplingOptions {
  vocab: Vocabulary;
  /** Programs and suites sampled per task (n). */
  samples: number;
  /** Sampling temperature; the paper evaluates at 0.7. */
  temperature?: number;
  seed: number | string;
  /** Assert lines read per suite (config.tests_per_suite). Default 8. */
  testsPerSuite?: number;
  onProgress?: (p: PlayerEvalProgress) => void;
}

/** Sampled programs per task id: canonical text, and the tokens as sampled (what the Test policy reads). */
export interface SampledPrograms {
  texts: Record<string, string[]>;
  tokens: Record<string, number[][]>;
}

/** Rows per sampling call: tasks are batched together (per-row grammars) up to about this many rows. */
export const EVAL_BATCH_ROWS = 64;

/** Consecutive chunks of tasks whose rows (rowsPerTask each) fit one sampling call. */
function taskChunks(tasks: readonly Task[], rowsPerTask: number): Task[][] {
  const per = Math.max(1, Math.floor(EVAL_BATCH_ROWS / rowsPerTask));
  const out: Task[][] = [];
  for (let i = 0; i < tasks.length; i += per) out.push(tasks.slice(i, i + per));
  return out;
}

/** n programs per task, several tasks per sample call, each call from its own fork of the seed. */
export async function samplePrograms(
  code: Sampler,
  tasks: readonly Task[],
  o: Pick<SamplingOptions, "vocab" | "samples" | "temperature" | "seed" | "onProgress">,
): Promise<SampledPrograms> {
  const out: SampledPrograms = { texts: {}, tokens: {} };
  const root = new Rng(o.seed);
  let done = 0;
  for (const [c, chunk] of taskChunks(tasks, o.samples).entries()) {
    const rows = chunk.flatMap((t) => Array.from({ length: o.samples }, () => t));
    const r = await code.sample(rows.map((t) => codeContext(o.vocab, t)), rows.map((t) => codeSpec(t)), {
      maxNewTokens: CODE_MAX_TOKENS,
      temperature: o.temperature ?? 0.7,
      rngState: root.fork(`eval-code-${c}`).state(),
    });
    chunk.forEach((t, i) => {
      const toks = r.rollout.completions.slice(i * o.samples, (i + 1) * o.samples);
      out.tokens[t.id] = toks;
      out.texts[t.id] = toks.map((x) => decodeCode(o.vocab, x));
    });
    done += chunk.length;
    o.onProgress?.({ phase: "sample", done, total: tasks.length, text: `sampled ${o.samples} programs for ${done}/${tasks.length} tasks` });
  }
  return out;
}

/**
 * Suites per task: `count` suites written against each program of `programsFor(task)` (token
 * lists; null for black-box, i.e. the prompt alone), program by program; several tasks per call.
 */
export async function sampleSuites(
  test: Sampler,
  tasks: readonly Task[],
  programsFor: (t: Task) => (readonly number[] | null)[],
  count: number,
  label: string,
  o: Pick<SamplingOptions, "vocab" | "temperature" | "seed" | "testsPerSuite">,
): Promise<Record<string, string[][]>> {
  const out: Record<string, string[][]> = {};
  const root = new Rng(o.seed);
  const perTask = new Map(tasks.map((t) => [t.id, programsFor(t)]));
  const rowsPerTask = Math.max(...[...perTask.values()].map((ps) => ps.length * count), 1);
  for (const [c, chunk] of taskChunks(tasks, rowsPerTask).entries()) {
    const rows = chunk.flatMap((t) => perTask.get(t.id)!.flatMap((program) => Array.from({ length: count }, () => ({ t, program }))));
    const r = await test.sample(rows.map(({ t, program }) => testContext(o.vocab, t, program)), rows.map(({ t }) => suiteSpec(t, o.testsPerSuite ?? 8)), {
      maxNewTokens: SUITE_MAX_TOKENS,
      temperature: o.temperature ?? 0.7,
      rngState: root.fork(`${label}-${c}`).state(),
    });
    let at = 0;
    for (const t of chunk) {
      const n = perTask.get(t.id)!.length * count;
      // Each suite as its lines, read as the grader reads them (metrics-evaluate.ts takes suites as line lists).
      out[t.id] = r.rollout.completions.slice(at, at + n).map((toks) => suiteLines(decodeSuite(o.vocab, toks)));
      at += n;
    }
  }
  return out;
}
