/**
 * WebGPU in Node: Dawn, the WebGPU implementation inside Chromium, through its Node binding (the
 * `webgpu` npm package). It is not a dependency of the project (51 MB, a binary for every platform,
 * and this machine has no GPU to use it on); `ARENA_DAWN` names an unpacked copy of it:
 *
 *   npm pack webgpu@0.6.2 && tar xzf webgpu-0.6.2.tgz   # ./package; ARENA_DAWN=$PWD/package
 *
 * With it, `useNodeBackend("webgpu")` starts tfjs's webgpu backend in Node on the machine's GPU: how
 * the GPU bench (`npm run bench -- gpu`, docs/BENCHMARKS.md) measures a lent GPU machine that has
 * no Chromium. Dawn flags (`backend=vulkan`, `adapter=NAME`) come from `ARENA_DAWN_FLAGS`, comma-separated.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

export class DawnUnavailableError extends Error {
  override name = "DawnUnavailableError";
}

interface DawnModule {
  create(flags: string[]): { requestAdapter(options?: object): Promise<unknown | null> };
  globals: Record<string, unknown>;
}

let installed: string | null = null;

/**
 * Puts Dawn's `navigator.gpu` and WebGPU globals (GPUBufferUsage...) on globalThis, once; returns the
 * folder it came from. Throws DawnUnavailableError naming what is missing.
 */
export async function installDawn(dir = process.env.ARENA_DAWN, flags = (process.env.ARENA_DAWN_FLAGS ?? "").split(",").filter(Boolean)): Promise<string> {
  if (installed) return installed;
  if (!dir) throw new DawnUnavailableError("webgpu in Node needs Dawn's Node binding: set ARENA_DAWN to an unpacked `npm pack webgpu@0.6.2` (its package/ folder)");
  const entry = join(resolve(dir), "index.js");
  if (!existsSync(entry)) throw new DawnUnavailableError(`ARENA_DAWN=${dir}: no index.js there (expected the unpacked webgpu package's folder)`);
  let dawn: DawnModule;
  try {
    dawn = (await import(pathToFileURL(entry).href)) as DawnModule;
  } catch (e) {
    throw new DawnUnavailableError(`ARENA_DAWN=${dir}: Dawn's binding did not load: ${(e as Error).message}`);
  }
  const g = globalThis as { navigator?: { gpu?: unknown } };
  Object.assign(globalThis, dawn.globals);
  const gpu = dawn.create(flags);
  if (g.navigator) Object.defineProperty(g.navigator, "gpu", { value: gpu, configurable: true });
  else Object.defineProperty(globalThis, "navigator", { value: { gpu }, configurable: true, writable: true });
  installed = dir;
  return dir;
}
