import * as tf from "@tensorflow/tfjs";
import { beforeAll, describe, expect, it } from "vitest";
import { countParams, MODEL_SIZES, modelConfig } from "../../../src/core/policy/config.ts";
import { attentionBias, GptModel, parameterShapes } from "../../../src/core/policy/model.ts";
import { decodeCheckpoint } from "../../../src/core/policy/checkpoint.ts";
import { Policy } from "../../../src/core/policy/policy.ts";
import { Rng } from "../../../src/core/rng.ts";
import { setupBackend } from "./helpers.ts";

/** A tensor's float32 bit patterns. */
const bitsOf = (t: tf.Tensor) => new Uint32Array(Float32Array.from(t.dataSync()).buffer);
/** The first index where two bit arrays differ (or their lengths do), -1 when equal: a failure stays readable. */
const firstDiff = (a: Uint32Array, b: Uint32Array) => (a.length !== b.length ? Math.min(a.length, b.length) : a.findIndex((x, i) => x !== b[i]));

beforeAll(setupBackend);

describe("model config", () => {
  it("has tiny at 0.1-0.3M and small at 1-3M parameters, counted exactly", () => {
    for (const vocab of [128, 256, 512]) {
      const tiny = modelConfig("tiny", vocab);
      const small = modelConfig("small", vocab);
      expect(countParams(tiny)).toBeGreaterThanOrEqual(100_000);
      expect(countParams(tiny)).toBeLessThanOrEqual(300_000);
      expect(countParams(small)).toBeGreaterThanOrEqual(1_000_000);
      expect(countParams(small)).toBeLessThanOrEqual(3_000_000);
      for (const cfg of [tiny, small, { ...tiny, tiedHead: false }]) {
        const counted = parameterShapes(cfg).reduce((a, [, s]) => a + s.reduce((x, y) => x * y, 1), 0);
        expect(counted).toBe(countParams(cfg));
      }
    }
  });

  it("rejects unknown keys and impossible shapes", () => {
    expect(() => modelConfig({ ...MODEL_SIZES.tiny, vocab: 64, dropout: 0.1 } as never)).toThrow(/unknown model config key "dropout"/);
    expect(() => modelConfig({ ...MODEL_SIZES.tiny, heads: 3 }, 64)).toThrow(/dModel 64 is not divisible by heads 3/);
    expect(() => modelConfig("huge" as never, 64)).toThrow(/unknown model size "huge"/);
    expect(() => modelConfig("tiny")).toThrow(/vocab must be a positive integer/);
  });
});

describe("GptModel", () => {
  it("initialises identically from the same seed, differently from another", async () => {
    const cfg = modelConfig("tiny", 64);
    const [a, b, c] = [GptModel.init(cfg, new Rng(1)), GptModel.init(cfg, new Rng(1)), GptModel.init(cfg, new Rng(2))];
    const [wa, wb, wc] = await Promise.all([a.weights(), b.weights(), c.weights()]);
    expect(wb).toEqual(wa);
    expect(wc[0]).not.toEqual(wa[0]);
    [a, b, c].forEach((m) => m.dispose());
  });

  it("is causal: logits at a position do not depend on later tokens", async () => {
    const cfg = modelConfig({ layers: 2, heads: 2, dModel: 16, context: 8, tiedHead: false }, 10);
    const m = GptModel.init(cfg, new Rng(3));
    const run = (tokens: number[]) =>
      tf.tidy(() => {
        const T = tokens.length;
        const bias = tf.tensor4d(Array.from({ length: T * T }, (_, i) => (i % T > Math.floor(i / T) ? -1e9 : 0)), [1, 1, T, T]);
        return m.forward({ tokens: tf.tensor2d([tokens], undefined, "int32"), positions: tf.tensor2d([tokens.map((_, i) => i)], undefined, "int32"), attnBias: bias }).logits.arraySync()[0];
      });
    const x = run([1, 2, 3, 4, 5]);
    const y = run([1, 2, 3, 9, 0]);
    for (let t = 0; t < 3; t++) x[t].forEach((v, i) => expect(Math.abs(v - y[t][i])).toBeLessThan(1e-6));
    expect(Math.abs(x[3][0] - y[3][0])).toBeGreaterThan(1e-6);
    m.dispose();
  });

  it("gives the same logits on its training path (oneHot, custom gradients) and its sampling path (gather, fused)", () => {
    const cfg = modelConfig({ layers: 2, heads: 2, dModel: 16, context: 8, tiedHead: false }, 10);
    const m = GptModel.init(cfg, new Rng(4));
    const run = (training: boolean) =>
      tf.tidy(() =>
        m.forward({ tokens: tf.tensor2d([[1, 2, 3, 4], [5, 6, 7, 8]], undefined, "int32"), positions: tf.tensor2d([[0, 1, 2, 3], [0, 1, 2, 3]], undefined, "int32"), attnBias: attentionBias([0, 1], 4, 4), training }).logits.dataSync(),
      );
    const [a, b] = [run(true), run(false)];
    a.forEach((v, i) => expect(Math.abs(v - b[i])).toBeLessThan(1e-5));
    m.dispose();
  });

  it("skips left padding (leftPad) with the same bits at every real position, and zero keys and values at the padding", async () => {
    // The tiny config (16-wide heads: the wasm kernels) and a 2-block 8-wide one; rows padded 0 to 6.
    for (const cfg of [modelConfig("tiny", 64), modelConfig({ layers: 2, heads: 2, dModel: 16, context: 16, tiedHead: false }, 64)]) {
      const m = GptModel.init(cfg, new Rng(11));
      const pad = [3, 0, 6, 1, 6];
      const T = 9;
      const rng = new Rng(12);
      const tokens = pad.map((p) => Array.from({ length: T }, (_, t) => (t < p ? 0 : 1 + Math.floor(rng.next() * 63))));
      const positions = pad.map((p) => Array.from({ length: T }, (_, t) => Math.max(0, t - p)));
      const run = (leftPad: number[] | undefined, lastOnly: boolean) =>
        tf.tidy(() => {
          const out = m.forward({ tokens: tf.tensor2d(tokens, undefined, "int32"), positions: tf.tensor2d(positions, undefined, "int32"), attnBias: attentionBias(pad, T, T), leftPad, lastOnly });
          return { logits: out.logits.arraySync(), k: out.present.map((c) => c.k.arraySync()), v: out.present.map((c) => c.v.arraySync()) };
        });
      for (const lastOnly of [false, true]) {
        const [full, skipped] = [run(undefined, lastOnly), run(pad, lastOnly)];
        pad.forEach((p, b) => {
          const real = lastOnly ? [0] : Array.from({ length: T - p }, (_, i) => p + i);
          for (const t of real) expect(new Float32Array(skipped.logits[b][t])).toEqual(new Float32Array(full.logits[b][t])); // bit for bit
          for (const [a, c] of [[skipped.k, full.k], [skipped.v, full.v]]) {
            a.forEach((layer, l) =>
              layer[b].forEach((head, h) =>
                head.forEach((row, t) => {
                  if (t >= p) expect(new Float32Array(row)).toEqual(new Float32Array(c[l][b][h][t]));
                  else expect(row.every((x) => x === 0)).toBe(true);
                }),
              ),
            );
          }
        });
      }
      m.dispose();
    }
  });

  it("lastOnly runs the last block at each row's last position alone, with the full forward's bits there", async () => {
    // 60 positions (the products' 48-deep blocks crossed), rows padded 0 to 40, with and without leftPad;
    // the tiny config (16-wide heads) and a 3-block 8-wide one with an untied head.
    for (const cfg of [modelConfig("tiny", 64), modelConfig({ layers: 3, heads: 2, dModel: 16, context: 64, tiedHead: false }, 64)]) {
      const m = GptModel.init(cfg, new Rng(21));
      const pad = [0, 40, 7, 1];
      const T = 60;
      const rng = new Rng(22);
      const tokens = pad.map((p) => Array.from({ length: T }, (_, t) => (t < p ? 0 : 1 + Math.floor(rng.next() * 63))));
      const positions = pad.map((p) => Array.from({ length: T }, (_, t) => Math.max(0, t - p)));
      const run = (leftPad: number[] | undefined, lastOnly: boolean) => {
        const outs = tf.tidy(() => {
          const out = m.forward({ tokens: tf.tensor2d(tokens, undefined, "int32"), positions: tf.tensor2d(positions, undefined, "int32"), attnBias: attentionBias(pad, T, T), leftPad, lastOnly });
          const last = lastOnly ? out.logits : tf.slice(out.logits, [0, T - 1, 0], [pad.length, 1, cfg.vocab]);
          return [last, ...out.present.flatMap((c) => [c.k, c.v])];
        });
        const bits = outs.map(bitsOf);
        tf.dispose(outs);
        return { logits: bits[0], kv: bits.slice(1) };
      };
      for (const leftPad of [undefined, pad]) {
        const [full, last] = [run(leftPad, false), run(leftPad, true)];
        expect(firstDiff(last.logits, full.logits)).toBe(-1);
        expect(last.kv.length).toBe(2 * cfg.layers);
        last.kv.forEach((kv, i) => expect(firstDiff(kv, full.kv[i])).toBe(-1));
        expect(new Set(last.logits).size).toBeGreaterThan(cfg.vocab);
      }
      m.dispose();
    }
  });

  it("keeps two policies independent: training one leaves the other's weights untouched", async () => {
    const codePolicy = Policy.create({ size: "tiny", vocab: 32, seed: "code" });
    const testPolicy = Policy.create({ size: "tiny", vocab: 32, seed: "test" });
    const before = decodeCheckpoint(await testPolicy.save()).weights;
    await codePolicy.pretrainStep([[1, 5, 6, 7, 2]]);
    expect(decodeCheckpoint(await testPolicy.save()).weights).toEqual(before);
    codePolicy.dispose();
    testPolicy.dispose();
  });

  it("trains deterministically: same seed and data give bit-identical weights", async () => {
    const weightsAfter = async () => {
      const p = Policy.create({ size: "tiny", vocab: 32, seed: 11, train: { lr: 1e-3 } });
      for (let i = 0; i < 3; i++) await p.pretrainStep([[1, 5, 6, 7, 2], [1, 8, 9, 2]]);
      const w = decodeCheckpoint(await p.save()).weights;
      p.dispose();
      return w;
    };
    expect(await weightsAfter()).toEqual(await weightsAfter());
  });

  it("lowers the cross-entropy with pretrainStep", async () => {
    const p = Policy.create({ size: "tiny", vocab: 32, seed: 12, train: { lr: 3e-3, warmupSteps: 0 } });
    const data = [[1, 5, 6, 7, 8, 2], [1, 9, 10, 11, 2]];
    const first = (await p.pretrainStep(data)).loss;
    let last = first;
    for (let i = 0; i < 30; i++) last = (await p.pretrainStep(data)).loss;
    expect(first).toBeGreaterThan(3); // about ln(32) at initialisation
    expect(last).toBeLessThan(first / 2);
    p.dispose();
  });
});
