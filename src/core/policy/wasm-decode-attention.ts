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
 * bits (tests/unit/policy/wasm-decode-attention.test.ts: kernels against the tensor ops over several
 * shapes, and sampled rollouts token for token). The scores loop is scalar with the query held in
 * locals (a key's D products must be summed in order, so f32x4 lanes cannot split one sum); the values
 * loop keeps D/4 f32x4 sums (lanes are different d, each summed in order over j). Emitted per head
 * width D (D % 4 = 0), instantiated over the backend's memory like wasm-matmul.ts.
 */
import * as tf from "@tensorflow/tfjs";
import { registerFlagOnce, type KernelArgs } from "./wasm-kernels.ts";
import { Code, emitModule, F32, I32, V128, type FuncDef } from "./wasm-emit.ts";

/** tfjs env flag: false keeps decoding on the tensor ops (the benchmark's "before", and a check). */
export const DECODE_ATTENTION_FLAG = "A1_WASM_DECODE_ATTENTION";
registerFlagOnce(DECODE_ATTENTION_FLAG);
const SCORES = "A1DecodeScores";
const VALUES = "A1DecodeValues";

function whileNonZero(c: Code, counter: number, body: (c: Code) => void): void {
  c.block().loop();
  c.get(counter).eqz().brIf(1);
  body(c);
  c.get(counter).i32(1).sub().set(counter);
  c.br(0).end().end();
}

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

/** values(p, v, out, BH, S, Stot, off): y = sum over this segment (`add`: y += that sum). */
function valuesFunction(D: number, add: boolean): FuncDef {
  const P = { p: 0, v: 1, out: 2, BH: 3, S: 4, Stot: 5, off: 6 };
  const L = { bh: 7, j: 8, pp: 9, vp: 10, ob: 11, pv: 12, acc0: 13 };
  const vecs = D / 4;
  const c = new Code();
  c.get(P.BH).set(L.bh);
  whileNonZero(c, L.bh, (c) => {
    for (let v = 0; v < vecs; v++) c.v128Zero().set(L.acc0 + v);
    // pp = p + ((bh - 1) * Stot + off) * 4;  vp = v + (bh - 1) * S * D * 4
    c.get(P.p).get(L.bh).i32(1).sub().get(P.Stot).mul().get(P.off).add().i32(4).mul().add().set(L.pp);
    c.get(P.v).get(L.bh).i32(1).sub().get(P.S).mul().i32(D * 4).mul().add().set(L.vp);
    c.get(P.S).set(L.j);
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
  return { name: add ? "valuesAdd" : "values", params: new Array(7).fill(I32), locals: [...new Array(5).fill(I32), ...new Array(1 + vecs).fill(V128)], body: c };
}

interface Exports {
  scores(q: number, k: number, bias: number, out: number, BH: number, H: number, S: number, Stot: number, off: number, scale: number): void;
  values(p: number, v: number, out: number, BH: number, S: number, Stot: number, off: number): void;
  valuesAdd(p: number, v: number, out: number, BH: number, S: number, Stot: number, off: number): void;
}

interface WasmBackendInternals {
  dataIdMap: { get(dataId: object): { memoryOffset: number | null } | undefined };
  makeOutput(shape: number[], dtype: "float32"): tf.TensorInfo;
  wasm: { asm?: { memory?: WebAssembly.Memory }; wasmMemory?: WebAssembly.Memory };
}

const instances = new WeakMap<WebAssembly.Memory, Map<number, Exports | null>>();

function memoryOf(backend: unknown): WebAssembly.Memory | null {
  const b = backend as Partial<WasmBackendInternals>;
  const memory = b.wasm?.asm?.memory ?? b.wasm?.wasmMemory;
  return memory instanceof WebAssembly.Memory && typeof b.makeOutput === "function" && b.dataIdMap ? memory : null;
}

function kernelsFor(memory: WebAssembly.Memory, D: number): Exports | null {
  let byD = instances.get(memory);
  if (!byD) instances.set(memory, (byD = new Map()));
  let k = byD.get(D);
  if (k === undefined) {
    try {
      const shared = typeof SharedArrayBuffer !== "undefined" && memory.buffer instanceof SharedArrayBuffer;
      const bytes = emitModule([scoresFunction(D), valuesFunction(D, false), valuesFunction(D, true)], { shared });
      k = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } }).exports as unknown as Exports;
    } catch {
      k = null; // no SIMD in this engine, or a memory we cannot import
    }
    byD.set(D, k);
  }
  return k;
}

const offset = (backend: unknown, t: tf.TensorInfo) => (backend as WasmBackendInternals).dataIdMap.get(t.dataId)!.memoryOffset!;

/** Scores-kernel calls since start (tests check the fused path really ran). */
export const decodeAttentionCounts = { calls: 0 };

/** inputs q (BH, 1, D), bias (B, 1, 1, S), k0.. (BH, S_i, D); attrs heads, segments, scale. Output (B, H, 1, S). */
function scoresKernel({ inputs, backend, attrs }: KernelArgs): tf.TensorInfo {
  const { heads, segments, scale } = attrs as { heads: number; segments: number; scale: number };
  const q = inputs.q as tf.TensorInfo;
  const [BH, , D] = q.shape;
  const ks = Array.from({ length: segments }, (_, i) => inputs[`k${i}`] as tf.TensorInfo);
  const S = ks.reduce((a, k) => a + k.shape[1], 0);
  const out = (backend as WasmBackendInternals).makeOutput([BH / heads, heads, 1, S], "float32");
  const k = kernelsFor(memoryOf(backend)!, D)!;
  decodeAttentionCounts.calls++;
  let off = 0;
  for (const kt of ks) {
    k.scores(offset(backend, q), offset(backend, kt), offset(backend, inputs.bias as tf.TensorInfo), offset(backend, out), BH, heads, kt.shape[1], S, off, scale);
    off += kt.shape[1];
  }
  return out;
}

/** inputs p (B, H, 1, S), v0.. (BH, S_i, D); attrs segments. Output (BH, 1, D). */
function valuesKernel({ inputs, backend, attrs }: KernelArgs): tf.TensorInfo {
  const { segments } = attrs as { segments: number };
  const p = inputs.p as tf.TensorInfo;
  const vs = Array.from({ length: segments }, (_, i) => inputs[`v${i}`] as tf.TensorInfo);
  const [BH, , D] = vs[0].shape;
  const S = p.shape[3];
  const out = (backend as WasmBackendInternals).makeOutput([BH, 1, D], "float32");
  const k = kernelsFor(memoryOf(backend)!, D)!;
  let off = 0;
  vs.forEach((vt, i) => {
    (i === 0 ? k.values : k.valuesAdd)(offset(backend, p), offset(backend, vt), offset(backend, out), BH, vt.shape[1], S, off);
    off += vt.shape[1];
  });
  return out;
}

let registered = false;

function register(): void {
  if (registered) return;
  registered = true;
  tf.registerKernel({ kernelName: SCORES, backendName: "wasm", kernelFunc: scoresKernel as unknown as tf.KernelFunc });
  tf.registerKernel({ kernelName: VALUES, backendName: "wasm", kernelFunc: valuesKernel as unknown as tf.KernelFunc });
}

/**
 * Whether a decoding step with head width D can use these kernels now: the wasm backend with the
 * internals used here, D % 4 = 0, the flag on (default).
 */
export function decodeAttentionAvailable(D: number): boolean {
  if (tf.getBackend() !== "wasm" || D % 4 !== 0) return false;
  register();
  if (!tf.env().getBool(DECODE_ATTENTION_FLAG)) return false;
  const memory = memoryOf(tf.backend());
  return memory !== null && kernelsFor(memory, D) !== null;
}

/** Scaled, biased scores (B, H, 1, S) of queries q (BH, 1, D) over key segments (BH, S_i, D). */
export function decodeScores(q: tf.Tensor3D, keys: tf.Tensor3D[], bias: tf.Tensor4D, heads: number, scale: number): tf.Tensor4D {
  const inputs: tf.NamedTensorMap = { q, bias };
  keys.forEach((k, i) => (inputs[`k${i}`] = k));
  return tf.engine().runKernel(SCORES, inputs, { heads, segments: keys.length, scale: Math.fround(scale) }) as tf.Tensor4D;
}

/** Attention output (BH, 1, D): probabilities p (B, H, 1, S) over value segments (BH, S_i, D). */
export function decodeValues(p: tf.Tensor4D, values: tf.Tensor3D[]): tf.Tensor3D {
  const inputs: tf.NamedTensorMap = { p };
  values.forEach((v, i) => (inputs[`v${i}`] = v));
  return tf.engine().runKernel(VALUES, inputs, { segments: values.length }) as tf.Tensor3D;
}

