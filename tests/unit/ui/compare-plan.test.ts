import { describe, expect, it } from "vitest";
import { presetConfig, type Config } from "../../../src/core/config/index.ts";
import { PAPER_COMPARISON, RunQueue, comparisonConfigs } from "../../../src/ui/compare-plan.ts";

describe("paper comparison queue", () => {
  it("makes one config per mode with the same seed and settings", () => {
    const base = presetConfig("classroom", { seed: 9, alpha: 0.25 });
    const cs = comparisonConfigs(base);
    expect(cs.map((c) => c.mode)).toEqual(["base", "golden-tests", "self-play", "code-a1"]);
    for (const c of cs) expect({ ...c, mode: base.mode }).toEqual(base);
    expect(PAPER_COMPARISON).toHaveLength(4);
  });
  it("starts runs one after another on terminal status events, and clears on stop", async () => {
    const startedModes: string[] = [];
    const q = new RunQueue(async (c: Config) => {
      startedModes.push(c.mode);
      return `run-${startedModes.length}`;
    });
    await q.enqueue(comparisonConfigs(presetConfig("classroom")));
    expect(startedModes).toEqual(["base"]);
    await q.onEvent({ type: "status", runId: "run-1", status: "running", step: 1, steps: 30, eta_s: null });
    expect(startedModes).toEqual(["base"]);
    await q.onEvent({ type: "status", runId: "other", status: "done", step: 1, steps: 1, eta_s: null });
    expect(startedModes).toEqual(["base"]);
    await q.onEvent({ type: "status", runId: "run-1", status: "done", step: 30, steps: 30, eta_s: null });
    expect(startedModes).toEqual(["base", "golden-tests"]);
    await q.onEvent({ type: "status", runId: "run-2", status: "failed", step: 3, steps: 30, eta_s: null });
    expect(q.snapshot.current).toBe("run-3");
    await q.onEvent({ type: "status", runId: "run-3", status: "stopped", step: 3, steps: 30, eta_s: null });
    expect(q.snapshot).toMatchObject({ pending: [], current: null, started: ["run-1", "run-2", "run-3"] });
    expect(q.snapshot.error).toMatch(/stopped/);
  });
  it("reports a start failure and drops the rest", async () => {
    const q = new RunQueue(async () => {
      throw new Error("no WebGPU and no wasm");
    });
    await q.enqueue(comparisonConfigs(presetConfig("classroom")));
    expect(q.snapshot.error).toBe("could not start the base run: no WebGPU and no wasm");
    expect(q.snapshot.pending).toEqual([]);
  });
});

describe("re-run and compare", () => {
  it("reports identical metrics as reproduced, ignoring wall-clock timings", async () => {
    const { compareMetrics } = await import("../../../src/ui/compare-plan.ts");
    const { metricsAt } = await import("./fixtures.ts");
    const a = [metricsAt(1, { code_reward: 0.5, time_grade_ms: 100 }), metricsAt(2, { code_reward: 0.6, golden_pass: 0.25 })];
    const b = [metricsAt(1, { code_reward: 0.5, time_grade_ms: 900 }), metricsAt(2, { code_reward: 0.6, golden_pass: 0.25 }), metricsAt(3)];
    expect(compareMetrics(a, b)).toEqual({ steps: 2, reproduced: true, firstDifference: null });
  });
  it("names the first step and metric that differ, and a run with no common step reproduces nothing", async () => {
    const { compareMetrics } = await import("../../../src/ui/compare-plan.ts");
    const { metricsAt } = await import("./fixtures.ts");
    const a = [metricsAt(1, { code_reward: 0.5 }), metricsAt(2, { r_adv: 0.1, golden_pass: 0.2 })];
    const b = [metricsAt(1, { code_reward: 0.5 }), metricsAt(2, { r_adv: 0.1, golden_pass: null })];
    expect(compareMetrics(a, b).firstDifference).toEqual({ step: 2, key: "golden_pass", a: 0.2, b: null });
    expect(compareMetrics(a, [metricsAt(1, { code_reward: 0.5 + 1e-9 })], 1e-6).reproduced).toBe(true);
    expect(compareMetrics(a, [metricsAt(9)]).reproduced).toBe(false);
  });
});
