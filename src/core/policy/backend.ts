/**
 * Starting the tfjs backend: `selectBackend` takes the first of an ordered list that initialises,
 * with a reason the UI can show; `chooseBackend` first decides that order from a preference (the
 * decision itself is backend-choice.ts, pure) and runs its timed probe where one is needed. Starting
 * wasm puts the SIMD BatchMatMul (wasm-matmul.ts) over tfjs's. Registration of webgpu and wasm is by
 * importing their packages (done by the caller: workers/policy.worker.ts in the browser,
 * src/node/tf-backend.ts in Node), so core stays free of them.
 */
import * as tf from "@tensorflow/tfjs";
import { installWasmCopyKernels, WASM_COPY_FLAG } from "./kernels/wasm-copy.ts";
import { DECODE_ATTENTION_FLAG } from "./kernels/wasm-decode-attention.ts";
import { DIRECT_DECODE_FLAG } from "./kernels/wasm-decode-step.ts";
import { WASM_DRAW_FLAG } from "./kernels/wasm-draw.ts";
import { PREFILL_ATTENTION_FLAG } from "./kernels/wasm-prefill-attention.ts";
import { WASM_EMBEDDING_FLAG } from "./kernels/wasm-embedding.ts";
import { FUSED_OPS_FLAG } from "./kernels/wasm-fused.ts";
import { installWasmBatchMatMul, SIMD_MATMUL_FLAG } from "./kernels/wasm-matmul.ts";
import { installWasmColumnSum, WASM_SUM_FLAG } from "./kernels/wasm-sum.ts";
import { REDUCTION_GRADS_FLAG } from "./kernels/reduction-grads.ts";
import { type AdapterReport, type BackendDecision, type BackendName, type BackendPreference, type ProbeTiming, decideBackend, requestAdapterReport } from "./backend-choice.ts";

export type { BackendName };

export interface BackendChoice {
  backend: BackendName;
  /** Why this one, in words: what was tried first and why it failed. */
  reason: string;
  tried: { backend: BackendName; error: string }[];
  /** The WebGPU adapter's name when the backend is webgpu, for the badge ("SwiftShader", a GPU's name). */
  adapter?: string | null;
  /** XNNPACK threads of the wasm backend (1: single-threaded build), set by PolicyService.init. */
  wasmThreads?: number;
}

export class NoBackendError extends Error {
  override name = "NoBackendError";
}

type GpuNavigator = { gpu?: { requestAdapter(options?: object): Promise<unknown | null> } };

/** The adapter options tfjs-backend-webgpu 4.22 requests (its base.js), so a probe sees the adapter tfjs gets. */
export function tfjsAdapterOptions(): { powerPreference: "low-power" | "high-performance" } {
  let lowPower = false;
  try {
    lowPower = tf.env().getBool("WEBGPU_USE_LOW_POWER_GPU");
  } catch {
    // the flag is registered by tfjs-backend-webgpu; without it tfjs cannot start webgpu anyway
  }
  return { powerPreference: lowPower ? "low-power" : "high-performance" };
}

/** Why WebGPU cannot be used here, or null when an adapter is available. */
export async function webgpuUnavailable(): Promise<string | null> {
  const nav = (globalThis as { navigator?: GpuNavigator }).navigator;
  if (!nav?.gpu) return "navigator.gpu is missing (WebGPU unsupported or disabled in this browser)";
  try {
    const adapter = await nav.gpu.requestAdapter(tfjsAdapterOptions());
    return adapter ? null : "navigator.gpu.requestAdapter() returned no adapter (no usable GPU or software rasteriser)";
  } catch (e) {
    return `navigator.gpu.requestAdapter() failed: ${(e as Error).message}`;
  }
}

/** Set the first backend of `order` that initialises; throws NoBackendError listing every failure. */
export async function selectBackend(order: readonly BackendName[]): Promise<BackendChoice> {
  const tried: BackendChoice["tried"] = [];
  for (const backend of order) {
    let error: string | null = null;
    if (backend === "webgpu") error = await webgpuUnavailable();
    if (!error && !tf.findBackendFactory(backend)) error = `the ${backend} backend is not registered (its package was not imported)`;
    if (!error && backend === "wasm") {
      installWasmBatchMatMul(); // bit-identical to tfjs's, faster
      installWasmCopyKernels(); // GatherV2 and SplitV as byte copies: the same bytes, faster
      installWasmColumnSum(); // sums over leading axes in tfjs's order, without its transpose
    }
    if (!error) {
      try {
        if (!(await tf.setBackend(backend))) error = `tf.setBackend("${backend}") failed to initialise`;
        else await tf.ready();
      } catch (e) {
        error = (e as Error).message;
      }
    }
    if (!error) {
      const reason = tried.length
        ? `${backend}, because ${tried.map((t) => `${t.backend} is unavailable: ${t.error}`).join("; ")}`
        : `${backend}, the first choice`;
      return { backend, reason, tried };
    }
    tried.push({ backend, error });
  }
  throw new NoBackendError(`no tfjs backend could start: ${tried.map((t) => `${t.backend}: ${t.error}`).join("; ")}`);
}

type AdapterSource = Parameters<typeof requestAdapterReport>[0];
const navigatorGpu = (): AdapterSource => (globalThis as { navigator?: { gpu?: AdapterSource } }).navigator?.gpu;

/** Probe size: a tiny-model-sized product chain with one host read per iteration, as decoding does. */
const PROBE = { rows: 64, width: 64, iterations: 12 };

/**
 * Milliseconds for PROBE.iterations iterations on the current backend after one warm-up, or null as
 * soon as the running time passes `limitMs` (a slow adapter is not waited for).
 */
export async function timeProbe(limitMs = Infinity): Promise<number | null> {
  const x = tf.tidy(() => tf.randomUniform([PROBE.rows, PROBE.width], -1, 1, "float32", 1));
  const w = tf.tidy(() => tf.randomUniform([PROBE.width, PROBE.width], -0.1, 0.1, "float32", 2));
  const once = async () => {
    const y = tf.tidy(() => tf.softmax(tf.matMul(tf.tanh(tf.matMul(x, w)), w, false, true)).sum(1));
    await y.data();
    y.dispose();
  };
  try {
    await once();
    const t0 = performance.now();
    for (let i = 0; i < PROBE.iterations; i++) {
      await once();
      if (performance.now() - t0 > limitMs) return null;
    }
    return performance.now() - t0;
  } finally {
    x.dispose();
    w.dispose();
  }
}

/** Time the probe on wasm, then on webgpu with wasm's time as its limit. */
async function probeTiming(): Promise<ProbeTiming> {
  installWasmBatchMatMul();
  installWasmCopyKernels();
  installWasmColumnSum();
  await tf.setBackend("wasm");
  const wasmMs = (await timeProbe())!;
  if (!(await tf.setBackend("webgpu"))) return { webgpuMs: null, wasmMs };
  return { webgpuMs: await timeProbe(wasmMs), wasmMs };
}

/** The order to try and why, running the probe only where the adapter alone does not decide. */
export async function chooseBackendOrder(
  preference: BackendPreference,
  env: { adapter: () => Promise<AdapterReport>; probe: () => Promise<ProbeTiming> } = { adapter: () => requestAdapterReport(navigatorGpu(), tfjsAdapterOptions()), probe: probeTiming },
): Promise<Extract<BackendDecision, { kind: "order" }>> {
  const needsAdapter = preference === "auto" || preference === "webgpu";
  const report = needsAdapter ? await env.adapter() : { unavailable: "not asked" };
  const first = decideBackend(preference, report);
  if (first.kind === "order") return first;
  let timing: ProbeTiming;
  try {
    timing = await env.probe();
  } catch (e) {
    return { kind: "order", order: ["wasm", "cpu"], reason: `wasm, because the WebGPU probe failed: ${(e as Error).message}`, adapter: null };
  }
  return decideBackend(preference, report, timing) as Extract<BackendDecision, { kind: "order" }>;
}

/**
 * Choose and start the backend for `preference`. When the decided first choice cannot start, the
 * reason says both what failed and what had been decided.
 */
export async function chooseBackend(preference: BackendPreference, env?: Parameters<typeof chooseBackendOrder>[1]): Promise<BackendChoice> {
  const decision = await chooseBackendOrder(preference, env);
  const started = await selectBackend(decision.order);
  const reason = started.backend === decision.order[0] ? decision.reason : `${started.reason} (decided first: ${decision.reason})`;
  return { ...started, reason, adapter: started.backend === "webgpu" ? decision.adapter : null };
}

/**
 * The tfjs env flags of the wasm backend's speed-ups (all bit-identical, all on by default): the SIMD
 * BatchMatMul, the copy kernels, the column Sum, the decoding attention, the embedding gradient, the
 * one-kernel LayerNorm and GELU argument, the Mean and Sum gradients without a new ones tensor (that
 * one on every backend), the decoding steps without tfjs's engine, the sampler's draw in WebAssembly
 * (on every backend), a prefill's attention in kernels; and policy.ts's head at scored positions
 * (A1_SCORED_POSITIONS_HEAD, set by its own module).
 */
export const WASM_SPEEDUP_FLAGS = [SIMD_MATMUL_FLAG, WASM_COPY_FLAG, WASM_SUM_FLAG, DECODE_ATTENTION_FLAG, WASM_EMBEDDING_FLAG, FUSED_OPS_FLAG, REDUCTION_GRADS_FLAG, DIRECT_DECODE_FLAG, WASM_DRAW_FLAG, PREFILL_ATTENTION_FLAG] as const;
