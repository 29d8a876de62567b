/**
 * CURE's unit-tester reward (ReasonFlux-Coder; ../shared/spec/code-a1.md, "Baselines"), used by the
 * `cure` mode: a test is judged by how it separates the task's codes, with correctness of each code
 * decided by the golden tests.
 *
 *   every correct code passes t:   reward(t) = + (share of wrong codes that fail t)
 *   some correct code fails t:     reward(t) = - (share of wrong codes that pass t)
 *
 * With no correct codes the first case holds vacuously; with no wrong codes the share is 0.
 */
import type { LineResult } from "../grader/types.ts";

/** One test's outcome on every code of the task. */
export interface TestOutcomes {
  /** passes[i]: code i passes this test (a timeout or error is not a pass). */
  passes: readonly boolean[];
}

/**
 * Reward of one test.
 *
 * Example: codes [correct, correct, wrong, wrong, wrong]; test passes [T, T, F, F, T] ->
 * all correct pass, 2 of 3 wrong fail -> +2/3. Passes [T, F, F, T, T] -> a correct code fails,
 * 2 of 3 wrong pass -> -2/3.
 */
export function cureTestReward(test: TestOutcomes, correct: readonly boolean[]): number {
  if (test.passes.length !== correct.length) {
    throw new RangeError(`cureTestReward: ${test.passes.length} outcomes for ${correct.length} codes`);
  }
  let wrong = 0;
  let wrongFail = 0;
  let correctAllPass = true;
  test.passes.forEach((pass, i) => {
    if (correct[i]) {
      if (!pass) correctAllPass = false;
    } else {
      wrong++;
      if (!pass) wrongFail++;
    }
  });
  if (wrong === 0) return 0;
  return correctAllPass ? wrongFail / wrong : -(wrong - wrongFail) / wrong;
}

/**
 * Reward of a suite: the mean of its tests' rewards (0 for a suite with no usable test).
 * tests: one TestOutcomes per reference-corrected test of the suite.
 */
export function cureSuiteReward(tests: readonly TestOutcomes[], correct: readonly boolean[]): number {
  if (tests.length === 0) return 0;
  return tests.reduce((a, t) => a + cureTestReward(t, correct), 0) / tests.length;
}

/**
 * Adapter from the grader: one suite graded against every code of the task (lines[i] = the
 * suite's LineResult[] for code i) -> one TestOutcomes per executable line (valid or
 * reference-corrected; invalid lines are dropped, as everywhere else).
 */
export function cureOutcomes(lines: readonly (readonly LineResult[])[]): TestOutcomes[] {
  if (lines.length === 0) return [];
  const n = lines[0].length;
  if (lines.some((l) => l.length !== n)) throw new RangeError("cureOutcomes: every code must be graded on the same suite");
  const out: TestOutcomes[] = [];
  for (let j = 0; j < n; j++) {
    if (lines[0][j].validity === "invalid") continue;
    out.push({ passes: lines.map((l) => l[j].verdict === "pass") });
  }
  return out;
}
