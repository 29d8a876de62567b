/**
 * Which WebGPU adapter the browser offers, shown in the header before the trainer reports the
 * backend it actually uses (TrainerEvent "backend").
 */

interface GpuAdapterLike {
  info?: { vendor?: string; architecture?: string; device?: string; description?: string };
}
interface GpuLike {
  requestAdapter(): Promise<GpuAdapterLike | null>;
}

/** A readable adapter name from GPUAdapterInfo's fields (any may be empty). */
export function adapterName(info: GpuAdapterLike["info"]): string {
  if (!info) return "unknown adapter";
  if (info.description?.trim()) return info.description.trim();
  const parts = [info.vendor, info.architecture, info.device].filter((s): s is string => !!s && s.trim() !== "");
  return parts.length ? parts.join(" ") : "unknown adapter";
}

export async function probeWebGpu(nav: Navigator): Promise<{ adapter: string | null; reason: string }> {
  const gpu = (nav as unknown as { gpu?: GpuLike }).gpu;
  if (!gpu) return { adapter: null, reason: "this browser has no WebGPU (navigator.gpu missing)" };
  try {
    const adapter = await gpu.requestAdapter();
    if (!adapter) return { adapter: null, reason: "WebGPU is present but offered no adapter" };
    return { adapter: adapterName(adapter.info), reason: "" };
  } catch (e) {
    return { adapter: null, reason: `WebGPU adapter request failed: ${(e as Error).message}` };
  }
}
