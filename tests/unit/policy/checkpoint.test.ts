import { beforeAll, describe, expect, it } from "vitest";
import { rolloutSamples } from "../../../src/core/policy/batch.ts";
import { CHECKPOINT_FORMAT_VERSION, CheckpointError, decodeCheckpoint } from "../../../src/core/policy/checkpoint.ts";
import { Policy } from "../../../src/core/policy/policy.ts";
import { groupAdvantages } from "../../../src/core/policy/grpo.ts";
import { ToyConstraint, TOY_BOS } from "../../../src/core/policy/toy-constraint.ts";
import { Rng } from "../../../src/core/rng.ts";
import { setupBackend, smallPolicy } from "./helpers.ts";

beforeAll(setupBackend);

const V = 16;
const grammar = new ToyConstraint(V, 1, 5);

async function trainedPolicy(): Promise<Policy> {
  const policy = smallPolicy(V, "ckpt", { lr: 1e-2, klCoef: 0.01 });
  const rng = new Rng("ckpt");
  for (let i = 0; i < 2; i++) {
    const rollout = await policy.sample(new Array(8).fill([TOY_BOS]), grammar, { maxNewTokens: 6, rng });
    await policy.update(rolloutSamples(rollout, groupAdvantages(rollout.completions.map((c) => c.length), 4)), rng);
  }
  return policy;
}

describe("checkpoints", () => {
  it("round-trip weights, optimizer state and reference: a restored policy continues exactly like the original", async () => {
    const original = await trainedPolicy();
    const buf = await original.save();
    const restored = Policy.load(buf);
    expect(restored.optimizerStep).toBe(original.optimizerStep);
    expect(restored.hasReference).toBe(true);
    expect(restored.config).toEqual(original.config);
    expect(restored.train).toEqual(original.train);
    // Same next update on both (same rollout, same rng): identical weights and moments afterwards.
    const rollout = await original.sample(new Array(8).fill([TOY_BOS]), grammar, { maxNewTokens: 6, rng: new Rng(1) });
    const samples = rolloutSamples(rollout, groupAdvantages(rollout.completions.map((c) => c.length), 4));
    const m1 = await original.update(samples, new Rng(2));
    const m2 = await restored.update(samples, new Rng(2));
    expect(m2).toEqual(m1);
    const [a, b] = [decodeCheckpoint(await original.save()), decodeCheckpoint(await restored.save())];
    expect(b.weights).toEqual(a.weights);
    expect(b.m).toEqual(a.m);
    expect(b.v).toEqual(a.v);
    expect(b.reference).toEqual(a.reference);
    original.dispose();
    restored.dispose();
  });

  it("accepts training-config overrides on load and rejects unknown keys", async () => {
    const policy = smallPolicy(V, 1);
    const buf = await policy.save();
    expect(Policy.load(buf, { lr: 5e-5 }).train.lr).toBe(5e-5);
    expect(() => Policy.load(buf, { learningRate: 1 } as never)).toThrow(/unknown training config key "learningRate"/);
    policy.dispose();
  });

  it("rejects foreign, future-version and truncated buffers with specific errors", async () => {
    const policy = smallPolicy(V, 2);
    const buf = await policy.save();
    expect(() => Policy.load(new TextEncoder().encode("PK\u0003\u0004 not a checkpoint").buffer)).toThrow(/not a policy checkpoint/);
    const future = buf.slice(0);
    new DataView(future).setUint32(4, CHECKPOINT_FORMAT_VERSION + 1, true);
    expect(() => Policy.load(future)).toThrow(CheckpointError);
    expect(() => Policy.load(future)).toThrow(/format version 2 is not supported/);
    expect(() => Policy.load(buf.slice(0, buf.byteLength - 4))).toThrow(/truncated or corrupt/);
    policy.dispose();
  });

  it("rejects a malformed header (as a bundle from elsewhere may carry) with a CheckpointError, never a TypeError", () => {
    /** A checkpoint with this header text and no weights. */
    const withHeader = (text: string) => {
      const header = new TextEncoder().encode(text);
      const buf = new ArrayBuffer(12 + header.length);
      new Uint8Array(buf, 0, 4).set(new TextEncoder().encode("CA1P"));
      new DataView(buf).setUint32(4, CHECKPOINT_FORMAT_VERSION, true);
      new DataView(buf).setUint32(8, header.length, true);
      new Uint8Array(buf, 12).set(header);
      return buf;
    };
    const valid = { config: { layers: 1, heads: 1, dModel: 4, context: 4, vocab: 8, tiedHead: true }, train: {}, optimizerStep: 0, params: [], hasReference: false };
    const cases: [string, RegExp][] = [
      ["{not json", /header is not valid JSON/],
      ["null", /header must be a JSON object/],
      ["[]", /header must be a JSON object/],
      ["{}", /exactly the fields .*; it has none/],
      [JSON.stringify({ ...valid, extra: 1 }), /it has config,extra,hasReference/],
      [JSON.stringify({ ...valid, config: null }), /header config must be an object/],
      [JSON.stringify({ ...valid, train: "x" }), /header train must be an object/],
      [JSON.stringify({ ...valid, optimizerStep: -1 }), /optimizerStep must be a non-negative integer/],
      [JSON.stringify({ ...valid, params: {} }), /params must be a list/],
      [JSON.stringify({ ...valid, hasReference: 1 }), /hasReference must be true or false/],
    ];
    for (const [text, re] of cases) {
      let error: unknown;
      try {
        decodeCheckpoint(withHeader(text));
      } catch (e) {
        error = e;
      }
      expect(error, text).toBeInstanceOf(CheckpointError);
      expect((error as Error).message, text).toMatch(re);
    }
  });
});
