import { describe, expect, it } from "vitest";
import { IDLE_RUN, applyTrainerEvent, backendLabel, keepRecentDuels, neighbourStep, resolveDuel } from "../../../src/ui/run-state.ts";
import { duel, metricsAt } from "./fixtures.ts";

describe("run state from trainer events", () => {
  it("folds backend, status, steps and errors", () => {
    let s = applyTrainerEvent(IDLE_RUN, { type: "backend", policy: "code", backend: "webgpu", adapter: "SwiftShader", reason: "" });
    s = applyTrainerEvent(s, { type: "status", runId: "r1", status: "running", step: 0, steps: 3, eta_s: null });
    expect(s.backends.code?.adapter).toBe("SwiftShader");
    const entry = { test: "assert f(1) == 2", frequency: 1, first_step: 1, last_step: 1, failed_code: "def f(x):\n    return x" };
    s = applyTrainerEvent(s, { type: "progress", phase: "grade", done: 1, total: 4, text: "grading" });
    expect(s.progress?.phase).toBe("grade");
    s = applyTrainerEvent(s, {
      type: "step", runId: "r1", metrics: metricsAt(1, { code_reward: 0.5 }), duels: [duel(1, "a"), duel(1, "b")],
      mistakeBook: [{ task: "a", step: 1, added: [entry], removed: [], changed: [] }],
    });
    expect(s.step).toBe(1);
    expect(s.progress).toBeNull();
    expect(s.metrics.map((m) => m.code_reward)).toEqual([0.5]);
    expect(s.mistakeBook.tasks.a).toEqual([entry]);
    // the same step again (a resumed run re-commits it) replaces, not duplicates
    s = applyTrainerEvent(s, { type: "step", runId: "r1", metrics: metricsAt(1, { code_reward: 0.6 }), duels: [duel(1, "a")], mistakeBook: [] });
    expect(s.metrics.map((m) => m.code_reward)).toEqual([0.6]);
    expect(s.duels).toHaveLength(1);
    s = applyTrainerEvent(s, { type: "error", name: "GraderError", message: "sandbox died" });
    expect(s.error).toBe("GraderError: sandbox died");
    // another run resets the view but keeps the backend indicator
    s = applyTrainerEvent(s, { type: "status", runId: "r2", status: "running", step: 0, steps: 5, eta_s: null });
    expect(s.metrics).toEqual([]);
    expect(s.backends.code?.backend).toBe("webgpu");
  });
  it("keeps the duel records of the most recent steps only", () => {
    const ds = [1, 2, 3, 4].flatMap((st) => [duel(st, "b"), duel(st, "a")]);
    expect(keepRecentDuels(ds, 2).map((d) => `${d.step}${d.task}`)).toEqual(["3a", "3b", "4a", "4b"]);
  });
  it("resolves the shown duel and steps back and forth", () => {
    const ds = [duel(2, "a"), duel(2, "b"), duel(5, "a"), duel(7, "c")];
    expect(resolveDuel(ds, {})).toMatchObject({ step: 7, task: "c" });
    expect(resolveDuel(ds, { step: 2, task: "b" })).toMatchObject({ step: 2, task: "b" });
    expect(resolveDuel(ds, { step: 5, task: "b" })).toMatchObject({ step: 5, task: "a" });
    expect(resolveDuel([], {})).toBeNull();
    expect(neighbourStep(ds, 5, -1)).toBe(2);
    expect(neighbourStep(ds, 5, 1)).toBe(7);
    expect(neighbourStep(ds, 7, 1)).toBe(7);
    expect(neighbourStep(ds, 3, 1)).toBe(7);
  });
  it("labels the backend indicator with the adapter or the fallback's reason", () => {
    expect(backendLabel(undefined)).toBe("backend: not started");
    expect(backendLabel({ backend: "webgpu", adapter: "SwiftShader", reason: "" })).toBe("webgpu (SwiftShader)");
    expect(backendLabel({ backend: "wasm", adapter: null, reason: "no WebGPU adapter" })).toBe("wasm: no WebGPU adapter");
    // backend-choice.ts's reasons name the backend first: the badge says it once.
    expect(backendLabel({ backend: "wasm", adapter: null, reason: "wasm, because the WebGPU adapter is SwiftShader" })).toBe("wasm, because the WebGPU adapter is SwiftShader");
  });
});
