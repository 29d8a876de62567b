/**
 * Embedding lookups under a gradient on tfjs's wasm backend without the one-hot matrix products,
 * bit-identical to them.
 *
 * The training forward embeds tokens and positions as oneHot(ids) (N, V) x table (V, C) (no gather:
 * gather's gradient is an atomic scatter on webgpu). On wasm that costs, per micro-batch and table,
 * three N x V x C products: the forward, the table's gradient oneHot^T x dy, and the one-hot input's
 * gradient dy x table^T that nothing uses. The same numbers, exactly:
 *   forward:  table[ids[n]] + 0    (XNNPACK sums 0 * t (= +-0) and one 1 * t from +0 in order: the row
 *                                  itself, except that a -0 comes out +0, which `+ 0` reproduces)
 *   gradient: dTable[v] = (((+0 + dy[n1]) + dy[n2]) + ...) over the rows n1 < n2 < ... with ids[n] = v,
 *             in row order (the product's sum in order over n, whose other terms are +-0 and change
 *             nothing: a sum from +0 is never -0, and x + (+-0) = x otherwise)
 * The gradient is an emitted wasm kernel (one f32x4 add per 4 columns per row). Checked by
 * tests/unit/policy/kernels/wasm-embedding.test.ts (values and gradients bit for bit, whole training runs).
 */
import * as tf from "@tensorflow/tfjs";
import { kernelOver, registerFlagOnce, registerWasmKernels, type KernelArgs, type WasmBackendInternals } from "./wasm-kernels.ts";
import { Code, I32, type FuncDef } from "./wasm-emit.ts";

/** tfjs env flag: false keeps the one-hot products (the benchmark's "before"). */
export const WASM_EMBEDDING_FLAG = "A1_WASM_EMBEDDING_GRAD";
registerFlagOnce(WASM_EMBEDDING_FLAG);
const KERNEL = "A1ScatterAddRows";

/** scatterAdd(dy, ids, out, N, C, outBytes): out = 0; out[ids[n]] += dy[n] for n in order. */
function scatterAddFunction(): FuncDef {
  const P = { dy: 0, ids: 1, out: 2, N: 3, C: 4, outBytes: 5 };
  const L = { po: 6, c: 7 };
  const c = new Code();
  c.get(P.out).i32(0).get(P.outBytes).memoryFill();
  c.block().loop();
  c.get(P.N).eqz().brIf(1);
  // po = out + ids[n] * C * 4
  c.get(P.out).get(P.ids).i32Load().get(P.C).mul().i32(4).mul().add().set(L.po);
  c.get(P.C).set(L.c);
  // 4 columns at a time, then one
  for (const width of [4, 1]) {
    c.block().loop();
    c.get(L.c).i32(width).ltU().brIf(1);
    if (width === 4) c.get(L.po).get(L.po).v128Load().get(P.dy).v128Load().f32x4Add().v128Store();
    else c.get(L.po).get(L.po).f32Load().get(P.dy).f32Load().f32Add().f32Store();
    c.get(L.po).i32(4 * width).add().set(L.po);
    c.get(P.dy).i32(4 * width).add().set(P.dy);
    c.get(L.c).i32(width).sub().set(L.c);
    c.br(0).end().end();
  }
  c.get(P.ids).i32(4).add().set(P.ids);
  c.get(P.N).i32(1).sub().set(P.N);
  c.br(0).end().end();
  return { name: "scatterAdd", params: new Array(6).fill(I32), locals: [I32, I32], body: c };
}

type Exports = { scatterAdd(dy: number, ids: number, out: number, N: number, C: number, outBytes: number): void };
const instances = new WeakMap<WebAssembly.Memory, Exports | null>();

function kernelFor(backend: unknown): Exports | null {
  return kernelOver(backend, instances, () => [scatterAddFunction()]);
}


/** inputs dy (N, C) float32, ids (N) int32 in [0, rows); attrs rows. Output (rows, C). */
function scatterAddKernel({ inputs, backend, attrs }: KernelArgs): tf.TensorInfo {
  const { dy, ids } = inputs as { dy: tf.TensorInfo; ids: tf.TensorInfo };
  const { rows } = attrs as { rows: number };
  const [N, C] = dy.shape;
  const b = backend as WasmBackendInternals;
  const out = b.makeOutput([rows, C], "float32");
  const off = (t: tf.TensorInfo) => b.dataIdMap.get(t.dataId)!.memoryOffset!;
  kernelFor(backend)!.scatterAdd(off(dy), off(ids), off(out), N, C, rows * C * 4);
  return out;
}


/** Whether embedRows can run now: the wasm backend with the internals used here, the flag on (default). */
export function embeddingKernelAvailable(): boolean {
  if (tf.getBackend() !== "wasm" || !tf.env().getBool(WASM_EMBEDDING_FLAG)) return false;
  registerWasmKernels({ [KERNEL]: scatterAddKernel });
  return kernelFor(tf.backend()) !== null;
}

/**
 * Rows `ids` (N) of `table` (V, C), with the gradient to `table` described above; the same bits as
 * oneHot(ids, V) x table and its gradient. Indices must be in [0, V) (tokens and positions are
 * checked when batches are built).
 */
export function embedRows(table: tf.Tensor2D, ids: tf.Tensor1D): tf.Tensor2D {
  const [V] = table.shape;
  const op = tf.customGrad(((t: tf.Tensor2D) => ({
    value: tf.add(tf.gather(t, ids), 0),
    gradFunc: (dy: tf.Tensor2D) => tf.engine().runKernel(KERNEL, { dy, ids }, { rows: V }) as tf.Tensor2D,
  })) as unknown as Parameters<typeof tf.customGrad>[0]);
  return op(table) as tf.Tensor2D;
}

