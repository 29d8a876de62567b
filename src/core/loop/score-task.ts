/**
 * Scoring of one task in one step, composed from the formulas (rewards.ts, topvar.ts,
 * mistake-book.ts): the grader's results in; R_C per code, R_T per (code, suite), the TopVar choice
 * and the Mistake Book outcome out. Plus the duel record for the UI and the step's rollout metrics.
 * Pure: the training step calls it once per task between grading and the GRPO updates.
 */
import type { CodeStatus, LineResult } from "../grader/types.ts";
import { cureOutcomes, cureSuiteReward } from "./cure.ts";
import { mistakeBookOutcome, type MistakeBookDelta, type MistakeBookOutcome } from "./mistake-book.ts";
import { codeReward, genFail, goldenReward, bookCounts, passCounts, scorePair, suiteCounts, type PairScores } from "./rewards.ts";
import { populationStd, topVar, type TopVarChoice } from "./topvar.ts";
import type { DuelRecord, StepMetricKey } from "./types.ts";

/** What the grader said about one task this step. */
export interface TaskGrading {
  task: string;
  codes: { text: string; status: CodeStatus }[];
  /** (codes, suites): the suites written for each code, graded against it. */
  suites: { text: string; lines: LineResult[] }[][];
  /** The Mistake Book tests shown this step (empty when the Mistake Book is off or empty). */
  bookTests: string[];
  /** Per code, its verdicts on bookTests. */
  bookLines: LineResult[][];
  /** Per code, its verdicts on the task's golden tests (needed when programScore is `golden` or suiteScore `cure`). */
  golden?: LineResult[][];
  /**
   * [code g][suite s][program j]: suite s written for code g, run AS WRITTEN (its own expected
   * outputs, no reference correction) on every program j of the task; needed by suiteScore `cure`.
   */
  asWritten?: LineResult[][][][];
}

export interface ScoreOptions {
  alpha: number;
  /** N, tests per suite. */
  n: number;
  /** Codes whose suites train the Test policy (TopVar's k; G when every suite trains; 0 when none does). */
  topvarK: number;
  /** How R_C is computed (duel/modes.ts); default `suites`, Code-A1's. */
  programScore?: "suites" | "golden";
  /** How R_T is computed (duel/modes.ts); default `code-a1`. */
  suiteScore?: "code-a1" | "cure" | "none";
}

export interface TaskScores {
  /** R_C per code. */
  codeRewards: number[];
  /** (codes, suites) R_val, R_adv, R_T and counts. */
  pairs: PairScores[][];
  /** (codes, suites) R_T: the Test policy's GRPO groups are the rows. */
  testRewards: number[][];
  topvar: TopVarChoice;
  outcome: MistakeBookOutcome;
}

/**
 * Score one task: each score is computed once, by the rule the mode names, and never rewritten.
 *
 * - suiteScore `code-a1`: R_val, R_adv and R_T = alpha R_val + (1 - alpha) R_adv per pair;
 *   `cure`: R_T = CURE's suite reward over the suite's lines judged as written on every program of
 *   the task (R_val and R_adv are not part of it and are null); `none`: no pairs.
 * - programScore `suites`: R_C from the suites and the Mistake Book; `golden`: golden pass rate.
 *
 * Example (alpha 0.5, N 8, no Mistake Book): one loaded code, one suite of 8 valid lines of which
 * it fails 2 -> R_val 1, R_adv 2/8, R_T 0.625; R_C = 6/8 = 0.75.
 */
export function scoreTask(g: TaskGrading, o: ScoreOptions): TaskScores {
  const programScore = o.programScore ?? "suites";
  const suiteScore = o.suiteScore ?? "code-a1";
  if (g.suites.length !== g.codes.length || g.bookLines.length !== g.codes.length) {
    throw new RangeError(`task ${g.task}: ${g.codes.length} codes but ${g.suites.length} suite groups and ${g.bookLines.length} Mistake Book results`);
  }
  const golden = g.golden;
  if ((programScore === "golden" || suiteScore === "cure") && golden?.length !== g.codes.length) {
    throw new RangeError(`task ${g.task}: golden verdicts are needed for ${g.codes.length} codes, got ${golden?.length ?? 0}`);
  }
  if (suiteScore === "cure" && g.asWritten?.length !== g.codes.length) {
    throw new RangeError(`task ${g.task}: CURE needs every suite run as written on every program`);
  }
  // A program is correct for CURE when it loads and passes every golden test.
  const correct = golden ? g.codes.map((c, i) => c.status === "ok" && golden[i].every((l) => l.verdict === "pass")) : [];
  const pairs: PairScores[][] = g.codes.map((c, i) =>
    suiteScore === "none"
      ? []
      : g.suites[i].map((s, j): PairScores =>
          suiteScore === "cure"
            ? { r_val: null, r_adv: null, reward: cureSuiteReward(cureOutcomes(g.asWritten![i][j]), correct), counts: suiteCounts(s.lines, o.n) }
            : scorePair({ suite: s.lines, mistakeBook: g.bookLines[i], codeStatus: c.status, alpha: o.alpha, n: o.n }),
        ),
  );
  const codeRewards = g.codes.map((c, i) =>
    programScore === "golden"
      ? goldenReward(c.status, passCounts(golden![i]))
      : codeReward({ codeStatus: c.status, suites: pairs[i].map((p) => p.counts), mistakeBook: bookCounts(g.bookLines[i]) }),
  );
  const testRewards = pairs.map((row) => row.map((p) => p.reward));
  const outcome = mistakeBookOutcome(
    g.bookTests,
    g.codes.map((c, i) => ({ code: c.text, loaded: c.status === "ok", suites: g.suites[i].map((s) => s.lines), bookLines: g.bookLines[i] })),
  );
  const topvar = o.topvarK > 0 ? topVar(testRewards, o.topvarK) : { std: testRewards.map(populationStd), selected: [] };
  return { codeRewards, pairs, testRewards, topvar, outcome };
}

/** The UI's record of a scored task. */
export function duelRecord(step: number, g: TaskGrading, s: TaskScores, mistakeBook: MistakeBookDelta): DuelRecord {
  return {
    step,
    task: g.task,
    codes: g.codes.map((c, i) => ({
      text: c.text,
      status: c.status,
      reward: s.codeRewards[i],
      mistake_book_lines: g.bookLines[i],
      suites: g.suites[i].map((suite, j) => ({ text: suite.text, lines: suite.lines, r_val: s.pairs[i][j].r_val, r_adv: s.pairs[i][j].r_adv, reward: s.pairs[i][j].reward })),
    })),
    mistake_book_tests: g.bookTests,
    topvar: s.topvar,
    mistake_book: mistakeBook,
  };
}

/** The rollout half of StepMetrics, over all tasks of a step. */
export type RolloutMetrics = Pick<
  Record<StepMetricKey, number>,
  "code_reward" | "test_reward" | "r_val" | "r_adv" | "test_validity" | "code_loads" | "rollout_fail_rate" | "gen_fail" | "fresh_fail_rate"
>;

/**
 * Means over the step: code_reward over codes; test_reward, r_val, r_adv over suites;
 * test_validity = valid lines / lines read; code_loads = loaded codes / codes. Over the (loaded
 * code, suite) pairs: rollout_fail_rate = share where the code fails at least one executable test,
 * gen_fail = mean of failed_first_n / N (the spec's term of R_adv), fresh_fail_rate = failed /
 * executable fresh tests, pooled.
 * Example: codes [ok, syntax-error], one suite each of 4 valid lines, the ok code failing 1, N 8 ->
 * code_loads 0.5, test_validity 1, rollout_fail_rate 1, gen_fail 1/8, fresh_fail_rate 1/4 (the
 * pair of the broken code does not count).
 */
export function rolloutMetrics(tasks: readonly { grading: TaskGrading; scores: TaskScores }[], n: number): RolloutMetrics {
  const mean = (xs: number[]) => (xs.length > 0 ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const codes: number[] = [];
  const loads: number[] = [];
  const pairs: PairScores[] = [];
  const loadedPairs: PairScores[] = [];
  let lines = 0;
  let valid = 0;
  for (const { grading, scores } of tasks) {
    codes.push(...scores.codeRewards);
    grading.codes.forEach((c, i) => {
      loads.push(c.status === "ok" ? 1 : 0);
      pairs.push(...scores.pairs[i]);
      for (const s of grading.suites[i]) {
        lines += s.lines.length;
        valid += s.lines.filter((l) => l.validity === "valid").length;
      }
      if (c.status === "ok") loadedPairs.push(...scores.pairs[i]);
    });
  }
  const executable = loadedPairs.reduce((a, p) => a + p.counts.unique_executable, 0);
  return {
    code_reward: mean(codes),
    test_reward: mean(pairs.map((p) => p.reward)),
    // Over the pairs whose suite score has them (0 in cure, whose R_T has no R_val / R_adv).
    r_val: mean(pairs.flatMap((p) => (p.r_val === null ? [] : [p.r_val]))),
    r_adv: mean(pairs.flatMap((p) => (p.r_adv === null ? [] : [p.r_adv]))),
    test_validity: lines > 0 ? valid / lines : 0,
    code_loads: mean(loads),
    rollout_fail_rate: mean(loadedPairs.map((p) => (p.counts.failed > 0 ? 1 : 0))),
    gen_fail: mean(loadedPairs.map((p) => genFail(p.counts, n))),
    fresh_fail_rate: executable > 0 ? loadedPairs.reduce((a, p) => a + p.counts.failed, 0) / executable : 0,
  };
}
