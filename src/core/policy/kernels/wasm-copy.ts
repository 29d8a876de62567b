/**
 * Data-movement kernels for tfjs's wasm backend. GatherV2 (batchDims 0), SplitV and Concat copy rows as
 * bytes on the backend's heap: tfjs-backend-wasm 4.22 computes every gathered or sliced element's
 * address one by one (Gather, Slice), about 4.7 ms to gather 2032 rows of 64 floats; here an emitted
 * wasm loop runs one `memory.copy` per row (wasm-emit.ts). Identity and same-dtype Cast share their
 * input's data instead of copying it (see `share`). The outputs are the inputs' bytes, so they are
 * bit-identical to tfjs's kernels by construction (tests/unit/policy/kernels/wasm-copy.test.ts checks it
 * anyway, with the index errors). Anything unusual (batchDims, a dtype other than float32 or int32,
 * a backend without the internals used here) goes to tfjs's kernel.
 */
import * as tf from "@tensorflow/tfjs";
import { overrideWasmKernel, type KernelArgs } from "./wasm-kernels.ts";
import { Code, emitModule, I32, type FuncDef } from "./wasm-emit.ts";

/** tfjs env flag: false sends every GatherV2, SplitV, Concat, Identity and Cast to tfjs's kernels (the benchmark's "before"). */
export const WASM_COPY_FLAG = "A1_WASM_COPY_KERNELS";

interface WasmBackendInternals {
  incRef(dataId: object): void;
  dataIdMap: { get(dataId: object): { memoryOffset: number | null } | undefined };
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  wasm: { asm?: { memory?: WebAssembly.Memory }; wasmMemory?: WebAssembly.Memory };
}

const size = (shape: readonly number[]) => shape.reduce((x, y) => x * y, 1);

/** The backend's heap, or null where its internals are not what this file expects. */
function heapOf(backend: unknown): { b: WasmBackendInternals; memory: WebAssembly.Memory; k: CopyExports } | null {
  const b = backend as Partial<WasmBackendInternals>;
  const memory = b.wasm?.asm?.memory ?? b.wasm?.wasmMemory;
  if (!(memory instanceof WebAssembly.Memory) || typeof b.makeOutput !== "function" || !b.dataIdMap) return null;
  const k = copierFor(memory);
  return k ? { b: b as WasmBackendInternals, memory, k } : null;
}

interface CopyExports {
  /** for r < rows: copy `bytes` from src + r * srcStride to dst + r * dstStride */
  copyRows(src: number, srcStride: number, dst: number, dstStride: number, rows: number, bytes: number): void;
  /** for o < outer, j < n: copy row idx[j] of block o of src (blocks of srcBlock bytes) to row j of block o of dst (blocks of n rows) */
  gatherRows(src: number, srcBlock: number, idx: number, n: number, dst: number, outer: number, row: number): void;
}

function copyRowsFunction(): FuncDef {
  const [src, srcStride, dst, dstStride, rows, bytes] = [0, 1, 2, 3, 4, 5];
  const c = new Code();
  c.block().loop();
  c.get(rows).eqz().brIf(1);
  c.get(dst).get(src).get(bytes).memoryCopy();
  c.get(src).get(srcStride).add().set(src);
  c.get(dst).get(dstStride).add().set(dst);
  c.get(rows).i32(1).sub().set(rows);
  c.br(0).end().end();
  return { name: "copyRows", params: new Array(6).fill(I32), locals: [], body: c };
}

function gatherRowsFunction(): FuncDef {
  const [src, srcBlock, idx, n, dst, outer, row] = [0, 1, 2, 3, 4, 5, 6];
  const [j, ip] = [7, 8];
  const c = new Code();
  c.block().loop();
  c.get(outer).eqz().brIf(1);
  c.get(n).set(j);
  c.get(idx).set(ip);
  c.block().loop();
  c.get(j).eqz().brIf(1);
  // dst <- src + idx[j] * row; dst += row
  c.get(dst).get(src).get(ip).i32Load().get(row).mul().add().get(row).memoryCopy();
  c.get(dst).get(row).add().set(dst);
  c.get(ip).i32(4).add().set(ip);
  c.get(j).i32(1).sub().set(j);
  c.br(0).end().end();
  c.get(src).get(srcBlock).add().set(src);
  c.get(outer).i32(1).sub().set(outer);
  c.br(0).end().end();
  return { name: "gatherRows", params: new Array(7).fill(I32), locals: [I32, I32], body: c };
}

const instances = new WeakMap<WebAssembly.Memory, CopyExports | null>();

function copierFor(memory: WebAssembly.Memory): CopyExports | null {
  let k = instances.get(memory);
  if (k === undefined) {
    try {
      const shared = typeof SharedArrayBuffer !== "undefined" && memory.buffer instanceof SharedArrayBuffer;
      const bytes = emitModule([copyRowsFunction(), gatherRowsFunction()], { shared });
      k = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } }).exports as unknown as CopyExports;
    } catch {
      k = null; // an engine without bulk memory, or a memory we cannot import
    }
    instances.set(memory, k);
  }
  return k;
}

const offsetOf = (b: WasmBackendInternals, t: tf.TensorInfo) => b.dataIdMap.get(t.dataId)?.memoryOffset ?? null;

function gather(args: KernelArgs): tf.TensorInfo | null {
  const { x, indices } = args.inputs as { x: tf.TensorInfo; indices: tf.TensorInfo };
  const { axis, batchDims } = (args.attrs ?? {}) as { axis: number; batchDims: number };
  if ((batchDims ?? 0) !== 0 || (x.dtype !== "float32" && x.dtype !== "int32") || indices.dtype !== "int32") return null;
  const h = heapOf(args.backend);
  if (!h) return null;
  const ax = tf.util.parseAxisParam(axis, x.shape)[0];
  const outer = size(x.shape.slice(0, ax));
  const dim = x.shape[ax];
  const slice = size(x.shape.slice(ax + 1));
  const n = size(indices.shape);
  const xOff = offsetOf(h.b, x);
  const iOff = offsetOf(h.b, indices);
  if (xOff == null || iOff == null || outer * dim * slice === 0) return null;
  for (const i of new Int32Array(h.memory.buffer, iOff, n)) if (!(i >= 0 && i <= dim - 1)) throw new Error(`GatherV2: the index value ${i} is not in [0, ${dim - 1}]`);
  const out = h.b.makeOutput([...x.shape.slice(0, ax), ...indices.shape, ...x.shape.slice(ax + 1)], x.dtype);
  if (outer * n * slice === 0) return out;
  h.k.gatherRows(xOff, dim * slice * 4, iOff, n, offsetOf(h.b, out)!, outer, slice * 4);
  return out;
}

function splitV(args: KernelArgs): tf.TensorInfo[] | null {
  const { x } = args.inputs as { x: tf.TensorInfo };
  const { numOrSizeSplits, axis } = (args.attrs ?? {}) as { numOrSizeSplits: number | number[]; axis: number };
  if (x.dtype !== "float32" && x.dtype !== "int32") return null;
  const h = heapOf(args.backend);
  if (!h) return null;
  const xOff = offsetOf(h.b, x);
  if (xOff == null || size(x.shape) === 0) return null;
  const ax = tf.util.parseAxisParam(axis, x.shape)[0];
  const sizes = tf.backend_util.prepareSplitSize(x as tf.Tensor, numOrSizeSplits, ax);
  const outer = size(x.shape.slice(0, ax));
  const inner = size(x.shape.slice(ax + 1)) * 4;
  const rowIn = x.shape[ax] * inner;
  const outs = sizes.map((s) => h.b.makeOutput(x.shape.map((d, i) => (i === ax ? s : d)), x.dtype));
  let start = 0;
  outs.forEach((out, k) => {
    const run = sizes[k] * inner;
    if (run > 0) h.k.copyRows(xOff + start, rowIn, offsetOf(h.b, out)!, run, outer, run);
    start += run;
  });
  return outs;
}

/** Concat along any axis: per input, one memory.copy per outer row (tfjs: one typed-array `set` each, from JS). */
function concat(args: KernelArgs): tf.TensorInfo | null {
  const inputs = args.inputs as unknown as tf.TensorInfo[];
  const { axis } = (args.attrs ?? {}) as { axis: number };
  if (!Array.isArray(inputs) || inputs.length < 2) return null;
  const dtype = inputs[0].dtype;
  if ((dtype !== "float32" && dtype !== "int32") || inputs.some((t) => t.dtype !== dtype)) return null;
  const h = heapOf(args.backend);
  if (!h) return null;
  const ax = tf.util.parseAxisParam(axis, inputs[0].shape)[0];
  const shapes = inputs.map((t) => t.shape);
  tf.backend_util.assertParamsConsistent(shapes, ax);
  const live = inputs.filter((t) => size(t.shape) > 0);
  if (live.length < 2) return null; // tfjs returns the one non-empty input itself
  const outShape = tf.backend_util.computeOutShape(shapes, ax);
  const offsets = live.map((t) => offsetOf(h.b, t));
  if (offsets.some((o) => o == null)) return null;
  const outer = size(outShape.slice(0, ax));
  const inner = live.map((t) => size(t.shape.slice(ax)) * 4);
  const rowOut = inner.reduce((a, b) => a + b, 0);
  const out = h.b.makeOutput(outShape, dtype);
  const outOff = offsetOf(h.b, out)!;
  let start = 0;
  live.forEach((t, i) => {
    h.k.copyRows(offsets[i]!, inner[i], outOff + start, rowOut, outer, inner[i]);
    start += inner[i];
  });
  return out;
}

/**
 * Identity, and Cast to the same dtype, share the input's data (one more reference, as tfjs's Reshape
 * does on every backend and Identity does on cpu and webgl) instead of copying it: the gradient code
 * of many ops clones or casts every tensor it passes on (about 1,500 copies per tiny update). Safe
 * because no kernel writes into an existing tensor's memory (outputs are always fresh).
 */
function share(args: KernelArgs): tf.TensorInfo | null {
  const { x } = args.inputs as { x: tf.TensorInfo };
  const dtype = (args.attrs as { dtype?: tf.DataType } | undefined)?.dtype ?? x.dtype;
  const b = args.backend as Partial<WasmBackendInternals>;
  if (x.dtype === "string" || dtype !== x.dtype || typeof b.incRef !== "function" || !b.dataIdMap?.get(x.dataId)) return null;
  b.incRef(x.dataId);
  return { dataId: x.dataId, shape: x.shape.slice(), dtype: x.dtype };
}

/** Calls that took each path since start (tests check the copy path really ran). */
export const wasmCopyCounts = { copy: 0, tfjs: 0 };

let installed = false;

/** Put the copy kernels over the wasm backend's GatherV2, SplitV, Concat, Identity and Cast (once; a no-op without the wasm backend's kernels). */
export function installWasmCopyKernels(): void {
  if (installed) return;
  const ours: Record<string, (args: KernelArgs) => tf.TensorInfo | tf.TensorInfo[] | null> = { GatherV2: gather, SplitV: splitV, Concat: concat, Identity: share, Cast: share };
  if (Object.keys(ours).some((name) => !tf.getKernel(name, "wasm"))) return;
  installed = true;
  for (const [name, kernel] of Object.entries(ours)) overrideWasmKernel(name, WASM_COPY_FLAG, kernel, (used) => void (used ? wasmCopyCounts.copy++ : wasmCopyCounts.tfjs++));
}

