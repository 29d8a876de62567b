/**
 * The contract between the training orchestrator (which runs in a worker in the browser, in-thread
 * in Node) and whoever watches it (the UI, the `train` command line). Messages are a discriminated
 * union on `type`; errors cross threads as {name, message, stack}.
 */
import type { Config } from "../config/index.ts";
import type { DuelRecord, StepMetrics } from "./types.ts";
import type { MistakeBookDelta } from "./mistake-book.ts";

export type RunPhase = "load" | "pretrain" | "sample" | "grade" | "update" | "eval" | "save";

export type TrainerEvent =
  /** Long work in progress; `total` 0 when unknown. */
  | { type: "progress"; phase: RunPhase; done: number; total: number; text: string }
  /** Which tfjs backend a policy runs on, and why (e.g. "webgpu: SwiftShader", "wasm: no WebGPU adapter"). */
  | { type: "backend"; policy: "code" | "test"; backend: string; adapter: string | null; reason: string }
  /** Run lifecycle; `eta_s` null when not yet measurable. */
  | { type: "status"; runId: string; status: "running" | "paused" | "done" | "failed" | "stopped"; step: number; steps: number; eta_s: number | null }
  /** One committed step (already persisted when this is sent). */
  | { type: "step"; runId: string; metrics: StepMetrics; duels: DuelRecord[]; mistakeBook: MistakeBookDelta[] }
  | { type: "error"; name: string; message: string; stack?: string };

/** What the UI can ask of the orchestrator. Every call resolves once the request is accepted. */
export interface TrainerControl {
  /** Create a new run from `config` (validated) and start it; resolves with the run id. */
  start(config: Config): Promise<string>;
  /** Resume a stored run from its last complete step. */
  resume(runId: string): Promise<void>;
  /** Finish the current step, checkpoint, and stop stepping. */
  pause(): Promise<void>;
  /** Run exactly one step of a paused run (classroom mode), then pause again. */
  stepOnce(runId: string): Promise<void>;
  /** Stop after the current step; the run stays stored and resumable. */
  stop(): Promise<void>;
  /** Receive every event; returns an id for unsubscribe. */
  subscribe(listener: (e: TrainerEvent) => void): Promise<number>;
  unsubscribe(id: number): Promise<void>;
}
