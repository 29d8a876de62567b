/**
 * Evaluation metrics as pure functions over grader results (src/core/grader/types.ts). What they
 * measure follows ../shared/spec/code-a1.md, "Evaluation in the paper":
 * - code: plus-pass@1 and golden-pass@1, the mean share of sampled codes that pass every plus /
 *   golden test (EvalPlus's pass@1 over n samples), split by train / heldout;
 * - tests: validity rate, pass@k (suites whose lines are all valid on the reference), and how well
 *   suites catch wrong programs, on two sets of wrong programs measured the same two ways:
 *   - the reference's mutants (mutants.ts) and the task's hand-written buggy variants;
 *   - per suite (`perSuiteRate`: the share a single suite catches, averaged over suites) and
 *     union@k (`unionAtK`: the share caught by at least one of the first k suites; the paper's mut@k).
 *   Mul = pass@k x (a mutant rate) / 100 on the paper's percent scale (Code-A1 1.5B: 7.14).
 * All rates are percentages in [0, 100].
 */
import type { CodeResult, LineResult } from "../grader/types.ts";
import { isHeldout, type Split } from "./task.ts";

/** A line the candidate was actually judged on: valid, or wrong-answer (reference-corrected). */
export function isExecutable(line: LineResult): boolean {
  return line.validity === "valid" || line.validity === "wrong-answer";
}

/**
 * Whether a code passes a test set: it loaded, at least one line was executable, and every
 * executable line passed. Golden and plus tests are all executable by construction.
 */
export function passesAll(code: CodeResult, lines: LineResult[]): boolean {
  if (code.status !== "ok") return false;
  const run = lines.filter(isExecutable);
  return run.length > 0 && run.every((l) => l.verdict === "pass");
}

/**
 * Whether a suite catches a code (kills a mutant, detects a buggy variant): the code did not load,
 * or some executable line did not pass (fail, error or timeout all count, as in the spec).
 */
export function catches(code: CodeResult, lines: LineResult[]): boolean {
  if (code.status !== "ok") return lines.some(isExecutable);
  return lines.some((l) => isExecutable(l) && l.verdict !== "pass" && l.verdict !== "skipped");
}

/** A suite is valid when it has at least one line and every line is valid on the reference. */
export function suiteValid(lines: LineResult[]): boolean {
  return lines.length > 0 && lines.every((l) => l.validity === "valid");
}

/** Share of lines that are valid, over all lines of all suites (100 when there are none). */
export function validityRate(suites: LineResult[][]): number {
  const all = suites.flat();
  return all.length === 0 ? 100 : (100 * all.filter((l) => l.validity === "valid").length) / all.length;
}

/**
 * Unbiased pass@k (Chen et al. 2021, "Evaluating Large Language Models Trained on Code", eq. 1):
 * 1 - C(n - c, k) / C(n, k) for n samples of which c are correct, as a percentage.
 * With fewer than k samples, k is lowered to n.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k) || n < 0 || c < 0 || c > n || k < 1) {
    throw new RangeError(`passAtK needs integers 0 <= c <= n and k >= 1, got n=${n} c=${c} k=${k}`);
  }
  if (n === 0) return 0;
  const kk = Math.min(k, n);
  if (n - c < kk) return 100;
  // prod_{i = n-c+1}^{n} (1 - k / i), the numerically stable form.
  let miss = 1;
  for (let i = n - c + 1; i <= n; i++) miss *= 1 - kk / i;
  return 100 * (1 - miss);
}

/**
 * union@k of one task: the share of wrong programs (mutants or buggy variants) caught by at least
 * one of the first k suites; for mutants this is the paper's mut@k. `hits[s][m]` says whether
 * suite s catches program m. NaN when there are no programs.
 *
 * Example: hits [[T, F, F], [F, T, F]], k 2 -> 2 of 3 caught -> 66.7; k 1 -> 33.3.
 */
export function unionAtK(hits: boolean[][], programs: number, k: number): number {
  if (programs === 0) return NaN;
  const first = hits.slice(0, k);
  let caught = 0;
  for (let m = 0; m < programs; m++) if (first.some((s) => s[m])) caught++;
  return (100 * caught) / programs;
}

/** Mul = pass@k x (mutant rate) / 100 (the paper's combined test-generation score). */
export function mul(passK: number, mutK: number): number {
  return (passK * mutK) / 100;
}

/**
 * Per-suite rate of one task: the mean over suites of the share of wrong programs the suite
 * catches (how bug detection has always been measured, now for mutants too). `hits[s][m]`; NaN
 * when there are no suites or no programs.
 *
 * Example: hits [[T, F, F], [F, T, F]] -> (1/3 + 1/3) / 2 -> 33.3, where union@2 says 66.7.
 */
export function perSuiteRate(hits: boolean[][]): number {
  const rates = hits.filter((row) => row.length > 0).map((row) => row.filter(Boolean).length / row.length);
  return rates.length === 0 ? NaN : (100 * rates.reduce((a, b) => a + b, 0)) / rates.length;
}

/** The columns of `hits` (programs) where `keep` is true: e.g. the hard mutants of every suite's row. */
export function keepColumns(hits: boolean[][], keep: readonly boolean[]): boolean[][] {
  return hits.map((row) => row.filter((_, m) => keep[m]));
}

export interface BySplit {
  all: number;
  train: number;
  /** Every held-out task, whatever its held-out split. */
  heldout: number;
  /** arena-v2's held-out splits (NaN in a suite without them). */
  heldout_compositional: number;
  heldout_family: number;
}

/** Mean of per-task values overall and by split, skipping NaN (NaN where nothing is left). */
export function meanBySplit(values: { split: Split; value: number }[]): BySplit {
  const mean = (xs: number[]) => {
    const ok = xs.filter((x) => !Number.isNaN(x));
    return ok.length === 0 ? NaN : ok.reduce((a, b) => a + b, 0) / ok.length;
  };
  return {
    all: mean(values.map((v) => v.value)),
    train: mean(values.filter((v) => v.split === "train").map((v) => v.value)),
    heldout: mean(values.filter((v) => isHeldout(v.split)).map((v) => v.value)),
    heldout_compositional: mean(values.filter((v) => v.split === "heldout_compositional").map((v) => v.value)),
    heldout_family: mean(values.filter((v) => v.split === "heldout_family").map((v) => v.value)),
  };
}

/** Percentage of true values (NaN for none). */
export function percent(flags: boolean[]): number {
  return flags.length === 0 ? NaN : (100 * flags.filter(Boolean).length) / flags.length;
}
