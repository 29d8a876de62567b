/**
 * Choosing the tfjs backend: the first of an ordered list that initialises, with a reason the UI can
 * show. Registration of webgpu and wasm is by importing their packages (done by the caller:
 * workers/policy.worker.ts in the browser, src/node/tf-backend.ts in Node), so core stays free of them.
 */
import * as tf from "@tensorflow/tfjs";

export type BackendName = "webgpu" | "wasm" | "cpu";

export interface BackendChoice {
  backend: BackendName;
  /** Why this one, in words: what was tried first and why it failed. */
  reason: string;
  tried: { backend: BackendName; error: string }[];
}

export class NoBackendError extends Error {
  override name = "NoBackendError";
}

type GpuNavigator = { gpu?: { requestAdapter(): Promise<unknown | null> } };

/** Why WebGPU cannot be used here, or null when an adapter is available. */
export async function webgpuUnavailable(): Promise<string | null> {
  const nav = (globalThis as { navigator?: GpuNavigator }).navigator;
  if (!nav?.gpu) return "navigator.gpu is missing (WebGPU unsupported or disabled in this browser)";
  try {
    const adapter = await nav.gpu.requestAdapter();
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
