/**
 * Sum over leading axes (column sums) for tfjs's wasm backend, bit-identical to tfjs's kernel.
 *
 * The backward pass reduces over rows all the time: every bias and LayerNorm gain gradient is a sum
 * over axis 0 of an (N, C) tensor. tfjs-backend-wasm 4.22 first transposes x so the reduced axes come
 * last, then sums each output in order from +0 in float32 (checked: not in float64). This kernel keeps
 * that order per output, out[c] = (((0 + x[0, c]) + x[1, c]) + ...), without the transpose: f32x4 lanes
 * are different columns, each summed in order over the rows, 16 columns at a time (4 independent
 * sums), then 4, then one (tests/unit/policy/kernels/wasm-sum.test.ts: shapes and axes bit for bit). Other
 * reductions (trailing or all axes, non-float32) go to tfjs's kernel.
 */
import * as tf from "@tensorflow/tfjs";
import { kernelOver, overrideWasmKernel, type KernelArgs, type WasmBackendInternals } from "./wasm-kernels.ts";
import { Code, F32, I32, V128, type FuncDef } from "./wasm-emit.ts";

/** tfjs env flag: false sends every Sum to tfjs's kernel (the benchmark's "before"). */
export const WASM_SUM_FLAG = "A1_WASM_COLUMN_SUM";

/** colSum(x, out, N, C): out[c] = sum over n of x[n, c], for x (N, C) float32. */
function colSumFunction(): FuncDef {
  const P = { x: 0, out: 1, N: 2, C: 3 };
  const L = { c0: 4, p: 5, n: 6, row: 7, a0: 8, sf: 12 };
  const c = new Code();
  c.get(P.C).i32(4).mul().set(L.row);
  c.i32(0).set(L.c0);
  for (const width of [16, 4, 1]) {
    const vecs = width / 4;
    c.block().loop();
    // while (C - c0 >= width)
    c.get(P.C).get(L.c0).sub().i32(width).ltU().brIf(1);
    if (width === 1) c.f32Zero().set(L.sf);
    else for (let v = 0; v < vecs; v++) c.v128Zero().set(L.a0 + v);
    c.get(P.x).get(L.c0).i32(4).mul().add().set(L.p);
    c.get(P.N).set(L.n);
    c.block().loop();
    c.get(L.n).eqz().brIf(1);
    if (width === 1) c.get(L.sf).get(L.p).f32Load().f32Add().set(L.sf);
    else for (let v = 0; v < vecs; v++) c.get(L.a0 + v).get(L.p).v128Load(16 * v).f32x4Add().set(L.a0 + v);
    c.get(L.p).get(L.row).add().set(L.p);
    c.get(L.n).i32(1).sub().set(L.n);
    c.br(0).end().end();
    c.get(P.out).get(L.c0).i32(4).mul().add().set(L.p);
    if (width === 1) c.get(L.p).get(L.sf).f32Store();
    else for (let v = 0; v < vecs; v++) c.get(L.p).get(L.a0 + v).v128Store(16 * v);
    c.get(L.c0).i32(width).add().set(L.c0);
    c.br(0).end().end();
  }
  return { name: "colSum", params: [I32, I32, I32, I32], locals: [I32, I32, I32, I32, V128, V128, V128, V128, F32], body: c };
}

type Exports = { colSum(x: number, out: number, N: number, C: number): void };
const instances = new WeakMap<WebAssembly.Memory, Exports | null>();

function kernelFor(backend: unknown): Exports | null {
  return kernelOver(backend, instances, () => [colSumFunction()]);
}

const size = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

function columnSum(args: KernelArgs): tf.TensorInfo | null {
  const { x } = args.inputs as { x: tf.TensorInfo };
  const { axis, keepDims } = (args.attrs ?? {}) as { axis: number | number[]; keepDims: boolean };
  if (x.dtype !== "float32" || x.shape.length < 2) return null;
  const axes = [...new Set(tf.util.parseAxisParam(axis, x.shape))].sort((a, b) => a - b);
  const r = axes.length;
  if (r === 0 || r >= x.shape.length || axes.some((a, i) => a !== i)) return null; // leading axes only, at least one kept
  const N = size(x.shape.slice(0, r));
  const C = size(x.shape.slice(r));
  if (N === 0 || C === 0) return null;
  const k = kernelFor(args.backend);
  const b = args.backend as WasmBackendInternals;
  const xOff = b.dataIdMap?.get(x.dataId)?.memoryOffset;
  if (!k || xOff == null) return null;
  const out = b.makeOutput(keepDims ? [...new Array<number>(r).fill(1), ...x.shape.slice(r)] : x.shape.slice(r), "float32");
  k.colSum(xOff, b.dataIdMap.get(out.dataId)!.memoryOffset!, N, C);
  return out;
}

/** Calls that took each path since start (tests check the column path really ran). */
export const wasmSumCounts = { columns: 0, tfjs: 0 };

let installed = false;

/** Put the column sum over the wasm backend's Sum (once; a no-op without the wasm backend's kernel). */
export function installWasmColumnSum(): void {
  if (installed) return;
  installed = overrideWasmKernel("Sum", WASM_SUM_FLAG, columnSum, (ours) => void (ours ? wasmSumCounts.columns++ : wasmSumCounts.tfjs++));
}

