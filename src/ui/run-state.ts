/**
 * What the views know about the watched run, folded from TrainerEvents (src/core/loop/events.ts)
 * or loaded from storage. Pure: `applyTrainerEvent(state, event)` returns the next state.
 */
import type { RunPhase, TrainerEvent } from "../core/loop/events.ts";
import { emptyMistakeBook, type MistakeBook } from "../core/loop/mistake-book.ts";
import type { DuelRecord, StepMetrics } from "../core/loop/types.ts";
import { applyMistakeBookDelta } from "./mistake-filter.ts";

export type RunStatusView = "idle" | "running" | "paused" | "done" | "failed" | "stopped";

export interface BackendInfo {
  backend: string;
  adapter: string | null;
  reason: string;
}

export interface RunState {
  runId: string | null;
  status: RunStatusView;
  step: number;
  steps: number;
  eta_s: number | null;
  metrics: StepMetrics[];
  /** Duel records of the most recent steps (at most `keepDuelSteps` steps). */
  duels: DuelRecord[];
  mistakeBook: MistakeBook;
  progress: { phase: RunPhase; done: number; total: number; text: string } | null;
  backends: { code?: BackendInfo; test?: BackendInfo };
  error: string | null;
}

export const IDLE_RUN: RunState = {
  runId: null,
  status: "idle",
  step: 0,
  steps: 0,
  eta_s: null,
  metrics: [],
  duels: [],
  mistakeBook: emptyMistakeBook(),
  progress: null,
  backends: {},
  error: null,
};

/** Fold one event into the state. Steps of another run than the watched one reset the view. */
export function applyTrainerEvent(s: RunState, e: TrainerEvent, keepDuelSteps = 20): RunState {
  switch (e.type) {
    case "progress":
      return { ...s, progress: { phase: e.phase, done: e.done, total: e.total, text: e.text } };
    case "backend":
      return { ...s, backends: { ...s.backends, [e.policy]: { backend: e.backend, adapter: e.adapter, reason: e.reason } } };
    case "status": {
      const base = e.runId === s.runId ? s : { ...IDLE_RUN, backends: s.backends };
      return { ...base, runId: e.runId, status: e.status, step: e.step, steps: e.steps, eta_s: e.eta_s, error: e.status === "failed" ? s.error : null };
    }
    case "step": {
      const base = e.runId === s.runId ? s : { ...IDLE_RUN, backends: s.backends, runId: e.runId, status: "running" as const };
      const metrics = [...base.metrics.filter((m) => m.step !== e.metrics.step), e.metrics].sort((a, b) => a.step - b.step);
      const duels = keepRecentDuels([...base.duels.filter((d) => d.step !== e.metrics.step), ...e.duels], keepDuelSteps);
      const mistakeBook = e.mistakeBook.reduce(applyMistakeBookDelta, base.mistakeBook);
      return { ...base, metrics, duels, mistakeBook, step: Math.max(base.step, e.metrics.step), progress: null };
    }
    case "error":
      return { ...s, error: `${e.name}: ${e.message}` };
  }
}

/** Keep the duel records of the `keep` most recent steps. */
export function keepRecentDuels(duels: readonly DuelRecord[], keep: number): DuelRecord[] {
  const steps = [...new Set(duels.map((d) => d.step))].sort((a, b) => b - a).slice(0, Math.max(0, keep));
  const kept = new Set(steps);
  return duels.filter((d) => kept.has(d.step)).sort((a, b) => a.step - b.step || (a.task < b.task ? -1 : 1));
}

/** Steps that have duel records, ascending. */
export function duelSteps(duels: readonly DuelRecord[]): number[] {
  return [...new Set(duels.map((d) => d.step))].sort((a, b) => a - b);
}

export interface DuelSelection {
  step: number;
  task: string;
}

/**
 * Resolve what the duel view shows: the wanted step/task if recorded, else the latest step and
 * the first task of that step (keeping the task when the step has it).
 */
export function resolveDuel(duels: readonly DuelRecord[], want: Partial<DuelSelection>): DuelRecord | null {
  const steps = duelSteps(duels);
  if (steps.length === 0) return null;
  const step = want.step !== undefined && steps.includes(want.step) ? want.step : steps[steps.length - 1];
  const atStep = duels.filter((d) => d.step === step);
  return atStep.find((d) => d.task === want.task) ?? atStep[0];
}

/** The recorded step before/after `step` (dir -1 / +1), or `step` itself at the ends. */
export function neighbourStep(duels: readonly DuelRecord[], step: number, dir: -1 | 1): number {
  const steps = duelSteps(duels);
  const i = steps.indexOf(step);
  if (i < 0) return steps[steps.length - 1] ?? step;
  return steps[Math.min(steps.length - 1, Math.max(0, i + dir))];
}

/** One-line text of the backend indicator: "webgpu (SwiftShader): forced by the backend setting" or "wasm: no WebGPU adapter". */
export function backendLabel(b: BackendInfo | undefined): string {
  if (!b) return "backend: not started";
  const adapter = b.adapter ? ` (${b.adapter})` : "";
  // Reasons from backend-choice.ts start by naming the backend ("wasm, because ..."): say it once.
  const reason = b.reason.startsWith(`${b.backend}, `) ? b.reason.slice(b.backend.length + 2) : b.reason;
  const why = !reason ? "" : reason.startsWith("because ") ? `, ${reason}` : `: ${reason}`;
  return `${b.backend}${adapter}${why}`;
}
