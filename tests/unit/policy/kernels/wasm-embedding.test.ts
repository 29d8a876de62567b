/**
 * The embedding lookup of wasm-embedding.ts against the one-hot products it replaces, bit for bit:
 * values and the table's gradient (repeated, unused and first/last ids, -0 in the table and in the
 * incoming gradient, widths around the 4-column step), and whole GRPO updates and pretraining steps
 * to the same checkpoint bytes.
 */
import * as tf from "@tensorflow/tfjs";
import { beforeAll, describe, expect, it } from "vitest";
import { rolloutSamples } from "../../../../src/core/policy/batch.ts";
import { groupAdvantages } from "../../../../src/core/policy/grpo.ts";
import { Policy } from "../../../../src/core/policy/policy.ts";
import { ToyConstraint, TOY_BOS } from "../../../../src/core/policy/toy-constraint.ts";
import { embeddingKernelAvailable, embedRows, WASM_EMBEDDING_FLAG } from "../../../../src/core/policy/kernels/wasm-embedding.ts";
import { Rng } from "../../../../src/core/rng.ts";
import { setupBackend } from "../helpers.ts";

beforeAll(setupBackend);

const bits = (t: tf.Tensor) => Array.from(new Uint32Array(Float32Array.from(t.dataSync()).buffer));

async function withFlag<T>(on: boolean, f: () => Promise<T>): Promise<T> {
  tf.env().set(WASM_EMBEDDING_FLAG, on);
  try {
    return await f();
  } finally {
    tf.env().set(WASM_EMBEDDING_FLAG, true);
  }
}

describe("embedding rows on wasm", () => {
  it("gives the one-hot product's values and table gradient bit for bit", () => {
    expect(embeddingKernelAvailable()).toBe(true);
    const rng = new Rng(31);
    for (const [V, C, N] of [[5, 1, 3], [16, 7, 40], [40, 8, 200], [256, 64, 300], [9, 13, 1]]) {
      const table = tf.tensor2d(Array.from({ length: V * C }, (_, i) => (i % 9 === 4 ? -0 : rng.next() * 2 - 1)), [V, C]);
      const idList = Array.from({ length: N }, (_, i) => (i % 5 === 0 ? V - 1 : i % 7 === 0 ? 0 : rng.int(Math.max(1, V - 2))));
      const ids = tf.tensor1d(idList, "int32");
      const dy = tf.tensor2d(Array.from({ length: N * C }, (_, i) => (i % 6 === 1 ? -0 : rng.next() * 2 - 1)), [N, C]);
      // The model's one-hot path (model.ts `linear`): explicit transposes, so XNNPACK sums over n in order.
      const hot = tf.oneHot(ids, V);
      const want = C > V ? tf.transpose(tf.matMul(tf.transpose(dy), hot)) : tf.matMul(tf.transpose(hot), dy);
      const rows = tf.grad((t: tf.Tensor) => tf.sum(tf.mul(embedRows(t as tf.Tensor2D, ids), dy)));
      expect(bits(embedRows(table, ids))).toEqual(bits(tf.matMul(hot, table)));
      expect(bits(rows(table))).toEqual(bits(want));
      tf.dispose([table, ids, dy]);
    }
  });

  it("GRPO updates and pretraining steps reach the same checkpoint bytes either way", async () => {
    const grammar = new ToyConstraint(20, 2, 9);
    const run = (on: boolean) =>
      withFlag(on, async () => {
        const policy = Policy.create({
          model: { layers: 2, heads: 2, dModel: 24, context: 64, tiedHead: true },
          vocab: 20,
          seed: "embedding",
          train: { warmupSteps: 0, lr: 1e-2, klCoef: 0.01, microBatchSize: 4 },
        });
        const rng = new Rng(6);
        const prompts = Array.from({ length: 8 }, (_, i) => [TOY_BOS, ...Array.from({ length: 3 + ((i * 5) % 20) }, (_, j) => 3 + ((i + j) % 16))]);
        for (let step = 0; step < 2; step++) {
          const rollout = await policy.sample(prompts, grammar, { maxNewTokens: 10, rng });
          await policy.update(rolloutSamples(rollout, groupAdvantages(rollout.completions.map((c) => c.length % 3), 4)), rng);
        }
        const losses = [];
        for (let step = 0; step < 2; step++) losses.push(await policy.pretrainStep(Array.from({ length: 6 }, () => Array.from({ length: 5 + rng.int(40) }, () => rng.int(20)))));
        const bytes = Array.from(new Uint8Array(await policy.save()));
        policy.dispose();
        return { bytes, losses };
      });
    const off = await run(false);
    const on = await run(true);
    expect(on.bytes.length).toBeGreaterThan(10_000);
    expect(on.bytes).toEqual(off.bytes);
    expect(on.losses).toEqual(off.losses);
  });
});
