import * as tf from "@tensorflow/tfjs";
import { beforeAll, expect, it } from "vitest";
import { rolloutSamples } from "../../../src/core/policy/batch.ts";
import { groupAdvantages } from "../../../src/core/policy/grpo.ts";
import { ToyConstraint, TOY_BOS } from "../../../src/core/policy/toy-constraint.ts";
import { Rng } from "../../../src/core/rng.ts";
import { setupBackend, smallPolicy } from "./helpers.ts";

beforeAll(setupBackend);

it("holds tf.memory() flat over many sample + update + pretrain + save steps", async () => {
  const V = 16;
  const grammar = new ToyConstraint(V, 1, 6);
  const policy = smallPolicy(V, "memory", { klCoef: 0.01, epochs: 2, miniBatchSize: 4 }, { reference: true });
  const rng = new Rng("memory");
  const step = async () => {
    const rollout = await policy.sample([[TOY_BOS], [TOY_BOS, 4], [TOY_BOS, 5, 6], [TOY_BOS]], grammar, { maxNewTokens: 8, rng, topP: 0.9 });
    await policy.update(rolloutSamples(rollout, groupAdvantages(rollout.completions.map((c) => c.length), 2)), rng);
    await policy.pretrainStep([[TOY_BOS, 3, 4, 2]]);
    await policy.completionLogProbs(rolloutSamples(rollout, [0, 0, 0, 0]));
    await policy.save();
  };
  await step(); // warm-up: kernels and caches that are created once
  const before = tf.memory();
  for (let i = 0; i < 12; i++) await step();
  const after = tf.memory();
  expect(after.numTensors).toBe(before.numTensors);
  expect(after.numBytes).toBe(before.numBytes);
  policy.dispose();
  expect(tf.memory().numTensors).toBeLessThan(before.numTensors);
});
