/**
 * The base models' pretraining corpus: the paper's starting point ("coders that already write
 * plausible code with subtle bugs") in miniature, built from the TRAIN split only.
 *
 *   Code policy sequence:  codeContext(task) ++ program tokens (<eos> included)
 *       program = the task's reference (share `referenceShare`), a grammar-random program of the
 *       task's signature (share `noiseShare`), else one of its buggy variants (cycled evenly).
 *   Test policy sequence:  testContext(task, program) ++ suite tokens (<eos> included)
 *       program = one of the task's distinct code-corpus programs; suite = `assert f(ARGS) == ANSWER` lines,
 *       ARGS drawn from the task's input_spec (plus.ts), ANSWER the repr the reference really
 *       returns (run in Python), replaced by a plausible wrong value with `wrongAnswerShare`.
 *
 * Every random choice takes a fork of one seeded Rng, so the same options give the same corpus
 * (`corpusHash`). The Python runtime is injected (`runPython`, as in plus.ts) so this file stays
 * runtime-free: Node passes src/node/python-runner.ts, the browser its sandbox.
 */
import { fitsConstraint, sampleUniform } from "../decoding.ts";
import { mergeOptions, requireIntegers } from "../options.ts";
import { Rng } from "../rng.ts";
import { canonicalJson, sha256Hex } from "../bundle.ts";
import { boundaryInputs, drawInput, mutateValue, referenceProgram, type ReferenceAnswer, type RunPython } from "../arena/plus.ts";
import { formatArgs, formatLiteral, parseLiteral, type PyLit } from "../arena/task-literals.ts";
import { taskSignature, type Task, type TaskFile } from "../arena/task.ts";
import type { Signature } from "../arena/types.ts";
import { tasksOfSplit } from "../arena/task-suite.ts";
import { decodeCode, encodeCode, encodeSuite } from "../arena/tokenizer.ts";
import { HeldoutIndex } from "../arena/split-leaks.ts";
import { codeConstraint } from "../arena/code-grammar.ts";
import { suiteConstraint } from "../arena/suite-grammar.ts";
import type { Vocabulary } from "../arena/vocab.ts";
import { CODE_MAX_TOKENS, SUITE_MAX_TOKENS, codeContext, testContext } from "./contexts.ts";

/** Corpus knobs; every field has a default in CORPUS_DEFAULTS. */
export interface CorpusOptions {
  /** Seed of every draw (programs, inputs, wrong answers). */
  seed: number | string;
  /** Code sequences per train task. */
  codesPerTask: number;
  /** Share of a task's code sequences that are its reference: the main knob of base plus-pass@1. */
  referenceShare: number;
  /** Share that are grammar-random programs of the task's signature (noise). */
  noiseShare: number;
  /** Test sequences (suites) per train task. */
  suitesPerTask: number;
  /** Share of suite lines whose ANSWER is replaced by a wrong value: the main knob of base validity. */
  wrongAnswerShare: number;
  /** Lines per suite are drawn in [minLines, maxLines], then cut to fit SUITE_MAX_TOKENS. */
  minLines: number;
  /** Most lines a suite may hold (the suite grammar's maxLines; config tests_per_suite). */
  maxLines: number;
  /**
   * Answered inputs kept per task: the shortest lines among its boundary cases and
   * `INPUT_DRAWS_PER_KEPT` times as many random draws, after filtering by the reference.
   */
  inputsPerTask: number;
  /** Lines that separate a shown buggy program from the reference, put in each of its suites when the pool has them. */
  separatingLines: number;
  /**
   * Test-role lever (issue 26): each suite takes inputs no other suite of the task uses, drawn at
   * random (no preference for short lines), so its answers must be computed, not recalled from a
   * pool of 16 lines seen in every suite. Off: the pool of `inputsPerTask` shortest lines.
   */
  freshInputs: boolean;
  /**
   * Test-role lever (issue 26): most share of a suite's lines whose answer is the task's commonest
   * answer (for arena-v2, what it returns when nothing qualifies: 0, -1, '', False), so "nothing
   * qualifies" is a minority of what the Test role learns to write. 1: no cap.
   */
  maxDefaultShare: number;
}

export const CORPUS_DEFAULTS: Readonly<Omit<CorpusOptions, "seed">> = {
  codesPerTask: 12,
  // One of the 12 code sequences: the base writes a task's reference only now and then (issue 11's
  // bands at temperature 1 and 0.7, docs/BASE-MODELS.md), as a released coder writes plausible code
  // with subtle bugs, and RL has room to move probability onto the correct program.
  referenceShare: 1 / 12,
  noiseShare: 0.05,
  suitesPerTask: 8,
  wrongAnswerShare: 0.1,
  // Suites as long as the duel's (tests_per_suite 8): with 2-4 lines R_val = min(exec/N, 1 - invalid/N)
  // reduces to exec/N and a wrong answer costs nothing.
  minLines: 6,
  maxLines: 8,
  // A pool of short answered inputs per task (like a benchmark's tests, seen during pretraining),
  // plus, for each buggy variant, the shortest input that separates it from the reference.
  inputsPerTask: 16,
  separatingLines: 2,
  freshInputs: false,
  maxDefaultShare: 1,
};

/** Random inputs drawn per kept input, so the pool can favour short lines (see answeredLines). */
export const INPUT_DRAWS_PER_KEPT = 4;

export type CodeKind = "reference" | "buggy" | "noise";

/** One training sequence: `tokens[completionStart..]` is what the loss scores. */
export interface CorpusSequence {
  task: string;
  tokens: number[];
  completionStart: number;
}

export interface CodeSequence extends CorpusSequence {
  kind: CodeKind;
}

export interface TestSequence extends CorpusSequence {
  /** Kind of the program the suite was written for. */
  program: CodeKind;
  /** Suite lines, how many of them carry a wrong answer, and how many separate the (buggy) program from the reference. */
  lines: number;
  wrong: number;
  separating: number;
}

export interface PretrainCorpus {
  options: CorpusOptions;
  /** Train-split task ids, in file order. */
  tasks: string[];
  code: CodeSequence[];
  test: TestSequence[];
}

export class CorpusError extends Error {
  override name = "CorpusError";
}

/** Defaults overridden by `overrides`; unknown keys and out-of-range values are rejected by name. */
export function corpusOptions(overrides: Partial<CorpusOptions> & { seed: number | string }): CorpusOptions {
  const o = mergeOptions("corpus option", CORPUS_DEFAULTS, overrides, CorpusError, ["seed"]);
  for (const k of ["referenceShare", "noiseShare", "wrongAnswerShare", "maxDefaultShare"] as const) {
    if (!(o[k] >= 0 && o[k] <= 1)) throw new CorpusError(`corpus option ${k} must be in [0, 1], got ${o[k]}`);
  }
  if (o.referenceShare + o.noiseShare > 1) throw new CorpusError(`referenceShare + noiseShare must be <= 1, got ${o.referenceShare + o.noiseShare}`);
  requireIntegers("corpus option", o, ["codesPerTask", "suitesPerTask", "minLines", "maxLines", "inputsPerTask"], CorpusError);
  requireIntegers("corpus option", o, ["separatingLines"], CorpusError, 0);
  if (o.minLines > o.maxLines) throw new CorpusError(`corpus option minLines (${o.minLines}) > maxLines (${o.maxLines})`);
  if (typeof o.freshInputs !== "boolean") throw new CorpusError(`corpus option freshInputs must be true or false, got ${JSON.stringify(o.freshInputs)}`);
  return o;
}

/**
 * Runs a reference (or a buggy variant, as `task.reference`) on candidate inputs, answering as
 * referenceProgram does: the browser runs an imported set's code in the grader's sandbox.
 */
export interface ReferenceRunner {
  runReference(task: Task, candidates: PyLit[][]): Promise<ReferenceAnswer[]>;
}

/**
 * The corpus for `file`'s train split. Async only because the reference answers come from running
 * the references in Python (one `runPython` call per task).
 */
export async function buildCorpus(
  vocab: Vocabulary,
  file: TaskFile,
  runPython: RunPython | ReferenceRunner,
  overrides: Partial<CorpusOptions> & { seed: number | string },
): Promise<PretrainCorpus> {
  const options = corpusOptions(overrides);
  const root = new Rng(options.seed);
  const tasks = tasksOfSplit(file, "train");
  if (tasks.length === 0) throw new CorpusError(`task set "${file.name}" has no train tasks to pretrain on`);
  const code: CodeSequence[] = [];
  const test: TestSequence[] = [];
  // No program of the corpus may equal a held-out reference up to constants (split-leaks.ts): the
  // train tasks' own programs never do (arena-v2.ts), and a noise draw that does is drawn again.
  const heldout = new HeldoutIndex(file.tasks);
  for (const task of tasks) {
    const programs = codePrograms(vocab, task, options, root.fork(`code:${task.id}`), heldout);
    const context = codeContext(vocab, task);
    for (const p of programs) code.push({ task: task.id, kind: p.kind, tokens: [...context, ...p.tokens], completionStart: context.length });
    test.push(...(await taskSuites(vocab, task, distinctPrograms(vocab, task, programs), runPython, options, root.fork(`suite:${task.id}`))));
  }
  return { options, tasks: tasks.map((t) => t.id), code, test };
}

/** A task's code-corpus programs (tokens with <eos>), in a seeded order. */
function codePrograms(vocab: Vocabulary, task: Task, o: CorpusOptions, rng: Rng, heldout: HeldoutIndex): { kind: CodeKind; tokens: number[] }[] {
  const sig = taskSignature(task);
  const nRef = Math.round(o.codesPerTask * o.referenceShare);
  const nNoise = Math.round(o.codesPerTask * o.noiseShare);
  const nBuggy = o.codesPerTask - nRef - nNoise;
  if (nBuggy > 0 && task.buggy_variants.length === 0) throw new CorpusError(`task ${task.id} has no buggy variants to draw from`);
  const reference = encodeCode(vocab, task.reference, sig);
  const variants = task.buggy_variants.map((v) => encodeCode(vocab, v.code, sig));
  const out: { kind: CodeKind; tokens: number[] }[] = [];
  // Noise first: its draws must not depend on the shares (distinctPrograms relies on it).
  const noise = codeConstraint(vocab, sig, { maxTokens: CODE_MAX_TOKENS });
  for (let i = 0; i < nNoise; i++) {
    let tokens = sampleUniform(noise, rng);
    while (heldout.has(decodeCode(vocab, tokens))) tokens = sampleUniform(noise, rng);
    out.push({ kind: "noise", tokens });
  }
  for (let i = 0; i < nRef; i++) out.push({ kind: "reference", tokens: reference });
  // Cycle the variants from a random start so every variant gets its share (+-1).
  const first = variants.length > 0 ? rng.int(variants.length) : 0;
  for (let i = 0; i < nBuggy; i++) out.push({ kind: "buggy", tokens: variants[(first + i) % variants.length] });
  return rng.shuffle(out);
}

/**
 * The programs the Test policy reads: the reference, every buggy variant and the noise programs,
 * each once, in that fixed order, so the test corpus does not move when the code shares are tuned
 * (noise programs are drawn before any share-dependent choice, see codePrograms).
 */
function distinctPrograms(vocab: Vocabulary, task: Task, programs: { kind: CodeKind; tokens: number[] }[]): { kind: CodeKind; tokens: number[]; variant?: number }[] {
  const sig = taskSignature(task);
  return [
    { kind: "reference" as const, tokens: encodeCode(vocab, task.reference, sig) },
    ...task.buggy_variants.map((v, variant) => ({ kind: "buggy" as const, tokens: encodeCode(vocab, v.code, sig), variant })),
    ...programs.filter((p) => p.kind === "noise"),
  ];
}

/**
 * One answered input of a task: its assert line with the right answer and, when one fits the
 * grammar, with a wrong one. Tokens are the line's suite tokens (ending with its newline, no <eos>):
 * a suite's tokens are its lines' tokens concatenated, then <eos>. `separates[v]` is true when
 * buggy variant v returns something else than the reference on this input (or raises).
 */
interface SuiteLine {
  right: number[];
  wrong: number[] | null;
  separates: boolean[];
  /** The answer is the task's commonest one (nothing qualifies). */
  isDefault: boolean;
}

async function taskSuites(
  vocab: Vocabulary,
  task: Task,
  programs: { kind: CodeKind; tokens: number[]; variant?: number }[],
  runPython: RunPython | ReferenceRunner,
  o: CorpusOptions,
  rng: Rng,
): Promise<TestSequence[]> {
  if (!task.input_spec) throw new CorpusError(`task ${task.id} has no input_spec: golden-style suites need one`);
  const pool = await answeredLines(vocab, task, runPython, o, rng.fork("inputs"));
  if (pool.length === 0) throw new CorpusError(`task ${task.id}: the reference returned no encodable answer on any drawn input`);
  const budget = suiteConstraint(vocab, taskSignature(task), { maxLines: o.maxLines, maxTokens: SUITE_MAX_TOKENS });
  const out: TestSequence[] = [];
  // freshInputs: lines already given to an earlier suite of the task come last (reused only when the pool runs out).
  const usedBefore = new Set<number>();
  for (let n = 0; n < o.suitesPerTask; n++) {
    const program = rng.pick(programs);
    const want = rng.range(Math.min(o.minLines, pool.length), Math.min(o.maxLines, pool.length));
    // A buggy program's suite leads with lines that separate it from the reference (white-box:
    // reading the code pays), then the rest of the pool in a seeded order.
    const shuffled = rng.shuffle(pool.map((_, j) => j));
    const order = o.freshInputs ? [...shuffled.filter((j) => !usedBefore.has(j)), ...shuffled.filter((j) => usedBefore.has(j))] : shuffled;
    const separating = program.variant === undefined ? [] : order.filter((j) => pool[j].separates[program.variant!]).slice(0, o.separatingLines);
    const picked = [...separating, ...order.filter((j) => !separating.includes(j))];
    const chosen: number[] = [];
    let used = 1; // the <eos>
    let defaults = 0;
    // "Nothing qualifies" stays a minority: the share of such lines never passes the cap, at any
    // length; the cap is dropped for a suite it would leave empty (a task that always answers 0).
    for (const capped of [true, false]) {
      for (const i of picked) {
        if (chosen.length >= want) break;
        if (capped && pool[i].isDefault && defaults + 1 > o.maxDefaultShare * (chosen.length + 1) && !separating.includes(i)) continue;
        if (used + Math.max(pool[i].right.length, pool[i].wrong?.length ?? 0) > SUITE_MAX_TOKENS) continue; // try a shorter line
        chosen.push(i);
        used += Math.max(pool[i].right.length, pool[i].wrong?.length ?? 0);
        if (pool[i].isDefault) defaults++;
      }
      if (chosen.length > 0) break;
    }
    for (const i of chosen) usedBefore.add(i);
    // Separating lines first in the pick, but not always first in the suite.
    const tokens: number[] = [];
    let wrong = 0;
    for (const i of rng.shuffle(chosen)) {
      const useWrong = pool[i].wrong !== null && rng.next() < o.wrongAnswerShare;
      tokens.push(...(useWrong ? pool[i].wrong! : pool[i].right));
      if (useWrong) wrong++;
    }
    tokens.push(vocab.eos);
    if (!fitsConstraint(budget, tokens)) throw new CorpusError(`task ${task.id}: an assembled suite does not fit the suite grammar (budget ${SUITE_MAX_TOKENS} tokens)`);
    const context = testContext(vocab, task, program.tokens);
    const separatingLines = program.variant === undefined ? 0 : chosen.filter((i) => pool[i].separates[program.variant!]).length;
    out.push({ task: task.id, program: program.kind, lines: chosen.length, wrong, separating: separatingLines, tokens: [...context, ...tokens], completionStart: context.length });
  }
  return out;
}

/**
 * Inputs from the spec (boundary cases and random draws), answered by running the reference and
 * every buggy variant: inputs breaking a precondition or making the reference raise are dropped,
 * as are lines outside the suite grammar (e.g. an answer over 4 digits) and duplicates. The pool
 * keeps the `inputsPerTask` shortest lines (ties in draw order: a tiny model reproduces a short
 * call and its answer where a 12-character random string defeats it, docs/BASE-MODELS.md) plus,
 * for each variant the shortest lines do not separate from the reference, the shortest separating
 * line (unless `separatingLines` is 0).
 */
async function answeredLines(vocab: Vocabulary, task: Task, runPython: RunPython | ReferenceRunner, o: CorpusOptions, rng: Rng): Promise<SuiteLine[]> {
  const sig = taskSignature(task);
  // freshInputs: enough random inputs for every suite to have its own lines (twice over, as some are dropped).
  const draws = o.freshInputs ? o.suitesPerTask * o.maxLines * 2 : o.inputsPerTask * INPUT_DRAWS_PER_KEPT;
  const candidates = [...boundaryInputs(task, rng), ...Array.from({ length: draws }, () => drawInput(task, rng))];
  const run = async (reference: string) => (typeof runPython === "function"
    ? JSON.parse(await runPython(referenceProgram({ ...task, reference }, candidates)))
    : await runPython.runReference({ ...task, reference }, candidates)) as { ok?: string; pre?: false }[];
  const results = await run(task.reference);
  const variants = await Promise.all(task.buggy_variants.map((v) => run(v.code)));
  const alphabet = Object.values(task.input_spec!.params).map((s) => s.alphabet ?? "").join("") || "abc";
  const seen = new Set<string>();
  const answered: { call: string; answer: string; right: number[]; separates: boolean[] }[] = [];
  candidates.forEach((args, i) => {
    const answer = results[i].ok;
    const call = `${task.entry_point}(${formatArgs(args)})`;
    if (answer === undefined || seen.has(call)) return;
    seen.add(call);
    const right = lineTokens(vocab, `assert ${call} == ${answer}`, sig);
    if (right) answered.push({ call, answer, right, separates: variants.map((r) => r[i].ok !== answer) });
  });
  // The commonest answer: what the task returns when nothing qualifies (ties: the first seen).
  const counts = new Map<string, number>();
  for (const a of answered) counts.set(a.answer, (counts.get(a.answer) ?? 0) + 1);
  const commonest = [...counts].reduce<[string, number] | null>((best, e) => (best === null || e[1] > best[1] ? e : best), null)?.[0];
  // Array.prototype.sort is stable: equal lengths keep draw order. Fresh inputs keep every line, in draw order.
  if (!o.freshInputs) answered.sort((a, b) => a.right.length - b.right.length);
  const kept = new Set(o.freshInputs ? answered : answered.slice(0, o.inputsPerTask));
  task.buggy_variants.forEach((_, v) => {
    if (o.separatingLines > 0 && ![...kept].some((a) => a.separates[v])) {
      const first = answered.find((a) => a.separates[v]);
      if (first) kept.add(first);
    }
  });
  return answered
    .filter((a) => kept.has(a))
    .map(({ call, answer, right, separates }) => {
      let wrong: number[] | null = null;
      for (let tries = 0; tries < 8 && wrong === null; tries++) {
        const value = wrongValue(parseLiteral(answer), rng, alphabet);
        if (value !== answer) wrong = lineTokens(vocab, `assert ${call} == ${value}`, sig);
      }
      return { right, wrong, separates, isDefault: answer === commonest };
    });
}

/** A plausible wrong answer of the same type: an EvalPlus-style mutation, or a filled empty list. */
function wrongValue(right: PyLit, rng: Rng, alphabet: string): string {
  if (right.t === "list" && right.items.length === 0) return rng.next() < 0.5 ? "[0]" : `['${alphabet[rng.int(alphabet.length)]}']`;
  return formatLiteral(mutateValue(right, rng, alphabet));
}

/** Suite tokens of one line without the <eos>, or null when it is outside the suite grammar. */
function lineTokens(vocab: Vocabulary, line: string, sig: Signature): number[] | null {
  try {
    return encodeSuite(vocab, line, sig, { maxLines: 1 }).slice(0, -1);
  } catch {
    return null;
  }
}

/**
 * The joint base model's training sequences: every code sequence, then every suite sequence. One
 * checkpoint learns both roles; the context tells them apart (a Test context holds a program and
 * a second <sep>, see contexts.ts), so Code-A1's two players and the shared player of self-play
 * and CURE all start from the same weights.
 */
export function jointSequences(corpus: PretrainCorpus): CorpusSequence[] {
  return [...corpus.code, ...corpus.test];
}

/** SHA-256 of the corpus' options and sequences (canonical JSON): the manifest's `corpusHash`. */
export function corpusHash(corpus: PretrainCorpus): Promise<string> {
  const view = { options: corpus.options, code: corpus.code.map((s) => s.tokens), test: corpus.test.map((s) => s.tokens) };
  return sha256Hex(new TextEncoder().encode(canonicalJson(view)));
}

/** SHA-256 of the vocabulary's token strings in id order: checkpoints are only valid with the same vocabulary. */
export function vocabHash(vocab: Vocabulary): Promise<string> {
  const tokens = Array.from({ length: vocab.size }, (_, i) => vocab.tokenToString(i));
  return sha256Hex(new TextEncoder().encode(JSON.stringify(tokens)));
}

/** Shares actually realised, for reports and tests. */
export function corpusStats(corpus: PretrainCorpus): { code: Record<CodeKind, number>; testLines: number; wrongLines: number; separatingLines: number; meanLines: number } {
  const code: Record<CodeKind, number> = { reference: 0, buggy: 0, noise: 0 };
  for (const s of corpus.code) code[s.kind]++;
  const testLines = corpus.test.reduce((a, s) => a + s.lines, 0);
  const wrongLines = corpus.test.reduce((a, s) => a + s.wrong, 0);
  const separatingLines = corpus.test.reduce((a, s) => a + s.separating, 0);
  return { code, testLines, wrongLines, separatingLines, meanLines: corpus.test.length ? testLines / corpus.test.length : 0 };
}
