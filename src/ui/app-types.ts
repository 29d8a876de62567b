/** The app's state and the actions views may call: views take data + callbacks, nothing global. */
import type { Config, PresetName } from "../core/config/index.ts";
import type { Task } from "../core/arena/task.ts";
import type { ImportProgress } from "../core/bundle.ts";
import type { QueueState } from "./compare-plan.ts";
import type { AppDeps, RunSummary } from "./deps.ts";
import type { GpuProbe } from "./gpu-probe.ts";
import type { Prefs } from "./prefs.ts";
import type { DuelSelection, RunState } from "./run-state.ts";

export const ROUTES = ["dashboard", "duel", "mistakes", "compare", "play", "settings"] as const;
export type Route = (typeof ROUTES)[number];

export const ROUTE_TITLES: Record<Route, string> = {
  dashboard: "Dashboard",
  duel: "Duel",
  mistakes: "Mistake Book",
  compare: "Runs & Compare",
  play: "Play",
  settings: "Settings & Share",
};

export interface Notice {
  kind: "info" | "error";
  text: string;
}

export interface AppState {
  route: Route;
  /** The configuration the next Start uses. */
  config: Config;
  preset: PresetName | null;
  prefs: Prefs;
  safe: boolean;
  /** The watched run (live or loaded from storage). */
  run: RunState;
  runs: RunSummary[];
  duel: Partial<DuelSelection>;
  queue: QueueState;
  /** The training engine is connected (a TrainerControl exists). */
  trainerReady: boolean;
  /** Why there is no trainer, when there is none. */
  trainerMissing: string | null;
  /** WebGPU probe result, before the trainer reports its backend. */
  gpu: GpuProbe | null;
  tasks: Task[];
  notices: Notice[];
  /** An .a1run being imported (off the page's thread), with its progress; null when none. */
  importing: { file: string; progress: ImportProgress | null } | null;
}

export interface Actions {
  navigate(route: Route): void;
  start(): void;
  pause(): void;
  resume(): void;
  stepOnce(): void;
  stop(): void;
  setConfig(config: Config, preset: PresetName | null): void;
  selectDuel(sel: Partial<DuelSelection>): void;
  openRun(runId: string): void;
  deleteRun(runId: string): void;
  /** Train a stored (or imported) run's config again, to check that it reproduces. */
  rerun(runId: string): void;
  queueComparison(): void;
  exportRun(runId: string): void;
  importRun(file: File): void;
  /** Stop the import in progress; nothing of it is stored. */
  cancelImport(): void;
  setPrefs(patch: Partial<Prefs>): void;
  notify(kind: Notice["kind"], text: string): void;
  dismissNotice(index: number): void;
  shareLink(): string;
}

export interface ViewContext {
  actions: Actions;
  deps: AppDeps;
}

export interface View {
  update(s: Readonly<AppState>): void;
  destroy(): void;
}

export type ViewFactory = (root: HTMLElement, ctx: ViewContext) => View;
