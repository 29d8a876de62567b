import { beforeAll, describe, expect, it } from "vitest";
import { rolloutSamples } from "../../../src/core/policy/batch.ts";
import { maskBytes } from "../../../src/core/policy/sampler.ts";
import { ToyConstraint, TOY_BOS } from "../../../src/core/policy/toy-constraint.ts";
import { Rng } from "../../../src/core/rng.ts";
import { setupBackend, smallPolicy } from "./helpers.ts";

beforeAll(setupBackend);

const V = 20;
const grammar = new ToyConstraint(V, 2, 6);
// Prompts of different lengths in one batch (left-padded by the sampler).
const prompts = [[TOY_BOS], [TOY_BOS, 5, 6, 7, 8], [TOY_BOS, 9], [TOY_BOS, 3, 4, 3, 4, 3, 4, 3]];

describe("sampleBatch", () => {
  it("returns grammatical completions, reproducible from the seed", async () => {
    const policy = smallPolicy(V, 1);
    const a = await policy.sample(prompts, grammar, { maxNewTokens: 10, rng: new Rng(5) });
    const b = await policy.sample(prompts, grammar, { maxNewTokens: 10, rng: new Rng(5) });
    const c = await policy.sample(prompts, grammar, { maxNewTokens: 10, rng: new Rng(6) });
    expect(a.completions).toEqual(b.completions);
    expect(a.completions).not.toEqual(c.completions);
    expect(a.done).toEqual([true, true, true, true]);
    for (const completion of a.completions) expect(grammar.accepts(completion)).toBe(true);
    policy.dispose();
  });

  it("gives the same tokens and log-probs with and without the KV cache", async () => {
    const policy = smallPolicy(V, 2);
    const cached = await policy.sample(prompts, grammar, { maxNewTokens: 10, rng: new Rng(7), temperature: 0.8 });
    const full = await policy.sample(prompts, grammar, { maxNewTokens: 10, rng: new Rng(7), temperature: 0.8, kvCache: false });
    expect(cached.completions).toEqual(full.completions);
    cached.logProbs.forEach((lp, b) => lp.forEach((x, j) => expect(Math.abs(x - full.logProbs[b][j])).toBeLessThan(1e-4)));
    policy.dispose();
  });

  it("prefills each distinct prompt once, skips its padding and drops finished rows, bit-for-bit the rollout of the full batch", async () => {
    const policy = smallPolicy(V, 4);
    // Three prompts, each repeated as a task's G programs are, interleaved, of different lengths.
    const grouped = [0, 1, 2, 0, 1, 2, 2, 0, 1].map((i) => prompts[i + 1]);
    const opts = { maxNewTokens: 12, temperature: 0.9 };
    const wide = new ToyConstraint(V, 1, 10); // completions of 2 to 11 tokens: rows finish apart
    const shared = await policy.sample(grouped, wide, { ...opts, rng: new Rng(9) });
    const each = await policy.sample(grouped, wide, { ...opts, rng: new Rng(9), sharePrefill: false, dropFinished: false, skipPadding: false });
    expect(shared.completions).toEqual(each.completions);
    // Rows finished at different steps, most well before the last, so rows really left the batch.
    const lengths = shared.completions.map((c) => c.length);
    expect(lengths.filter((n) => n < Math.max(...lengths)).length).toBeGreaterThanOrEqual(grouped.length / 4);
    expect(new Set(shared.completions.map((c) => c.join())).size).toBeGreaterThan(3); // rows of one prompt still draw apart
    shared.logProbs.forEach((lp, b) => expect([...lp]).toEqual([...each.logProbs[b]])); // exact, not within a tolerance
    expect(shared.masks).toEqual(each.masks);
    policy.dispose();
  });

  it("returns log-probs equal to the update's recomputation (same distribution, padding has no effect)", async () => {
    const policy = smallPolicy(V, 3);
    const rollout = await policy.sample(prompts, grammar, { maxNewTokens: 10, rng: new Rng(8), temperature: 0.7, topP: 0.9 });
    // completionLogProbs runs each sample alone, unpadded, teacher-forced, with the stored allowed sets.
    const recomputed = await policy.completionLogProbs(rolloutSamples(rollout, [0, 0, 0, 0]));
    rollout.logProbs.forEach((lp, b) => lp.forEach((x, j) => expect(Math.abs(x - recomputed[b][j])).toBeLessThan(1e-4)));
    policy.dispose();
  });

  it("stores the grammar mask as the allowed set at top-p 1, and a non-empty subset of it under top-p", async () => {
    const policy = smallPolicy(V, 4);
    const W = maskBytes(V);
    for (const topP of [1, 0.5]) {
      const rollout = await policy.sample(prompts, grammar, { maxNewTokens: 10, rng: new Rng(9), topP });
      rollout.completions.forEach((completion, b) => {
        let state = grammar.start();
        const mask = new Uint8Array(V);
        completion.forEach((token, j) => {
          grammar.allowed(state, mask);
          const stored = Array.from({ length: V }, (_, t) => (rollout.masks[b][j * W + (t >> 3)] >> (t & 7)) & 1);
          expect(stored[token]).toBe(1);
          if (topP === 1) expect(stored).toEqual(Array.from(mask));
          else stored.forEach((bit, t) => expect(bit <= mask[t]).toBe(true));
          state = grammar.advance(state, token);
        });
      });
    }
    policy.dispose();
  });

  it("rejects bad input with specific errors", async () => {
    const policy = smallPolicy(V, 5);
    const rng = new Rng(1);
    await expect(policy.sample([[]], grammar, { maxNewTokens: 4, rng })).rejects.toThrow(/empty: start every prompt with a BOS/);
    await expect(policy.sample([[TOY_BOS]], grammar, { maxNewTokens: 48, rng })).rejects.toThrow(/exceeds the model context 48/);
    await expect(policy.sample([[TOY_BOS]], new ToyConstraint(V + 1), { maxNewTokens: 4, rng })).rejects.toThrow(/vocabulary 21 differs/);
    await expect(policy.sample([[TOY_BOS, V]], grammar, { maxNewTokens: 4, rng })).rejects.toThrow(/outside \[0, 20\)/);
    await expect(policy.sample([[TOY_BOS]], grammar, { maxNewTokens: 4, rng, temperature: 0 })).rejects.toThrow(/temperature/);
    policy.dispose();
  });

  it("decodes rows of different grammars in one batch, each under its own mask", async () => {
    const policy = smallPolicy(V, 7);
    const short = new ToyConstraint(V, 1, 2);
    const long = new ToyConstraint(V, 5, 6);
    const rollout = await policy.sample(prompts, [short, long, short, long], { maxNewTokens: 10, rng: new Rng(3) });
    rollout.completions.forEach((c, b) => expect((b % 2 ? long : short).accepts(c)).toBe(true));
    await expect(policy.sample(prompts, [short], { maxNewTokens: 4, rng: new Rng(3) })).rejects.toThrow(/1 constraints for 4 prompts/);
    policy.dispose();
  });

  it("reports rows cut by maxNewTokens as not done", async () => {
    const policy = smallPolicy(V, 6);
    const rollout = await policy.sample([[TOY_BOS]], new ToyConstraint(V, 5, 9), { maxNewTokens: 3, rng: new Rng(2) });
    expect(rollout.done).toEqual([false]);
    expect(rollout.completions[0]).toHaveLength(3);
    policy.dispose();
  });
});
