/**
 * How the two players see the world: the shared vocabulary, the token contexts each policy is
 * conditioned on, and the grammars (by name) its samples are constrained by.
 *
 *   Code policy context:  <bos> PROMPT <sep>                         -> program tokens ... <eos>
 *   Test policy context:  <bos> PROMPT <sep> PROGRAM <sep>  (white-box)
 *                         <bos> PROMPT <sep> <sep>          (black-box) -> suite tokens ... <eos>
 *
 * PROMPT is encodePrompt (the task sentence, a newline, the typed signature); PROGRAM is the
 * candidate's tokens without its <eos>. Both policies share one vocabulary, so the Test policy reads
 * code in the same tokens the Code policy writes it.
 */
import { buildVocabulary, LOCAL_NAMES, promptWords, type Vocabulary } from "../arena/vocab.ts";
import { encodePrompt } from "../arena/tokenizer.ts";
import { codeConstraint } from "../arena/code-grammar.ts";
import { suiteConstraint } from "../arena/suite-grammar.ts";
import { taskSignature, type Task, type TaskFile } from "../arena/task.ts";
import { arenaV1 } from "../arena/task-suite.ts";
import type { Signature } from "../arena/types.ts";
import type { ConstraintFactory, ConstraintSpec } from "../policy/policy-service.ts";

/** Token budgets of one sample (header and end token included). */
export const CODE_MAX_TOKENS = 96;
// Test context (<= 44 prompt + 95 program + 2) + 112 stays inside the models' 256-token context.
export const SUITE_MAX_TOKENS = 112;

/** The vocabulary of a task set: fixed code tokens plus every prompt word of the set, sorted. */
export function taskVocabulary(file: TaskFile): Vocabulary {
  return buildVocabulary(file.tasks.flatMap((t) => promptWords(t.prompt)));
}

let arena: Vocabulary | null = null;
/**
 * THE vocabulary of the app: the built-in suite's. Checkpoints are tied to it; imported tasks are
 * read in it too (their unknown prompt words become <unk>).
 */
export function arenaVocabulary(): Vocabulary {
  arena ??= taskVocabulary(arenaV1());
  return arena;
}

export function codeContext(vocab: Vocabulary, task: Task): number[] {
  return [vocab.bos, ...encodePrompt(vocab, task.prompt, taskSignature(task)), vocab.sep];
}

/** `program` as sampled (its trailing <eos>, if any, is dropped); null for black-box. */
export function testContext(vocab: Vocabulary, task: Task, program: readonly number[] | null): number[] {
  const body = program ? program.filter((t) => t !== vocab.eos) : [];
  return [...codeContext(vocab, task), ...body, vocab.sep];
}

/**
 * The program with its local names renamed by first appearance to i, j, c, w, ... (config
 * `anonymise_code`): the Test policy then has to read the logic, not names like `total` or `best`.
 * Parameters and method names are kept. `def f(xs): total = 0 ...` -> `def f(xs): i = 0 ...`.
 */
export function anonymiseProgram(vocab: Vocabulary, program: readonly number[]): number[] {
  const locals = new Set(LOCAL_NAMES.map((n) => vocab.codeToken(n)));
  const dot = vocab.codeToken(".");
  const renamed = new Map<number, number>();
  return program.map((t, i) => {
    if (!locals.has(t) || (i > 0 && program[i - 1] === dot)) return t; // `.count(` is a method
    let to = renamed.get(t);
    if (to === undefined) {
      to = vocab.codeToken(LOCAL_NAMES[renamed.size]);
      renamed.set(t, to);
    }
    return to;
  });
}

/** Budgets never exceed what the models' context allows, whatever max_completion_length says. */
export function completionBudgets(maxCompletionLength: number): { code: number; suite: number } {
  return { code: Math.min(CODE_MAX_TOKENS, maxCompletionLength), suite: Math.min(SUITE_MAX_TOKENS, maxCompletionLength) };
}

export function codeSpec(task: Task, maxTokens = CODE_MAX_TOKENS): ConstraintSpec {
  return { kind: "code", params: { signature: taskSignature(task), maxTokens } };
}

export function suiteSpec(task: Task, maxLines: number, maxTokens = SUITE_MAX_TOKENS): ConstraintSpec {
  return { kind: "suite", params: { signature: taskSignature(task), maxLines, maxTokens } };
}

/** The arena grammars for a PolicyService host (worker or in-thread), keyed by ConstraintSpec.kind. */
export function arenaConstraints(vocab: Vocabulary): Record<string, ConstraintFactory> {
  return {
    code: (p) => codeConstraint(vocab, p.signature as Signature, { maxTokens: Number(p.maxTokens) }),
    suite: (p) => suiteConstraint(vocab, p.signature as Signature, { maxLines: Number(p.maxLines), maxTokens: Number(p.maxTokens) }),
  };
}
