/**
 * The column Sum of wasm-sum.ts against tfjs's own wasm kernel, bit for bit: sums over one or more
 * leading axes of rank 2-4 tensors, with and without keepDims, widths around the 16- and 4-column
 * tiles, signed zeros, infinities and NaN; other reductions keep tfjs's kernel.
 */
import * as tf from "@tensorflow/tfjs";
import { beforeAll, describe, expect, it } from "vitest";
import { WASM_SUM_FLAG, wasmSumCounts } from "../../../../src/core/policy/kernels/wasm-sum.ts";
import { Rng } from "../../../../src/core/rng.ts";
import { setupBackend } from "../helpers.ts";

beforeAll(setupBackend);

function both(x: tf.Tensor, axis: number | number[], keepDims: boolean) {
  const run = (on: boolean) => {
    tf.env().set(WASM_SUM_FLAG, on);
    try {
      const out = tf.sum(x, axis, keepDims);
      const r = { bits: Array.from(new Uint32Array(Float32Array.from(out.dataSync()).buffer)), shape: out.shape };
      out.dispose();
      return r;
    } finally {
      tf.env().set(WASM_SUM_FLAG, true);
    }
  };
  return { off: run(false), on: run(true) };
}

describe("column Sum on wasm", () => {
  const rng = new Rng(12);
  const values = (n: number) => Array.from({ length: n }, (_, i) => (i % 11 === 0 ? -0 : (rng.next() - 0.5) * Math.exp(rng.next() * 12)));

  it("equals tfjs's kernel over leading axes, every width and tail", () => {
    const before = wasmSumCounts.columns;
    let cases = 0;
    for (const shape of [[1, 1], [7, 1], [3, 5], [33, 16], [50, 17], [2032, 64], [9, 20, 3], [4, 3, 2, 21]]) {
      const x = tf.tensor(values(shape.reduce((a, b) => a * b, 1)), shape);
      for (let r = 1; r < shape.length; r++) {
        const axes = Array.from({ length: r }, (_, i) => i);
        for (const keepDims of [false, true]) {
          const { on, off } = both(x, r === 1 ? 0 : axes, keepDims);
          expect(on).toEqual(off);
          cases++;
        }
      }
      x.dispose();
    }
    expect(wasmSumCounts.columns - before).toBe(cases);
  });

  it("keeps special values as tfjs does", () => {
    const x = tf.tensor2d([Infinity, -0, NaN, 1, -Infinity, -0, 0, 2, 1, -0, 3, 4], [3, 4]);
    const { on, off } = both(x, 0, false);
    expect(on).toEqual(off);
    x.dispose();
  });

  it("leaves trailing, middle and full reductions to tfjs", () => {
    const x = tf.tensor3d(values(24), [2, 3, 4]);
    const before = wasmSumCounts.columns;
    for (const axis of [2, 1, [1, 2], [0, 2], [0, 1, 2]]) {
      const { on, off } = both(x, axis, false);
      expect(on).toEqual(off);
    }
    expect(wasmSumCounts.columns).toBe(before);
    x.dispose();
  });
});
