/**
 * The SIMD BatchMatMul against tfjs's own wasm kernel, bit for bit: every transpose pair, matching
 * and broadcast batches (rank 2 to 4), sizes around the 4-row, 8-column and 48-deep blocks; then
 * whole sampling and GRPO updates of a policy give the same checkpoint bytes either way.
 */
import * as tf from "@tensorflow/tfjs";
import { beforeAll, describe, expect, it } from "vitest";
import { rolloutSamples } from "../../../../src/core/policy/batch.ts";
import { groupAdvantages } from "../../../../src/core/policy/grpo.ts";
import { ToyConstraint, TOY_BOS } from "../../../../src/core/policy/toy-constraint.ts";
import { SIMD_MATMUL_FLAG, installWasmBatchMatMul, triangularMatMul, wasmMatMulCounts } from "../../../../src/core/policy/kernels/wasm-matmul.ts";
import { Rng } from "../../../../src/core/rng.ts";
import { differences, setupBackend, smallPolicy } from "../helpers.ts";

beforeAll(async () => {
  await setupBackend();
  installWasmBatchMatMul();
});

function withKernel<T>(simd: boolean, f: () => T): T {
  const before = tf.env().getBool(SIMD_MATMUL_FLAG);
  tf.env().set(SIMD_MATMUL_FLAG, simd);
  try {
    return f();
  } finally {
    tf.env().set(SIMD_MATMUL_FLAG, before);
  }
}

/** Both kernels' results as raw bits (so -0 and NaN payloads count). */
function bothKernels(a: tf.Tensor, b: tf.Tensor, ta: boolean, tb: boolean): { tfjs: Uint32Array; simd: Uint32Array; shapes: number[][] } {
  const run = (simd: boolean) =>
    withKernel(simd, () => {
      const out = tf.matMul(a, b, ta, tb);
      const bits = new Uint32Array(Float32Array.from(out.dataSync()).buffer);
      const shape = out.shape;
      out.dispose();
      return { bits, shape };
    });
  const t = run(false);
  const s = run(true);
  return { tfjs: t.bits, simd: s.bits, shapes: [t.shape, s.shape] };
}

const SIZES = [1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 47, 48, 49, 64, 97, 130];

describe("SIMD BatchMatMul", () => {
  it("is bit-identical to tfjs's kernel over transposes, batches and broadcasts, and really runs", () => {
    const rng = new Rng("wasm-matmul");
    const pick = () => SIZES[rng.int(SIZES.length)];
    // [outer dims of a, outer dims of b]: matching, broadcast from 1, rank 2 against rank 3 and 4.
    const batches: [number[], number[]][] = [[[], []], [[1], [1]], [[3], [3]], [[1], [5]], [[4], [1]], [[], [3]], [[2], []], [[2, 3], [2, 3]], [[2, 3], []], [[1, 1], [2, 2]]];
    const before = { ...wasmMatMulCounts };
    let cases = 0;
    for (const [outerA, outerB] of batches) {
      for (const ta of [false, true]) {
        for (const tb of [false, true]) {
          for (let rep = 0; rep < 3; rep++) {
            const [M, K, N] = [pick(), pick(), pick()];
            const a = tf.randomNormal([...outerA, ...(ta ? [K, M] : [M, K])], 0, 1, "float32", rng.int(1e9));
            const b = tf.randomNormal([...outerB, ...(tb ? [N, K] : [K, N])], 0, 1, "float32", rng.int(1e9));
            const r = bothKernels(a, b, ta, tb);
            expect(differences(r.simd, r.tfjs), `a ${a.shape} b ${b.shape} ta ${ta} tb ${tb}`).toEqual({ count: 0, first: -1 });
            expect(r.shapes[1]).toEqual(r.shapes[0]);
            tf.dispose([a, b]);
            cases++;
          }
        }
      }
    }
    expect(cases).toBe(batches.length * 4 * 3);
    // Every case but the batch-1 untransposed ones (XNNPACK's, left to tfjs: [] x [] and [1] x [1],
    // 3 repetitions each) took the SIMD path.
    expect(wasmMatMulCounts.simd - before.simd).toBe(cases - 2 * 3);
  });

  it("leaves out A's known zeros (triangularMatMul) with the same bits as tfjs's whole product", () => {
    const rng = new Rng("triangular");
    let cases = 0;
    // Square A around the 4-row tiles and 48-deep blocks; B of a few widths; both transposes of A.
    for (const T of [1, 3, 4, 5, 9, 47, 48, 49, 97, 130]) {
      for (const aZeros of ["above", "below"] as const) {
        for (const ta of [false, true]) {
          const N = [1, 5, 16][cases % 3];
          // The logical A (after the transpose) is zero above (k > i) or below (k < i) its diagonal,
          // with random signs, subnormals and exact zeros elsewhere.
          const logical = Array.from({ length: 3 * T * T }, (_, f) => {
            const [i, k] = [Math.floor(f / T) % T, f % T];
            if (aZeros === "above" ? k > i : k < i) return 0;
            const u = rng.next();
            return u < 0.05 ? 0 : u < 0.1 ? (rng.next() - 0.5) * 1e-40 : (rng.next() - 0.5) * 4;
          });
          const a0 = tf.tensor3d(logical, [3, T, T]);
          const a = ta ? tf.transpose(a0, [0, 2, 1]) : a0;
          const b = tf.randomNormal([3, T, N], 0, 1, "float32", rng.int(1e9));
          const bits = (t: tf.Tensor) => new Uint32Array(Float32Array.from(t.dataSync()).buffer);
          const simdBefore = wasmMatMulCounts.simd;
          const [o, t] = [withKernel(true, () => triangularMatMul(a as tf.Tensor3D, b as tf.Tensor3D, ta, false, { aZeros })), withKernel(false, () => tf.matMul(a, b, ta, false))];
          expect(wasmMatMulCounts.simd).toBe(simdBefore + 1);
          const [ours, tfjs] = [bits(o), bits(t)];
          tf.dispose([o, t]);
          expect(differences(ours, tfjs), `T ${T} ${aZeros} ta ${ta}`).toEqual({ count: 0, first: -1 });
          tf.dispose([a0, a, b]);
          cases++;
        }
      }
    }
    expect(cases).toBe(40);
  });

  it("with outAbove, computes every output on or below the diagonal with tfjs's bits; above it, tfjs's or +0", () => {
    const rng = new Rng("out-above");
    let skipped = 0;
    for (const [M, N, K] of [[9, 9, 16], [127, 127, 16], [5, 12, 3], [12, 5, 49], [1, 7, 4]]) {
      for (const tb of [false, true]) {
        const a = tf.randomNormal([2, M, K], 0, 1, "float32", rng.int(1e9));
        const b = tf.randomNormal(tb ? [2, N, K] : [2, K, N], 0, 1, "float32", rng.int(1e9));
        const ours = withKernel(true, () => tf.tidy(() => triangularMatMul(a as tf.Tensor3D, b as tf.Tensor3D, false, tb, { outAbove: true })));
        const tfjs = withKernel(false, () => tf.matMul(a, b, false, tb));
        const [o, t] = [ours.arraySync() as number[][][], tfjs.arraySync() as number[][][]];
        o.forEach((m, bi) =>
          m.forEach((row, i) =>
            row.forEach((x, j) => {
              const f = Math.fround(t[bi][i][j]);
              if (j <= i) expect(Object.is(x, f), `${M} x ${N} x ${K} tb ${tb} at ${i}, ${j}`).toBe(true);
              else if (!Object.is(x, f)) expect(Object.is(x, 0), `above the diagonal at ${i}, ${j}: ${x}`).toBe(true);
              if (j > i && Object.is(x, 0) && f !== 0) skipped++;
            }),
          ),
        );
        tf.dispose([a, b, ours, tfjs]);
      }
    }
    expect(skipped).toBeGreaterThan(2 * 127 * 100); // most of 127 x 127's upper triangle was left out
  });

  it("keeps special values and signed zeros as tfjs does", () => {
    const a = tf.tensor3d([0, -0, 1, Infinity, -1, 2, NaN, 3, -0, -0, 5, 1e-30], [2, 2, 3]);
    const b = tf.tensor3d([-0, 1, 0, -1, 2, 3, 1e30, -1e30, 1, 1, -0, 0], [2, 3, 2]);
    for (const [ta, tb] of [[false, false], [true, true]] as const) {
      const [x, y] = [ta ? tf.transpose(a, [0, 2, 1]) : a, tb ? tf.transpose(b, [0, 2, 1]) : b];
      const r = bothKernels(x, y, ta, tb);
      expect(differences(r.simd, r.tfjs)).toEqual({ count: 0, first: -1 });
    }
  });

  it("a policy samples and updates to the same checkpoint bytes on either kernel", async () => {
    const grammar = new ToyConstraint(16, 1, 5);
    const train = async (simd: boolean) => {
      tf.env().set(SIMD_MATMUL_FLAG, simd);
      try {
        // Context 96 and 60-token prompts: attention products sum over more than one 48-deep block.
        const model = { layers: 1, heads: 2, dModel: 32, context: 96, tiedHead: true };
        const policy = smallPolicy(16, "wasm-matmul", { lr: 1e-2, klCoef: 0.01 }, { model });
        const prompts = Array.from({ length: 8 }, (_, i) => [TOY_BOS, ...Array.from({ length: 59 }, (_, j) => 3 + ((i + j) % 12))]);
        const rng = new Rng(5);
        for (let i = 0; i < 2; i++) {
          const rollout = await policy.sample(prompts, grammar, { maxNewTokens: 6, rng });
          await policy.update(rolloutSamples(rollout, groupAdvantages(rollout.completions.map((c) => c.length), 4)), rng);
        }
        const bytes = new Uint8Array(await policy.save());
        policy.dispose();
        return bytes;
      } finally {
        tf.env().set(SIMD_MATMUL_FLAG, true);
      }
    };
    const simdBefore = wasmMatMulCounts.simd;
    const tfjsBytes = await train(false);
    expect(wasmMatMulCounts.simd).toBe(simdBefore);
    const simdBytes = await train(true);
    expect(wasmMatMulCounts.simd).toBeGreaterThan(simdBefore);
    expect(simdBytes.length).toBeGreaterThan(10_000);
    expect(differences(simdBytes, tfjsBytes)).toEqual({ count: 0, first: -1 });
  });
});
