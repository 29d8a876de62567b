import { describe, expect, it } from "vitest";
import type { LineResult, Validity, Verdict } from "../../../src/core/grader/types.ts";
import {
  codeReward,
  genFail,
  goldenReward,
  histFail,
  passCounts,
  rAdv,
  rVal,
  scorePair,
  suiteCounts,
  testReward,
} from "../../../src/core/loop/rewards.ts";

const L = (validity: Validity, verdict: Verdict): LineResult => ({ validity, verdict, reason: "" });
const V = (verdict: Verdict) => L("valid", verdict);
const W = (verdict: Verdict) => L("wrong-answer", verdict);
const BAD = L("invalid", "skipped");

describe("suiteCounts adapter", () => {
  it("counts executable, invalid, passes and failures (timeouts and errors fail)", () => {
    // 5 valid (2 fail: one timeout, one error), 2 wrong-answer (1 fail), 1 duplicate
    const lines = [V("pass"), V("timeout"), V("pass"), W("fail"), BAD, V("error"), W("pass"), V("pass")];
    expect(suiteCounts(lines)).toEqual({ lines: 8, unique_executable: 7, invalid: 3, passed: 4, failed: 3, failed_first_n: 3 });
  });
  it("gen_fail looks only at the first N executable tests", () => {
    const lines = [V("pass"), V("fail"), BAD, V("fail"), V("fail")];
    expect(suiteCounts(lines, 2).failed_first_n).toBe(1);
    expect(suiteCounts(lines, 3).failed_first_n).toBe(2);
  });
  it("rejects a bad N", () => {
    expect(() => suiteCounts([], 0)).toThrow(/positive integer/);
  });
});

describe("R_val", () => {
  it("is min(unique/N, 1 - invalid/N), clipped", () => {
    expect(rVal({ unique_executable: 7, invalid: 3 })).toBe(0.625);
    expect(rVal({ unique_executable: 8, invalid: 0 })).toBe(1);
    expect(rVal({ unique_executable: 3, invalid: 0 })).toBe(0.375); // short suites are capped by unique/N
    expect(rVal({ unique_executable: 10, invalid: 12 })).toBe(0); // 1 - 12/8 < 0 -> clipped
    expect(rVal({ unique_executable: 12, invalid: 0 })).toBe(1); // 12/8 > 1 -> clipped
  });
});

describe("gen_fail, hist_fail, R_adv", () => {
  it("gen_fail divides by N, not by the suite's size", () => {
    expect(genFail({ failed_first_n: 3 })).toBe(0.375);
    expect(genFail({ failed_first_n: 3 }, 4)).toBe(0.75);
  });
  it("hist_fail = 1 - pass rate on the Mistake Book tests, 0 when there are none", () => {
    expect(histFail({ total: 4, passed: 1 })).toBe(0.75);
    expect(histFail({ total: 0, passed: 0 })).toBe(0);
  });
  it("has three cases", () => {
    const suite = { unique_executable: 6, failed_first_n: 3 };
    // both: (0.375 - 0.75 + 1) / 2
    expect(rAdv(suite, { total: 4, passed: 1 })).toBe(0.3125);
    // only new tests
    expect(rAdv(suite, { total: 0, passed: 0 })).toBe(0.375);
    // only Mistake Book tests
    expect(rAdv({ unique_executable: 0, failed_first_n: 0 }, { total: 4, passed: 0 })).toBe(0);
    // neither
    expect(rAdv({ unique_executable: 0, failed_first_n: 0 }, { total: 0, passed: 0 })).toBe(0);
  });
  it("a code that passes every new test but regresses on old ones lowers R_adv below 1/2", () => {
    expect(rAdv({ unique_executable: 8, failed_first_n: 0 }, { total: 2, passed: 0 })).toBe(0);
    expect(rAdv({ unique_executable: 8, failed_first_n: 8 }, { total: 2, passed: 2 })).toBe(1);
  });
});

describe("R_T", () => {
  it("mixes R_val and R_adv by alpha and is 0 when the code does not run", () => {
    expect(testReward({ alpha: 0.5, rVal: 0.625, rAdv: 0.3125, codeRuns: true })).toBe(0.46875);
    expect(testReward({ alpha: 0.25, rVal: 1, rAdv: 0, codeRuns: true })).toBe(0.25);
    expect(testReward({ alpha: 0.5, rVal: 1, rAdv: 1, codeRuns: false })).toBe(0);
    expect(() => testReward({ alpha: 1.5, rVal: 1, rAdv: 1, codeRuns: true })).toThrow(/alpha/);
  });
  it("scorePair computes all three from grader results", () => {
    const suite = [V("pass"), V("timeout"), V("pass"), W("fail"), BAD, V("error"), W("pass"), V("pass")];
    const book = [V("pass"), V("fail"), V("fail"), V("fail")];
    const s = scorePair({ suite, mistakeBook: book, codeStatus: "ok", alpha: 0.5 });
    // R_val 0.625; gen_fail 3/8; hist_fail 3/4; R_adv (0.375 - 0.75 + 1)/2 = 0.3125
    expect(s.r_val).toBe(0.625);
    expect(s.r_adv).toBe(0.3125);
    expect(s.reward).toBe(0.46875);
    expect(scorePair({ suite, mistakeBook: book, codeStatus: "load-error", alpha: 0.5 })).toMatchObject({ r_val: 0.625, r_adv: 0, reward: 0 });
  });
});

describe("R_C", () => {
  const s = (unique_executable: number, passed: number) => ({ unique_executable, passed });
  it("without Mistake Book: mean Pass_new over suites", () => {
    expect(codeReward({ codeStatus: "ok", suites: [s(4, 4), s(4, 2)], mistakeBook: { total: 0, passed: 0 } })).toBe(0.75);
  });
  it("with Mistake Book: 1/2 (Pass_hist + mean Pass_new)", () => {
    // Pass_hist 3/4; Pass_new 1 and 0.5 -> 1/2 (0.75 + 0.75)
    expect(codeReward({ codeStatus: "ok", suites: [s(4, 4), s(4, 2)], mistakeBook: { total: 4, passed: 3 } })).toBe(0.75);
    expect(codeReward({ codeStatus: "ok", suites: [s(8, 2)], mistakeBook: { total: 2, passed: 2 } })).toBe(0.625);
  });
  it("a suite without executable tests contributes Pass_hist, or 0 without a Mistake Book (reward.py)", () => {
    expect(codeReward({ codeStatus: "ok", suites: [s(0, 0), s(2, 2)], mistakeBook: { total: 4, passed: 2 } })).toBe((0.5 + 0.75) / 2);
    expect(codeReward({ codeStatus: "ok", suites: [s(0, 0), s(2, 2)], mistakeBook: { total: 0, passed: 0 } })).toBe(0.5);
  });
  it("code that fails to load or times out on load scores 0", () => {
    for (const codeStatus of ["syntax-error", "load-error", "timeout"] as const) {
      expect(codeReward({ codeStatus, suites: [s(4, 4)], mistakeBook: { total: 2, passed: 2 } })).toBe(0);
    }
  });
  it("only reference-corrected tests count: invalid lines do not enter Pass_new; timeouts fail", () => {
    const suite = suiteCounts([V("pass"), BAD, BAD, W("pass"), V("timeout")]);
    expect(codeReward({ codeStatus: "ok", suites: [suite], mistakeBook: passCounts([]) })).toBeCloseTo(2 / 3, 12);
  });
  it("golden reward is the golden pass rate, 0 when the code does not load", () => {
    expect(goldenReward("ok", passCounts([V("pass"), V("fail"), V("pass"), V("timeout")]))).toBe(0.5);
    expect(goldenReward("syntax-error", { total: 4, passed: 4 })).toBe(0);
  });
});
