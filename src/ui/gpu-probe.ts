/**
 * Which WebGPU adapter the browser offers and what `auto` will make of it, shown in the header
 * before the trainer reports the backend it actually uses (TrainerEvent "backend"). The decision
 * itself is core's (src/core/policy/backend-choice.ts); this only asks the same question early.
 */
import { adapterLabel, requestAdapterReport, softwareAdapter, type AdapterInfoLike } from "../core/policy/backend-choice.ts";
import type { BackendPreference } from "../core/policy/backend-choice.ts";

export interface GpuProbe {
  /** The adapter's name, or null when there is none. */
  adapter: string | null;
  /** Why there is no adapter ("" when there is one). */
  reason: string;
  /** Why the adapter runs on the CPU (SwiftShader, fallback adapter), or null. */
  software: string | null;
}

/** A readable adapter name from GPUAdapterInfo's fields (any may be empty). */
export function adapterName(info: AdapterInfoLike | undefined): string {
  return adapterLabel(info);
}

export async function probeWebGpu(nav: Navigator): Promise<GpuProbe> {
  // tfjs-backend-webgpu's default options (high-performance): the adapter a policy worker would get.
  const report = await requestAdapterReport((nav as unknown as { gpu?: Parameters<typeof requestAdapterReport>[0] }).gpu, { powerPreference: "high-performance" });
  if (!("info" in report)) return { adapter: null, reason: report.unavailable, software: null };
  return { adapter: adapterLabel(report.info), reason: "", software: softwareAdapter(report.info) };
}

/** The header's text before a run reports its backend. */
export function gpuProbeText(gpu: GpuProbe, preference: BackendPreference): string {
  if (!gpu.adapter) return `No WebGPU (${gpu.reason}): ${preference === "cpu" ? "runs use cpu" : "runs use wasm"}`;
  if (preference === "webgpu") return `WebGPU forced: ${gpu.adapter}`;
  if (preference !== "auto") return `WebGPU available: ${gpu.adapter}; runs use ${preference} (backend setting)`;
  if (gpu.software) return `WebGPU available: ${gpu.adapter}, which ${gpu.software}: runs use wasm (?backend=webgpu forces it)`;
  return `WebGPU available: ${gpu.adapter}; a short probe against wasm decides at Start`;
}
