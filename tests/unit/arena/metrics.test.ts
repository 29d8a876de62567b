import { describe, expect, it } from "vitest";
import type { CodeResult, LineResult } from "../../../src/core/grader/types.ts";
import {
  catches, keepColumns, meanBySplit, mul, passAtK, passesAll, percent, perSuiteRate, suiteValid, unionAtK, validityRate,
} from "../../../src/core/arena/metrics.ts";

const ok: CodeResult = { status: "ok", reason: "" };
const line = (validity: LineResult["validity"], verdict: LineResult["verdict"]): LineResult => ({ validity, reason: "", verdict });

describe("passAtK (Chen et al. 2021 unbiased estimator)", () => {
  it("matches hand-computed values", () => {
    // n=5, c=1, k=1: 1/5.
    expect(passAtK(5, 1, 1)).toBeCloseTo(20, 10);
    // n=4, c=2, k=2: 1 - C(2,2)/C(4,2) = 1 - 1/6.
    expect(passAtK(4, 2, 2)).toBeCloseTo((100 * 5) / 6, 10);
    // n=8, c=3, k=5: 1 - C(5,5)/C(8,5) = 1 - 1/56.
    expect(passAtK(8, 3, 5)).toBeCloseTo(100 * (1 - 1 / 56), 10);
  });
  it("is 0 with no correct sample, 100 when a miss is impossible, and caps k at n", () => {
    expect(passAtK(8, 0, 5)).toBe(0);
    expect(passAtK(8, 4, 5)).toBe(100);
    expect(passAtK(3, 1, 5)).toBe(100); // k lowered to 3: every draw includes the correct one
    expect(passAtK(0, 0, 5)).toBe(0);
  });
  it("rejects impossible counts with a clear error", () => {
    expect(() => passAtK(3, 4, 1)).toThrow(/0 <= c <= n/);
    expect(() => passAtK(3, 1, 0)).toThrow(/k >= 1/);
  });
});

describe("line and suite predicates", () => {
  it("passesAll needs a loaded code and every executable line passing", () => {
    expect(passesAll(ok, [line("valid", "pass"), line("wrong-answer", "pass"), line("invalid", "skipped")])).toBe(true);
    expect(passesAll(ok, [line("valid", "pass"), line("valid", "fail")])).toBe(false);
    expect(passesAll(ok, [line("invalid", "skipped")])).toBe(false);
    expect(passesAll({ status: "syntax-error", reason: "x" }, [line("valid", "skipped")])).toBe(false);
  });
  it("catches counts fail, error and timeout, and a code that did not load", () => {
    expect(catches(ok, [line("valid", "pass"), line("wrong-answer", "fail")])).toBe(true);
    expect(catches(ok, [line("valid", "timeout")])).toBe(true);
    expect(catches(ok, [line("valid", "error")])).toBe(true);
    expect(catches(ok, [line("valid", "pass"), line("invalid", "skipped")])).toBe(false);
    expect(catches({ status: "load-error", reason: "x" }, [line("valid", "skipped")])).toBe(true);
    expect(catches({ status: "load-error", reason: "x" }, [line("invalid", "skipped")])).toBe(false);
  });
  it("suiteValid and validityRate count only fully valid lines", () => {
    expect(suiteValid([line("valid", "pass"), line("valid", "fail")])).toBe(true);
    expect(suiteValid([line("valid", "pass"), line("wrong-answer", "pass")])).toBe(false);
    expect(suiteValid([])).toBe(false);
    expect(validityRate([[line("valid", "pass"), line("invalid", "skipped")], [line("wrong-answer", "pass"), line("valid", "pass")]])).toBe(50);
  });
});

describe("union@k, per suite, Mul", () => {
  it("union@k (the paper's mut@k) is the union of kills over the first k suites", () => {
    const kills = [
      [true, false, false, false],
      [false, true, false, false],
      [false, false, true, true], // beyond k = 2
    ];
    expect(unionAtK(kills, 4, 2)).toBe(50);
    expect(unionAtK(kills, 4, 3)).toBe(100);
    expect(unionAtK(kills, 0, 2)).toBeNaN();
  });
  it("the same kills read per suite and as a union: the union grows with k, per suite does not", () => {
    // Each suite kills a different quarter: per suite 25%, union@4 100%.
    const kills = [0, 1, 2, 3].map((s) => [0, 1, 2, 3].map((m) => m === s));
    expect(perSuiteRate(kills)).toBe(25);
    expect(unionAtK(kills, 4, 4)).toBe(100);
    expect(unionAtK(kills, 4, 1)).toBe(perSuiteRate(kills.slice(0, 1)));
  });
  it("keepColumns keeps the chosen programs of every suite (the hard mutants)", () => {
    const kills = [[true, false, true], [false, false, true]];
    expect(keepColumns(kills, [true, false, false])).toEqual([[true], [false]]);
    expect(perSuiteRate(keepColumns(kills, [true, true, false]))).toBe(25);
    expect(perSuiteRate(keepColumns(kills, [false, false, false]))).toBeNaN();
  });
  it("Mul is pass@k x mut@k / 100 on the paper's scale", () => {
    // The paper's Code-A1 1.5B row reads Mul 7.14; e.g. pass@5 = 21 and mut@5 = 34 give 7.14.
    expect(mul(21, 34)).toBeCloseTo(7.14, 10);
  });
  it("bug detection averages the caught share per suite", () => {
    expect(perSuiteRate([[true, false, false], [true, true, true]])).toBeCloseTo((100 * (1 / 3 + 1)) / 2, 10);
    expect(perSuiteRate([])).toBeNaN();
  });
  it("meanBySplit skips NaN and splits train / heldout", () => {
    const m = meanBySplit([
      { split: "train", value: 10 },
      { split: "train", value: NaN },
      { split: "train", value: 30 },
      { split: "heldout", value: 50 },
    ]);
    expect(m).toEqual({ all: 30, train: 20, heldout: 50, heldout_compositional: NaN, heldout_family: NaN });
    // arena-v2's held-out splits: each on its own, and all of them as heldout.
    const v2 = meanBySplit([
      { split: "train", value: 10 },
      { split: "heldout_compositional", value: 40 },
      { split: "heldout_compositional", value: 60 },
      { split: "heldout_family", value: 20 },
    ]);
    expect(v2).toEqual({ all: 32.5, train: 10, heldout: 40, heldout_compositional: 50, heldout_family: 20 });
    expect(percent([true, false, false, true])).toBe(50);
  });
});
