import { EVAL_METRIC_KEYS, STEP_METRIC_KEYS, type DuelRecord, type StepMetrics } from "../../../src/core/loop/types.ts";
import type { LineResult } from "../../../src/core/grader/types.ts";

/** StepMetrics with every step metric = `fill`, eval metrics null, then `over`. */
export function metricsAt(step: number, over: Partial<StepMetrics> = {}, fill = 0): StepMetrics {
  const m: Record<string, number | null> = { step };
  for (const k of STEP_METRIC_KEYS) m[k] = fill;
  for (const k of EVAL_METRIC_KEYS) m[k] = null;
  return { ...(m as StepMetrics), ...over };
}

export const PASS: LineResult = { validity: "valid", reason: "", verdict: "pass", corrected: "assert f(1) == 1" };
export const FAIL: LineResult = { validity: "valid", reason: "got 2", verdict: "fail", corrected: "assert f(2) == 3" };

export function duel(step: number, task: string, rewards: number[][] = [[1, 0]]): DuelRecord {
  return {
    step,
    task,
    codes: rewards.map((row) => ({
      text: "def f(x):\n    return x",
      status: "ok",
      reward: 0.5,
      mistake_book_lines: [],
      suites: row.map((r) => ({ text: "assert f(1) == 1", lines: [PASS], r_val: 1, r_adv: 0, reward: r })),
    })),
    mistake_book_tests: [],
    topvar: { std: rewards.map(() => 0.5), selected: [0] },
    mistake_book: { task, step, added: [], removed: [], changed: [] },
  };
}
