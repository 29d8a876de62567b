import * as tf from "@tensorflow/tfjs";
import { beforeAll, describe, expect, it } from "vitest";
import { groupAdvantages, grpoLoss } from "../../../src/core/policy/grpo.ts";
import { rolloutSamples, type GrpoSample } from "../../../src/core/policy/batch.ts";
import { ToyConstraint, TOY_BOS, TOY_EOS } from "../../../src/core/policy/toy-constraint.ts";
import { maskBytes } from "../../../src/core/policy/sampler.ts";
import { Rng } from "../../../src/core/rng.ts";
import { decodeCheckpoint } from "../../../src/core/policy/checkpoint.ts";
import { setupBackend, smallPolicy } from "./helpers.ts";

beforeAll(setupBackend);

describe("groupAdvantages", () => {
  it("normalises within each group with the sample std", () => {
    const a = groupAdvantages([1, 0, 0, 1, 3, 3, 3, 3], 4);
    const s = Math.sqrt(1 / 3); // sample std of [1, 0, 0, 1]
    [0.5, -0.5, -0.5, 0.5].forEach((d, i) => expect(a[i]).toBeCloseTo(d / (s + 1e-6), 9));
    expect(a.slice(4)).toEqual([0, 0, 0, 0]); // identical rewards: no signal
    expect(groupAdvantages([5], 1)).toEqual([0]);
  });
  it("rejects rewards that do not split into groups, and non-finite rewards", () => {
    expect(() => groupAdvantages([1, 2, 3], 2)).toThrow(/groups of 2/);
    expect(() => groupAdvantages([1, NaN], 2)).toThrow(/not a finite/);
  });
});

describe("grpoLoss", () => {
  it("matches a hand-computed example to 1e-5", () => {
    // Two sequences, three positions. Row 0 has A = +1.5, row 1 has A = -2; position 2 of row 1 is padding.
    const logp = [[-1.0, -0.5, -2.0], [-0.3, -1.2, -0.7]];
    const old = [[-1.1, -0.9, -1.5], [-2.0, -1.0, -0.7]];
    const ref = [[-1.0, -0.6, -1.8], [-1.5, -1.3, -0.2]];
    const adv = [1.5, -2];
    const mask = [[1, 1, 1], [1, 1, 0]];
    const cfg = { clipLow: 0.2, clipHigh: 0.28, dualClip: 3, klCoef: 0.1 };
    // By hand (verl compute_policy_loss + k3):
    //  r = exp(logp - old): row0 [e^0.1, e^0.4, e^-0.5] = [1.10517, 1.49182, 0.60653]; row1 [e^1.7, e^-0.2] = [5.47395, 0.81873]
    //  row0 (A>0): pg = max(-A r, -A clip(r, 0.8, 1.28)) = [-1.5*1.10517, -1.5*1.28 (clipped), -1.5*0.60653]
    //  row1 (A<0): t0: max(2*5.47395, 2*1.28) = 10.9479, dual clip min(10.9479, 2*3 = 6) = 6 (dual-clipped)
    //              t1: max(2*0.81873, 2*0.81873) = 1.63746 (ratio inside the band)
    const r = [[Math.exp(0.1), Math.exp(0.4), Math.exp(-0.5)], [Math.exp(1.7), Math.exp(-0.2)]];
    const pg = [-1.5 * r[0][0], -1.5 * 1.28, -1.5 * r[0][2], 6, 2 * r[1][1]];
    const k3 = (d: number) => Math.exp(d) - d - 1; // d = ref - logp
    const kl = [k3(0), k3(-0.1), k3(0.2), k3(-1.2), k3(-0.1)];
    const n = 5;
    const pgMean = pg.reduce((a, b) => a + b, 0) / n;
    const klMean = kl.reduce((a, b) => a + b, 0) / n;
    const out = grpoLoss(
      {
        logp: tf.tensor2d(logp),
        oldLogp: tf.tensor2d(old),
        refLogp: tf.tensor2d(ref),
        advantages: tf.tensor1d(adv),
        mask: tf.tensor2d(mask),
      },
      cfg,
    );
    expect(Math.abs(out.loss.dataSync()[0] - (pgMean + 0.1 * klMean))).toBeLessThan(1e-5);
    expect(Math.abs(out.metrics.pgLoss.dataSync()[0] - pgMean)).toBeLessThan(1e-5);
    expect(Math.abs(out.metrics.kl.dataSync()[0] - klMean)).toBeLessThan(1e-5);
    // The clipped term wins (l2 > l1, verl's pg_clipfrac) only at row0 t1; row1 t0 is held by the dual clip instead.
    expect(out.metrics.clipFraction.dataSync()[0]).toBeCloseTo(1 / 5, 6);
    expect(out.metrics.dualClipFraction.dataSync()[0]).toBeCloseTo(1 / 5, 6);
  });
});

const V = 12; // PAD, BOS, EOS and 9 symbols
const oneSymbol = new ToyConstraint(V, 1, 1); // completions are [symbol, EOS]

/** A completion scored under the update's distribution: the grammar mask of oneSymbol at temperature 1. */
function fixedSample(symbol: number): GrpoSample {
  const W = maskBytes(V);
  const masks = new Uint8Array(2 * W);
  for (let t = 3; t < V; t++) masks[t >> 3] |= 1 << (t & 7);
  masks[W + (TOY_EOS >> 3)] |= 1 << (TOY_EOS & 7);
  return { prompt: [TOY_BOS], completion: [symbol, TOY_EOS], logProbs: new Float32Array(2), masks, advantage: 0, temperature: 1 };
}

describe("GRPO updates", () => {
  it("raise the probability of the rewarded sequence and lower every other one (toy bandit)", async () => {
    const policy = smallPolicy(V, "bandit", { lr: 3e-3, klCoef: 0, miniBatchSize: 32 });
    const rng = new Rng("bandit");
    const symbols = Array.from({ length: V - 3 }, (_, i) => i + 3);
    const prob = async () => (await policy.completionLogProbs(symbols.map(fixedSample))).map((lp) => Math.exp(lp[0]));
    const before = await prob();
    const rewarded = 7;
    for (let step = 0; step < 8; step++) {
      const rollout = await policy.sample(new Array(32).fill([TOY_BOS]), oneSymbol, { maxNewTokens: 2, rng });
      const rewards = rollout.completions.map((c) => (c[0] === rewarded ? 1 : 0));
      await policy.update(rolloutSamples(rollout, groupAdvantages(rewards, 32)), rng);
    }
    const after = await prob();
    symbols.forEach((s, i) => {
      if (s === rewarded) expect(after[i]).toBeGreaterThan(before[i] + 0.2);
      else expect(after[i]).toBeLessThan(before[i]);
    });
    policy.dispose();
  });

  it("are the same whether a mini-batch runs in one pass or in micro-batches (gradient accumulation)", async () => {
    const grammar = new ToyConstraint(V, 1, 5);
    const weightsAfter = async (microBatchSize: number) => {
      // One mini-batch (one optimiser step), so only the micro-batching differs between the two runs.
      const policy = smallPolicy(V, "micro", { lr: 1e-2, klCoef: 0.1, microBatchSize, miniBatches: 1 }, { reference: true });
      const rollout = await policy.sample([[TOY_BOS], [TOY_BOS, 4], [TOY_BOS, 5, 6], [TOY_BOS], [TOY_BOS, 7], [TOY_BOS]], grammar, { maxNewTokens: 6, rng: new Rng(4) });
      const metrics = await policy.update(rolloutSamples(rollout, groupAdvantages(rollout.completions.map((c) => c.length), 6)), new Rng(5));
      const weights = decodeCheckpoint(await policy.save()).weights;
      policy.dispose();
      return { metrics, weights };
    };
    const [whole, micro] = [await weightsAfter(64), await weightsAfter(2)];
    expect(micro.metrics.loss).toBeCloseTo(whole.metrics.loss, 5);
    expect(micro.metrics.kl).toBeCloseTo(whole.metrics.kl, 5);
    expect(micro.metrics.gradNorm).toBeCloseTo(whole.metrics.gradNorm, 4);
    whole.weights.forEach((w, i) => w.forEach((x, j) => expect(Math.abs(x - micro.weights[i][j])).toBeLessThan(1e-5)));
  });

  it("pull a drifted policy back towards the reference through the KL term", async () => {
    const policy = smallPolicy(V, "kl", { lr: 3e-3, klCoef: 1, miniBatchSize: 16 }, { reference: true });
    // Drift: teach it to always answer symbol 4 (the reference stays at the initial weights).
    for (let i = 0; i < 15; i++) await policy.pretrainStep(new Array(8).fill([TOY_BOS, 4, TOY_EOS]));
    const rng = new Rng("kl");
    const rollout = await policy.sample(new Array(16).fill([TOY_BOS]), oneSymbol, { maxNewTokens: 2, rng });
    const samples = rolloutSamples(rollout, new Array(16).fill(0)); // no reward signal: only the KL acts
    const kls: number[] = [];
    for (let i = 0; i < 10; i++) kls.push((await policy.update(samples, rng)).kl);
    expect(kls[0]).toBeGreaterThan(0.05);
    expect(kls[9]).toBeLessThan(kls[0] * 0.5);
    policy.dispose();
  });
});
