import { describe, expect, it } from "vitest";
import type { LineResult, Validity, Verdict } from "../../../src/core/grader/types.ts";
import { emptyMistakeBook, updateMistakeBook } from "../../../src/core/loop/mistake-book.ts";
import { duelRecord, rolloutMetrics, scoreTask, type TaskGrading } from "../../../src/core/loop/score-task.ts";
import { rewardMatrix } from "../../../src/core/loop/types.ts";

const L = (validity: Validity, verdict: Verdict, corrected?: string): LineResult => ({ validity, verdict, reason: "", corrected });
const ok = (i: number) => L("valid", "pass", `assert f(${i}) == ${i}`);
const bad = (i: number) => L("valid", "fail", `assert f(${i}) == ${i}`);

/** Two codes, two suites each, two Mistake Book tests. */
const grading: TaskGrading = {
  task: "t",
  codes: [
    { text: "A", status: "ok" },
    { text: "B", status: "syntax-error" },
  ],
  suites: [
    [
      { text: "s00", lines: [ok(1), ok(2), bad(3), bad(4), ok(5), ok(6), ok(7), ok(8)] }, // 8 valid, 2 fail
      { text: "s01", lines: [ok(1), L("invalid", "skipped"), L("wrong-answer", "fail", "assert f(9) == 9"), ok(2)] }, // 3 executable, 2 invalid, 1 fail
    ],
    [
      { text: "s10", lines: [L("valid", "skipped", "assert f(1) == 1")] },
      { text: "s11", lines: [L("invalid", "skipped")] },
    ],
  ],
  bookTests: ["assert f(0) == 0", "assert f(-1) == -1"],
  bookLines: [
    [L("valid", "pass"), L("valid", "fail")],
    [L("valid", "skipped"), L("valid", "skipped")],
  ],
};

describe("scoreTask", () => {
  const s = scoreTask(grading, { alpha: 0.5, n: 8, topvarK: 1 });

  it("computes R_T per pair by hand", () => {
    // s00: R_val min(8/8, 1) = 1; gen_fail 2/8; hist_fail 1/2 -> R_adv (0.25 - 0.5 + 1)/2 = 0.375; R_T 0.6875
    expect(s.pairs[0][0]).toMatchObject({ r_val: 1, r_adv: 0.375, reward: 0.6875 });
    // s01: R_val min(3/8, 1 - 2/8) = 0.375; gen_fail 1/8 -> R_adv (0.125 - 0.5 + 1)/2 = 0.3125; R_T 0.34375
    expect(s.pairs[0][1]).toMatchObject({ r_val: 0.375, r_adv: 0.3125, reward: 0.34375 });
    expect(s.testRewards).toEqual([[0.6875, 0.34375], [0, 0]]);
  });
  it("computes R_C by hand", () => {
    // A: Pass_hist 1/2; Pass_new 6/8 and 2/3 -> ((0.5 + 0.75)/2 + (0.5 + 2/3)/2) / 2
    expect(s.codeRewards[0]).toBeCloseTo((0.625 + 7 / 12) / 2, 12);
    expect(s.codeRewards[1]).toBe(0);
  });
  it("TopVar picks the code whose suites disagree most", () => {
    expect(s.topvar.selected).toEqual([0]);
    expect(s.topvar.std[0]).toBeCloseTo((0.6875 - 0.34375) / 2, 12);
  });
  it("Mistake Book outcome: failures of the loaded code only", () => {
    expect(s.outcome).toEqual({
      failed: ["assert f(3) == 3", "assert f(4) == 4", "assert f(9) == 9"].map((test) => ({ test, code: "A" })),
      passed: ["assert f(0) == 0"],
      refused: [],
    });
  });
  it("duel record and rollout metrics", () => {
    const { delta } = updateMistakeBook(emptyMistakeBook(), "t", 1, s.outcome);
    const rec = duelRecord(1, grading, s, delta);
    expect(rewardMatrix(rec)).toEqual(s.testRewards);
    expect(rec.codes[0].suites[1]).toMatchObject({ text: "s01", r_val: 0.375 });
    expect(rec.mistake_book.added.length).toBe(3);
    const m = rolloutMetrics([{ grading, scores: s }], 8);
    expect(m.code_loads).toBe(0.5);
    expect(m.test_validity).toBe(11 / 14); // valid lines: 8 + 2 + 1 + 0 of 14 lines
    expect(m.rollout_fail_rate).toBe(1); // both suites of the loaded code expose a failure
    // Over the loaded code's two suites: gen_fail (2/8 + 1/8) / 2; fresh tests failed 3 of 8 + 3 executable.
    expect(m.gen_fail).toBe((2 / 8 + 1 / 8) / 2);
    expect(m.fresh_fail_rate).toBe(3 / 11);
    // R_adv of the same pairs is (gen_fail - hist_fail + 1) / 2 (Mistake Book tests exist): 0.375 and 0.3125, above gen_fail.
    expect(m.test_reward).toBe((0.6875 + 0.34375) / 4);
    // R_val is the suite's own (valid on the reference); code B's suites: min(1/8, 1) and 0
    expect(m.r_val).toBe((1 + 0.375 + 0.125 + 0) / 4);
    expect(m.r_adv).toBe((0.375 + 0.3125 + 0 + 0) / 4);
    expect(m.code_reward).toBeCloseTo(s.codeRewards[0] / 2, 12);
  });
  it("refuses mismatched shapes", () => {
    expect(() => scoreTask({ ...grading, bookLines: [] }, { alpha: 0.5, n: 8, topvarK: 1 })).toThrow(/2 codes but 2 suite groups and 0/);
  });
});
