/**
 * The RESULTS.md builder: spread over seeds, the expectations checked on hand-made numbers, and the
 * SVG curve's scaling.
 */
import { describe, expect, it } from "vitest";
import { curveSvg, expectations, meanStd, pairedDifference, pairedTable, resultsFingerprint, resultsMarkdown, type JobResult, type ReportInput } from "../../../src/node/results-report.ts";
import { EVAL_METRIC_KEYS, STEP_METRIC_KEYS, type StepMetrics } from "../../../src/core/loop/types.ts";
import type { EvalMetrics } from "../../../src/core/duel/evaluate.ts";

function metrics(over: Partial<EvalMetrics>): EvalMetrics {
  const zero = Object.fromEntries(
    [...EVAL_METRIC_KEYS, "golden_pass_train", "test_validity", "bug_detection", "bug_k", "bug_k_heldout", "mut_hard_k", "mul_hard_k", "tts_plus_pass", "plain_plus_pass"].map((k) => [k, 0]),
  );
  return { ...zero, ...over } as EvalMetrics;
}

function steps(values: Partial<Record<keyof StepMetrics, number[]>>, n: number): StepMetrics[] {
  return Array.from({ length: n }, (_, i) => {
    const m = Object.fromEntries([...STEP_METRIC_KEYS.map((k) => [k, 0]), ...EVAL_METRIC_KEYS.map((k) => [k, null])]) as unknown as StepMetrics;
    for (const [k, xs] of Object.entries(values)) (m as unknown as Record<string, number>)[k] = xs![i];
    return { ...m, step: i + 1 };
  });
}

const job = (mode: string, seed: number, m: Partial<EvalMetrics>, s: StepMetrics[] = []): JobResult => ({ mode, seed, alpha: 0.5, metrics: metrics(m), steps: s, trainSeconds: 60, visits: s.length ? { min: 3, max: 4 } : { min: 0, max: 0 } });

describe("meanStd", () => {
  it("is the mean and the sample standard deviation, NaN skipped", () => {
    // mean 2, squared deviations 1 + 0 + 1 = 2, / (3 - 1) -> std 1
    expect(meanStd([1, 2, 3, NaN])).toEqual({ mean: 2, std: 1, n: 3 });
    expect(meanStd([5])).toEqual({ mean: 5, std: 0, n: 1 });
    expect(meanStd([NaN]).n).toBe(0);
  });
});

describe("expectations", () => {
  // The rollout failure rate falls (the coder improves) and R_adv rises (the Mistake Book formula) while gen_fail falls.
  const rising = steps({ test_validity: [0.1, 0.1, 0.2, 0.3, 0.5], rollout_fail_rate: [0.5, 0.4, 0.4, 0.3, 0.2], gen_fail: [0.5, 0.4, 0.3, 0.2, 0.1], r_adv: [0.3, 0.4, 0.45, 0.5, 0.5] }, 5);
  const main = [
    job("base", 1, { plus_pass_heldout: 0.1, plus_pass_train: 0.1, golden_pass_train: 0.2, bug_detection_heldout: 0.5, bug_detection: 0.6 }),
    job("base", 2, { plus_pass_heldout: 0.1, plus_pass_train: 0.1, golden_pass_train: 0.2, bug_detection_heldout: 0.5, bug_detection: 0.6 }),
    job("code-a1", 1, { plus_pass_heldout: 0.3, plus_pass_train: 0.4, tts_plus_pass: 0.5, plain_plus_pass: 0.3, bug_detection_heldout: 0.55, bug_detection: 0.5 }, rising),
    job("code-a1", 2, { plus_pass_heldout: 0.5, plus_pass_train: 0.4, tts_plus_pass: 0.5, plain_plus_pass: 0.3, bug_detection_heldout: 0.65, bug_detection: 0.5 }, rising),
    job("golden-tests", 1, { golden_pass_train: 0.6, plus_pass_train: 0.2 }),
    job("golden-tests", 2, { golden_pass_train: 0.6, plus_pass_train: 0.2 }),
    job("self-play", 1, {}, rising),
  ];
  const lines = expectations(main);

  it("judges differences between modes on the paired bootstrap interval, trends on the means", () => {
    // code-a1 - base per seed: +20, +40 points -> interval within [20, 40], above 0.
    expect(lines[0]).toMatch(/^- Code-A1 above base on plus-pass \(held-out\): \*\*holds\*\*: 40\.0% vs 10\.0%, paired difference \+30\.0 points, 95% interval \[\+20\.0, \+40\.0\] over 2 seed/);
    // golden-tests' gap 40 points against the base's 10: +30 beyond the base's own gap.
    expect(lines[1]).toMatch(/Golden-tests fooled .*\*\*holds\*\*: gap 40\.0% vs base 10\.0%, paired difference \+30\.0 points/);
    // first fifth (1 step) vs last fifth: validity 10% -> 50%.
    expect(lines[2]).toMatch(/test validity rising over training: \*\*holds\*\*: 10\.0% .* 50\.0%/);
    // Bug detection is the evaluation's held-out figure against base (+5, +15 points), not the
    // falling rollout failure rate; the old every-task figure is shown beside it.
    expect(lines[3]).toMatch(/^- Code-A1's bug detection above base \(buggy variants a single suite catches, held-out tasks\): \*\*holds\*\*: 60\.0% vs 50\.0%, paired difference \+10\.0 points, 95% interval \[\+5\.0, \+15\.0\]/);
    expect(lines[3]).toContain("old figure (every task) 50.0% vs 60.0%");
    expect(lines.join("\n")).not.toMatch(/rollout|rising over training: \*\*does not hold\*\*/);
    // Judged on gen_fail (0.5 -> 0.1), with R_adv's rise (0.3 -> 0.5) named as the formula switch.
    expect(lines[4]).toMatch(/gen_fail falling\): \*\*holds\*\*: 0\.500 early, 0\.100 late .*R_adv 0\.300 -> 0\.500, not comparable across steps/);
    expect(lines[5]).toMatch(/Test-time scaling .*\*\*holds\*\*: 50\.0% vs 30\.0%, paired difference \+20\.0 points/);
    // code-a1's gap: golden_pass_train 0 (unset) - plus 0.4 = -40 points; golden-tests' +40: +80 beyond it.
    expect(lines[6]).toMatch(/fooled by weak tests, against Code-A1 .*\*\*holds\*\*: gap 40\.0% vs Code-A1 -40\.0%, paired difference \+80\.0 points/);
  });

  it("says undecided when the interval contains 0, and not measurable without paired seeds", () => {
    const close = [
      job("base", 1, { plus_pass_heldout: 0.3 }), job("base", 2, { plus_pass_heldout: 0.3 }),
      job("code-a1", 1, { plus_pass_heldout: 0.1 }), job("code-a1", 2, { plus_pass_heldout: 0.6 }),
    ];
    expect(expectations(close)[0]).toMatch(/\*\*undecided\*\* \(the interval contains 0\)/);
    expect(expectations([job("code-a1", 1, { plus_pass_heldout: 0.3 })])[0]).toMatch(/\*\*not measurable\*\*: .*no paired seeds/);
    // One seed gives a point, not an interval: no verdict.
    expect(expectations([job("base", 1, { plus_pass_heldout: 0.1 }), job("code-a1", 1, { plus_pass_heldout: 0.3 })])[0]).toMatch(/\*\*undecided\*\* \(one seed: no interval\): .*difference \+20\.0 points on one seed/);
  });
});

describe("the paper's orderings", () => {
  it("pairs two trained modes seed by seed, on held-out plus-pass for code and on Mul for tests", () => {
    const main = [
      ...[1, 2].map((seed) => job("base", seed, { plus_pass_heldout: 0.1, plus_pass_heldout_compositional: 0.2, plus_pass_heldout_family: 0.1, mul_suite: 1, mul: 1 })),
      // code-a1 above golden-tests by 10 and 20 points; above self-play on Mul per suite by 1 and 5.5; tied on the old Mul.
      job("code-a1", 1, { plus_pass_heldout: 0.4, plus_pass_heldout_compositional: 0.3, plus_pass_heldout_family: 0.1, mul_suite: 4, mul: 30 }),
      job("code-a1", 2, { plus_pass_heldout: 0.5, plus_pass_heldout_compositional: 0.4, plus_pass_heldout_family: 0.1, mul_suite: 6, mul: 30 }),
      job("golden-tests", 1, { plus_pass_heldout: 0.3 }),
      job("golden-tests", 2, { plus_pass_heldout: 0.3 }),
      // self-play against base on Mul per suite: +2 and -0.5, an interval that contains 0.
      job("self-play", 1, { plus_pass_heldout: 0.2, mul_suite: 3, mul: 30 }),
      job("self-play", 2, { plus_pass_heldout: 0.2, mul_suite: 0.5, mul: 30 }),
    ];
    const sweep = [job("code-a1", 1, { mul_suite: 9, mul: 3 }), job("code-a1", 1, { mul_suite: 2, mul: 40 })].map((j, i) => ({ ...j, alpha: i === 0 ? 1 : 0 }));
    const lines = expectations(main, sweep);
    const line = (re: RegExp) => lines.find((l) => re.test(l)) ?? "";
    expect(line(/Code-A1 above Base on plus-pass@1 \(held-out compositional/)).toMatch(/\*\*holds\*\*: 35\.0% vs 20\.0%, paired difference \+15\.0 points/);
    expect(line(/Code-A1 above Base on plus-pass@1 \(held-out family/)).toMatch(/\*\*does not hold\*\*|\*\*undecided\*\*/);
    expect(line(/Code-A1 above Golden Tests on code/)).toMatch(/\*\*holds\*\*: 45\.0% vs 30\.0%, paired difference \+15\.0 points, 95% interval \[\+10\.0, \+20\.0\]/);
    expect(line(/Code-A1 above Self-Play on tests \(Mul per suite, hard mutants\)/)).toMatch(/\*\*holds\*\*: 5\.00 vs 1\.75, paired difference \+3\.3 Mul/);
    // The old Mul is judged beside it, labelled as such.
    expect(line(/Code-A1 above Self-Play on tests \(old Mul: union@k over every mutant\)/)).toMatch(/30\.00 vs 30\.00/);
    expect(line(/Self-Play above Base on tests \(Mul per suite/)).toMatch(/\*\*undecided\*\*/);
    // No CURE runs: its orderings are left out rather than judged on nothing.
    expect(lines.some((l) => l.includes("CURE"))).toBe(false);
    // alpha 1 (Mul per suite 9) beats 0.5 (code-a1 on the alpha runs' seed 1: 4) and 0 (2); the old Mul peaks at 0.
    expect(line(/alpha = 0\.5 gives the best Mul/)).toMatch(/\(Mul per suite; .*\*\*does not hold\*\*: 0: 2\.00, 0\.5: 4\.00, 1: 9\.00; union@k over hard mutants .*; old Mul 0: 40\.00, 0\.5: 30\.00, 1: 3\.00 \(mean over seed\(s\) 1,/);
  });
});

describe("paired differences", () => {
  it("pairs seeds, and bootstraps a 95% interval over them (seeded, so reproducible)", () => {
    const base = [1, 2, 3].map((seed) => job("base", seed, { plus_pass_heldout: 0.1 }));
    const mode = [1, 2, 3].map((seed) => job("code-a1", seed, { plus_pass_heldout: 0.1 + 0.1 * seed }));
    const p = pairedDifference(mode, base, "plus_pass_heldout");
    expect(p.n).toBe(3);
    expect(p.mean).toBeCloseTo(0.2, 12);
    expect(p.lo).toBeGreaterThanOrEqual(0.1 - 1e-12);
    expect(p.hi).toBeLessThanOrEqual(0.3 + 1e-12);
    expect(p.lo).toBeLessThan(p.mean);
    expect(pairedDifference(mode, base, "plus_pass_heldout")).toEqual(p);
    // A seed without a base partner is not paired.
    expect(pairedDifference([...mode, job("code-a1", 9, { plus_pass_heldout: 1 })], base, "plus_pass_heldout").n).toBe(3);
    const table = pairedTable([...base, ...mode, job("golden-tests", 1, { plus_pass_heldout: 0.3 })]);
    expect(table).toMatch(/\| code-a1 \| 3 \| 20\.0 \[/);
    expect(table).toMatch(/\| golden-tests \| 1 \| 20\.0 \[20\.0, 20\.0\] .*base Test policy/);
    expect(table.split("\n").find((l) => l.startsWith("| golden-tests"))!.match(/base Test policy/g)).toHaveLength(3);
    // A mode with ablations is its own row, after the known modes.
    const variant = pairedTable([...base, ...mode, job("self-play+no-mistake-book+no-topvar", 1, { plus_pass_heldout: 0.1 })]).split("\n");
    expect(variant.at(-1)).toMatch(/^\| self-play\+no-mistake-book\+no-topvar \| 1 \| 0\.0 /);
  });
});

describe("report", () => {
  it("draws one polyline per trained mode and renders the table with mean +- std", () => {
    const main = [job("code-a1", 1, { mul_suite: 2, mul: 20 }, steps({ code_reward: [0, 1] }, 2)), job("code-a1", 2, { mul_suite: 4, mul: 40 }, steps({ code_reward: [0, 0.5] }, 2)), job("base", 1, {})];
    const svg = curveSvg(main, "code_reward", "R_C");
    expect(svg.match(/<polyline/g)).toHaveLength(1);
    expect(svg).toContain(">code-a1</text>");
    const input: ReportInput = { command: "npm run reproduce", preset: "classroom", steps: 2, seeds: [1, 2], evalSamples: 16, evalK: 5, evalSeed: 0, evalTasks: "all", taskSet: "arena-v2 (48 trained)", main, alpha: [], curveDir: "results", generatedAt: "now", discussion: null };
    const md = resultsMarkdown(input);
    // Mul per suite of code-a1: mean 3, std sqrt(2) = 1.41; the old Mul beside it in the test table: 30 ± 14.14.
    expect(md).toMatch(/\| code-a1 \| .*\| 3\.00 ± 1\.41 \|/);
    expect(md).toMatch(/\| hard mutants per suite \(%\) \| hard mutants union@k \(%\) \| Mul per suite \| Mul union@k \| .* \| old: Mul \|/);
    expect(md).toMatch(/\| code-a1 \| .*\| 3\.00 ± 1\.41 \| .*\| 30\.00 ± 14\.14 \| /);
    expect(md).toContain("A smoke run");
    expect(md).toContain("![Code reward R_C](results/curve-code-reward.svg)");
    // The rollout rate under its own name, with the old name said once.
    expect(md).toContain("![Rollout failure rate (code, suite pairs)](results/curve-rollout-fail-rate.svg)");
    expect(md).toContain('called "Bug detection (pairs)" before');
    expect(md).not.toContain("![Bug detection");
    // k and n as evaluated, the evaluation seed, and per-run recurrence (steps() sets replays to 0).
    expect(md).toContain("k = 5 (n = 16)");
    expect(md).toContain("evaluation seed 0 for every run");
    expect(md).toMatch(/\| code-a1 \| 1 \| 2 \| 3-4 \| 0 \| 0 \|/);
    expect(md).toContain("Task set arena-v2 (48 trained)");
    expect(md).toContain("(no discussion written for these numbers yet");
  });

  it("embeds the hand-written discussion, and flags it when the numbers it was written for changed", () => {
    const main = [job("base", 1, { plus_pass_heldout: 0.1 }), job("code-a1", 1, { plus_pass_heldout: 0.3 })];
    const fp = resultsFingerprint(main);
    expect(fp).toMatch(/^[0-9a-f]{12}$/);
    const input = { command: "c", preset: "classroom", steps: 60, seeds: [1], evalSamples: 16, evalK: 5, evalSeed: 0, evalTasks: "all", taskSet: "t", alpha: [], curveDir: "results", generatedAt: "now" };
    const discussion = `<!-- results ${fp} -->\nCode-A1 gains because the Test policy reads the code.\n`;
    const fresh = resultsMarkdown({ ...input, main, discussion });
    expect(fresh).toContain("Code-A1 gains because the Test policy reads the code.");
    expect(fresh).not.toContain("written for other numbers");
    expect(fresh).toContain(`results fingerprint ${fp}`);
    // One metric moves by a point: the fingerprint changes and the report warns.
    const moved = [main[0], job("code-a1", 1, { plus_pass_heldout: 0.31 })];
    expect(resultsFingerprint(moved)).not.toBe(fp);
    const stale = resultsMarkdown({ ...input, main: moved, discussion });
    expect(stale).toContain(`written for other numbers (results ${fp}, these are ${resultsFingerprint(moved)})`);
    expect(stale).toContain("Code-A1 gains because the Test policy reads the code.");
  });
});
