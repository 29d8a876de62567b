/**
 * Which tfjs backend to train on, decided before any policy exists:
 *
 *   1. a forced choice (config `backend`: webgpu, wasm or cpu) is tried first, falling back in order;
 *   2. "auto" never trains on a software or fallback WebGPU adapter: no adapter, an adapter that says
 *      `isFallbackAdapter`, or one whose name is a known CPU renderer (SwiftShader, llvmpipe...)
 *      means wasm, with the reason in words;
 *   3. any other adapter is timed against wasm on a short probe of this workload's kind (small
 *      matrix products and a host read per iteration, as a decoding step does) and wins only if it is
 *      faster.
 *
 * Pure and free of tfjs (the page's header imports it): `decideBackend` is unit-tested with fake
 * adapter infos; `chooseBackend` in backend.ts wires it to navigator.gpu and tfjs and runs the probe
 * only when step 3 asks.
 */
/** The tfjs backends a policy can train on (backend.ts registers and starts them). */
export type BackendName = "webgpu" | "wasm" | "cpu";

/** "auto" decides by the steps above; a backend name forces it (falling back if it cannot start). */
export type BackendPreference = "auto" | BackendName;

/** The fields of GPUAdapterInfo we read (all optional: browsers differ). */
export interface AdapterInfoLike {
  vendor?: string;
  architecture?: string;
  device?: string;
  description?: string;
  /** Chrome 131+: on GPUAdapterInfo; older Chromes had it on the adapter itself. */
  isFallbackAdapter?: boolean;
}

/** What navigator.gpu offered: an adapter's info, or why there is none. */
export type AdapterReport = { info: AdapterInfoLike } | { unavailable: string };

/** Milliseconds for the same probe on each backend (webgpu may be null: it ran past wasm's time). */
export interface ProbeTiming {
  webgpuMs: number | null;
  wasmMs: number;
}

/** Renderers that run on the CPU: WebGPU through them is far slower than tfjs wasm for this model. */
const SOFTWARE_RENDERERS: readonly [RegExp, string][] = [
  [/swiftshader/i, "SwiftShader"],
  [/llvmpipe/i, "llvmpipe"],
  [/lavapipe/i, "lavapipe"],
  [/softpipe/i, "softpipe"],
  [/microsoft basic render/i, "Microsoft Basic Render Driver"],
  [/\bwarp\b/i, "WARP"],
];

/** A readable adapter name from GPUAdapterInfo's fields (any may be empty). */
export function adapterLabel(info: AdapterInfoLike | undefined): string {
  if (!info) return "unknown adapter";
  if (info.description?.trim()) return info.description.trim();
  const parts = [info.vendor, info.architecture, info.device].filter((s): s is string => !!s && s.trim() !== "");
  return parts.length ? parts.join(" ") : "unknown adapter";
}

/** Why this adapter runs on the CPU (fallback flag or a known software renderer), or null. */
export function softwareAdapter(info: AdapterInfoLike): string | null {
  if (info.isFallbackAdapter) return "is a fallback adapter (the browser's CPU implementation)";
  const text = [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(" ");
  for (const [pattern, name] of SOFTWARE_RENDERERS) if (pattern.test(text)) return `is ${name}, a software renderer on the CPU`;
  return null;
}

/** A decision: the order to try (first that starts wins) and why. `probe` asks for timings first. */
export type BackendDecision =
  | { kind: "order"; order: BackendName[]; reason: string; adapter: string | null }
  | { kind: "probe"; adapter: string };

/**
 * The pure decision. `timing` is given on the second call, after a "probe" answer.
 *
 *   decideBackend("auto", { info: { vendor: "google", architecture: "swiftshader" } })
 *   // { kind: "order", order: ["wasm", "cpu"], reason: "wasm, because the WebGPU adapter (google swiftshader) is SwiftShader, ..." }
 */
export function decideBackend(preference: BackendPreference, adapter: AdapterReport, timing?: ProbeTiming): BackendDecision {
  const name = "info" in adapter ? adapterLabel(adapter.info) : null;
  if (preference === "webgpu") return { kind: "order", order: ["webgpu", "wasm", "cpu"], reason: "webgpu, forced by the backend setting", adapter: name };
  if (preference === "wasm") return { kind: "order", order: ["wasm", "cpu"], reason: "wasm, chosen by the backend setting", adapter: null };
  if (preference === "cpu") return { kind: "order", order: ["cpu"], reason: "cpu, chosen by the backend setting", adapter: null };
  const wasm = (why: string): BackendDecision => ({ kind: "order", order: ["wasm", "cpu"], reason: `wasm, because ${why}`, adapter: null });
  if (!("info" in adapter)) return wasm(`webgpu is unavailable: ${adapter.unavailable}`);
  const software = softwareAdapter(adapter.info);
  if (software) return wasm(`the WebGPU adapter (${name}) ${software}`);
  if (!timing) return { kind: "probe", adapter: name! };
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  if (timing.webgpuMs === null) return wasm(`the WebGPU adapter (${name}) ran the probe slower than wasm (${ms(timing.wasmMs)})`);
  if (timing.webgpuMs >= timing.wasmMs) return wasm(`the WebGPU adapter (${name}) ran the probe in ${ms(timing.webgpuMs)}, wasm in ${ms(timing.wasmMs)}`);
  return { kind: "order", order: ["webgpu", "wasm", "cpu"], reason: `webgpu, because it ran the probe in ${ms(timing.webgpuMs)}, wasm in ${ms(timing.wasmMs)}`, adapter: name };
}

type GpuAdapterLike = { info?: AdapterInfoLike; isFallbackAdapter?: boolean };
type GpuLike = { requestAdapter(options?: object): Promise<GpuAdapterLike | null> };

/** Ask navigator.gpu for an adapter (pass tfjs's options, `tfjsAdapterOptions()`, to get the one tfjs gets). */
export async function requestAdapterReport(gpu: GpuLike | undefined, options: { powerPreference: "low-power" | "high-performance" }): Promise<AdapterReport> {
  if (!gpu) return { unavailable: "navigator.gpu is missing (WebGPU unsupported or disabled in this browser)" };
  try {
    const adapter = await gpu.requestAdapter(options);
    if (!adapter) return { unavailable: "navigator.gpu.requestAdapter() returned no adapter (no usable GPU)" };
    const info = adapter.info ?? {};
    // GPUAdapterInfo's fields are getters on its prototype: copy the ones we read.
    return {
      info: {
        vendor: info.vendor,
        architecture: info.architecture,
        device: info.device,
        description: info.description,
        isFallbackAdapter: info.isFallbackAdapter ?? adapter.isFallbackAdapter,
      },
    };
  } catch (e) {
    return { unavailable: `navigator.gpu.requestAdapter() failed: ${(e as Error).message}` };
  }
}

