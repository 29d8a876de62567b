/**
 * A policy in its own module Web Worker: registers the webgpu and wasm tfjs backends (wasm
 * binaries served by the app at /tfjs-wasm/) and exposes a PolicyService with comlink, knowing the
 * arena's grammars ("code", "suite") besides the built-in toy one.
 * All logic lives in src/core/policy/policy-service.ts.
 */
import "@tensorflow/tfjs-backend-webgpu";
import { setWasmPaths } from "@tensorflow/tfjs-backend-wasm";
import { expose } from "comlink";
import { PolicyService } from "../src/core/policy/policy-service.ts";
import { arenaConstraints, arenaVocabulary } from "../src/core/duel/contexts.ts";

setWasmPaths(new URL("/tfjs-wasm/", self.location.origin).href);
expose(new PolicyService(arenaConstraints(arenaVocabulary())));
