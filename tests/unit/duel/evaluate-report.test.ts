/**
 * The RESULTS.md builder: spread over seeds, the expectations checked on hand-made numbers, and the
 * SVG curve's scaling.
 */
import { describe, expect, it } from "vitest";
import { curveSvg, expectations, meanStd, pairedDifference, pairedTable, resultsFingerprint, resultsMarkdown, type JobResult, type ReportInput } from "../../../src/node/results-report.ts";
import { EVAL_METRIC_KEYS, STEP_METRIC_KEYS, type StepMetrics } from "../../../src/core/loop/types.ts";
import type { EvalMetrics } from "../../../src/core/duel/evaluate.ts";

function metrics(over: Partial<EvalMetrics>): EvalMetrics {
  const zero = Object.fromEntries([...EVAL_METRIC_KEYS, "golden_pass_train", "test_validity", "bug_detection", "tts_plus_pass", "plain_plus_pass"].map((k) => [k, 0]));
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
  const rising = steps({ test_validity: [0.1, 0.1, 0.2, 0.3, 0.5], bug_detection: [0.5, 0.4, 0.4, 0.3, 0.2], r_adv: [0.5, 0.4, 0.3, 0.2, 0.1] }, 5);
  const main = [
    job("base", 1, { plus_pass_heldout: 0.1, plus_pass_train: 0.1, golden_pass_train: 0.2 }),
    job("base", 2, { plus_pass_heldout: 0.1, plus_pass_train: 0.1, golden_pass_train: 0.2 }),
    job("code-a1", 1, { plus_pass_heldout: 0.3, plus_pass_train: 0.4, tts_plus_pass: 0.5, plain_plus_pass: 0.3 }, rising),
    job("code-a1", 2, { plus_pass_heldout: 0.5, plus_pass_train: 0.4, tts_plus_pass: 0.5, plain_plus_pass: 0.3 }, rising),
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
    // first fifth (1 step) vs last fifth: validity 10% -> 50%, bug detection 50% -> 20%.
    expect(lines[2]).toMatch(/test validity rising over training: \*\*holds\*\*: 10\.0% .* 50\.0%/);
    expect(lines[3]).toMatch(/bug detection rising over training: \*\*does not hold\*\*: 50\.0% .* 20\.0%/);
    expect(lines[4]).toMatch(/R_adv falling\): \*\*holds\*\*: 0\.500 early, 0\.100 late/);
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
      ...[1, 2].map((seed) => job("base", seed, { plus_pass_heldout: 0.1, plus_pass_heldout_compositional: 0.2, mul: 1 })),
      // code-a1 above golden-tests by 10 and 20 points; above self-play on Mul by 1 and 5.5.
      job("code-a1", 1, { plus_pass_heldout: 0.4, plus_pass_heldout_compositional: 0.3, mul: 4 }),
      job("code-a1", 2, { plus_pass_heldout: 0.5, plus_pass_heldout_compositional: 0.4, mul: 6 }),
      job("golden-tests", 1, { plus_pass_heldout: 0.3 }),
      job("golden-tests", 2, { plus_pass_heldout: 0.3 }),
      // self-play against base on Mul: +2 and -0.5, an interval that contains 0.
      job("self-play", 1, { plus_pass_heldout: 0.2, mul: 3 }),
      job("self-play", 2, { plus_pass_heldout: 0.2, mul: 0.5 }),
    ];
    const lines = expectations(main, [job("code-a1", 1, { mul: 9 }), { ...job("code-a1", 1, { mul: 2 }), alpha: 0 }].map((j, i) => ({ ...j, alpha: i === 0 ? 1 : 0 })));
    const line = (re: RegExp) => lines.find((l) => re.test(l)) ?? "";
    expect(line(/Code-A1 above Base on plus-pass@1 \(held-out compositional/)).toMatch(/\*\*holds\*\*: 35\.0% vs 20\.0%, paired difference \+15\.0 points/);
    expect(line(/Code-A1 above Golden Tests on code/)).toMatch(/\*\*holds\*\*: 45\.0% vs 30\.0%, paired difference \+15\.0 points, 95% interval \[\+10\.0, \+20\.0\]/);
    expect(line(/Code-A1 above Self-Play on tests \(Mul\)/)).toMatch(/\*\*holds\*\*: 5\.00 vs 1\.75, paired difference \+3\.3 Mul/);
    expect(line(/Self-Play above Base on tests \(Mul\)/)).toMatch(/\*\*undecided\*\*/);
    // No CURE runs: its orderings are left out rather than judged on nothing.
    expect(lines.some((l) => l.includes("CURE"))).toBe(false);
    // alpha 1 (Mul 9) beats 0.5 (code-a1 on the alpha runs' seed 1: 4) and 0 (2).
    expect(line(/alpha = 0\.5 gives the best Mul/)).toMatch(/\*\*does not hold\*\*: 0: 2\.00, 0\.5: 4\.00, 1: 9\.00 \(mean over seed\(s\) 1,/);
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
    const main = [job("code-a1", 1, { mul: 2 }, steps({ code_reward: [0, 1] }, 2)), job("code-a1", 2, { mul: 4 }, steps({ code_reward: [0, 0.5] }, 2)), job("base", 1, {})];
    const svg = curveSvg(main, "code_reward", "R_C");
    expect(svg.match(/<polyline/g)).toHaveLength(1);
    expect(svg).toContain(">code-a1</text>");
    const input: ReportInput = { command: "npm run reproduce", preset: "classroom", steps: 2, seeds: [1, 2], evalSamples: 16, evalK: 5, evalSeed: 0, evalTasks: "all", taskSet: "arena-v2 (48 trained)", main, alpha: [], curveDir: "results", generatedAt: "now", discussion: null };
    const md = resultsMarkdown(input);
    // Mul of code-a1: mean 3, std sqrt(2) = 1.41.
    expect(md).toMatch(/\| code-a1 \| .*\| 3\.00 ± 1\.41 \|/);
    expect(md).toContain("A smoke run");
    expect(md).toContain("![Code reward R_C](results/curve-code-reward.svg)");
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
