/**
 * The byte-copy GatherV2, SplitV and Concat of wasm-copy.ts against tfjs's own wasm kernels, bit for
 * bit: gathers along every axis (repeated and unsorted indices, int32 and float32, signed zeros),
 * splits into equal and uneven parts and concatenations (with an empty part) along every axis;
 * out-of-range indices fail as tfjs's do; Identity and Cast share data safely.
 */
import * as tf from "@tensorflow/tfjs";
import { beforeAll, describe, expect, it } from "vitest";
import { WASM_COPY_FLAG, wasmCopyCounts } from "../../../../src/core/policy/kernels/wasm-copy.ts";
import { rolloutSamples } from "../../../../src/core/policy/batch.ts";
import { groupAdvantages } from "../../../../src/core/policy/grpo.ts";
import { ToyConstraint, TOY_BOS } from "../../../../src/core/policy/toy-constraint.ts";
import { Rng } from "../../../../src/core/rng.ts";
import { setupBackend, smallPolicy } from "../helpers.ts";

beforeAll(setupBackend);

/** f's output as raw bits and shapes with the copy kernels on and off. */
function both(f: () => tf.Tensor | tf.Tensor[]): { on: { bits: number[]; shape: number[] }[]; off: { bits: number[]; shape: number[] }[] } {
  const run = (on: boolean) => {
    tf.env().set(WASM_COPY_FLAG, on);
    try {
      const out = f();
      const list = Array.isArray(out) ? out : [out];
      const r = list.map((t) => ({ bits: Array.from(new Uint32Array(new Float32Array(t.dtype === "int32" ? Float32Array.from(t.dataSync()) : t.dataSync()).buffer)), shape: t.shape }));
      tf.dispose(list);
      return r;
    } finally {
      tf.env().set(WASM_COPY_FLAG, true);
    }
  };
  return { off: run(false), on: run(true) };
}

describe("wasm copy kernels", () => {
  const rng = new Rng(21);
  const values = (n: number) => Array.from({ length: n }, (_, i) => (i % 7 === 0 ? -0 : rng.next() * 4 - 2));

  it("GatherV2 equals tfjs's kernel along every axis", () => {
    const before = wasmCopyCounts.copy;
    for (const shape of [[9], [6, 5], [4, 3, 7], [2, 3, 4, 5]]) {
      const x = tf.tensor(values(shape.reduce((a, b) => a * b, 1)), shape);
      for (let axis = 0; axis < shape.length; axis++) {
        for (const idxShape of [[1], [5], [2, 3]]) {
          const n = idxShape.reduce((a, b) => a * b, 1);
          const idx = tf.tensor(Array.from({ length: n }, () => rng.int(shape[axis])), idxShape, "int32");
          const r = both(() => tf.gather(x, idx, axis));
          expect(r.on).toEqual(r.off);
          expect(r.on[0].shape).toEqual([...shape.slice(0, axis), ...idxShape, ...shape.slice(axis + 1)]);
          idx.dispose();
        }
      }
      const xi = tf.cast(tf.mul(x, 100), "int32");
      const r = both(() => tf.gather(xi, tf.tensor1d([0, 0, shape[0] - 1], "int32")));
      expect(r.on).toEqual(r.off);
      tf.dispose([x, xi]);
    }
    expect(wasmCopyCounts.copy).toBe(before + 34); // 10 axes x 3 index shapes, and 4 int32 gathers
  });

  it("SplitV equals tfjs's kernel, equal and uneven parts, every axis", () => {
    for (const shape of [[12], [6, 12], [4, 6, 9], [2, 6, 3, 6]]) {
      const x = tf.tensor(values(shape.reduce((a, b) => a * b, 1)), shape);
      for (let axis = 0; axis < shape.length; axis++) {
        for (const parts of [2, [1, shape[axis] - 1], [shape[axis], 0]]) {
          if (typeof parts === "number" && shape[axis] % parts) continue;
          const r = both(() => tf.split(x, parts, axis));
          expect(r.on).toEqual(r.off);
        }
      }
      x.dispose();
    }
  });

  it("Identity and same-dtype Cast share the data; the sharer outlives its source; memory is freed with the last", () => {
    const bytes0 = tf.memory().numBytes;
    const x = tf.tensor2d([1, -0, 3.5, NaN], [2, 2]);
    const y = x.clone();
    const z = tf.cast(y, "float32");
    const w = tf.cast(x, "int32"); // another dtype: a real conversion
    x.dispose();
    expect(Array.from(y.dataSync())).toEqual([1, -0, 3.5, NaN]);
    expect(Object.is(z.dataSync()[1], -0)).toBe(true);
    expect(Array.from(w.dataSync())).toEqual([1, 0, 3, 0]);
    y.dispose();
    expect(Array.from(z.dataSync())).toEqual([1, -0, 3.5, NaN]);
    tf.dispose([z, w]);
    expect(tf.memory().numBytes).toBe(bytes0);
  });

  it("Concat equals tfjs's kernel along every axis, with empty parts and int32", () => {
    const before = wasmCopyCounts.copy;
    for (const shape of [[5], [3, 4], [2, 3, 5], [64, 4, 3, 16]]) {
      for (let axis = 0; axis < shape.length; axis++) {
        const part = (n: number) => tf.tensor(values(shape.map((d, i) => (i === axis ? n : d)).reduce((a, b) => a * b, 1)), shape.map((d, i) => (i === axis ? n : d)));
        const parts = [part(shape[axis]), part(1), part(0), part(2)];
        const r = both(() => tf.concat(parts, axis));
        expect(r.on).toEqual(r.off);
        const ints = parts.map((p) => tf.cast(tf.mul(p, 1000), "int32"));
        const ri = both(() => tf.concat(ints, axis));
        expect(ri.on).toEqual(ri.off);
        tf.dispose([...parts, ...ints]);
      }
    }
    expect(wasmCopyCounts.copy).toBeGreaterThan(before);
  });

  it("an index out of range fails with tfjs's message", () => {
    const x = tf.tensor2d([1, 2, 3, 4], [2, 2]);
    for (const bad of [2, -1]) expect(() => tf.gather(x, tf.tensor1d([0, bad], "int32"))).toThrow(`GatherV2: the index value ${bad} is not in [0, 1]`);
    x.dispose();
  });

  it("a policy samples (shared prefills, dropped rows) and updates to the same rollouts and checkpoint bytes either way", async () => {
    const grammar = new ToyConstraint(16, 1, 9);
    const run = async (on: boolean) => {
      tf.env().set(WASM_COPY_FLAG, on);
      try {
        const policy = smallPolicy(16, "wasm-copy", { lr: 1e-2, klCoef: 0.01 });
        // 4 distinct prompts x 3 rows each: one prefill per prompt, copied to its rows by a gather.
        const prompts = Array.from({ length: 12 }, (_, i) => [TOY_BOS, ...Array.from({ length: 3 + 4 * (i % 4) }, (_, j) => 3 + ((i % 4) + j) % 12)]);
        const rng = new Rng(8);
        const completions = [];
        for (let step = 0; step < 2; step++) {
          const rollout = await policy.sample(prompts, grammar, { maxNewTokens: 10, rng });
          completions.push(rollout.completions, rollout.logProbs.map((l) => Array.from(l)));
          await policy.update(rolloutSamples(rollout, groupAdvantages(rollout.completions.map((c) => c.length % 2), 3)), rng);
        }
        const bytes = Array.from(new Uint8Array(await policy.save()));
        policy.dispose();
        return { bytes, completions };
      } finally {
        tf.env().set(WASM_COPY_FLAG, true);
      }
    };
    const before = wasmCopyCounts.copy;
    const off = await run(false);
    expect(wasmCopyCounts.copy).toBe(before);
    const on = await run(true);
    expect(wasmCopyCounts.copy).toBeGreaterThan(before);
    expect(on.bytes.length).toBeGreaterThan(10_000);
    expect(on.bytes).toEqual(off.bytes);
    expect(on.completions).toEqual(off.completions);
  });
});
