import { describe, expect, it } from "vitest";
import { populationStd, topVar } from "../../../src/core/loop/topvar.ts";
import { cureOutcomes, cureSuiteReward, cureTestReward } from "../../../src/core/loop/cure.ts";
import type { LineResult } from "../../../src/core/grader/types.ts";

describe("TopVar", () => {
  it("uses the population std (divide by n)", () => {
    expect(populationStd([0, 1])).toBe(0.5);
    expect(populationStd([2, 4, 4, 4, 5, 5, 7, 9])).toBe(2);
    expect(populationStd([3])).toBe(0);
  });
  it("selects the top-k codes by std, ties to the lower index", () => {
    const r = [[0, 1], [0.5, 0.5], [0.2, 0.6]];
    const one = topVar(r, 1);
    expect(one.std[0]).toBe(0.5);
    expect(one.std[1]).toBe(0);
    expect(one.std[2]).toBeCloseTo(0.2, 12);
    expect(one.selected).toEqual([0]);
    expect(topVar(r, 2).selected).toEqual([0, 2]);
    expect(topVar(r, 10).selected).toEqual([0, 2, 1]);
    expect(topVar([[1, 0], [0, 1], [1, 1]], 2).selected).toEqual([0, 1]);
    expect(() => topVar(r, 0)).toThrow(/topvar_k/);
  });
});

describe("CURE tester reward", () => {
  const correct = [true, true, false, false, false];
  it("+share of wrong codes failed when every correct code passes", () => {
    expect(cureTestReward({ passes: [true, true, false, false, true] }, correct)).toBeCloseTo(2 / 3, 12);
  });
  it("-share of wrong codes passing when a correct code fails", () => {
    expect(cureTestReward({ passes: [true, false, false, true, true] }, correct)).toBeCloseTo(-2 / 3, 12);
  });
  it("edge cases: no wrong codes -> 0; no correct codes -> vacuously positive", () => {
    expect(cureTestReward({ passes: [true, false] }, [true, true])).toBe(0);
    expect(cureTestReward({ passes: [false, true] }, [false, false])).toBe(0.5);
    expect(() => cureTestReward({ passes: [true] }, [true, false])).toThrow(/outcomes/);
  });
  it("suite reward is the mean over its tests", () => {
    const tests = [{ passes: [true, true, false, false, false] }, { passes: [true, false, true, true, true] }];
    expect(cureSuiteReward(tests, correct)).toBe((1 - 1) / 2);
    expect(cureSuiteReward([], correct)).toBe(0);
  });
});

describe("CURE adapter", () => {
  it("one outcome per executable line, a timeout is not a pass", () => {
    const l = (validity: LineResult["validity"], verdict: LineResult["verdict"]): LineResult => ({ validity, verdict, reason: "" });
    const outcomes = cureOutcomes([
      [l("valid", "pass"), l("invalid", "skipped"), l("wrong-answer", "fail")],
      [l("valid", "timeout"), l("invalid", "skipped"), l("wrong-answer", "pass")],
    ]);
    expect(outcomes).toEqual([{ passes: [true, false] }, { passes: [false, true] }]);
    // code 0 correct, code 1 wrong: test 0 is passed by the correct code and failed by the wrong one
    expect(cureSuiteReward(outcomes, [true, false])).toBe((1 + -1) / 2);
    expect(() => cureOutcomes([[l("valid", "pass")], []])).toThrow(/same suite/);
  });
});
