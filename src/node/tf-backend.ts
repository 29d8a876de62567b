/**
 * tfjs backends in Node (tests, benchmarks, scripts): wasm with its binaries read from
 * node_modules, else the pure-JS cpu backend; webgpu only through Dawn's Node binding (dawn.ts),
 * where ARENA_DAWN names one.
 */
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { setWasmPaths } from "@tensorflow/tfjs-backend-wasm";
import { type BackendChoice, type BackendName, selectBackend } from "../core/policy/backend.ts";
import { installDawn } from "./dawn.ts";

let wasmPathSet = false;

/** Directory holding tfjs-backend-wasm*.wasm, with a trailing slash. */
export function wasmDirectory(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve("@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm")) + "/";
}

/** Use `preferred` (default wasm, falling back to cpu). */
export async function useNodeBackend(preferred: BackendName = "wasm"): Promise<BackendChoice> {
  if (!wasmPathSet) {
    setWasmPaths(wasmDirectory());
    wasmPathSet = true;
  }
  if (preferred === "webgpu") {
    // Dawn's binding, where ARENA_DAWN names one (dawn.ts); else wasm, saying why.
    let missing: string | null = null;
    try {
      await installDawn();
      await import("@tensorflow/tfjs-backend-webgpu");
    } catch (e) {
      missing = (e as Error).message;
    }
    const choice = await selectBackend(missing ? ["wasm", "cpu"] : ["webgpu", "wasm", "cpu"]);
    return missing ? { ...choice, reason: `${choice.backend}, because webgpu is unavailable: ${missing}`, tried: [{ backend: "webgpu", error: missing }, ...choice.tried] } : choice;
  }
  return selectBackend(preferred === "wasm" ? ["wasm", "cpu"] : ["cpu"]);
}
