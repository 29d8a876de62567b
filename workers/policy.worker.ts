/** A policy in its own module Web Worker: its PolicyService (src/browser/policy-worker.ts) exposed with comlink. */
import { expose } from "comlink";
import { createWorkerPolicyService } from "../src/browser/policy-worker.ts";

expose(createWorkerPolicyService());
