/**
 * The contract between the training orchestrator (which runs in a worker in the browser, in-thread
 * in Node) and whoever watches it (the UI, the `train` command line). Messages are a discriminated
 * union on `type`; errors cross threads as {name, message, stack}.
 */
import type { Config } from "../config/index.ts";
import type { DuelRecord, StepMetrics } from "./types.ts";
import type { MistakeBookDelta } from "./mistake-book.ts";

/** `load`: the players start; `sandbox`: the Python sandbox starts (its own phase: a cold start takes seconds). */
export type RunPhase = "load" | "sandbox" | "pretrain" | "sample" | "grade" | "update" | "eval" | "save";

/**
 * Why a run stopped without finishing, as stored with it until its next committed step: a run that
 * failed the same way twice (`count` 2) is not resumed by a reload, it waits for the user.
 */
export interface RunFailure {
  /** `PHASE:ErrorName` ("sandbox:PhaseStuckError"), or `interrupted` (the page went away mid-step). */
  signature: string;
  message: string;
  /** The last committed step when it happened. */
  step: number;
  /** Failures in a row with this signature at this step. */
  count: number;
  /** A failure a retry may cure (a worker that hung or did not start): a reload resumes it once. */
  retry: boolean;
}

/** What a launch did with the run it found: resumed it, or left it waiting for the user (and why). */
export type AutoResume = { resumed: true; note: string | null } | { resumed: false; note: string | null };

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
  /**
   * At launch: resume a run the page left running, or one that failed once in a way a retry may cure;
   * a run that failed (or was interrupted) the same way twice at the same step waits for the user.
   * `cause` says what interrupted a run left running (default: the page was closed or reloaded).
   */
  autoResume(runId: string, cause?: string): Promise<AutoResume>;
  /**
   * Stop stepping: the step in flight is committed if it ends within a short grace; a stuck or long
   * one is left (resume redoes it from the last committed step, with the same numbers).
   */
  pause(): Promise<void>;
  /** Run exactly one step of a paused run (classroom mode), then pause again. */
  stepOnce(runId: string): Promise<void>;
  /** Stop after the current step; the run stays stored and resumable. */
  stop(): Promise<void>;
  /**
   * Get ready for a Start of `config` while the user reads: the Python sandbox's cold start and the
   * task set (a first step's longest waits). Never fails: whatever goes wrong here, a Start meets
   * again and reports.
   */
  warm(config: Config): Promise<void>;
  /** Receive every event; returns an id for unsubscribe. */
  subscribe(listener: (e: TrainerEvent) => void): Promise<number>;
  unsubscribe(id: number): Promise<void>;
}
