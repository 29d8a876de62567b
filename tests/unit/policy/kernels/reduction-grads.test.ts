/**
 * reduction-grads.ts' Mean and Sum gradients against tfjs's own, bit for bit: over several shapes,
 * axes and value ranges, through the model's LayerNorm (tf.moments), and a GRPO update's metrics and
 * checkpoint.
 */
import * as tf from "@tensorflow/tfjs";
import { beforeAll, describe, expect, it } from "vitest";
import { rolloutSamples } from "../../../../src/core/policy/batch.ts";
import { groupAdvantages } from "../../../../src/core/policy/grpo.ts";
import { Policy } from "../../../../src/core/policy/policy.ts";
import { REDUCTION_GRADS_FLAG } from "../../../../src/core/policy/kernels/reduction-grads.ts";
import { ToyConstraint, TOY_BOS } from "../../../../src/core/policy/toy-constraint.ts";
import { Rng } from "../../../../src/core/rng.ts";
import { setupBackend, withFlag } from "../helpers.ts";

beforeAll(setupBackend);

const bits = (t: tf.Tensor) => Array.from(new Uint32Array(Float32Array.from(t.dataSync()).buffer));
const lean = <T>(on: boolean, f: () => T | Promise<T>) => withFlag(REDUCTION_GRADS_FLAG, on, f);
/** The first index where two arrays differ and both values there, or null (a failure stays fast to report: no diff of thousands of numbers). */
function firstDifference(a: readonly number[], b: readonly number[]): { index: number; ours: number; tfjs: number } | null {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return { index: i, ours: a[i], tfjs: b[i] };
  return null;
}

describe("Mean and Sum gradients without ones()", () => {
  const CASES: { shape: number[]; axis: number | number[] }[] = [
    { shape: [37, 12], axis: -1 },
    { shape: [37, 12], axis: 0 },
    { shape: [5, 7, 9], axis: [0, 2] },
    { shape: [5, 7, 9], axis: 1 },
    { shape: [3, 1, 4], axis: 1 }, // a reduced axis of length 1
  ];
  for (const { shape, axis } of CASES) {
    it(`match tfjs's bit for bit (${shape.join(" x ")}, axis ${JSON.stringify(axis)})`, async () => {
      const rng = new Rng(shape.length * 10 + shape[0]);
      const n = shape.reduce((a, b) => a * b, 1);
      const x = tf.tensor(Array.from({ length: n }, () => (rng.next() - 0.5) * 10 ** Math.floor(rng.next() * 6 - 2)), shape);
      // A loss whose upstream gradient differs per element: the reductions' dy is not constant.
      const w = tf.tensor(Array.from({ length: n }, () => rng.next() * 3 - 1), shape);
      const grads = (on: boolean) =>
        lean(on, () =>
          tf.tidy(() => {
            const g = tf.grads((a: tf.Tensor) => {
              const m = tf.mean(tf.mul(a, w), axis, true);
              const s = tf.sum(tf.mul(tf.square(a), w), axis, false);
              return tf.add(tf.sum(tf.mul(tf.sub(a, m), w)), tf.sum(tf.mul(s, s)));
            });
            return g([x]).map(bits);
          }),
        );
      const [ours, tfjs] = [await grads(true), await grads(false)];
      expect(firstDifference(ours[0], tfjs[0])).toBeNull();
      expect(new Set(tfjs[0]).size).toBeGreaterThan(n / 2);
      tf.dispose([x, w]);
    });
  }

  it("give the same update and checkpoint byte for byte", async () => {
    const grammar = new ToyConstraint(24, 2, 14);
    const run = (on: boolean) =>
      lean(on, async () => {
        const policy = Policy.create({ model: { layers: 2, heads: 2, dModel: 32, context: 64, tiedHead: true }, vocab: 24, seed: "reduction-grads", train: { warmupSteps: 0 } });
        const prompts = Array.from({ length: 12 }, (_, i) => [TOY_BOS, ...Array.from({ length: 1 + ((i % 4) * 6) }, (_, j) => 3 + (((i % 4) * 5 + j) % 20))]);
        const rollout = await policy.sample(prompts, grammar, { maxNewTokens: 16, rng: new Rng(3), temperature: 1.2 });
        const stats = await policy.update(rolloutSamples(rollout, groupAdvantages(rollout.completions.map((c) => c.length), 3)), new Rng(5));
        const checkpoint = Array.from(new Uint8Array(await policy.save()));
        policy.dispose();
        return { stats, checkpoint };
      });
    const [ours, tfjs] = [await run(true), await run(false)];
    expect(ours.stats).toEqual(tfjs.stats);
    expect(firstDifference(ours.checkpoint, tfjs.checkpoint)).toBeNull();
    expect(ours.stats.gradNorm).toBeGreaterThan(0);
  });
});
