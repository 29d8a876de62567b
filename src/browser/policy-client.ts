/**
 * The caller's side of a policy worker: starts workers/policy.worker.ts (worker-spawn.ts) and wraps it with comlink.
 * The returned `policy` has PolicyService's methods, each returning a promise.
 *
 *   const { policy, close } = startPolicyWorker();
 *   const backend = await policy.init();          // {backend: "webgpu" | "wasm" | "cpu", reason}
 *   await policy.create({ size: "tiny", vocab, seed: 1 });
 */
import { type Remote, releaseProxy, wrap } from "comlink";
import type { PolicyService } from "../core/policy/policy-service.ts";
import { spawnWorker } from "./worker-spawn.ts";

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
  // The worker talks through this port (its first message), so that it may be created by the page
  // when this runs in the trainer worker (worker-spawn.ts says why).
  const channel = new MessageChannel();
  const worker = spawnWorker("policy", name, { connectPort: channel.port2 }, [channel.port2]);
  const policy = wrap<PolicyService>(channel.port1);
  const failed = new Promise<never>((_, reject) => {
    worker.onError((message) => reject(new Error(`the ${name} worker failed: ${message}`)));
  });
  failed.catch(() => undefined); // observed by the callers that race it
  return {
    policy,
    failed,
    close() {
      policy[releaseProxy]();
      worker.terminate();
      channel.port1.close();
    },
  };
}
