/**
 * Main-thread side of a policy worker: starts workers/policy.worker.ts and wraps it with comlink.
 * The returned `policy` has PolicyService's methods, each returning a promise.
 *
 *   const { policy, close } = startPolicyWorker();
 *   const backend = await policy.init();          // {backend: "webgpu" | "wasm" | "cpu", reason}
 *   await policy.create({ size: "tiny", vocab, seed: 1 });
 */
import { type Remote, releaseProxy, wrap } from "comlink";
import type { PolicyService } from "../core/policy/policy-service.ts";

export interface PolicyWorker {
  policy: Remote<PolicyService>;
  /** Release the proxy and terminate the worker (its tensors go with it). */
  close(): void;
  /**
   * Rejects if the worker fails (its script did not load, or it threw outside a call): comlink's
   * calls would wait for an answer that never comes, so callers race their calls with this.
   */
  failed: Promise<never>;
}

export function startPolicyWorker(name = "policy"): PolicyWorker {
  const worker = new Worker(new URL("../../workers/policy.worker.ts", import.meta.url), { type: "module", name });
  const policy = wrap<PolicyService>(worker);
  const failed = new Promise<never>((_, reject) => {
    worker.addEventListener("error", (e) => reject(new Error(`the ${name} worker failed: ${e.message || "its script did not load"}`)));
  });
  failed.catch(() => undefined); // observed by the callers that race it
  return {
    policy,
    failed,
    close() {
      policy[releaseProxy]();
      worker.terminate();
    },
  };
}
