import { describe, expect, it } from "vitest";
import { EVAL_METRIC_KEYS, STEP_METRIC_KEYS } from "../../../src/core/loop/types.ts";
import { CHARTS, chartData, latestValue, overlayData } from "../../../src/ui/series.ts";
import { metricsAt } from "./fixtures.ts";

describe("dashboard series", () => {
  it("charts only metrics that StepMetrics has, and every headline metric of the issue", () => {
    const known = new Set<string>([...STEP_METRIC_KEYS, ...EVAL_METRIC_KEYS]);
    const charted = CHARTS.flatMap((c) => c.series.map((s) => s.key));
    for (const k of charted) expect(known.has(k), k).toBe(true);
    for (const k of ["code_reward", "plus_pass_train", "plus_pass_heldout", "plus_pass_heldout_compositional", "plus_pass_heldout_family", "golden_pass", "test_validity", "r_adv", "gen_fail", "rollout_fail_rate", "mul", "mul_suite", "mut_suite", "bug_detection_heldout",
      "mistake_book_size", "mistake_book_added", "mistake_book_removed", "kl_code", "entropy_code", "time_sample_ms", "time_grade_ms", "time_update_ms"]) {
      expect(charted).toContain(k);
    }
    expect(new Set(CHARTS.map((c) => c.id)).size).toBe(CHARTS.length);
  });
  it("builds columns sorted by step with null gaps for eval-only metrics", () => {
    const pass = CHARTS.find((c) => c.id === "pass")!;
    const data = chartData([metricsAt(2), metricsAt(1, { plus_pass_train: 0.25, plus_pass_heldout: 0.5, plus_pass_heldout_compositional: 0.75, plus_pass_heldout_family: 0.125, golden_pass: 0 })], pass);
    expect(data).toEqual([[1, 2], [0.25, null], [0.5, null], [0.75, null], [0.125, null], [0, null]]);
  });
  it("stacks the time split so the top band is the step total", () => {
    const time = CHARTS.find((c) => c.id === "time")!;
    const data = chartData([metricsAt(1, { time_sample_ms: 100, time_grade_ms: 50, time_update_ms: 25 })], time);
    expect(data).toEqual([[1], [100], [150], [175]]);
  });
  it("finds the latest measured value", () => {
    const ms = [metricsAt(1, { golden_pass: 0.1 }), metricsAt(2), metricsAt(3)];
    expect(latestValue(ms, "golden_pass")).toEqual({ step: 1, value: 0.1 });
    expect(latestValue([], "code_reward")).toBeNull();
  });
  it("overlays runs of different lengths on the union of their steps", () => {
    const a = { label: "a", metrics: [metricsAt(1, { code_reward: 0.1 }), metricsAt(2, { code_reward: 0.2 })] };
    const b = { label: "b", metrics: [metricsAt(2, { code_reward: 0.5 }), metricsAt(3, { code_reward: 0.6 })] };
    expect(overlayData([a, b], "code_reward")).toEqual([[1, 2, 3], [0.1, 0.2, null], [null, 0.5, 0.6]]);
  });
});
