/**
 * The one-kernel LayerNorm and GELU argument of wasm-fused.ts against the tensor ops they replace, bit
 * for bit: many shapes and value ranges (rows of huge and tiny values, constant rows, a single row),
 * whole sampled rollouts and an update's metrics and checkpoint; C % 4 != 0 keeps the ops.
 */
import * as tf from "@tensorflow/tfjs";
import { beforeAll, describe, expect, it } from "vitest";
import { rolloutSamples } from "../../../../src/core/policy/batch.ts";
import type { ModelConfig } from "../../../../src/core/policy/config.ts";
import { groupAdvantages } from "../../../../src/core/policy/grpo.ts";
import { Policy } from "../../../../src/core/policy/policy.ts";
import { ToyConstraint, TOY_BOS } from "../../../../src/core/policy/toy-constraint.ts";
import { FUSED_OPS_FLAG, fusedGeluInner, fusedLayerNorm, fusedOpsAvailable, fusedOpsCounts, LAYERNORM_EPS } from "../../../../src/core/policy/kernels/wasm-fused.ts";
import { Rng } from "../../../../src/core/rng.ts";
import { setupBackend, withFlag } from "../helpers.ts";

beforeAll(setupBackend);


const bits = (t: tf.Tensor) => Array.from(new Uint32Array(Float32Array.from(t.dataSync()).buffer));

/** The model's LayerNorm as tensor ops (GptModel's layerNorm without the kernel). */
function opsLayerNorm(x: tf.Tensor2D, g: tf.Tensor, b: tf.Tensor): tf.Tensor2D {
  const { mean, variance } = tf.moments(x, -1, true);
  return tf.add(tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, LAYERNORM_EPS))), g), b);
}

describe("one-kernel LayerNorm and GELU argument on wasm", () => {
  it("is used only where C % 4 = 0", () => {
    expect(fusedOpsAvailable(64)).toBe(true);
    expect(fusedOpsAvailable(6)).toBe(false);
  });

  const CASES: { N: number; C: number; scale: number; offset: number }[] = [
    { N: 64, C: 64, scale: 1, offset: 0 },
    { N: 1, C: 4, scale: 3, offset: 0.5 },
    { N: 7, C: 12, scale: 1e4, offset: -2e4 },
    { N: 33, C: 128, scale: 1e-3, offset: 1 },
    { N: 130, C: 256, scale: 50, offset: 7 },
    { N: 5, C: 768, scale: 0.2, offset: -0.1 },
  ];
  for (const { N, C, scale, offset } of CASES) {
    it(`matches the tensor ops bit for bit (${N} x ${C}, values ${offset} +- ${scale})`, () => {
      const rng = new Rng(N * 1000 + C);
      const vals = (n: number, s: number, o: number) => Float32Array.from({ length: n }, () => o + s * (rng.next() * 2 - 1));
      const x = tf.tensor2d(vals(N * C, scale, offset), [N, C]);
      const g = tf.tensor1d(vals(C, 1, 1));
      const b = tf.tensor1d(vals(C, 0.5, 0));
      const calls = fusedOpsCounts.layerNorm;
      const fused = fusedLayerNorm(x, g, b);
      expect(fusedOpsCounts.layerNorm).toBe(calls + 1);
      const ops = opsLayerNorm(x, g, b);
      expect(bits(fused)).toEqual(bits(ops));
      expect(new Set(bits(fused)).size).toBeGreaterThan(Math.min(N * C, 4) - 1);
      tf.dispose([x, g, b, fused, ops]);
    });
  }

  it("matches on constant rows (variance 0) and rows of one large value", () => {
    const C = 16;
    const rows = [new Array(C).fill(3.25), new Array(C).fill(0), Array.from({ length: C }, (_, i) => (i === 5 ? 1e6 : 1e-6))];
    const x = tf.tensor2d(rows);
    const g = tf.tensor1d(Array.from({ length: C }, (_, i) => 1 + i / 10));
    const b = tf.tensor1d(Array.from({ length: C }, (_, i) => i / 100));
    const fused = fusedLayerNorm(x, g, b);
    const ops = opsLayerNorm(x, g, b);
    expect(bits(fused)).toEqual(bits(ops));
    tf.dispose([x, g, b, fused, ops]);
  });

  for (const [n, scale] of [[4, 1], [256 * 64, 3], [1000, 30], [64, 1e-4]] as const) {
    it(`GELU's argument matches the tensor ops bit for bit (${n} values +- ${scale})`, () => {
      const rng = new Rng(n);
      const x = tf.tensor2d(Float32Array.from({ length: n }, () => scale * (rng.next() * 2 - 1)), [n / 4, 4]);
      const c = 2 * Math.sqrt(2 / Math.PI);
      const calls = fusedOpsCounts.geluInner;
      const fused = fusedGeluInner(x, c * 0.044715, c);
      expect(fusedOpsCounts.geluInner).toBe(calls + 1);
      const ops = tf.mul(x, tf.add(tf.mul(tf.square(x), c * 0.044715), c));
      expect(bits(fused)).toEqual(bits(ops));
      tf.dispose([x, fused, ops]);
    });
  }

  const SHAPES: Partial<ModelConfig>[] = [
    { layers: 2, heads: 2, dModel: 32, context: 64 },
    { layers: 1, heads: 3, dModel: 12, context: 64 },
    { layers: 1, heads: 2, dModel: 6, context: 64 }, // C % 4 != 0: the tensor ops either way
  ];
  for (const model of SHAPES) {
    it(`sampled rollouts and the update are the same bit for bit (dModel ${model.dModel})`, async () => {
      const grammar = new ToyConstraint(24, 2, 14);
      const run = (on: boolean) =>
        withFlag(FUSED_OPS_FLAG, on, async () => {
          const policy = Policy.create({ model: { ...model, tiedHead: true }, vocab: 24, seed: `ln-${model.dModel}`, train: { warmupSteps: 0 } });
          const prompts = Array.from({ length: 12 }, (_, i) => [TOY_BOS, ...Array.from({ length: 1 + ((i % 4) * 6) }, (_, j) => 3 + (((i % 4) * 5 + j) % 20))]);
          const rollout = await policy.sample(prompts, grammar, { maxNewTokens: 16, rng: new Rng(23), temperature: 1.2 });
          const stats = await policy.update(rolloutSamples(rollout, groupAdvantages(rollout.completions.map((c) => c.length), 3)), new Rng(5));
          const checkpoint = Array.from(new Uint8Array(await policy.save()));
          policy.dispose();
          return { completions: rollout.completions, logProbs: rollout.logProbs.map((l) => Array.from(l)), stats, checkpoint };
        });
      const calls = { ...fusedOpsCounts };
      const off = await run(false);
      expect(fusedOpsCounts).toEqual(calls);
      const on = await run(true);
      expect(fusedOpsCounts.layerNorm > calls.layerNorm).toBe(model.dModel! % 4 === 0);
      expect(fusedOpsCounts.geluInner > calls.geluInner).toBe(model.dModel! % 4 === 0);
      expect(on).toEqual(off);
      expect(new Set(off.completions.map((c) => c.length)).size).toBeGreaterThan(1);
    });
  }
});
