/**
 * A SIMD BatchMatMul for tfjs's wasm backend, bit-identical to tfjs's own kernel.
 *
 * tfjs-backend-wasm 4.22 runs BatchMatMul on XNNPACK only for two batch-1 operands without transposes;
 * every other case (attention's batch = B x heads products, every transposed product of the backward
 * pass) takes its scalar `slow_batch_matmul`, which sums in this order (checked bit for bit by
 * tests/unit/policy/kernels/wasm-matmul.test.ts):
 *
 *   out[b, i, j] = 0;  for each k-block of KBLOCK: s = 0; for k in block: s += a[b, i, k] * b[b, k, j]; out += s
 *
 * in float32, no fused multiply-add. This kernel keeps exactly that order per output element and
 * computes 4 rows x 8 columns at once with f32x4 (each lane is one output element, so vectorising
 * across j changes no sum). It works in place on the backend's heap: inputs at their memoryOffset, the
 * output from backend.makeOutput, the module importing the backend's WebAssembly.Memory. A transposed
 * B is first copied to [K, N] (contiguous columns for the f32x4 loads).
 *
 * The XNNPACK case (batch 1, no transposes) and anything unusual (non-float32, batches that neither
 * match nor broadcast from 1, a backend without the internals used here) go to tfjs's kernel.
 */
import * as tf from "@tensorflow/tfjs";
import { kernelOver, overrideWasmKernel, type WasmBackendInternals } from "./wasm-kernels.ts";
import { Code, F32, I32, V128, type FuncDef } from "./wasm-emit.ts";

/** slow_batch_matmul's kBlockSize (tfjs-backend-wasm/src/cc/batch_mat_mul_impl.cc). */
const KBLOCK = 48;
/** tfjs env flag: false sends every BatchMatMul to tfjs's kernel (the benchmark's "before"). */
export const SIMD_MATMUL_FLAG = "A1_WASM_SIMD_MATMUL";

// ---- the kernel, emitted ----

/**
 * bmm's parameters (all i32; strides and offsets in bytes). `zeros`: what the caller knows of A
 * (ZEROS): 0 nothing; 1 A[i, k] = 0 for k > i; 2 A[i, k] = 0 for k < i. `outAbove`: 1 when the
 * caller does not need out[i, j] for j > i (they stay +0).
 */
const P = { a: 0, b: 1, out: 2, batch: 3, M: 4, N: 5, K: 6, aBatch: 7, aRow: 8, aK: 9, bBatch: 10, bK: 11, zeros: 12, outAbove: 13 } as const;
/**
 * bmm's i32 locals, after the params: kLo / kCnt are a tile's k range within the block [k0, k0 + kn),
 * nLim its columns.
 */
const L = { bi: 14, k0: 15, kn: 16, i0: 17, j0: 18, pa: 19, pb: 20, kk: 21, po: 22, aB: 23, bB: 24, oB: 25, oRow: 26, aRow2: 27, aRow3: 28, oRow2: 29, oRow3: 30, oBatch: 31, kLo: 32, kCnt: 33, nLim: 34 } as const;
const I32_LOCALS = 21;
const PARAMS = 14;
/** Values of bmm's `zeros`, and of the BatchMatMul attr `aZeros` that sets it (see causalMatMul). */
const ZEROS = { none: 0, above: 1, below: 2 } as const;
const ROWS = 4;
const VECS = 2;
/** v128 locals: the tile's block sums s[r][v], then the loaded B vectors, then the splatted A value. */
const S0 = PARAMS + I32_LOCALS;
const BV0 = S0 + ROWS * VECS;
const AV = BV0 + VECS;
/** f32 locals for the scalar column tile: sums per row, then A and B values. */
const SF0 = AV + 1;
const AF = SF0 + ROWS;
const BF = AF + 1;

const aRowLocal = (r: number) => [0, P.aRow, L.aRow2, L.aRow3][r];
const oRowLocal = (r: number) => [0, L.oRow, L.oRow2, L.oRow3][r];

/** `while (cond) body`, where `exitIf` pushes a condition that ends the loop. */
function whileLoop(c: Code, exitIf: (c: Code) => void, body: (c: Code) => void): void {
  c.block().loop();
  exitIf(c);
  c.brIf(1);
  body(c);
  c.br(0).end().end();
}

/** One tile: `rows` rows (1 or 4) by 4 * vecs columns (vecs 0: one column, scalar), one k-block. */
function tile(c: Code, rows: number, vecs: number): void {
  const s = (r: number, v: number) => S0 + r * VECS + v;
  for (let r = 0; r < rows; r++) {
    if (vecs === 0) c.f32Zero().set(SF0 + r);
    else for (let v = 0; v < vecs; v++) c.v128Zero().set(s(r, v));
  }
  // pa = aB + i0 * aRow + kLo * aK;  pb = bB + kLo * bK + j0 * 4
  c.get(L.aB).get(L.i0).get(P.aRow).mul().add().get(L.kLo).get(P.aK).mul().add().set(L.pa);
  c.get(L.bB).get(L.kLo).get(P.bK).mul().add().get(L.j0).i32(4).mul().add().set(L.pb);
  c.get(L.kCnt).set(L.kk);
  c.loop();
  if (vecs === 0) {
    c.get(L.pb).f32Load().set(BF);
    for (let r = 0; r < rows; r++) {
      c.get(L.pa);
      if (r > 0) c.get(aRowLocal(r)).add();
      c.f32Load().set(AF);
      c.get(SF0 + r).get(AF).get(BF).f32Mul().f32Add().set(SF0 + r);
    }
  } else {
    for (let v = 0; v < vecs; v++) c.get(L.pb).v128Load(16 * v).set(BV0 + v);
    for (let r = 0; r < rows; r++) {
      c.get(L.pa);
      if (r > 0) c.get(aRowLocal(r)).add();
      c.v128Load32Splat().set(AV);
      for (let v = 0; v < vecs; v++) c.get(s(r, v)).get(AV).get(BV0 + v).f32x4Mul().f32x4Add().set(s(r, v));
    }
  }
  c.get(L.pa).get(P.aK).add().set(L.pa);
  c.get(L.pb).get(P.bK).add().set(L.pb);
  c.get(L.kk).i32(1).sub().set(L.kk);
  c.get(L.kk).brIf(0);
  c.end();
  // out tile += s
  c.get(L.oB).get(L.i0).get(L.oRow).mul().add().get(L.j0).i32(4).mul().add().set(L.po);
  for (let r = 0; r < rows; r++) {
    const addr = () => {
      c.get(L.po);
      if (r > 0) c.get(oRowLocal(r)).add();
    };
    if (vecs === 0) {
      addr();
      addr();
      c.f32Load().get(SF0 + r).f32Add().f32Store();
    } else {
      for (let v = 0; v < vecs; v++) {
        addr();
        addr();
        c.v128Load(16 * v).get(s(r, v)).f32x4Add().v128Store(16 * v);
      }
    }
  }
}

/**
 * The columns of the rows at i0: 8-wide tiles, then one 4-wide, then single columns; all N, or with
 * `outAbove` only those up to the tile's last row (nLim), the rest left at the +0 the output starts at.
 */
function columns(c: Code, rows: number): void {
  c.get(P.N).set(L.nLim);
  c.block();
  c.get(P.outAbove).eqz().brIf(0);
  c.get(L.i0).i32(rows).add().get(P.N).get(L.i0).i32(rows).add().get(P.N).ltU().select().set(L.nLim);
  c.end();
  c.i32(0).set(L.j0);
  for (const [vecs, width] of [[2, 8], [1, 4], [0, 1]] as const) {
    whileLoop(
      c,
      (c) => c.get(L.nLim).get(L.j0).sub().i32(width).ltU(),
      (c) => {
        tile(c, rows, vecs);
        c.get(L.j0).i32(width).add().set(L.j0);
      },
    );
  }
}

/**
 * The k range of the rows i0 .. i0 + rows - 1 within the block [k0, k0 + kn): all of it, or without
 * the terms A's known zeros make for every row of the tile (above: k > i0 + rows - 1; below: k < i0).
 * Leaving out exact zeros changes no sum: a block's sum starts from +0, so it is never -0, and
 * x + (+-0) = x; a block left out entirely adds that +0 to the output, which is never -0 either.
 */
function tileRange(c: Code, rows: number): void {
  c.get(L.k0).set(L.kLo);
  c.get(L.kn).set(L.kCnt);
  // above: kCnt = min(kn, i0 + rows - k0)  (signed: negative when the block starts past the tile's rows)
  c.block();
  c.get(P.zeros).i32(ZEROS.above).ne().brIf(0);
  c.get(L.i0).i32(rows).add().get(L.k0).sub().get(L.kCnt).get(L.i0).i32(rows).add().get(L.k0).sub().get(L.kCnt).lt().select().set(L.kCnt);
  c.end();
  // below: kLo = max(k0, i0), kCnt = k0 + kn - kLo
  c.block();
  c.get(P.zeros).i32(ZEROS.below).ne().brIf(0);
  c.get(L.i0).get(L.k0).get(L.i0).get(L.k0).gt().select().set(L.kLo);
  c.get(L.k0).get(L.kn).add().get(L.kLo).sub().set(L.kCnt);
  c.end();
}

function bmmFunction(): FuncDef {
  const c = new Code();
  // Strides of the output and of rows 2, 3 of a tile.
  c.get(P.N).i32(4).mul().set(L.oRow);
  c.get(L.oRow).get(P.M).mul().set(L.oBatch);
  c.get(P.aRow).i32(2).mul().set(L.aRow2);
  c.get(P.aRow).i32(3).mul().set(L.aRow3);
  c.get(L.oRow).i32(2).mul().set(L.oRow2);
  c.get(L.oRow).i32(3).mul().set(L.oRow3);
  // out = 0 (the reference adds each block's sum into a zeroed output)
  c.get(P.out).i32(0).get(L.oBatch).get(P.batch).mul().memoryFill();
  c.i32(0).set(L.bi);
  whileLoop(
    c,
    (c) => c.get(L.bi).get(P.batch).geU(),
    (c) => {
      c.get(P.a).get(L.bi).get(P.aBatch).mul().add().set(L.aB);
      c.get(P.b).get(L.bi).get(P.bBatch).mul().add().set(L.bB);
      c.get(P.out).get(L.bi).get(L.oBatch).mul().add().set(L.oB);
      c.i32(0).set(L.k0);
      whileLoop(
        c,
        (c) => c.get(L.k0).get(P.K).geU(),
        (c) => {
          // kn = min(KBLOCK, K - k0)
          c.get(P.K).get(L.k0).sub().i32(KBLOCK).get(P.K).get(L.k0).sub().i32(KBLOCK).ltU().select().set(L.kn);
          c.i32(0).set(L.i0);
          for (const rows of [ROWS, 1]) {
            whileLoop(
              c,
              (c) => c.get(P.M).get(L.i0).sub().i32(rows).ltU(),
              (c) => {
                tileRange(c, rows);
                // A tile whose k range holds only A's known zeros adds +0 to each output: skipped.
                c.block();
                c.get(L.kCnt).i32(0).le().brIf(0);
                columns(c, rows);
                c.end();
                c.get(L.i0).i32(rows).add().set(L.i0);
              },
            );
          }
          c.get(L.k0).i32(KBLOCK).add().set(L.k0);
        },
      );
      c.get(L.bi).i32(1).add().set(L.bi);
    },
  );
  return {
    name: "bmm",
    params: new Array(PARAMS).fill(I32),
    locals: [...new Array(I32_LOCALS).fill(I32), ...new Array(ROWS * VECS + VECS + 1).fill(V128), ...new Array(ROWS + 2).fill(F32)],
    body: c,
  };
}

/** pack(src, dst, count, N, K): each of `count` [N, K] matrices at src, transposed to [K, N] at dst. */
function packFunction(): FuncDef {
  const p = { src: 0, dst: 1, count: 2, N: 3, K: 4 };
  const l = { bi: 5, j: 6, k: 7, ps: 8, pd: 9, nRow: 10, dB: 11 };
  const c = new Code();
  c.get(p.N).i32(4).mul().set(l.nRow);
  c.get(p.src).set(l.ps);
  c.i32(0).set(l.bi);
  whileLoop(
    c,
    (c) => c.get(l.bi).get(p.count).geU(),
    (c) => {
      c.get(p.dst).get(l.bi).get(l.nRow).mul().get(p.K).mul().add().set(l.dB);
      c.i32(0).set(l.j);
      whileLoop(
        c,
        (c) => c.get(l.j).get(p.N).geU(),
        (c) => {
          c.get(l.dB).get(l.j).i32(4).mul().add().set(l.pd);
          c.i32(0).set(l.k);
          whileLoop(
            c,
            (c) => c.get(l.k).get(p.K).geU(),
            (c) => {
              c.get(l.pd).get(l.ps).f32Load().f32Store();
              c.get(l.ps).i32(4).add().set(l.ps);
              c.get(l.pd).get(l.nRow).add().set(l.pd);
              c.get(l.k).i32(1).add().set(l.k);
            },
          );
          c.get(l.j).i32(1).add().set(l.j);
        },
      );
      c.get(l.bi).i32(1).add().set(l.bi);
    },
  );
  return { name: "pack", params: new Array(5).fill(I32), locals: new Array(7).fill(I32), body: c };
}

// ---- wiring to tfjs ----

interface KernelExports {
  bmm(...args: number[]): void;
  pack(src: number, dst: number, count: number, N: number, K: number): void;
}

const instances = new WeakMap<WebAssembly.Memory, KernelExports | null>();

/** The kernel instantiated over this backend's memory, or null where that cannot be done. */
function kernelFor(backend: unknown): KernelExports | null {
  return kernelOver(backend, instances, () => [bmmFunction(), packFunction()]);
}

type KernelFunc = (args: { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap }) => tf.TensorInfo;
const size = (shape: readonly number[]) => shape.reduce((x, y) => x * y, 1);

/** The fast path, or null to let tfjs's kernel do it. Shapes follow tfjs's kernels/BatchMatMul.js. */
function simdBatchMatMul(args: Parameters<KernelFunc>[0]): tf.TensorInfo | null {
  const { a, b } = args.inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
  const { transposeA, transposeB, aZeros, outAbove } = (args.attrs ?? {}) as { transposeA: boolean; transposeB: boolean; aZeros?: keyof typeof ZEROS; outAbove?: boolean };
  if (a.dtype !== "float32" || b.dtype !== "float32") return null;
  const batchA = size(a.shape.slice(0, -2));
  const batchB = size(b.shape.slice(0, -2));
  if (batchA === 1 && batchB === 1 && !transposeA && !transposeB) return null; // XNNPACK: already SIMD
  if (batchA !== batchB && batchA !== 1 && batchB !== 1) return null;
  const kernel = kernelFor(args.backend);
  if (!kernel) return null;
  const backend = args.backend as WasmBackendInternals;
  const ar = a.shape.length;
  const br = b.shape.length;
  const K = transposeA ? a.shape[ar - 2] : a.shape[ar - 1];
  const M = transposeA ? a.shape[ar - 1] : a.shape[ar - 2];
  const N = transposeB ? b.shape[br - 2] : b.shape[br - 1];
  if (K !== (transposeB ? b.shape[br - 1] : b.shape[br - 2])) return null; // tfjs's kernel throws the error
  const aOffset = backend.dataIdMap.get(a.dataId)?.memoryOffset;
  const bOffset = backend.dataIdMap.get(b.dataId)?.memoryOffset;
  if (aOffset == null || bOffset == null) return null;
  const outer = tf.backend_util.assertAndGetBroadcastShape(a.shape.slice(0, -2), b.shape.slice(0, -2));
  const batch = Math.max(batchA, batchB);
  const out = backend.makeOutput([...outer, M, N], "float32");
  if (batch * M * N === 0) return out;
  let packed: tf.TensorInfo | null = null;
  let bData = bOffset;
  if (transposeB) {
    packed = backend.makeOutput([batchB, K, N], "float32");
    bData = backend.dataIdMap.get(packed.dataId)!.memoryOffset!;
    kernel.pack(bOffset, bData, batchB, N, K);
  }
  const outOffset = backend.dataIdMap.get(out.dataId)!.memoryOffset!;
  // a[i, k] at aRow * i + aK * k (bytes); b[k, j] at bK * k + 4 j.
  const [aRow, aK] = transposeA ? [4, 4 * M] : [4 * K, 4];
  kernel.bmm(aOffset, bData, outOffset, batch, M, N, K, batchA === 1 ? 0 : 4 * M * K, aRow, aK, batchB === 1 ? 0 : 4 * K * N, 4 * N, ZEROS[aZeros ?? "none"] ?? 0, outAbove === true ? 1 : 0);
  if (packed) backend.disposeData(packed.dataId);
  return out;
}

/**
 * a (batch, M, K) @ b (batch, K, N), transposes as tf.matMul, where the caller knows the (transposed) A
 * to be zero above its diagonal (aZeros "above": A[i, k] = 0 for k > i, causal attention's
 * probabilities and their gradients) or below it ("below": k < i, their transposes), or does not need
 * the output above its diagonal (outAbove: out[i, j] for j > i, causal scores and their gradient
 * before the mask and the softmax's gradient zero them). On wasm the SIMD kernel leaves those terms
 * out with the same bits (see tileRange) and those outputs at +0; every other kernel ignores the hints
 * and computes the whole product.
 */
export function triangularMatMul(a: tf.Tensor3D, b: tf.Tensor3D, transposeA: boolean, transposeB: boolean, hints: { aZeros?: "above" | "below"; outAbove?: boolean }): tf.Tensor3D {
  return tf.engine().runKernel("BatchMatMul", { a, b }, { transposeA, transposeB, ...hints }) as tf.Tensor3D;
}

/** Calls that took each path since start (tests check the SIMD path really ran). */
export const wasmMatMulCounts = { simd: 0, tfjs: 0 };

let installed = false;

/**
 * Put the SIMD kernel over the wasm backend's BatchMatMul (once; a no-op without the wasm backend's
 * kernel). Call before tf.setBackend("wasm"); later works too, as the kernel reads its backend per call.
 */
export function installWasmBatchMatMul(): void {
  if (installed) return;
  installed = overrideWasmKernel("BatchMatMul", SIMD_MATMUL_FLAG, simdBatchMatMul, (simd) => void (simd ? wasmMatMulCounts.simd++ : wasmMatMulCounts.tfjs++));
}

