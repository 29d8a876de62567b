/**
 * Scoring of one task in one step, composed from the formulas (rewards.ts, topvar.ts,
 * mistake-book.ts): the grader's results in; R_C per code, R_T per (code, suite), the TopVar choice
 * and the Mistake Book outcome out. Plus the duel record for the UI and the step's rollout metrics.
 * Pure: the training step calls it once per task between grading and the GRPO updates.
 */
import type { CodeStatus, LineResult } from "../grader/types.ts";
import { mistakeBookOutcome, type MistakeBookDelta, type MistakeBookOutcome } from "./mistake-book.ts";
import { codeReward, passCounts, scorePair, type PairScores } from "./rewards.ts";
import { topVar, type TopVarChoice } from "./topvar.ts";
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
}

export interface ScoreOptions {
  alpha: number;
  /** N, tests per suite. */
  n: number;
  /** TopVar's k. */
  topvarK: number;
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
 * Score one task.
 *
 * Example (alpha 0.5, N 8, no Mistake Book): one loaded code, one suite of 8 valid lines of which
 * it fails 2 -> R_val 1, R_adv 2/8, R_T 0.625; R_C = 6/8 = 0.75.
 */
export function scoreTask(g: TaskGrading, o: ScoreOptions): TaskScores {
  if (g.suites.length !== g.codes.length || g.bookLines.length !== g.codes.length) {
    throw new RangeError(`task ${g.task}: ${g.codes.length} codes but ${g.suites.length} suite groups and ${g.bookLines.length} Mistake Book results`);
  }
  const pairs = g.codes.map((c, i) =>
    g.suites[i].map((s) => scorePair({ suite: s.lines, mistakeBook: g.bookLines[i], codeStatus: c.status, alpha: o.alpha, n: o.n })),
  );
  const codeRewards = g.codes.map((c, i) =>
    codeReward({ codeStatus: c.status, suites: pairs[i].map((p) => p.counts), mistakeBook: passCounts(g.bookLines[i]) }),
  );
  const testRewards = pairs.map((row) => row.map((p) => p.reward));
  const outcome = mistakeBookOutcome(
    g.bookTests,
    g.codes.map((c, i) => ({ code: c.text, loaded: c.status === "ok", suites: g.suites[i].map((s) => s.lines), bookLines: g.bookLines[i] })),
  );
  return { codeRewards, pairs, testRewards, topvar: topVar(testRewards, o.topvarK), outcome };
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
export type RolloutMetrics = Pick<Record<StepMetricKey, number>, "code_reward" | "test_reward" | "r_val" | "r_adv" | "test_validity" | "code_loads" | "bug_detection">;

/**
 * Means over the step: code_reward over codes; test_reward, r_val, r_adv over suites;
 * test_validity = valid lines / lines read; code_loads = loaded codes / codes; bug_detection =
 * share of (loaded code, suite) pairs where the code fails at least one executable test.
 * Example: codes [ok, syntax-error], one suite each of 4 valid lines, the ok code failing 1 ->
 * code_loads 0.5, test_validity 1, bug_detection 1 (the pair of the broken code does not count).
 */
export function rolloutMetrics(tasks: readonly { grading: TaskGrading; scores: TaskScores }[]): RolloutMetrics {
  const mean = (xs: number[]) => (xs.length > 0 ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const codes: number[] = [];
  const loads: number[] = [];
  const pairs: PairScores[] = [];
  const detected: number[] = [];
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
      if (c.status === "ok") for (const p of scores.pairs[i]) detected.push(p.counts.failed > 0 ? 1 : 0);
    });
  }
  return {
    code_reward: mean(codes),
    test_reward: mean(pairs.map((p) => p.reward)),
    r_val: mean(pairs.map((p) => p.r_val)),
    r_adv: mean(pairs.map((p) => p.r_adv)),
    test_validity: lines > 0 ? valid / lines : 0,
    code_loads: mean(loads),
    bug_detection: mean(detected),
  };
}
