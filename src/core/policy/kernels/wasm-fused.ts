/**
 * Two chains of the model's elementwise ops in one kernel each, for tfjs's wasm backend, bit-identical
 * to the tensor ops they replace in GptModel.forward outside a gradient (sampling's prefill and
 * decoding steps, the update's KL and old-log-prob passes). Each op of tfjs-backend-wasm 4.22 rounds
 * to float32 in IEEE order: its Mean sums each row in order from +0 and divides by the row length
 * (`sum / reduce_size`, tfjs-backend-wasm/src/cc/kernels/Mean.cc), Square is x * x, the binary ops and
 * Sqrt are single correctly rounded operations. These kernels do exactly those operations in that
 * order, so every output carries the same bits, in one launch and without the temporaries.
 *
 * LayerNorm (9 kernels: Mean, Sub, Square, Mean, Add, Sqrt, Sub, RealDiv, Mul, Add; five per decoding
 * step of the tiny model):
 *
 *   const { mean, variance } = tf.moments(x, -1, true);
 *   tf.add(tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, 1e-5))), g), b)
 *
 *   per row: mean = (sum_c x[c]) / C;  var = (sum_c (x[c] - mean)^2) / C;  den = sqrt(var + eps)
 *            out[c] = ((x[c] - mean) / den) * g[c] + b[c]
 *
 * the sums scalar (they must run in order), the last line f32x4 (its lanes are independent columns).
 *
 * GELU's argument to the sigmoid (4 kernels: Square, Mul, Add, Mul): `x * (x^2 * a + c)`, f32x4. The
 * sigmoid stays tfjs's (XNNPACK's own approximation), so GELU is 3 kernels instead of 6.
 *
 * tests/unit/policy/kernels/wasm-fused.test.ts compares both with the ops bit for bit over many shapes and
 * value ranges, and sampled rollouts and an update byte for byte. Under a gradient the model keeps the
 * ops (their gradient is tfjs's); so it does without the wasm backend's internals, or with C % 4 != 0.
 */
import * as tf from "@tensorflow/tfjs";
import { heapOffset as offset, kernelOver, registerFlagOnce, registerWasmKernels, type KernelArgs, type WasmBackendInternals } from "./wasm-kernels.ts";
import { Code, F32, I32, V128, whileNonZero, type FuncDef } from "./wasm-emit.ts";

/** tfjs env flag: false keeps LayerNorm and GELU on the tensor ops (the benchmark's "before", and a check). */
export const FUSED_OPS_FLAG = "A1_WASM_FUSED_OPS";
registerFlagOnce(FUSED_OPS_FLAG);
const LAYERNORM = "A1LayerNorm";
const GELU_INNER = "A1GeluInner";
/** The model's epsilon (GPT-2's), as tf.add(variance, 1e-5) rounds it: a float32 scalar. */
export const LAYERNORM_EPS = 1e-5;

/**
 * layerNorm(x, g, b, out, N, C, cf, eps): x, out (N, C); g, b (C); cf = C as float32; C % 4 = 0.
 * Four rows at a time: their sums interleaved (each still in column order from +0, so the same
 * bits), as one row's sum is a chain of dependent adds that leaves the core waiting on each.
 */
function layerNormFunction(): FuncDef {
  const P = { x: 0, g: 1, b: 2, out: 3, N: 4, C: 5, cf: 6, eps: 7 };
  const R = 4;
  const L = { n: 8, c: 9, px: 10, pg: 11, pb: 12, po: 13, row: 14, off: 15 /* R - 1 row offsets */, sum: 15 + R - 1, mean: 15 + 2 * R - 1, den: 15 + 3 * R - 1, d: 15 + 4 * R - 1, vmean: 15 + 4 * R, vden: 16 + 4 * R };
  const c = new Code();
  /** Pushes x at column px of the group's row r. */
  const load = (r: number) => (r === 0 ? c.get(L.px) : c.get(L.px).get(L.off + r - 1).add()).f32Load();
  const rows = (n: number) => {
    // mean = (0 + x[0] + x[1] + ...) / C, per row
    for (let r = 0; r < n; r++) c.f32Zero().set(L.sum + r);
    c.get(P.C).set(L.c);
    whileNonZero(c, L.c, (c) => {
      for (let r = 0; r < n; r++) {
        c.get(L.sum + r);
        load(r).f32Add().set(L.sum + r);
      }
      c.get(L.px).i32(4).add().set(L.px);
    });
    for (let r = 0; r < n; r++) c.get(L.sum + r).get(P.cf).f32Div().set(L.mean + r);
    // var = (0 + (x[0] - mean)^2 + ...) / C;  den = sqrt(var + eps)
    c.get(L.px).get(L.row).sub().set(L.px);
    for (let r = 0; r < n; r++) c.f32Zero().set(L.sum + r);
    c.get(P.C).set(L.c);
    whileNonZero(c, L.c, (c) => {
      for (let r = 0; r < n; r++) {
        load(r).get(L.mean + r).f32Sub().set(L.d);
        c.get(L.sum + r).get(L.d).get(L.d).f32Mul().f32Add().set(L.sum + r);
      }
      c.get(L.px).i32(4).add().set(L.px);
    });
    for (let r = 0; r < n; r++) c.get(L.sum + r).get(P.cf).f32Div().get(P.eps).f32Add().f32Sqrt().set(L.den + r);
    // out = ((x - mean) / den) * g + b, row after row, four columns at a time
    c.get(L.px).get(L.row).sub().set(L.px);
    for (let r = 0; r < n; r++) {
      c.get(L.mean + r).f32x4Splat().set(L.vmean);
      c.get(L.den + r).f32x4Splat().set(L.vden);
      c.get(P.g).set(L.pg);
      c.get(P.b).set(L.pb);
      c.get(P.C).i32(4).divU().set(L.c);
      whileNonZero(c, L.c, (c) => {
        c.get(L.po);
        c.get(L.px).v128Load().get(L.vmean).f32x4Sub().get(L.vden).f32x4Div();
        c.get(L.pg).v128Load().f32x4Mul().get(L.pb).v128Load().f32x4Add();
        c.v128Store();
        for (const p of [L.px, L.pg, L.pb, L.po]) c.get(p).i32(16).add().set(p);
      });
    }
  };
  c.get(P.C).i32(4).mul().set(L.row);
  for (let r = 1; r < R; r++) c.get(L.row).i32(r).mul().set(L.off + r - 1);
  c.get(P.x).set(L.px);
  c.get(P.out).set(L.po);
  c.get(P.N).set(L.n);
  for (const n of [R, 1]) {
    c.block().loop();
    c.get(L.n).i32(n).ltU().brIf(1);
    rows(n);
    c.get(L.n).i32(n).sub().set(L.n);
    c.br(0).end().end();
  }
  return {
    name: "layerNorm",
    params: [I32, I32, I32, I32, I32, I32, F32, F32],
    locals: [...new Array(7 + R - 1).fill(I32), ...new Array(3 * R + 1).fill(F32), V128, V128],
    body: c,
  };
}

/** geluInner(x, out, n, a, c): out = x * ((x * x) * a + c) over n floats, n % 4 = 0. */
function geluInnerFunction(): FuncDef {
  const P = { x: 0, out: 1, n: 2, a: 3, c: 4 };
  const L = { i: 5, va: 6, vc: 7, vx: 8 };
  const c = new Code();
  c.get(P.a).f32x4Splat().set(L.va);
  c.get(P.c).f32x4Splat().set(L.vc);
  c.get(P.n).i32(4).divU().set(L.i);
  whileNonZero(c, L.i, (c) => {
    c.get(P.x).v128Load().set(L.vx);
    c.get(P.out);
    c.get(L.vx).get(L.vx).get(L.vx).f32x4Mul().get(L.va).f32x4Mul().get(L.vc).f32x4Add().f32x4Mul();
    c.v128Store();
    c.get(P.x).i32(16).add().set(P.x);
    c.get(P.out).i32(16).add().set(P.out);
  });
  return { name: "geluInner", params: [I32, I32, I32, F32, F32], locals: [I32, V128, V128, V128], body: c };
}

export interface FusedKernels {
  layerNorm(x: number, g: number, b: number, out: number, N: number, C: number, cf: number, eps: number): void;
  geluInner(x: number, out: number, n: number, a: number, c: number): void;
}

const instances = new WeakMap<WebAssembly.Memory, FusedKernels | null>();
/** The kernels over this backend's memory (wasm-kernels.ts' kernelOver), or null; wasm-decode-step.ts calls them on heap offsets. */
export const kernelFor = (backend: unknown) => kernelOver<FusedKernels>(backend, instances, () => [layerNormFunction(), geluInnerFunction()]);

/** Kernel calls since start (tests check the fused paths really ran). */
export const fusedOpsCounts = { layerNorm: 0, geluInner: 0 };

/** inputs x (N, C), g (C), b (C); attr eps (a float32). Output (N, C). */
function layerNormKernel({ inputs, backend, attrs }: KernelArgs): tf.TensorInfo {
  const x = inputs.x as tf.TensorInfo;
  const [N, C] = x.shape;
  const out = (backend as WasmBackendInternals).makeOutput([N, C], "float32");
  fusedOpsCounts.layerNorm++;
  if (N * C > 0) {
    kernelFor(backend)!.layerNorm(offset(backend, x), offset(backend, inputs.g as tf.TensorInfo), offset(backend, inputs.b as tf.TensorInfo), offset(backend, out), N, C, C, (attrs as { eps: number }).eps);
  }
  return out;
}

/** input x (any shape, size % 4 = 0); attrs a, c (float32). Output of x's shape. */
function geluInnerKernel({ inputs, backend, attrs }: KernelArgs): tf.TensorInfo {
  const x = inputs.x as tf.TensorInfo;
  const { a, c } = attrs as { a: number; c: number };
  const out = (backend as WasmBackendInternals).makeOutput([...x.shape], "float32");
  fusedOpsCounts.geluInner++;
  kernelFor(backend)!.geluInner(offset(backend, x), offset(backend, out), x.shape.reduce((p, q) => p * q, 1), a, c);
  return out;
}

/**
 * Whether the model's LayerNorm and GELU over C columns can run in these kernels now: the wasm backend
 * with its internals, C % 4 = 0, the flag on.
 */
export function fusedOpsAvailable(C: number): boolean {
  if (tf.getBackend() !== "wasm" || C % 4 !== 0) return false;
  registerWasmKernels({ [LAYERNORM]: layerNormKernel, [GELU_INNER]: geluInnerKernel });
  return tf.env().getBool(FUSED_OPS_FLAG) && kernelFor(tf.backend()) !== null;
}

/** LayerNorm of x (N, C) with gain g and bias b (C): the ops above in one kernel. Check fusedOpsAvailable first. */
export function fusedLayerNorm(x: tf.Tensor2D, g: tf.Tensor, b: tf.Tensor): tf.Tensor2D {
  return tf.engine().runKernel(LAYERNORM, { x, g, b }, { eps: Math.fround(LAYERNORM_EPS) }) as tf.Tensor2D;
}

/** `tf.mul(x, tf.add(tf.mul(tf.square(x), a), c))` in one kernel (x's size a multiple of 4). Check fusedOpsAvailable first. */
export function fusedGeluInner(x: tf.Tensor2D, a: number, c: number): tf.Tensor2D {
  return tf.engine().runKernel(GELU_INNER, { x }, { a: Math.fround(a), c: Math.fround(c) }) as tf.Tensor2D;
}
