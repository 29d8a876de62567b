import * as tf from "@tensorflow/tfjs";
import { beforeAll, describe, expect, it } from "vitest";
import { selectBackend, WASM_SPEEDUP_FLAGS } from "../../../src/core/policy/backend.ts";
import { POLICY_SPEEDUP_FLAGS } from "../../../src/core/policy/policy.ts";
import { learningRate } from "../../../src/core/policy/optimizer.ts";
import { PolicyService } from "../../../src/core/policy/policy-service.ts";
import { TRAIN_DEFAULTS, trainConfig } from "../../../src/core/policy/train-config.ts";
import { rolloutSamples } from "../../../src/core/policy/batch.ts";
import { Rng } from "../../../src/core/rng.ts";
import { setupBackend } from "./helpers.ts";

beforeAll(setupBackend);

describe("selectBackend", () => {
  it("falls back from webgpu to wasm in Node and says why", async () => {
    const choice = await selectBackend(["webgpu", "wasm", "cpu"]);
    expect(choice.backend).toBe("wasm");
    expect(tf.getBackend()).toBe("wasm");
    expect(choice.reason).toMatch(/^wasm, because webgpu is unavailable: navigator\.gpu is missing/);
  });
});

describe("PolicyService (the worker's API, in-thread)", () => {
  const spec = { kind: "toy", params: { vocab: 16, minLength: 1, maxLength: 4 } };

  it("reports the wasm backend's threads; rejects a bad or (in Node) a multi-threaded wasmThreads", async () => {
    const service = new PolicyService();
    expect((await service.init(["wasm"])).wasmThreads).toBe(1);
    expect((await service.init(["wasm"], { wasmThreads: 1 })).wasmThreads).toBe(1);
    for (const bad of [0, 1.5, -2]) await expect(service.init(["wasm"], { wasmThreads: bad })).rejects.toThrow(`wasmThreads must be a positive integer, got ${bad}`);
    await expect(service.init(["wasm"], { wasmThreads: 2 })).rejects.toThrow("tfjs has no multi-threaded wasm build in Node");
    expect(tf.getBackend()).toBe("wasm");
  });

  it("wasmSpeedups switches every speed-up flag off and on again", async () => {
    const service = new PolicyService();
    await service.init(["wasm"], { wasmSpeedups: false });
    for (const flag of [...WASM_SPEEDUP_FLAGS, ...POLICY_SPEEDUP_FLAGS]) expect(tf.env().getBool(flag)).toBe(false);
    await service.init(["wasm"], { wasmSpeedups: true });
    for (const flag of [...WASM_SPEEDUP_FLAGS, ...POLICY_SPEEDUP_FLAGS]) expect(tf.env().getBool(flag)).toBe(true);
  });

  it("refuses to work before init/create, with what to do", async () => {
    const service = new PolicyService();
    await expect(service.create({ size: "tiny", vocab: 16, seed: 1 })).rejects.toThrow(/call init\(\)/);
    await service.init(["wasm"]);
    expect(() => service.info()).toThrow(/call create\(\) or load\(\)/);
  });

  it("samples by grammar name, returns the advanced random state, updates and reloads", async () => {
    const service = new PolicyService();
    expect((await service.init(["wasm"])).backend).toBe("wasm");
    const info = await service.create({ size: "tiny", vocab: 16, seed: 3, train: { warmupSteps: 0 } });
    expect(info.backend).toBe("wasm");
    expect(info.numParams).toBeGreaterThan(100_000);
    const rng = new Rng(9);
    const { rollout, rngState } = await service.sample([[1], [1, 5]], spec, { maxNewTokens: 5, rngState: rng.state() });
    // Same state in, same rollout out: the stream travels by value across the boundary.
    const again = await service.sample([[1], [1, 5]], spec, { maxNewTokens: 5, rngState: rng.state() });
    expect(again.rollout.completions).toEqual(rollout.completions);
    expect(rngState).not.toEqual(rng.state());
    const { metrics } = await service.update(rolloutSamples(rollout, [1, -1]), rngState);
    // Two samples in the default 2 mini-batches (the paper's): two optimiser steps.
    expect(metrics.steps).toBe(2);
    expect(service.info().optimizerStep).toBe(2);
    const buf = await service.save();
    const restored = new PolicyService();
    await restored.init(["wasm"]);
    expect((await restored.load(buf)).optimizerStep).toBe(2);
    await expect(service.sample([[1]], { kind: "haiku" }, { maxNewTokens: 2, rngState: rng.state() })).rejects.toThrow(/unknown constraint kind "haiku": this host knows toy/);
    service.dispose();
    restored.dispose();
  });
});

describe("training config and schedule", () => {
  it("warms up linearly, then decays along a cosine to the floor", () => {
    const cfg = trainConfig({ lr: 1e-3, warmupSteps: 10, totalSteps: 110, minLrRatio: 0.1 });
    expect(learningRate(0, cfg)).toBeCloseTo(1e-4, 12);
    expect(learningRate(9, cfg)).toBeCloseTo(1e-3, 12);
    expect(learningRate(60, cfg)).toBeCloseTo(1e-3 * (0.1 + 0.9 * 0.5), 12); // halfway: cos(pi/2) = 0
    expect(learningRate(110, cfg)).toBeCloseTo(1e-4, 12);
    expect(learningRate(500, cfg)).toBeCloseTo(1e-4, 12);
  });

  it("uses the paper's loss values by default and rejects unknown or bad keys", () => {
    expect(TRAIN_DEFAULTS).toMatchObject({ clipLow: 0.2, clipHigh: 0.28, dualClip: 10, klCoef: 0.001, weightDecay: 0.1, gradClip: 1, warmupSteps: 10, epochs: 1 });
    expect(() => trainConfig({ clip: 0.3 } as never)).toThrow(/unknown training config key "clip"/);
    expect(() => trainConfig({ miniBatchSize: 0 })).toThrow(/miniBatchSize must be a positive integer/);
    expect(() => trainConfig({ dualClip: 1 })).toThrow(/dualClip \(the run's dual_clip\): expected a value in \(1, 1000\]/);
  });
});
