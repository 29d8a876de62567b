/**
 * One-query attention for decoding steps on tfjs's wasm backend, in two kernels around tfjs's softmax,
 * bit-identical to the tensor ops they replace in GptModel.forward (T = 1):
 *
 *   scores:  att[b, h, 0, off_i + j] = (sum_d q[bh, d] k_i[bh, j, d]) * scale + bias[b, 0, 0, off_i + j]
 *            for every cache segment i at its column offset off_i (was: per segment multiply, Sum over
 *            d, expandDims; concat; multiply by the scale; add the bias: 9 kernels, 3 full-size temporaries)
 *   values:  y[bh, 0, d] = (... (sum_j p[bh, off_1 + j] v_1[bh, j, d]) + (sum_j p[bh, off_2 + j] v_2[bh, j, d]) ...)
 *            (was: split the probabilities; per segment reshape, multiply, Sum over j; add: 6+ kernels)
 *
 * Every sum runs in order from +0 in float32 without fused multiply-add, as tfjs-backend-wasm's Sum
 * does (its reduction over a middle axis transposes first, then sums each row in order), and each
 * multiply and add rounds to float32 as its Multiply and Add do; so every output carries the same
 * bits (tests/unit/policy/kernels/wasm-decode-attention.test.ts: kernels against the tensor ops over several
 * shapes, and sampled rollouts token for token). The scores loop is scalar with the query held in
 * locals (a key's D products must be summed in order, so f32x4 lanes cannot split one sum); the values
 * loop keeps D/4 f32x4 sums (lanes are different d, each summed in order over j). Emitted per head
 * width D (D % 4 = 0), instantiated over the backend's memory like wasm-matmul.ts.
 */
import * as tf from "@tensorflow/tfjs";
import { heapOffset as offset, kernelOver, registerFlagOnce, registerWasmKernels, type KernelArgs, type WasmBackendInternals } from "./wasm-kernels.ts";
import { Code, F32, I32, V128, whileNonZero, type FuncDef } from "./wasm-emit.ts";

/** tfjs env flag: false keeps decoding on the tensor ops (the benchmark's "before", and a check). */
export const DECODE_ATTENTION_FLAG = "A1_WASM_DECODE_ATTENTION";
registerFlagOnce(DECODE_ATTENTION_FLAG);
const SCORES = "A1DecodeScores";
const VALUES = "A1DecodeValues";
const SCORES_IN_PLACE = "A1DecodeScoresInPlace";

/**
 * attentionBias's mask (model.ts): a key biased by it gets a score near -1e9, whose softmax probability
 * is exactly 0 (tfjs's softmax gives exp(x - max) = 0 below about -87), whatever the key: scoresT
 * leaves the products of leading masked keys out and scores them -1e9 (with the prompt's padded keys
 * zero, as the sampler's prefill leaves them, that is even the same score).
 */
export const MASK = -1e9;

/** scores(q, k, bias, out, BH, H, S, Stot, off, scale): one segment's columns of att. */
function scoresFunction(D: number): FuncDef {
  const P = { q: 0, k: 1, bias: 2, out: 3, BH: 4, H: 5, S: 6, Stot: 7, off: 8, scale: 9 };
  const L = { bh: 10, j: 11, kp: 12, op: 13, bp: 14, qb: 15, acc: 16, q0: 17 };
  const c = new Code();
  c.get(P.BH).set(L.bh);
  whileNonZero(c, L.bh, (c) => {
    // Rows run backwards (bh = BH - 1 ... 0): each is independent, so the order changes no output.
    // qb = q + (bh - 1) * D * 4
    c.get(P.q).get(L.bh).i32(1).sub().i32(D * 4).mul().add().set(L.qb);
    for (let d = 0; d < D; d++) c.get(L.qb).f32Load(4 * d).set(L.q0 + d);
    // kp = k + (bh - 1) * S * D * 4;  op = out + ((bh - 1) * Stot + off) * 4;  bp = bias + (((bh - 1) / H) * Stot + off) * 4
    c.get(P.k).get(L.bh).i32(1).sub().get(P.S).mul().i32(D * 4).mul().add().set(L.kp);
    c.get(P.out).get(L.bh).i32(1).sub().get(P.Stot).mul().get(P.off).add().i32(4).mul().add().set(L.op);
    c.get(P.bias).get(L.bh).i32(1).sub().get(P.H).divU().get(P.Stot).mul().get(P.off).add().i32(4).mul().add().set(L.bp);
    c.get(P.S).set(L.j);
    whileNonZero(c, L.j, (c) => {
      c.f32Zero().set(L.acc);
      for (let d = 0; d < D; d++) c.get(L.acc).get(L.q0 + d).get(L.kp).f32Load(4 * d).f32Mul().f32Add().set(L.acc);
      c.get(L.op).get(L.acc).get(P.scale).f32Mul().get(L.bp).f32Load().f32Add().f32Store();
      c.get(L.kp).i32(D * 4).add().set(L.kp);
      c.get(L.op).i32(4).add().set(L.op);
      c.get(L.bp).i32(4).add().set(L.bp);
    });
  });
  return { name: "scores", params: [I32, I32, I32, I32, I32, I32, I32, I32, I32, F32], locals: [...new Array(6).fill(I32), ...new Array(1 + D).fill(F32)], body: c };
}

/**
 * values(p, v, out, BH, S, Stot, off, vRow): y = sum over the first S positions of this segment (`add`:
 * y += that sum); row bh of v starts vRow floats after row bh - 1 (S * D, or a cache's capacity * D).
 */
function valuesFunction(D: number, add: boolean): FuncDef {
  const P = { p: 0, v: 1, out: 2, BH: 3, S: 4, Stot: 5, off: 6, vRow: 7 };
  const L = { bh: 8, j: 9, pp: 10, vp: 11, ob: 12, pv: 13, acc0: 14 };
  const vecs = D / 4;
  const c = new Code();
  c.get(P.BH).set(L.bh);
  whileNonZero(c, L.bh, (c) => {
    for (let v = 0; v < vecs; v++) c.v128Zero().set(L.acc0 + v);
    // pp = p + ((bh - 1) * Stot + off) * 4;  vp = v + (bh - 1) * vRow * 4
    c.get(P.p).get(L.bh).i32(1).sub().get(P.Stot).mul().get(P.off).add().i32(4).mul().add().set(L.pp);
    c.get(P.v).get(L.bh).i32(1).sub().get(P.vRow).mul().i32(4).mul().add().set(L.vp);
    c.get(P.S).set(L.j);
    if (!add) {
      // Leading positions of probability exactly 0 (a row's left padding) are skipped: each would add
      // 0 * v = +-0 to a sum that is still +0, which leaves it +0 (v finite).
      c.block().loop();
      c.get(L.j).eqz().brIf(1);
      c.get(L.pp).f32Load().f32Zero().f32Eq().eqz().brIf(1);
      c.get(L.pp).i32(4).add().set(L.pp);
      c.get(L.vp).i32(D * 4).add().set(L.vp);
      c.get(L.j).i32(1).sub().set(L.j);
      c.br(0).end().end();
    }
    whileNonZero(c, L.j, (c) => {
      c.get(L.pp).v128Load32Splat().set(L.pv);
      for (let v = 0; v < vecs; v++) c.get(L.acc0 + v).get(L.pv).get(L.vp).v128Load(16 * v).f32x4Mul().f32x4Add().set(L.acc0 + v);
      c.get(L.pp).i32(4).add().set(L.pp);
      c.get(L.vp).i32(D * 4).add().set(L.vp);
    });
    c.get(P.out).get(L.bh).i32(1).sub().i32(D * 4).mul().add().set(L.ob);
    for (let v = 0; v < vecs; v++) {
      c.get(L.ob);
      if (add) c.get(L.ob).v128Load(16 * v).get(L.acc0 + v).f32x4Add();
      else c.get(L.acc0 + v);
      c.v128Store(16 * v);
    }
  });
  return { name: add ? "valuesAdd" : "values", params: new Array(8).fill(I32), locals: [...new Array(5).fill(I32), ...new Array(1 + vecs).fill(V128)], body: c };
}

/**
 * The locals of a query's scores over keys stored transposed (emitMaskedLead, emitKeyScores): `j` keys
 * left, at `kp` (dRow bytes between a key's dimensions); the score at `op`, its bias at `bp`; scratch
 * `p`, `acc` and two v128 `vacc`s; the query as D f32s from `q0` and D splats from `qs`; `scale` and
 * its splat `vscale`.
 */
export interface KeyLoopLocals {
  j: number;
  kp: number;
  op: number;
  bp: number;
  dRow: number;
  p: number;
  acc: number;
  vscale: number;
  vacc: number;
  q0: number;
  qs: number;
  scale: number;
}

/**
 * Leading masked keys (bias at MASK or below: a row's left padding) get the bias as their score: their
 * softmax probability is exactly 0 either way (see MASK).
 */
export function emitMaskedLead(c: Code, L: KeyLoopLocals): void {
  c.block().loop();
  c.get(L.j).eqz().brIf(1);
  c.get(L.bp).f32Load().f32Const(MASK).f32Gt().brIf(1);
  c.get(L.op).get(L.bp).f32Load().f32Store();
  for (const p of [L.kp, L.op, L.bp]) c.get(p).i32(4).add().set(p);
  c.get(L.j).i32(1).sub().set(L.j);
  c.br(0).end().end();
}

/**
 * The scores of the j keys at kp: out = (sum_d q_d k_d) * scale + bias, eight keys (two f32x4) at a
 * time, then four, then single ones; each sum in order over d from +0.
 */
export function emitKeyScores(c: Code, L: KeyLoopLocals, D: number): void {
  for (const width of [8, 4, 1]) {
    c.block().loop();
    c.get(L.j).i32(width).ltU().brIf(1);
    if (width > 1) {
      const vecs = width / 4;
      for (let v = 0; v < vecs; v++) c.v128Zero().set(L.vacc + v);
      c.get(L.kp).set(L.p);
      for (let d = 0; d < D; d++) {
        for (let v = 0; v < vecs; v++) c.get(L.vacc + v).get(L.qs + d).get(L.p).v128Load(16 * v).f32x4Mul().f32x4Add().set(L.vacc + v);
        if (d < D - 1) c.get(L.p).get(L.dRow).add().set(L.p);
      }
      for (let v = 0; v < vecs; v++) c.get(L.op).get(L.vacc + v).get(L.vscale).f32x4Mul().get(L.bp).v128Load(16 * v).f32x4Add().v128Store(16 * v);
    } else {
      c.f32Zero().set(L.acc);
      for (let d = 0; d < D; d++) c.get(L.acc).get(L.q0 + d).get(L.kp).i32(d).get(L.dRow).mul().add().f32Load().f32Mul().f32Add().set(L.acc);
      c.get(L.op).get(L.acc).get(L.scale).f32Mul().get(L.bp).f32Load().f32Add().f32Store();
    }
    for (const p of [L.kp, L.op, L.bp]) c.get(p).i32(4 * width).add().set(p);
    c.get(L.j).i32(width).sub().set(L.j);
    c.br(0).end().end();
  }
}

/**
 * scoresT(qkv, kT, bias, out, BH, H, S, cap, Stot, off, scale): one segment's columns of att, like
 * scores, from the queries in place in qkv (B, 3C) and keys stored transposed, kT (BH, D, cap) with S
 * of the cap columns filled: four keys per f32x4 (each lane one key's sum over d, in order from +0),
 * then single keys.
 */
function scoresTFunction(D: number): FuncDef {
  const P = { qkv: 0, kT: 1, bias: 2, out: 3, BH: 4, H: 5, S: 6, cap: 7, Stot: 8, off: 9, scale: 10 };
  const L = { bh: 11, j: 12, kp: 13, op: 14, bp: 15, qb: 16, dRow: 17, p: 18, acc: 19, vscale: 20, vacc: 21, q0: 23, qs: 23 + D, scale: P.scale };
  const qs = L.qs; // D splatted queries (v128), after the D scalar ones (f32)
  const c = new Code();
  c.get(P.cap).i32(4).mul().set(L.dRow);
  c.get(P.scale).f32x4Splat().set(L.vscale);
  c.get(P.BH).set(L.bh);
  whileNonZero(c, L.bh, (c) => {
    // Row bh - 1 = b * H + h: its query at qkv + (b * 3C + h * D) * 4 = qkv + ((b * 3H + h) * D) * 4.
    c.get(P.qkv).get(L.bh).i32(1).sub().get(P.H).divU().i32(2).mul().get(P.H).mul().get(L.bh).i32(1).sub().add().i32(D * 4).mul().add().set(L.qb);
    for (let d = 0; d < D; d++) {
      c.get(L.qb).f32Load(4 * d).set(L.q0 + d);
      c.get(L.q0 + d).f32x4Splat().set(qs + d);
    }
    // kp = kT + (bh - 1) * D * cap * 4;  op = out + ((bh - 1) * Stot + off) * 4;  bp = bias + (((bh - 1) / H) * Stot + off) * 4
    c.get(P.kT).get(L.bh).i32(1).sub().get(L.dRow).mul().i32(D).mul().add().set(L.kp);
    c.get(P.out).get(L.bh).i32(1).sub().get(P.Stot).mul().get(P.off).add().i32(4).mul().add().set(L.op);
    c.get(P.bias).get(L.bh).i32(1).sub().get(P.H).divU().get(P.Stot).mul().get(P.off).add().i32(4).mul().add().set(L.bp);
    c.get(P.S).set(L.j);
    emitMaskedLead(c, L);
    emitKeyScores(c, L, D);
  });
  return {
    name: "scoresT",
    params: [...new Array(10).fill(I32), F32],
    locals: [...new Array(8).fill(I32), F32, V128, V128, V128, ...new Array(D).fill(F32), ...new Array(D).fill(V128)],
    body: c,
  };
}

/**
 * append(qkv, kT, v, BH, H, cap, pos): this step's keys and values, in place in qkv (B, 3C), written into
 * column pos of kT (BH, D, cap) and row pos of v (BH, cap, D).
 */
function appendFunction(D: number): FuncDef {
  const P = { qkv: 0, kT: 1, v: 2, BH: 3, H: 4, cap: 5, pos: 6 };
  const L = { bh: 7, src: 8, kp: 9, vp: 10, dRow: 11 };
  const c = new Code();
  c.get(P.cap).i32(4).mul().set(L.dRow);
  c.get(P.BH).set(L.bh);
  whileNonZero(c, L.bh, (c) => {
    // key of row bh - 1 = b * H + h at qkv + (b * 3C + C + h * D) * 4 = qkv + ((b * 3H + H + h) * D) * 4; its value C floats later
    c.get(P.qkv).get(L.bh).i32(1).sub().get(P.H).divU().i32(2).mul().get(P.H).mul().get(P.H).add().get(L.bh).i32(1).sub().add().i32(D * 4).mul().add().set(L.src);
    c.get(P.kT).get(L.bh).i32(1).sub().get(L.dRow).mul().i32(D).mul().get(P.pos).i32(4).mul().add().add().set(L.kp);
    c.get(P.v).get(L.bh).i32(1).sub().get(P.cap).mul().get(P.pos).add().i32(D * 4).mul().add().set(L.vp);
    for (let d = 0; d < D; d++) {
      c.get(L.kp).i32(d).get(L.dRow).mul().add().get(L.src).f32Load(4 * d).f32Store();
      c.get(L.vp).get(L.src).get(P.H).i32(D * 4).mul().add().f32Load(4 * d).f32Store(4 * d);
    }
  });
  return { name: "append", params: new Array(7).fill(I32), locals: new Array(5).fill(I32), body: c };
}

export interface DecodeAttentionKernels {
  scores(q: number, k: number, bias: number, out: number, BH: number, H: number, S: number, Stot: number, off: number, scale: number): void;
  values(p: number, v: number, out: number, BH: number, S: number, Stot: number, off: number, vRow: number): void;
  valuesAdd(p: number, v: number, out: number, BH: number, S: number, Stot: number, off: number, vRow: number): void;
  scoresT(qkv: number, kT: number, bias: number, out: number, BH: number, H: number, S: number, cap: number, Stot: number, off: number, scale: number): void;
  append(qkv: number, kT: number, v: number, BH: number, H: number, cap: number, pos: number): void;
}

/** The kernels for head width D over this backend's memory (wasm-kernels.ts' kernelOver, one cache per D), or null. */
const instances = new Map<number, WeakMap<WebAssembly.Memory, DecodeAttentionKernels | null>>();
export function kernelsFor(backend: unknown, D: number): DecodeAttentionKernels | null {
  let cache = instances.get(D);
  if (!cache) instances.set(D, (cache = new WeakMap()));
  return kernelOver<DecodeAttentionKernels>(backend, cache, () => [scoresFunction(D), valuesFunction(D, false), valuesFunction(D, true), scoresTFunction(D), appendFunction(D)]);
}


/** Scores-kernel calls since start (tests check the fused path really ran). */
export const decodeAttentionCounts = { calls: 0, inPlace: 0 };

/** inputs q (BH, 1, D), bias (B, 1, 1, S), k0.. (BH, S_i, D); attrs heads, segments, scale. Output (B, H, 1, S). */
function scoresKernel({ inputs, backend, attrs }: KernelArgs): tf.TensorInfo {
  const { heads, segments, scale } = attrs as { heads: number; segments: number; scale: number };
  const q = inputs.q as tf.TensorInfo;
  const [BH, , D] = q.shape;
  const ks = Array.from({ length: segments }, (_, i) => inputs[`k${i}`] as tf.TensorInfo);
  const S = ks.reduce((a, k) => a + k.shape[1], 0);
  const out = (backend as WasmBackendInternals).makeOutput([BH / heads, heads, 1, S], "float32");
  const k = kernelsFor(backend, D)!;
  decodeAttentionCounts.calls++;
  let off = 0;
  for (const kt of ks) {
    k.scores(offset(backend, q), offset(backend, kt), offset(backend, inputs.bias as tf.TensorInfo), offset(backend, out), BH, heads, kt.shape[1], S, off, scale);
    off += kt.shape[1];
  }
  return out;
}

/**
 * inputs p (B, H, 1, S), v0.. (BH, S_i, D), or (B, H, cap_i, D) caches of which the first `lengths[i]`
 * positions count; attrs segments, lengths (optional). Output (BH, 1, D).
 */
function valuesKernel({ inputs, backend, attrs }: KernelArgs): tf.TensorInfo {
  const { segments, lengths } = attrs as { segments: number; lengths?: number[] };
  const p = inputs.p as tf.TensorInfo;
  const vs = Array.from({ length: segments }, (_, i) => inputs[`v${i}`] as tf.TensorInfo);
  const D = vs[0].shape[vs[0].shape.length - 1];
  const BH = p.shape[0] * p.shape[1];
  const S = p.shape[3];
  const out = (backend as WasmBackendInternals).makeOutput([BH, 1, D], "float32");
  const k = kernelsFor(backend, D)!;
  let off = 0;
  vs.forEach((vt, i) => {
    const rowFloats = vt.shape.reduce((a, b) => a * b, 1) / BH;
    const n = lengths?.[i] ?? rowFloats / D;
    (i === 0 ? k.values : k.valuesAdd)(offset(backend, p), offset(backend, vt), offset(backend, out), BH, n, S, off, rowFloats);
    off += n;
  });
  return out;
}

/**
 * inputs qkv (B, 3C), bias (B, 1, 1, P + pos + 1), kT0 (B, H, D, P) the prompt's keys, kT1 (B, H, D, cap)
 * and v1 (B, H, cap, D) the generated positions' keys and values; attrs heads, pos, scale. Writes this
 * step's key and value (from qkv) at position pos of kT1 and v1, in place, then scores the P + pos + 1
 * keys. Output (B, H, 1, P + pos + 1).
 */
function scoresInPlaceKernel({ inputs, backend, attrs }: KernelArgs): tf.TensorInfo {
  const { heads, pos, scale } = attrs as { heads: number; pos: number; scale: number };
  const [qkv, bias, kT0, kT1, v1] = ["qkv", "bias", "kT0", "kT1", "v1"].map((n) => inputs[n] as tf.TensorInfo);
  const [B, H, D, P] = kT0.shape;
  const cap = kT1.shape[3];
  const S = P + pos + 1;
  const out = (backend as WasmBackendInternals).makeOutput([B, H, 1, S], "float32");
  const at = (t: tf.TensorInfo) => offset(backend, t);
  inPlaceScores(kernelsFor(backend, D)!, at(qkv), at(kT0), at(kT1), at(v1), at(bias), at(out), B * H, heads, P, cap, pos, scale);
  return out;
}

/**
 * The in-place step's scores on heap offsets (also called by wasm-decode-step.ts): writes this step's
 * keys and values from qkv (B, 3C) at generated position pos of kT1 (BH, D, cap) and v1 (BH, cap, D),
 * then the scores of the P prompt keys kT0 (BH, D, P) and the pos + 1 generated ones into out (BH, S).
 */
export function inPlaceScores(k: DecodeAttentionKernels, qkv: number, kT0: number, kT1: number, v1: number, bias: number, out: number, BH: number, H: number, P: number, cap: number, pos: number, scale: number): void {
  decodeAttentionCounts.calls++;
  decodeAttentionCounts.inPlace++;
  const S = P + pos + 1;
  k.append(qkv, kT1, v1, BH, H, cap, pos);
  k.scoresT(qkv, kT0, bias, out, BH, H, P, P, S, 0, scale);
  k.scoresT(qkv, kT1, bias, out, BH, H, pos + 1, cap, S, P, scale);
}

/** decodeValues over an in-place cache, on heap offsets: p (BH, P + pos + 1) over v (BH, P, D) and the first pos + 1 rows of vGen (BH, cap, D), into out (BH, D). */
export function inPlaceValues(k: DecodeAttentionKernels, p: number, v: number, vGen: number, out: number, BH: number, D: number, P: number, cap: number, pos: number): void {
  const S = P + pos + 1;
  k.values(p, v, out, BH, P, S, 0, P * D);
  k.valuesAdd(p, vGen, out, BH, pos + 1, S, P, cap * D);
}

/**
 * Whether a decoding step with head width D can use these kernels now: the wasm backend with the
 * internals used here, D % 4 = 0, the flag on (default).
 */
export function decodeAttentionAvailable(D: number): boolean {
  if (tf.getBackend() !== "wasm" || D % 4 !== 0) return false;
  registerWasmKernels({ [SCORES]: scoresKernel, [VALUES]: valuesKernel, [SCORES_IN_PLACE]: scoresInPlaceKernel });
  if (!tf.env().getBool(DECODE_ATTENTION_FLAG)) return false;
  return kernelsFor(tf.backend(), D) !== null;
}

/** Scaled, biased scores (B, H, 1, S) of queries q (BH, 1, D) over key segments (BH, S_i, D). */
export function decodeScores(q: tf.Tensor3D, keys: tf.Tensor3D[], bias: tf.Tensor4D, heads: number, scale: number): tf.Tensor4D {
  const inputs: tf.NamedTensorMap = { q, bias };
  keys.forEach((k, i) => (inputs[`k${i}`] = k));
  return tf.engine().runKernel(SCORES, inputs, { heads, segments: keys.length, scale: Math.fround(scale) }) as tf.Tensor4D;
}

/**
 * Attention output (BH, 1, D): probabilities p (B, H, 1, S) over value segments (BH, S_i, D), or over
 * the first lengths[i] positions of caches (B, H, cap_i, D).
 */
export function decodeValues(p: tf.Tensor4D, values: (tf.Tensor3D | tf.Tensor4D)[], lengths?: number[]): tf.Tensor3D {
  const inputs: tf.NamedTensorMap = { p };
  values.forEach((v, i) => (inputs[`v${i}`] = v));
  return tf.engine().runKernel(VALUES, inputs, { segments: values.length, ...(lengths ? { lengths } : {}) }) as tf.Tensor3D;
}

/**
 * One block's keys and values for decoding in place: the prompt's keys transposed (B, H, D, P) and its
 * values (B, H, P, D), fixed after the prefill; the generated positions' keys (B, H, D, cap) and values
 * (B, H, cap, D), preallocated for cap positions and written one position per step by
 * decodeScoresInPlace. The tensors are the sampler's own (never shared), so writing into them is safe.
 */
export interface InPlaceCache {
  kT: tf.Tensor4D;
  v: tf.Tensor4D;
  kTGen: tf.Tensor4D;
  vGen: tf.Tensor4D;
}

/** tfjs env flag: false keeps the cache as segments grown by Concat (the benchmark's "before", and a check). */
export const KV_IN_PLACE_FLAG = "A1_WASM_KV_IN_PLACE";
registerFlagOnce(KV_IN_PLACE_FLAG);

/** Whether decoding with head width D can keep its cache in place now (decodeAttentionAvailable, and the flag on). */
export function inPlaceCacheAvailable(D: number): boolean {
  return decodeAttentionAvailable(D) && tf.env().getBool(KV_IN_PLACE_FLAG);
}

/** An in-place cache from a prefill's keys and values (B, H, P, D), with room for `cap` generated positions (new tensors: keep or dispose them). */
export function inPlaceCache(k: tf.Tensor4D, v: tf.Tensor4D, cap: number): InPlaceCache {
  const [B, H, , D] = k.shape;
  // Only kTGen and vGen are written, and they are new zero-filled buffers.
  return {
    kT: tf.transpose(k, [0, 1, 3, 2]),
    v: tf.clone(v),
    kTGen: tf.fill([B, H, D, cap], 0) as tf.Tensor4D,
    vGen: tf.fill([B, H, cap, D], 0) as tf.Tensor4D,
  };
}

/**
 * Scaled, biased scores (B, H, 1, P + pos + 1) of this step's queries in qkv (B, 3C) over the cache's
 * prompt keys and its first pos + 1 generated keys, after writing this step's keys and values (also
 * in qkv) at generated position pos. Same bits as decodeScores over segments (B*H, S_i, D).
 */
export function decodeScoresInPlace(qkv: tf.Tensor2D, cache: InPlaceCache, bias: tf.Tensor4D, heads: number, pos: number, scale: number): tf.Tensor4D {
  return tf.engine().runKernel(SCORES_IN_PLACE, { qkv, bias, kT0: cache.kT, kT1: cache.kTGen, v1: cache.vGen }, { heads, pos, scale: Math.fround(scale) }) as tf.Tensor4D;
}

