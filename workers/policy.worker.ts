/**
 * A policy in its own module Web Worker: its PolicyService (src/browser/policy-worker.ts) exposed with
 * comlink on the port its first message brings (`{ connectPort }`, src/browser/policy-client.ts), so
 * that whoever created the worker (the page, for the trainer: src/browser/worker-spawn.ts) need not be
 * the one that talks to it.
 */
import { expose } from "comlink";
import { createWorkerPolicyService } from "../src/browser/policy-worker.ts";

const service = createWorkerPolicyService();
self.addEventListener("message", (e: MessageEvent<{ connectPort?: unknown }>) => {
  if (e.data?.connectPort instanceof MessagePort) expose(service, e.data.connectPort);
});
