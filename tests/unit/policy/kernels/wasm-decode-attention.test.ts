/**
 * The fused one-query attention of wasm-decode-attention.ts against the tensor ops it replaces, bit for
 * bit: a decoding step's logits and cache over one, two and three cache segments (left padding, so
 * the bias masks keys), and whole sampled rollouts (tokens, log-probs, allowed sets) for several head
 * widths, with shared prefills and dropped rows, with the cache as Concat-grown segments and kept in
 * place; a head width that is not a multiple of 4 keeps the tensor ops.
 */
import * as tf from "@tensorflow/tfjs";
import { beforeAll, describe, expect, it } from "vitest";
import type { ModelConfig } from "../../../../src/core/policy/config.ts";
import { attentionBias, GptModel, type LayerCache } from "../../../../src/core/policy/model.ts";
import { Policy } from "../../../../src/core/policy/policy.ts";
import { ToyConstraint, TOY_BOS } from "../../../../src/core/policy/toy-constraint.ts";
import { DECODE_ATTENTION_FLAG, decodeAttentionAvailable, decodeAttentionCounts, KV_IN_PLACE_FLAG } from "../../../../src/core/policy/kernels/wasm-decode-attention.ts";
import { Rng } from "../../../../src/core/rng.ts";
import { setupBackend, withFlag } from "../helpers.ts";

beforeAll(setupBackend);

const withFused = <T>(on: boolean, f: () => T | Promise<T>) => withFlag(DECODE_ATTENTION_FLAG, on, f);
const withInPlace = <T>(on: boolean, f: () => T | Promise<T>) => withFlag(KV_IN_PLACE_FLAG, on, f);

const bits = (t: tf.Tensor) => Array.from(new Uint32Array(Float32Array.from(t.dataSync()).buffer));

describe("fused decoding attention on wasm", () => {
  it("is used only where D % 4 = 0", () => {
    expect(decodeAttentionAvailable(16)).toBe(true);
    expect(decodeAttentionAvailable(6)).toBe(false);
  });

  for (const segments of [1, 2, 3]) {
    it(`a decoding step's logits and new cache match the tensor ops bit for bit (${segments} cache segments)`, async () => {
      const cfg: ModelConfig = { layers: 2, heads: 3, dModel: 24, context: 64, vocab: 20, tiedHead: true };
      const model = GptModel.init(cfg, new Rng(segments).fork("init"));
      const rng = new Rng(40 + segments);
      const B = 5;
      const pad = [0, 3, 1, 7, 2];
      const lens = [9, 4, 6].slice(0, segments); // cached positions per segment
      const S = lens.reduce((a, b) => a + b, 0) + 1;
      const cache = (n: number) => tf.tensor4d(Array.from({ length: B * cfg.heads * n * 8 }, () => rng.next() * 2 - 1), [B, cfg.heads, n, 8]);
      const past: LayerCache[][] = Array.from({ length: cfg.layers }, () => lens.map((n) => ({ k: cache(n), v: cache(n) })));
      const tokens = tf.tensor2d(Array.from({ length: B }, () => rng.int(20)), [B, 1], "int32");
      const positions = tf.tensor2d(pad.map((p) => S - 1 - p), [B, 1], "int32");
      const attnBias = attentionBias(pad, 1, S);
      const step = (on: boolean) =>
        withFused(on, () =>
          tf.tidy(() => {
            const out = model.forward({ tokens, positions, attnBias, past, growLast: true });
            return [bits(out.logits), ...out.present.flatMap((c) => [bits(c.k), bits(c.v)])];
          }),
        );
      const calls = decodeAttentionCounts.calls;
      const off = await step(false);
      expect(decodeAttentionCounts.calls).toBe(calls);
      const on = await step(true);
      expect(decodeAttentionCounts.calls).toBe(calls + cfg.layers);
      expect(on).toEqual(off);
      expect(new Set(off[0]).size).toBeGreaterThan(B);
      tf.dispose([tokens, positions, attnBias, ...past.flat().flatMap((c) => [c.k, c.v])]);
      model.dispose();
    });
  }

  const SHAPES: Partial<ModelConfig>[] = [
    { layers: 1, heads: 2, dModel: 32, context: 64 }, // D = 16
    { layers: 2, heads: 6, dModel: 48, context: 96 }, // D = 8
    { layers: 1, heads: 2, dModel: 64, context: 64 }, // D = 32
    { layers: 1, heads: 3, dModel: 12, context: 64 }, // D = 4
    { layers: 1, heads: 4, dModel: 24, context: 64 }, // D = 6: the tensor ops either way
  ];
  for (const model of SHAPES) {
    it(`sampled rollouts are the same token for token (dModel ${model.dModel}, ${model.heads} heads)`, async () => {
      const grammar = new ToyConstraint(24, 2, 14);
      const run = (on: boolean) =>
        withFused(on, async () => {
          const policy = Policy.create({ model: { ...model, tiedHead: true }, vocab: 24, seed: `decode-${model.dModel}` });
          // 5 distinct prompts of 2 to 30 tokens, each for 3 rows: shared prefills, left padding, rows ending apart.
          const prompts = Array.from({ length: 15 }, (_, i) => [TOY_BOS, ...Array.from({ length: 1 + ((i % 5) * 7) }, (_, j) => 3 + (((i % 5) * 5 + j) % 20))]);
          const rollout = await policy.sample(prompts, grammar, { maxNewTokens: 20, rng: new Rng(17), temperature: 1.3 });
          policy.dispose();
          return { completions: rollout.completions, logProbs: rollout.logProbs.map((l) => Array.from(l)), masks: rollout.masks.map((m) => Array.from(m)) };
        });
      const calls = { ...decodeAttentionCounts };
      const off = await run(false);
      expect(decodeAttentionCounts).toEqual(calls);
      const segments = await withInPlace(false, () => run(true));
      const inPlace = { ...decodeAttentionCounts };
      expect(inPlace.inPlace).toBe(calls.inPlace);
      const on = await run(true);
      const fused = (model.dModel! / model.heads!) % 4 === 0;
      expect(inPlace.calls > calls.calls).toBe(fused);
      expect(decodeAttentionCounts.inPlace > inPlace.inPlace).toBe(fused);
      expect(segments).toEqual(off);
      expect(on).toEqual(off);
      expect(new Set(off.completions.map((c) => c.length)).size).toBeGreaterThan(1);
    });
  }
});
