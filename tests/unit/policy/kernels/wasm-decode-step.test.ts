/**
 * The engine-free decoding step of wasm-decode-step.ts against model.forward's in-place step, bit for
 * bit: one step's logits and the keys and values it writes into the cache (tied and untied heads,
 * left padding, two cache fills), and whole sampled rollouts (tokens, log-probs, allowed sets) for
 * several shapes with shared prefills and dropped rows; every buffer a step makes is freed; it is
 * not used where its pieces are missing.
 */
import * as tf from "@tensorflow/tfjs";
import { beforeAll, describe, expect, it } from "vitest";
import type { ModelConfig } from "../../../../src/core/policy/config.ts";
import { attentionBias, GptModel } from "../../../../src/core/policy/model.ts";
import { Policy } from "../../../../src/core/policy/policy.ts";
import { ToyConstraint, TOY_BOS } from "../../../../src/core/policy/toy-constraint.ts";
import { inPlaceCache, KV_IN_PLACE_FLAG, type InPlaceCache } from "../../../../src/core/policy/kernels/wasm-decode-attention.ts";
import { DIRECT_DECODE_FLAG, DirectDecoder, directDecodeAvailable, directDecodeCounts } from "../../../../src/core/policy/kernels/wasm-decode-step.ts";
import { FUSED_OPS_FLAG } from "../../../../src/core/policy/kernels/wasm-fused.ts";
import { Rng } from "../../../../src/core/rng.ts";
import { setupBackend, withFlag } from "../helpers.ts";

beforeAll(setupBackend);

const bits = (a: Float32Array) => Array.from(new Uint32Array(Float32Array.from(a).buffer));
/** Buffers the wasm backend holds (tensors the engine tracks and anything made behind its back). */
const heldBuffers = () => (tf.backend() as unknown as { numDataIds(): number }).numDataIds();

describe("engine-free decoding steps on wasm", () => {
  it("are used only where the in-place cache, the fused ops and the flag all are", async () => {
    const model = (cfg: Partial<ModelConfig>) => GptModel.init({ layers: 1, heads: 2, dModel: 16, context: 16, vocab: 12, tiedHead: true, ...cfg }, new Rng(1));
    const [ok, oddHead, oddWidth] = [model({}), model({ heads: 4, dModel: 24 }), model({ heads: 1, dModel: 6 })];
    expect(directDecodeAvailable(ok)).toBe(true);
    expect(directDecodeAvailable(oddHead)).toBe(false); // D = 6
    expect(directDecodeAvailable(oddWidth)).toBe(false); // C = 6
    for (const flag of [DIRECT_DECODE_FLAG, KV_IN_PLACE_FLAG, FUSED_OPS_FLAG]) expect(await withFlag(flag, false, () => directDecodeAvailable(ok))).toBe(false);
    [ok, oddHead, oddWidth].forEach((m) => m.dispose());
  });

  for (const tiedHead of [true, false]) {
    it(`one step's logits and cache writes match model.forward's in-place step bit for bit (${tiedHead ? "tied" : "untied"} head)`, () => {
      const cfg: ModelConfig = { layers: 2, heads: 2, dModel: 16, context: 40, vocab: 23, tiedHead };
      const model = GptModel.init(cfg, new Rng(`step-${tiedHead}`));
      const rng = new Rng(5);
      const B = 4;
      const pad = [0, 3, 1, 6];
      const P = 9;
      // Prefill caches of random keys and values, two copies: one per path.
      const kv = () => tf.tensor4d(Array.from({ length: B * cfg.heads * P * 8 }, () => rng.next() * 2 - 1), [B, cfg.heads, P, 8]);
      const prompt = Array.from({ length: cfg.layers }, () => [kv(), kv()]);
      const caches = () => prompt.map(([k, v]) => inPlaceCache(k, v, 6));
      const [viaForward, direct] = [caches(), caches()];
      const decoder = new DirectDecoder(model, B, P + 6);
      const held = heldBuffers();
      for (let pos = 0; pos < 3; pos++) {
        const S = P + pos + 1;
        const tokens = Array.from({ length: B }, () => rng.int(cfg.vocab));
        const positions = pad.map((p) => S - 1 - p);
        const want = tf.tidy(() => {
          const out = model.forward({
            tokens: tf.tensor2d(tokens, [B, 1], "int32"),
            positions: tf.tensor2d(positions, [B, 1], "int32"),
            attnBias: attentionBias(pad, 1, S),
            inPlace: { caches: viaForward, pos },
          });
          return out.logits.dataSync() as Float32Array;
        });
        const got = decoder.step(tokens, positions, pad, direct, pos);
        expect(got.length).toBe(B * cfg.vocab);
        expect(bits(got)).toEqual(bits(want));
        expect(new Set(got).size).toBeGreaterThan(cfg.vocab);
        expect(heldBuffers()).toBe(held);
      }
      const cacheBits = (c: InPlaceCache[]) => c.flatMap((x) => [x.kTGen, x.vGen].map((t) => bits(t.dataSync() as Float32Array)));
      expect(cacheBits(direct)).toEqual(cacheBits(viaForward));
      decoder.dispose();
      tf.dispose([...prompt.flat(), ...[...viaForward, ...direct].flatMap((c) => [c.kT, c.v, c.kTGen, c.vGen])]);
      model.dispose();
    });
  }

  const SHAPES: Partial<ModelConfig>[] = [
    { layers: 2, heads: 2, dModel: 32, context: 64, tiedHead: true }, // D = 16
    { layers: 1, heads: 2, dModel: 16, context: 64, tiedHead: false }, // D = 8, untied head
    { layers: 1, heads: 1, dModel: 12, context: 64, tiedHead: true }, // D = 12
  ];
  for (const model of SHAPES) {
    it(`sampled rollouts are the same token for token, and every buffer is freed (dModel ${model.dModel}, ${model.tiedHead ? "tied" : "untied"} head)`, async () => {
      const grammar = new ToyConstraint(24, 2, 14);
      const run = (on: boolean) =>
        withFlag(DIRECT_DECODE_FLAG, on, async () => {
          const policy = Policy.create({ model, vocab: 24, seed: `direct-${model.dModel}` });
          // 5 distinct prompts of 2 to 30 tokens, each for 3 rows: shared prefills, left padding, rows ending apart.
          const prompts = Array.from({ length: 15 }, (_, i) => [TOY_BOS, ...Array.from({ length: 1 + (i % 5) * 7 }, (_, j) => 3 + (((i % 5) * 5 + j) % 20))]);
          const held = heldBuffers();
          const steps = directDecodeCounts.steps;
          const rollout = await policy.sample(prompts, grammar, { maxNewTokens: 20, rng: new Rng(23), temperature: 1.3 });
          const ran = directDecodeCounts.steps - steps;
          expect(heldBuffers()).toBe(held);
          policy.dispose();
          return { ran, completions: rollout.completions, logProbs: rollout.logProbs.map((l) => Array.from(l)), masks: rollout.masks.map((m) => Array.from(m)) };
        });
      const { ran: offSteps, ...off } = await run(false);
      const { ran: onSteps, ...on } = await run(true);
      expect(offSteps).toBe(0);
      expect(onSteps).toBeGreaterThan(10);
      expect(on).toEqual(off);
      expect(new Set(off.completions.map((c) => c.length)).size).toBeGreaterThan(1);
    });
  }
});
