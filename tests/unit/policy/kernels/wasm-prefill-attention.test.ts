/**
 * The prefill's attention kernels of wasm-prefill-attention.ts against the tensor ops they replace in
 * GptModel.forward, bit for bit: logits and the caches' keys and values, over head widths 4 to 16,
 * T on both sides of the 48-key block, left padding left out (packed) or computed (unpacked, padding
 * queries whose keys are all masked included), every position or each row's last, tied and untied
 * heads; sampled rollouts; and where the kernels decline.
 */
import * as tf from "@tensorflow/tfjs";
import { beforeAll, describe, expect, it } from "vitest";
import type { ModelConfig } from "../../../../src/core/policy/config.ts";
import { attentionBias, GptModel } from "../../../../src/core/policy/model.ts";
import { sampleBatch } from "../../../../src/core/policy/sampler.ts";
import { ToyConstraint, TOY_BOS } from "../../../../src/core/policy/toy-constraint.ts";
import { PREFILL_ATTENTION_FLAG, prefillAttentionAvailable, prefillAttentionCounts } from "../../../../src/core/policy/kernels/wasm-prefill-attention.ts";
import { Rng } from "../../../../src/core/rng.ts";
import { setupBackend, withFlag } from "../helpers.ts";

beforeAll(setupBackend);

const bits = (a: tf.Tensor) => Array.from(new Uint32Array(Float32Array.from(a.dataSync() as Float32Array).buffer));

/** A prefill's logits, keys and values (as bit patterns) with the kernels on or off, and how many times they ran. */
function prefill(model: GptModel, pads: number[], T: number, opts: { packed: boolean; lastOnly: boolean }, on: boolean) {
  const { vocab } = model.config;
  const rng = new Rng(`tokens-${T}`);
  const B = pads.length;
  const tokens = pads.map((p) => Array.from({ length: T }, (_, t) => (t < p ? 0 : 1 + rng.int(vocab - 1))));
  const positions = pads.map((p) => Array.from({ length: T }, (_, t) => Math.max(0, t - p)));
  tf.env().set(PREFILL_ATTENTION_FLAG, on);
  try {
    const calls = prefillAttentionCounts.calls;
    const out = tf.tidy(() => {
      const o = model.forward({
        tokens: tf.tensor2d(tokens, [B, T], "int32"),
        positions: tf.tensor2d(positions, [B, T], "int32"),
        attnBias: attentionBias(pads, T, T),
        ...(opts.packed ? { leftPad: pads } : {}),
        lastOnly: opts.lastOnly,
      });
      return [bits(o.logits), ...o.present.flatMap((c) => [bits(c.k), bits(c.v)])];
    });
    return { out, calls: prefillAttentionCounts.calls - calls };
  } finally {
    tf.env().set(PREFILL_ATTENTION_FLAG, true);
  }
}

describe("a prefill's attention in wasm kernels", () => {
  const cases: { cfg: ModelConfig; pads: number[]; T: number; qkvScale?: number }[] = [
    { cfg: { layers: 2, heads: 4, dModel: 64, context: 128, vocab: 37, tiedHead: true }, pads: [0, 5, 30, 71], T: 72 }, // D 16, two key blocks, a row of one real token
    { cfg: { layers: 2, heads: 2, dModel: 16, context: 128, vocab: 29, tiedHead: false }, pads: [3, 0, 1], T: 20 }, // D 8, one block
    { cfg: { layers: 1, heads: 3, dModel: 12, context: 128, vocab: 23, tiedHead: true }, pads: [0, 0], T: 49 }, // D 4, no padding, one key past the block
    { cfg: { layers: 2, heads: 1, dModel: 8, context: 128, vocab: 23, tiedHead: false }, pads: [47, 2, 0], T: 97 }, // one head, three blocks
    // Scores large enough (> 32 from -1e9's float32 neighbours) that a padding query's all-masked row is not uniform.
    { cfg: { layers: 2, heads: 2, dModel: 16, context: 128, vocab: 29, tiedHead: true }, pads: [6, 0, 3], T: 30, qkvScale: 60 },
  ];
  for (const { cfg, pads, T, qkvScale } of cases) {
    for (const packed of [true, false]) {
      for (const lastOnly of [false, true]) {
        it(`gives the tensor ops' logits, keys and values bit for bit (D ${cfg.dModel / cfg.heads}, T ${T}, pads ${pads}, ${packed ? "packed" : "unpacked"}, ${lastOnly ? "last" : "every"} position)`, () => {
          const model = GptModel.init(cfg, new Rng(`prefill-${cfg.dModel}-${T}`));
          for (let l = 0; qkvScale && l < cfg.layers; l++) {
            const w = model.params.get(`h${l}.attn.qkv.w`)!;
            w.assign(tf.mul(w, qkvScale));
          }
          const [ops, fused] = [prefill(model, pads, T, { packed, lastOnly }, false), prefill(model, pads, T, { packed, lastOnly }, true)];
          expect(ops.calls).toBe(0);
          expect(fused.calls).toBe(cfg.layers);
          expect(fused.out.length).toBe(1 + 2 * cfg.layers);
          fused.out.forEach((b, i) => expect(b).toEqual(ops.out[i]));
          model.dispose();
        });
      }
    }
  }

  it("takes one bias for every row, as policy.ts' right-padded batches pass it, with the head at some positions", () => {
    const cfg: ModelConfig = { layers: 2, heads: 4, dModel: 32, context: 64, vocab: 19, tiedHead: true };
    const model = GptModel.init(cfg, new Rng("shared-bias"));
    const [B, T] = [3, 50];
    const rng = new Rng(6);
    const lengths = [50, 21, 37];
    const tokens = lengths.map((n) => Array.from({ length: T }, (_, t) => (t < n ? 1 + rng.int(cfg.vocab - 1) : 0)));
    const positions = lengths.map(() => Array.from({ length: T }, (_, t) => t));
    const outputRows = [3, 49, 60, 70, 100, 120];
    const run = (on: boolean) => {
      tf.env().set(PREFILL_ATTENTION_FLAG, on);
      try {
        const calls = prefillAttentionCounts.calls;
        const out = tf.tidy(() => {
          const input = { tokens: tf.tensor2d(tokens, [B, T], "int32"), positions: tf.tensor2d(positions, [B, T], "int32"), attnBias: attentionBias([0], T, T) };
          return [bits(model.forward(input).logits), bits(model.forward({ ...input, outputRows: tf.tensor1d(outputRows, "int32") }).logits)];
        });
        return { out, calls: prefillAttentionCounts.calls - calls };
      } finally {
        tf.env().set(PREFILL_ATTENTION_FLAG, true);
      }
    };
    const [ops, fused] = [run(false), run(true)];
    expect(fused.calls).toBe(2 * cfg.layers);
    expect(fused.out).toEqual(ops.out);
    model.dispose();
  });

  it("samples the rollouts of the tensor ops, token for token", async () => {
    const V = 31;
    const model = GptModel.init({ layers: 2, heads: 2, dModel: 16, context: 96, vocab: V, tiedHead: true }, new Rng("rollouts"));
    const grammar = new ToyConstraint(V, 3, 10);
    const rng = new Rng(4);
    const prompts = [1, 60, 7, 33, 60, 2].map((n) => [TOY_BOS, ...Array.from({ length: n - 1 }, () => 3 + rng.int(V - 3))]);
    const run = (on: boolean) => withFlag(PREFILL_ATTENTION_FLAG, on, () => sampleBatch(model, prompts, grammar, { maxNewTokens: 12, rng: new Rng(8), temperature: 0.9 }));
    const calls = prefillAttentionCounts.calls;
    const [ops, fused] = [await run(false), await run(true)];
    expect(prefillAttentionCounts.calls).toBeGreaterThan(calls);
    expect(fused.completions).toEqual(ops.completions);
    fused.logProbs.forEach((lp, b) => expect(Array.from(lp)).toEqual(Array.from(ops.logProbs[b])));
    model.dispose();
  });

  it("is used only where its order is tfjs's and its bias fits: the wasm backend, D % 4 = 0, D <= 48, more than one product, a (B or 1, 1, T, T) bias, the flag on", async () => {
    const bias = (B: number, T: number) => [B, 1, T, T];
    expect(prefillAttentionAvailable(2, 9, 4, 16, bias(2, 9))).toBe(true);
    expect(prefillAttentionAvailable(2, 9, 4, 16, bias(1, 9))).toBe(true); // one bias for every row
    expect(prefillAttentionAvailable(2, 9, 4, 16, [2, 1, 1, 9])).toBe(false);
    expect(prefillAttentionAvailable(1, 9, 1, 16, bias(1, 9))).toBe(false); // one product: XNNPACK's order
    expect(prefillAttentionAvailable(4, 9, 2, 6, bias(4, 9))).toBe(false);
    expect(prefillAttentionAvailable(4, 9, 1, 52, bias(4, 9))).toBe(false); // the scores' products would be two blocks
    expect(await withFlag(PREFILL_ATTENTION_FLAG, false, () => prefillAttentionAvailable(2, 9, 4, 16, bias(2, 9)))).toBe(false);
    // Under a gradient the forward keeps its causal products.
    const model = GptModel.init({ layers: 1, heads: 2, dModel: 16, context: 32, vocab: 11, tiedHead: true }, new Rng(2));
    const calls = prefillAttentionCounts.calls;
    tf.tidy(() => { model.forward({ tokens: tf.tensor2d([[1, 2, 3]], undefined, "int32"), positions: tf.tensor2d([[0, 1, 2]], undefined, "int32"), attnBias: attentionBias([0], 3, 3), training: true }); });
    expect(prefillAttentionCounts.calls).toBe(calls);
    model.dispose();
  });
});
