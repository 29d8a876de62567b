/**
 * tfjs backends in Node (tests, benchmarks, scripts): wasm with its binaries read from
 * node_modules, else the pure-JS cpu backend. Node has no WebGPU here.
 */
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { setWasmPaths } from "@tensorflow/tfjs-backend-wasm";
import { type BackendChoice, type BackendName, selectBackend } from "../core/policy/backend.ts";

let wasmPathSet = false;

/** Directory holding tfjs-backend-wasm*.wasm, with a trailing slash. */
export function wasmDirectory(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve("@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm")) + "/";
}

/** Use `preferred` (default wasm, falling back to cpu). */
export async function useNodeBackend(preferred: BackendName = "wasm"): Promise<BackendChoice> {
  if (preferred === "webgpu") throw new Error("webgpu is not available in Node: use wasm or cpu");
  if (!wasmPathSet) {
    setWasmPaths(wasmDirectory());
    wasmPathSet = true;
  }
  return selectBackend(preferred === "wasm" ? ["wasm", "cpu"] : ["cpu"]);
}
