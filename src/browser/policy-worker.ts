/**
 * What a policy's module Web Worker (workers/policy.worker.ts) serves: registers the webgpu and wasm
 * tfjs backends (wasm binaries served by the app at /tfjs-wasm/) and builds a PolicyService that
 * knows the arena's grammars ("code", "suite") besides the built-in toy one.
 * All logic lives in src/core/policy/policy-service.ts.
 */
import "@tensorflow/tfjs-backend-webgpu";
import { setWasmPaths } from "@tensorflow/tfjs-backend-wasm";
import { env } from "@tensorflow/tfjs";
import { PolicyService } from "../core/policy/policy-service.ts";
import { arenaConstraints, arenaVocabulary } from "../core/duel/contexts.ts";

/** The worker's policy, its tfjs set up for a policy worker; call once, in the worker. */
export function createWorkerPolicyService(): PolicyService {
  setWasmPaths(new URL("/tfjs-wasm/", self.location.origin).href);
  // The app is cross-origin isolated, so tfjs would pick its multi-threaded wasm build, whose pthread
  // workers are blob scripts that fail once bundled ("e is not defined"). One thread per policy
  // worker is what we want anyway: the two policies and the grader already run in parallel.
  env().set("WASM_HAS_MULTITHREAD_SUPPORT", false);
  return new PolicyService(arenaConstraints(arenaVocabulary()));
}
