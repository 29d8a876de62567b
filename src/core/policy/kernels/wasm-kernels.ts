/**
 * What every wasm kernel override of this folder shares (wasm-matmul.ts, wasm-sum.ts, wasm-copy.ts,
 * wasm-embedding.ts, wasm-decode-attention.ts): a tfjs flag that switches it (on by default, so a
 * bench can time tfjs's own kernel beside ours in one process), and the swap of a registered wasm
 * kernel for one that runs ours while the flag is on and falls back to tfjs's where ours declines.
 */
import * as tf from "@tensorflow/tfjs";
import { emitModule, type FuncDef } from "./wasm-emit.ts";

/** The arguments tfjs passes a kernel function. */
export type KernelArgs = { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap };
type Out = tf.TensorInfo | tf.TensorInfo[];

/** Registers a boolean tfjs flag, default true, unless it exists (module reloads, tests). */
export function registerFlagOnce(flag: string): void {
  try {
    tf.env().get(flag);
  } catch {
    tf.env().registerFlag(flag, () => true);
  }
}

/**
 * Replaces tfjs's wasm kernel `name`: while `flag` is on, `ours(args)` runs, and a null from it (a
 * case it does not cover) runs tfjs's own; `counted(true | false)` is told which ran. False when
 * tfjs has no such wasm kernel (nothing replaced).
 */
export function overrideWasmKernel(name: string, flag: string, ours: (args: KernelArgs) => Out | null, counted: (ours: boolean) => void): boolean {
  const original = tf.getKernel(name, "wasm");
  if (!original) return false;
  registerFlagOnce(flag);
  const tfjsKernel = original.kernelFunc as unknown as (args: KernelArgs) => Out;
  tf.unregisterKernel(name, "wasm");
  tf.registerKernel({
    ...original,
    kernelFunc: ((args: KernelArgs) => {
      const out = tf.env().getBool(flag) ? ours(args) : null;
      counted(out !== null);
      return out ?? tfjsKernel(args);
    }) as unknown as tf.KernelFunc,
  });
  return true;
}

/** The parts of tfjs-backend-wasm's BackendWasm the kernels read (internals: checked before use). */
export interface WasmBackendInternals {
  dataIdMap: { get(dataId: object): { memoryOffset: number | null } | undefined };
  makeOutput(shape: number[], dtype: "float32"): tf.TensorInfo;
  disposeData(dataId: object): void;
  /** The module's memory: exported (`asm.memory`) by the single-threaded builds, created in JS (`wasmMemory`, shared) by the threaded one. */
  wasm: { asm?: { memory?: WebAssembly.Memory }; wasmMemory?: WebAssembly.Memory };
}

/** A tensor's byte offset in the wasm backend's heap. */
export function heapOffset(backend: unknown, t: tf.TensorInfo): number {
  return (backend as WasmBackendInternals).dataIdMap.get(t.dataId)!.memoryOffset!;
}

/** Registers this folder's own wasm kernels (name -> kernel function), each once. */
export function registerWasmKernels(kernels: Record<string, (args: KernelArgs) => tf.TensorInfo | tf.TensorInfo[]>): void {
  for (const [kernelName, kernel] of Object.entries(kernels)) {
    if (!tf.getKernel(kernelName, "wasm")) tf.registerKernel({ kernelName, backendName: "wasm", kernelFunc: kernel as unknown as tf.KernelFunc });
  }
}

/**
 * A kernel module of `functions` instantiated over `backend`'s own memory, once per memory (in
 * `cache`), or null where that cannot be done (internals missing, no SIMD in this engine, a memory
 * we cannot import): the caller then leaves the work to tfjs's kernel.
 */
export function kernelOver<E>(backend: unknown, cache: WeakMap<WebAssembly.Memory, E | null>, functions: () => FuncDef[]): E | null {
  const b = backend as Partial<WasmBackendInternals>;
  const memory = b.wasm?.asm?.memory ?? b.wasm?.wasmMemory;
  if (!(memory instanceof WebAssembly.Memory) || typeof b.makeOutput !== "function" || !b.dataIdMap) return null;
  let k = cache.get(memory);
  if (k === undefined) {
    try {
      const shared = typeof SharedArrayBuffer !== "undefined" && memory.buffer instanceof SharedArrayBuffer;
      k = new WebAssembly.Instance(new WebAssembly.Module(emitModule(functions(), { shared })), { env: { memory } }).exports as unknown as E;
    } catch {
      k = null;
    }
    cache.set(memory, k);
  }
  return k;
}
