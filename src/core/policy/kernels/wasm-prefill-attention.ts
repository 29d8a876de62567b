/**
 * A prefill's attention on tfjs's wasm backend (GptModel.forward with T > 1, no cache, no gradient) in
 * two kernels around tfjs's softmax, bit-identical to the tensor ops they replace in segmentAttention
 * at every query whose output is used:
 *
 *   scores:  att[r, h, j] = (sum_d q[r, h, d] k[j, h, d]) * scale + bias[b, 0, i, j]    (r: query i of row b)
 *            from qkv's rows as they are (the R real positions when the prompts' padding is left out),
 *            at the used queries only (the real ones, or each row's last); keys a query cannot see
 *            (bias at MASK or below, leading and trailing) take the bias as their score, unless the
 *            query sees no key at all (then every product is computed, as the ops do)
 *   values:  y[r, h*D + d] = sum over 48-key blocks of (sum_j p[r, h, j] v[j, h, d]), written as the
 *            merged heads (R, C) the block goes on with
 *
 * It replaces the padded rows' unpacking, three transposes, the split, a full T x T product for the
 * scores and one for the values, the scale, the bias, the merge transpose and the gather of the real
 * rows. A third kernel writes the keys and values the cache keeps (B, H, T, D), as splitting the
 * unpacked rows did. The products are those of tfjs-backend-wasm's BatchMatMul (wasm-matmul.ts:
 * each output from +0, in KBLOCK = 48 blocks over the inner axis, each block summed in order), scale
 * and bias are the Multiply and Add after it; a key a query cannot see gets probability exactly 0 from
 * the softmax either way (wasm-decode-attention.ts' MASK), and leaving a product p * v = +-0 out of a
 * sum changes no bit (v finite; padding keys and values are zero rows in the packed path). Each row of
 * the softmax holds the same T values as before, so it gives the same bits.
 * Tests: tests/unit/policy/kernels/wasm-prefill-attention.test.ts (forward outputs and caches against the
 * tensor ops over shapes with T across the 48-key block, padded and unpadded rows, last queries only).
 */
import * as tf from "@tensorflow/tfjs";
import { emitKeyScores, emitMaskedLead, MASK } from "./wasm-decode-attention.ts";
import { Code, F32, forUp, I32, V128, type FuncDef } from "./wasm-emit.ts";
import { heapOffset as offset, kernelOver, registerFlagOnce, registerWasmKernels, type KernelArgs, type WasmBackendInternals } from "./wasm-kernels.ts";

/** tfjs env flag: false keeps a prefill's attention on the tensor ops (the benchmark's "before", and a check). */
export const PREFILL_ATTENTION_FLAG = "A1_WASM_PREFILL_ATTENTION";
registerFlagOnce(PREFILL_ATTENTION_FLAG);
const SCORES = "A1PrefillScores";
const VALUES = "A1PrefillValues";
const CACHE = "A1PrefillCache";
/** tfjs-backend-wasm's slow_batch_matmul block over the inner axis (wasm-matmul.ts' KBLOCK). */
const KBLOCK = 48;

/**
 * Each row b's layout, four int32s (the `table` input): zb, its leading positions without a row of
 * their own in qkv (the left padding when packed: zero keys and values); base, the qkv row of position
 * zb; qFrom, its first used query; oBase, the output row of query qFrom.
 */
const TABLE = { zb: 0, base: 4, qFrom: 8, oBase: 12 } as const;
const zero = (c: Code) => c.i32(0);

/**
 * scores(qkv, bias, table, out, kT, B, H, T, C, biasRow, scale): out (Rq, H, T); kT: D x T floats of
 * scratch; row b's bias (T, T) at bias + b * biasRow bytes (0: one bias for every row).
 */
function scoresFunction(D: number): FuncDef {
  const P = { qkv: 0, bias: 1, table: 2, out: 3, kT: 4, B: 5, H: 6, T: 7, C: 8, biasRow: 9, scale: 10 };
  let n = 11;
  const I = { b: n++, h: n++, i: n++, j: n++, t: n++, zb: n++, base: n++, qFrom: n++, oBase: n++, kp: n++, op: n++, bp: n++, qb: n++, dRow: n++, p: n++, rowBytes: n++, op0: n++, bp0: n++ };
  const acc = n++;
  const q0 = n;
  n += D;
  const vscale = n++;
  const vacc = n;
  n += 2;
  const qs = n;
  const L = { j: I.j, kp: I.kp, op: I.op, bp: I.bp, dRow: I.dRow, p: I.p, acc, vscale, vacc, q0, qs, scale: P.scale };
  const c = new Code();
  c.get(P.T).i32(4).mul().set(I.dRow);
  c.get(P.C).i32(12).mul().set(I.rowBytes); // a qkv row: 3C floats
  c.get(P.scale).f32x4Splat().set(vscale);
  forUp(c, I.b, zero, P.B, () => {
    c.get(P.table).get(I.b).i32(16).mul().add().set(I.t);
    for (const [local, at] of [[I.zb, TABLE.zb], [I.base, TABLE.base], [I.qFrom, TABLE.qFrom], [I.oBase, TABLE.oBase]] as const) c.get(I.t).i32Load(at).set(local);
    forUp(c, I.h, zero, P.H, () => {
      // kT[d, j] = key j's dimension d (zero at the zb positions without a row).
      forUp(c, I.j, zero, P.T, () => {
        c.get(P.kT).get(I.j).i32(4).mul().add().set(I.kp);
        c.get(I.j).get(I.zb).ltU().if();
        for (let d = 0; d < D; d++) c.get(I.kp).i32(d).get(I.dRow).mul().add().f32Zero().f32Store();
        c.else();
        // key j at qkv + (base + j - zb) * rowBytes + (C + h * D) * 4
        c.get(P.qkv).get(I.base).get(I.j).add().get(I.zb).sub().get(I.rowBytes).mul().add().get(P.C).get(I.h).i32(D).mul().add().i32(4).mul().add().set(I.p);
        for (let d = 0; d < D; d++) c.get(I.kp).i32(d).get(I.dRow).mul().add().get(I.p).f32Load(4 * d).f32Store();
        c.end();
      });
      forUp(c, I.i, (c) => c.get(I.qFrom), P.T, () => {
        // the query at qkv + (base + i - zb) * rowBytes + h * D * 4
        c.get(P.qkv).get(I.base).get(I.i).add().get(I.zb).sub().get(I.rowBytes).mul().add().get(I.h).i32(D * 4).mul().add().set(I.qb);
        for (let d = 0; d < D; d++) {
          c.get(I.qb).f32Load(4 * d).set(q0 + d);
          c.get(q0 + d).f32x4Splat().set(qs + d);
        }
        // op = out + (((oBase + i - qFrom) * H + h) * T) * 4;  bp = bias + b * biasRow + i * T * 4
        c.get(P.out).get(I.oBase).get(I.i).add().get(I.qFrom).sub().get(P.H).mul().get(I.h).add().get(I.dRow).mul().add().set(I.op);
        c.get(P.bias).get(I.b).get(P.biasRow).mul().add().get(I.i).get(I.dRow).mul().add().set(I.bp);
        c.get(I.op).set(I.op0);
        c.get(I.bp).set(I.bp0);
        c.get(P.kT).set(I.kp);
        c.get(P.T).set(I.j);
        emitMaskedLead(c, L);
        c.get(I.j).eqz().if();
        {
          // Every key masked (a padding query's row, when its row is computed): the shortcut needs a
          // visible key to hold the softmax's max, so this row gets every product, as the ops do.
          c.get(P.kT).set(I.kp);
          c.get(I.op0).set(I.op);
          c.get(I.bp0).set(I.bp);
          c.get(P.T).set(I.j);
        }
        c.else();
        {
          // Trailing masked keys (a query's future) likewise: the bias as their score.
          c.block().loop();
          c.get(I.j).eqz().brIf(1);
          c.get(I.j).i32(1).sub().i32(4).mul().set(I.t);
          c.get(I.bp).get(I.t).add().f32Load().f32Const(MASK).f32Gt().brIf(1);
          c.get(I.op).get(I.t).add().get(I.bp).get(I.t).add().f32Load().f32Store();
          c.get(I.j).i32(1).sub().set(I.j);
          c.br(0).end().end();
        }
        c.end();
        emitKeyScores(c, L, D);
      });
    });
  });
  return { name: "scores", params: [...new Array(10).fill(I32), F32], locals: [...new Array(18).fill(I32), F32, ...new Array(D).fill(F32), V128, V128, V128, ...new Array(D).fill(V128)], body: c };
}

/** values(probs, qkv, table, out, B, H, T, C, kblock): out (Rq, C), the merged heads. */
function valuesFunction(D: number): FuncDef {
  const P = { probs: 0, qkv: 1, table: 2, out: 3, B: 4, H: 5, T: 6, C: 7, kblock: 8 };
  let n = 9;
  const I = { b: n++, h: n++, i: n++, j: n++, t: n++, zb: n++, base: n++, qFrom: n++, oBase: n++, pp: n++, e: n++, kb: n++, a: n++, end: n++, vp: n++, yp: n++, orow: n++, rowBytes: n++ };
  const vecs = D / 4;
  const acc = n;
  n += vecs;
  const s = n;
  n += vecs;
  const pv = n;
  const c = new Code();
  c.get(P.C).i32(12).mul().set(I.rowBytes);
  forUp(c, I.b, zero, P.B, () => {
    c.get(P.table).get(I.b).i32(16).mul().add().set(I.t);
    for (const [local, at] of [[I.zb, TABLE.zb], [I.base, TABLE.base], [I.qFrom, TABLE.qFrom], [I.oBase, TABLE.oBase]] as const) c.get(I.t).i32Load(at).set(local);
    forUp(c, I.h, zero, P.H, () => {
      forUp(c, I.i, (c) => c.get(I.qFrom), P.T, () => {
        c.get(I.oBase).get(I.i).add().get(I.qFrom).sub().set(I.orow);
        c.get(P.probs).get(I.orow).get(P.H).mul().get(I.h).add().get(P.T).mul().i32(4).mul().add().set(I.pp);
        c.get(P.out).get(I.orow).get(P.C).mul().get(I.h).i32(D).mul().add().i32(4).mul().add().set(I.yp);
        // e: one past the last key of non-zero probability, not below zb (the zero rows add nothing).
        c.get(P.T).set(I.e);
        c.block().loop();
        c.get(I.e).get(I.zb).gtU().eqz().brIf(1);
        c.get(I.pp).get(I.e).i32(1).sub().i32(4).mul().add().f32Load().f32Zero().f32Eq().eqz().brIf(1);
        c.get(I.e).i32(1).sub().set(I.e);
        c.br(0).end().end();
        for (let v = 0; v < vecs; v++) c.v128Zero().set(acc + v);
        // Blocks [kb, kb + kblock) of the keys, each summed from +0 over [max(kb, zb), min(kb + kblock, e)), then added.
        c.i32(0).set(I.kb);
        c.block().loop();
        c.get(I.kb).get(I.e).geU().brIf(1);
        c.get(I.kb).get(I.zb).get(I.kb).get(I.zb).gtU().select().set(I.a);
        c.get(I.kb).get(P.kblock).add().set(I.t);
        c.get(I.t).get(I.e).get(I.t).get(I.e).ltU().select().set(I.end);
        c.get(I.a).get(I.end).ltU().if();
        {
          for (let v = 0; v < vecs; v++) c.v128Zero().set(s + v);
          // value a at qkv + (base + a - zb) * rowBytes + (2C + h * D) * 4
          c.get(P.qkv).get(I.base).get(I.a).add().get(I.zb).sub().get(I.rowBytes).mul().add().get(P.C).i32(2).mul().get(I.h).i32(D).mul().add().i32(4).mul().add().set(I.vp);
          c.get(I.a).set(I.j);
          c.block().loop();
          c.get(I.j).get(I.end).geU().brIf(1);
          c.get(I.pp).get(I.j).i32(4).mul().add().v128Load32Splat().set(pv);
          for (let v = 0; v < vecs; v++) c.get(s + v).get(pv).get(I.vp).v128Load(16 * v).f32x4Mul().f32x4Add().set(s + v);
          c.get(I.vp).get(I.rowBytes).add().set(I.vp);
          c.get(I.j).i32(1).add().set(I.j);
          c.br(0).end().end();
          for (let v = 0; v < vecs; v++) c.get(acc + v).get(s + v).f32x4Add().set(acc + v);
        }
        c.end();
        c.get(I.kb).get(P.kblock).add().set(I.kb);
        c.br(0).end().end();
        for (let v = 0; v < vecs; v++) c.get(I.yp).get(acc + v).v128Store(16 * v);
      });
    });
  });
  return { name: "values", params: new Array(9).fill(I32), locals: [...new Array(18).fill(I32), ...new Array(2 * vecs + 1).fill(V128)], body: c };
}

/** cache(qkv, table, k, v, B, H, T, C): k and v (B, H, T, D), the keys and values of qkv's rows, zero at the zb positions. */
function cacheFunction(D: number): FuncDef {
  const P = { qkv: 0, table: 1, k: 2, v: 3, B: 4, H: 5, T: 6, C: 7 };
  let n = 8;
  const I = { b: n++, h: n++, t: n++, zb: n++, base: n++, kp: n++, vp: n++, src: n++, rowBytes: n++, tb: n };
  const c = new Code();
  c.get(P.C).i32(12).mul().set(I.rowBytes);
  c.get(P.k).set(I.kp);
  c.get(P.v).set(I.vp);
  forUp(c, I.b, zero, P.B, () => {
    c.get(P.table).get(I.b).i32(16).mul().add().set(I.tb);
    c.get(I.tb).i32Load(TABLE.zb).set(I.zb);
    c.get(I.tb).i32Load(TABLE.base).set(I.base);
    forUp(c, I.h, zero, P.H, () => {
      forUp(c, I.t, zero, P.T, () => {
        c.get(I.t).get(I.zb).ltU().if();
        for (let d = 0; d < D; d += 4) {
          c.get(I.kp).v128Zero().v128Store(4 * d);
          c.get(I.vp).v128Zero().v128Store(4 * d);
        }
        c.else();
        // key at qkv + (base + t - zb) * rowBytes + (C + h * D) * 4; its value C floats later
        c.get(P.qkv).get(I.base).get(I.t).add().get(I.zb).sub().get(I.rowBytes).mul().add().get(P.C).get(I.h).i32(D).mul().add().i32(4).mul().add().set(I.src);
        for (let d = 0; d < D; d += 4) c.get(I.kp).get(I.src).v128Load(4 * d).v128Store(4 * d);
        c.get(I.src).get(P.C).i32(4).mul().add().set(I.src);
        for (let d = 0; d < D; d += 4) c.get(I.vp).get(I.src).v128Load(4 * d).v128Store(4 * d);
        c.end();
        c.get(I.kp).i32(4 * D).add().set(I.kp);
        c.get(I.vp).i32(4 * D).add().set(I.vp);
      });
    });
  });
  return { name: "cache", params: new Array(8).fill(I32), locals: new Array(10).fill(I32), body: c };
}

interface PrefillKernels {
  scores(qkv: number, bias: number, table: number, out: number, kT: number, B: number, H: number, T: number, C: number, biasRow: number, scale: number): void;
  values(probs: number, qkv: number, table: number, out: number, B: number, H: number, T: number, C: number, kblock: number): void;
  cache(qkv: number, table: number, k: number, v: number, B: number, H: number, T: number, C: number): void;
}

const instances = new Map<number, WeakMap<WebAssembly.Memory, PrefillKernels | null>>();
function kernelsFor(backend: unknown, D: number): PrefillKernels | null {
  let cache = instances.get(D);
  if (!cache) instances.set(D, (cache = new WeakMap()));
  return kernelOver<PrefillKernels>(backend, cache, () => [scoresFunction(D), valuesFunction(D), cacheFunction(D)]);
}

/** Kernel calls since start (tests check the fused path really ran). */
export const prefillAttentionCounts = { calls: 0 };

/** inputs qkv (rows, 3C), bias (B or 1, 1, T, T), table (B, 4) int32; attrs heads, T, rows (Rq), scale. Output (Rq, H, T). */
function scoresKernel({ inputs, backend, attrs }: KernelArgs): tf.TensorInfo {
  const { heads, T, rows, scale } = attrs as { heads: number; T: number; rows: number; scale: number };
  const [qkv, bias, table] = ["qkv", "bias", "table"].map((n) => inputs[n] as tf.TensorInfo);
  const C = qkv.shape[1] / 3;
  const D = C / heads;
  const b = backend as WasmBackendInternals;
  const out = b.makeOutput([rows, heads, T], "float32");
  const kT = b.makeOutput([D, T], "float32");
  prefillAttentionCounts.calls++;
  const biasRow = bias.shape[0] === 1 ? 0 : 4 * T * T;
  kernelsFor(backend, D)!.scores(offset(b, qkv), offset(b, bias), offset(b, table), offset(b, out), offset(b, kT), table.shape[0], heads, T, C, biasRow, scale);
  b.disposeData(kT.dataId);
  return out;
}

/** inputs probs (Rq, H, T), qkv (rows, 3C), table (B, 4) int32; attrs heads. Output (Rq, C). */
function valuesKernel({ inputs, backend, attrs }: KernelArgs): tf.TensorInfo {
  const { heads } = attrs as { heads: number };
  const [probs, qkv, table] = ["probs", "qkv", "table"].map((n) => inputs[n] as tf.TensorInfo);
  const [rows, , T] = probs.shape;
  const C = qkv.shape[1] / 3;
  const b = backend as WasmBackendInternals;
  const out = b.makeOutput([rows, C], "float32");
  kernelsFor(backend, C / heads)!.values(offset(b, probs), offset(b, qkv), offset(b, table), offset(b, out), table.shape[0], heads, T, C, KBLOCK);
  return out;
}

/** inputs qkv (rows, 3C), table (B, 4) int32; attrs heads, T. Outputs k and v (B, H, T, D). */
function cacheKernel({ inputs, backend, attrs }: KernelArgs): tf.TensorInfo[] {
  const { heads, T } = attrs as { heads: number; T: number };
  const [qkv, table] = ["qkv", "table"].map((n) => inputs[n] as tf.TensorInfo);
  const C = qkv.shape[1] / 3;
  const D = C / heads;
  const B = table.shape[0];
  const b = backend as WasmBackendInternals;
  const [k, v] = [b.makeOutput([B, heads, T, D], "float32"), b.makeOutput([B, heads, T, D], "float32")];
  kernelsFor(backend, D)!.cache(offset(b, qkv), offset(b, table), offset(b, k), offset(b, v), B, heads, T, C);
  return [k, v];
}

/**
 * Whether a prefill of B rows of T positions with `heads` heads of width D and an attention bias of
 * shape `bias` can take these kernels now: the wasm backend with the internals used here, D % 4 = 0
 * and D <= 48 (the scores' products are one block), B * heads >= 2 (a single product would be
 * XNNPACK's, in another order), a bias (B or 1, 1, T, T), the flag on (default).
 */
export function prefillAttentionAvailable(B: number, T: number, heads: number, D: number, bias: readonly number[]): boolean {
  const biasFits = bias.length === 4 && (bias[0] === B || bias[0] === 1) && bias[1] === 1 && bias[2] === T && bias[3] === T;
  if (tf.getBackend() !== "wasm" || D % 4 !== 0 || D > KBLOCK || B * heads < 2 || !biasFits) return false;
  registerWasmKernels({ [SCORES]: scoresKernel, [VALUES]: valuesKernel, [CACHE]: cacheKernel });
  if (!tf.env().getBool(PREFILL_ATTENTION_FLAG)) return false;
  return kernelsFor(tf.backend(), D) !== null;
}

/** The kernels' table (TABLE) for B rows of T positions, packed by `pad` or not, at every used query or each row's last. */
function layout(B: number, T: number, pad: readonly number[] | null, lastOnly: boolean): { table: Int32Array; rows: number } {
  const table = new Int32Array(4 * B);
  let start = 0;
  for (let b = 0; b < B; b++) {
    const zb = pad ? Math.min(T, pad[b]) : 0;
    const base = pad ? start : b * T;
    table.set([zb, base, lastOnly ? T - 1 : zb, lastOnly ? b : base], 4 * b);
    start += T - zb;
  }
  return { table, rows: lastOnly ? B : pad ? start : B * T };
}

/**
 * One block's attention in a prefill of B rows of T positions, from qkv: (R, 3C) when `pad` is given
 * (the rows' real positions, row b's first pad[b] left out), else (B * T, 3C). `attended`: the merged
 * heads at each real query, or with `lastOnly` at each row's last: (R, C), (B * T, C) or (B, C).
 * `k`, `v`: the keys and values (B, H, T, D), zero at the left-out padding (what splitting the
 * unpacked rows gives). Must run inside tf.tidy or have its outputs disposed, like model.forward.
 */
export function prefillAttention(qkv: tf.Tensor2D, bias: tf.Tensor4D, B: number, T: number, heads: number, scale: number, pad: readonly number[] | null, lastOnly: boolean): { attended: tf.Tensor2D; k: tf.Tensor4D; v: tf.Tensor4D } {
  const { table, rows } = layout(B, T, pad, lastOnly);
  const t = tf.tensor2d(table, [B, 4], "int32");
  // The cache kernel reads only zb and base, which lastOnly leaves as they are.
  const [k, v] = tf.engine().runKernel(CACHE, { qkv, table: t }, { heads, T }) as unknown as tf.Tensor4D[];
  const attended = tf.tidy(() => {
    const att = tf.engine().runKernel(SCORES, { qkv, bias, table: t }, { heads, T, rows, scale: Math.fround(scale) }) as tf.Tensor3D;
    return tf.engine().runKernel(VALUES, { probs: tf.softmax(att, -1), qkv, table: t }, { heads }) as tf.Tensor2D;
  });
  t.dispose();
  return { attended, k, v };
}
