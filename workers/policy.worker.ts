/**
 * A policy in its own module Web Worker: registers the webgpu and wasm tfjs backends (wasm
 * binaries served by the app at /tfjs-wasm/) and exposes a PolicyService with comlink.
 * All logic lives in src/core/policy/policy-service.ts.
 */
import "@tensorflow/tfjs-backend-webgpu";
import { setWasmPaths } from "@tensorflow/tfjs-backend-wasm";
import { expose } from "comlink";
import { PolicyService } from "../src/core/policy/policy-service.ts";

setWasmPaths(new URL("/tfjs-wasm/", self.location.origin).href);
expose(new PolicyService());
