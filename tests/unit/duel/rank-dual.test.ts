/** CodeT's dual execution agreement (rank.ts): consensus size x lines passed, the first of the best. */
import { describe, expect, it } from "vitest";
import { argmaxFirst, dualAgreementScores } from "../../../src/core/duel/rank.ts";

const T = true;
const F = false;

describe("dual execution agreement", () => {
  it("outvotes a wrong answer the suites share when most programs disagree with it", () => {
    // Line 2 carries a wrong expected value: one wrong program agrees with it (passes all 3), three
    // right programs fail only that line. Pass rate keeps the wrong one; agreement keeps a right one.
    const passed = [
      [T, T, T], // wrong program matching the wrong answer
      [T, T, F],
      [T, T, F],
      [T, T, F],
    ];
    const rates = passed.map((p) => p.filter(Boolean).length / p.length);
    expect(argmaxFirst(rates)).toBe(0);
    expect(dualAgreementScores(passed)).toEqual([3, 6, 6, 6]);
    expect(argmaxFirst(dualAgreementScores(passed))).toBe(1);
  });

  it("scores 0 for a program passing nothing and for no lines at all; ties go to the lowest index", () => {
    expect(dualAgreementScores([[F, F], [F, F], [T, F]])).toEqual([0, 0, 1]);
    expect(dualAgreementScores([[], [], []])).toEqual([0, 0, 0]);
    expect(argmaxFirst(dualAgreementScores([[], []]))).toBe(0);
    expect(dualAgreementScores([[T, F], [F, T]])).toEqual([1, 1]);
    expect(argmaxFirst(dualAgreementScores([[T, F], [F, T]]))).toBe(0);
  });
});
