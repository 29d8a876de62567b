/**
 * Code-A1 rewards (../shared/spec/code-a1.md, "Rewards"; reference implementation
 * code/rl/reward.py, compute_dual_model_reward). Every function is pure and takes either counts or
 * the grader's LineResult[] (src/core/grader/types.ts) through the adapters below.
 *
 * Vocabulary, per generated suite (one code x one suite):
 * - unique executable line: ran on the reference, first occurrence (validity "valid" or
 *   "wrong-answer"); these are the reference-corrected tests that are run on the candidate.
 * - invalid line: anything not "valid" (malformed, raises on the reference, duplicate, wrong answer).
 * - a reference-corrected test counts as failed on fail, error and timeout; a "skipped" verdict on
 *   an executable line (the candidate did not load) is not a pass either.
 */
import type { CodeStatus, LineResult } from "../grader/types.ts";

/** Tests per suite that the rewards are normalised by (spec: N = 8). */
export const DEFAULT_TESTS_PER_SUITE = 8;

/** Counts of one generated suite graded against one candidate. */
export interface SuiteCounts {
  /** Lines read from the suite. */
  lines: number;
  /** Lines that ran on the reference, first occurrence ("valid" + "wrong-answer"). */
  unique_executable: number;
  /** Lines that are not "valid" (malformed, raising, duplicate or wrong answer). */
  invalid: number;
  /** Reference-corrected tests the candidate passed. */
  passed: number;
  /** Reference-corrected tests the candidate did not pass (fail, error, timeout, skipped). */
  failed: number;
  /** Of those, failures among the first N reference-corrected tests (for gen_fail). */
  failed_first_n: number;
}

/** Pass counts of a plain list of tests (Mistake Book tests or golden tests) on one candidate. */
export interface PassCounts {
  total: number;
  passed: number;
}

const isExecutable = (l: LineResult): boolean => l.validity !== "invalid";
const isPass = (l: LineResult): boolean => l.verdict === "pass";

/** Adapter: one graded suite -> SuiteCounts. `n` is N of the spec (tests_per_suite). */
export function suiteCounts(lines: readonly LineResult[], n = DEFAULT_TESTS_PER_SUITE): SuiteCounts {
  checkN(n);
  let unique = 0;
  let invalid = 0;
  let passed = 0;
  let failed = 0;
  let failedFirstN = 0;
  for (const line of lines) {
    if (line.validity !== "valid") invalid++;
    if (!isExecutable(line)) continue;
    unique++;
    if (isPass(line)) passed++;
    else {
      failed++;
      if (unique <= n) failedFirstN++;
    }
  }
  return { lines: lines.length, unique_executable: unique, invalid, passed, failed, failed_first_n: failedFirstN };
}

/** Adapter: verdicts of already-corrected tests (Mistake Book, golden) -> PassCounts. */
export function passCounts(lines: readonly LineResult[]): PassCounts {
  return { total: lines.length, passed: lines.filter(isPass).length };
}

/**
 * Pass counts of the Mistake Book's replayed tests: a stored test the grader refuses on replay
 * (`invalid`: two spellings of one call, a corrected line past the line limits) is no test and does
 * not count (it leaves the book at this replay: mistake-book.ts `refused`).
 */
export function bookCounts(lines: readonly LineResult[]): PassCounts {
  return passCounts(lines.filter((l) => l.validity !== "invalid"));
}

/**
 * Validity reward. R_val = clip(min(unique_executable / N, 1 - invalid / N), 0, 1).
 *
 * Example (N = 8): 8 lines, 5 valid, 2 wrong answers, 1 duplicate -> unique_executable 7,
 * invalid 3 -> min(7/8, 5/8) = 0.625.
 */
export function rVal(c: Pick<SuiteCounts, "unique_executable" | "invalid">, n = DEFAULT_TESTS_PER_SUITE): number {
  checkN(n);
  return clip01(Math.min(c.unique_executable / n, 1 - c.invalid / n));
}

/**
 * Share of the first N reference-corrected new tests that the candidate fails, over N (not over the
 * number of tests: a short suite cannot score high). gen_fail = failed_first_n / N.
 *
 * Example (N = 8): 6 executable tests, the candidate fails 3 -> 3/8 = 0.375.
 */
export function genFail(c: Pick<SuiteCounts, "failed_first_n">, n = DEFAULT_TESTS_PER_SUITE): number {
  checkN(n);
  return c.failed_first_n / n;
}

/**
 * hist_fail = 1 - (pass rate of the candidate on the task's Mistake Book tests).
 * Example: 4 Mistake Book tests, the candidate passes 1 -> 1 - 1/4 = 0.75. 0 when there are none.
 */
export function histFail(h: PassCounts): number {
  return h.total > 0 ? 1 - h.passed / h.total : 0;
}

/**
 * Adversarial reward, three cases (spec; reward.py `final_attack_rate`):
 *   both new and Mistake Book tests:  R_adv = (gen_fail - hist_fail + 1) / 2
 *   only new tests:                   R_adv = gen_fail
 *   only Mistake Book tests, or none: R_adv = 0
 * "New tests exist" means at least one unique executable line in the suite.
 *
 * Example (N = 8): 3 of 8 new tests fail (gen_fail 0.375), the code fails 3 of 4 Mistake Book tests
 * (hist_fail 0.75) -> (0.375 - 0.75 + 1) / 2 = 0.3125. Without Mistake Book tests: 0.375.
 */
export function rAdv(suite: Pick<SuiteCounts, "unique_executable" | "failed_first_n">, hist: PassCounts, n = DEFAULT_TESTS_PER_SUITE): number {
  const hasNew = suite.unique_executable > 0;
  const hasHist = hist.total > 0;
  if (hasNew && hasHist) return (genFail(suite, n) - histFail(hist) + 1) / 2;
  if (hasNew) return genFail(suite, n);
  return 0;
}

/**
 * Test reward R_T = alpha R_val + (1 - alpha) R_adv, and 0 when the candidate does not run
 * (a Test policy gets nothing for "breaking" code that never loaded).
 *
 * Example: alpha 0.5, R_val 0.625, R_adv 0.3125 -> 0.46875.
 */
export function testReward(args: { alpha: number; rVal: number; rAdv: number; codeRuns: boolean }): number {
  const { alpha } = args;
  if (!(alpha >= 0 && alpha <= 1)) throw new RangeError(`alpha must be in [0, 1], got ${alpha}`);
  return args.codeRuns ? alpha * args.rVal + (1 - alpha) * args.rAdv : 0;
}

/** The scores of one (code, suite) pair. */
export interface PairScores {
  /** null when the mode's suite score is not Code-A1's (cure): not part of its R_T. */
  r_val: number | null;
  r_adv: number | null;
  /** R_T. */
  reward: number;
  counts: SuiteCounts;
}

/** R_val, R_adv and R_T of one pair straight from the grader's results (R_adv and R_T are 0 when the code does not load). */
export function scorePair(args: {
  suite: readonly LineResult[];
  mistakeBook: readonly LineResult[];
  codeStatus: CodeStatus;
  alpha: number;
  n?: number;
}): PairScores & { r_val: number; r_adv: number } {
  const n = args.n ?? DEFAULT_TESTS_PER_SUITE;
  const counts = suiteCounts(args.suite, n);
  const codeRuns = args.codeStatus === "ok";
  const r_val = rVal(counts, n);
  // Against code that never ran there is nothing to expose: R_adv is reported as 0, like R_T.
  const r_adv = codeRuns ? rAdv(counts, bookCounts(args.mistakeBook), n) : 0;
  return { r_val, r_adv, reward: testReward({ alpha: args.alpha, rVal: r_val, rAdv: r_adv, codeRuns }), counts };
}

/** Pass_new of one suite: passed / unique executable tests; 0 when the suite has none. */
export function passNew(c: Pick<SuiteCounts, "unique_executable" | "passed">): number {
  return c.unique_executable > 0 ? c.passed / c.unique_executable : 0;
}

/**
 * Code reward of one code (spec: R_C = 1/2 (Pass_hist + mean_j Pass_new,j) when the Mistake Book
 * has tests for the task, else mean_j Pass_new,j; code that does not load scores 0).
 *
 * Computed as reward.py does: per pair j, 1/2 (Pass_hist + Pass_new,j) if the suite has tests,
 * Pass_hist if only Mistake Book tests exist, Pass_new,j if only new tests, 0 if neither; R_C is
 * the mean over the code's suites. This equals the spec's formula whenever every suite has at
 * least one executable test.
 *
 * Example: Mistake Book 4 tests, 3 passed (Pass_hist 0.75); suites with Pass_new 1.0 and 0.5 ->
 * (0.875 + 0.625) / 2 = 0.75 = 1/2 (0.75 + 0.75).
 */
export function codeReward(args: {
  codeStatus: CodeStatus;
  suites: readonly Pick<SuiteCounts, "unique_executable" | "passed">[];
  mistakeBook: PassCounts;
}): number {
  if (args.codeStatus !== "ok" || args.suites.length === 0) return 0;
  const hist = args.mistakeBook;
  const passHist = hist.total > 0 ? hist.passed / hist.total : 0;
  let sum = 0;
  for (const s of args.suites) {
    const hasNew = s.unique_executable > 0;
    if (hasNew && hist.total > 0) sum += (passHist + passNew(s)) / 2;
    else if (hist.total > 0) sum += passHist;
    else if (hasNew) sum += passNew(s);
  }
  return sum / args.suites.length;
}

/**
 * Golden-Tests baseline code reward: pass rate on the human-written tests, 0 when the code does not
 * load (reward.py, gt branch). Example: 5 of 8 golden tests pass -> 0.625.
 */
export function goldenReward(codeStatus: CodeStatus, golden: PassCounts): number {
  return codeStatus === "ok" && golden.total > 0 ? golden.passed / golden.total : 0;
}

function clip01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

function checkN(n: number): void {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`tests per suite N must be a positive integer, got ${n}`);
}
