/**
 * What the app needs from the rest of the system, passed in by main.ts (and by tests): each piece
 * may be missing (null) in a build or a browser that lacks it, and the views say so instead of
 * failing. This is where the orchestrator, storage, bundles, grader and policies plug in.
 */
import type { Config } from "../core/config/index.ts";
import type { Task, TaskFile } from "../core/arena/task.ts";
import type { RunFailure, TrainerControl } from "../core/loop/events.ts";
import type { MistakeBook } from "../core/loop/mistake-book.ts";
import type { DuelRecord, StepMetrics } from "../core/loop/types.ts";
import type { Grader } from "../core/grader/types.ts";
import type { BaseManifest, RebuildOptions, RebuiltBase } from "../core/duel/pretrain.ts";
import type { GpuProbe } from "./gpu-probe.ts";
import type { TaskReport } from "../core/arena/importers/arenise.ts";
import type { ImportFormat } from "../core/arena/importers/import.ts";
import type { ImportProgress } from "../core/bundle.ts";

export interface RunSummary {
  id: string;
  name: string;
  config: Config;
  status: "created" | "running" | "paused" | "done" | "failed" | "stopped";
  /** Last complete step. */
  step: number;
  /** Epoch ms. */
  updated: number;
  /** Came in from an .a1run file: launch never opens it unasked. */
  imported: boolean;
  /** Why it last stopped without finishing, until its next committed step (absent: nothing stored). */
  failure?: RunFailure | null;
}

export interface RunData {
  run: RunSummary;
  metrics: StepMetrics[];
  duels: DuelRecord[];
  mistakeBook: MistakeBook;
  /** Stored records that could not be read (not shown), each saying why; absent or empty when all were. */
  problems?: string[];
}

/** Stored runs (IndexedDB in the browser: run-store.ts). */
export interface RunStore {
  list(): Promise<RunSummary[]>;
  load(runId: string): Promise<RunData>;
  delete(runId: string): Promise<void>;
}

/** .a1run files (src/core/bundle.ts behind it). */
export interface BundleIO {
  exportRun(runId: string): Promise<{ blob: Blob; fileName: string }>;
  /** Check the bundle in depth and store its run (off the page's thread in the app); resolves with its new id. `signal` cancels: nothing is stored. */
  importRun(file: File, onProgress?: (p: ImportProgress) => void, signal?: AbortSignal): Promise<string>;
}

/** The trained policies, for Play (policy workers behind it). */
export interface PlayPolicies {
  /** The Test policy's suites for `code` (white-box), `count` of them. */
  attackSuites(task: Task, code: string, count: number): Promise<string[]>;
  /** The Code policy's programs for `task`. */
  samplePrograms(task: Task, count: number): Promise<string[]>;
}

/** Pretraining the base models in the browser from the shipped corpus. */
export interface PretrainHere {
  /** The shipped manifest (recipe, figures), or null when this build has none. */
  manifest(): Promise<BaseManifest | null>;
  /** rebuildBase on the shipped corpus; rejects with PretrainAbortedError when `signal` aborts. */
  run(opts: RebuildOptions): Promise<RebuiltBase>;
  /**
   * Pretrain on a task set's train tasks (an imported one), the corpus built with its code run in the
   * grader's sandbox; null when this build has no grader.
   */
  runOnSet: ((set: TaskFile, opts: RebuildOptions) => Promise<RebuiltBase>) | null;
}

/** A task set stored in this browser (an import, or a bundle's). */
export interface StoredTaskSet {
  /** What config.task_set names it by: `imported:HASH16`. */
  name: string;
  hash: string;
  /** Its file's name. */
  title: string;
  tasks: number;
  /** The import's per-task report; empty for a bundle's set. */
  report: TaskReport[];
  /** Epoch ms. */
  stored: number;
  file: TaskFile;
}

/** Importing JSONL task files (src/browser/task-set-import.ts): references run only in the grader's sandbox. */
export interface TaskSetsIO {
  list(): Promise<StoredTaskSet[]>;
  /**
   * Import a JSONL; resolves with the per-task report and the stored set (null when no task is
   * trainable: nothing stored). Rejects (ImportError naming each bad line) on a malformed file,
   * storing nothing.
   */
  importFile(file: File, format: ImportFormat, onProgress: (p: { done: number; total: number; text: string }) => void): Promise<{ report: TaskReport[]; set: StoredTaskSet | null }>;
}

/** How the page tells a trainer whose worker thread is stuck, and ends it (src/ui/worker-clients.ts). */
export interface TrainerLiveness {
  /** Whether the trainer answers within its limit. */
  alive(): Promise<boolean>;
  close(): void;
}

export interface AppDeps {
  /** Connect to the training orchestrator (a new one on each call); null when this build has none. */
  trainer: (() => Promise<TrainerControl & Partial<TrainerLiveness>>) | null;
  runs: RunStore | null;
  bundles: BundleIO | null;
  /** The task suite (Play and the duel view's prompts). */
  tasks: () => Promise<Task[]>;
  /** A grader for Play; null when this build has none. */
  grader: (() => Promise<Grader>) | null;
  policies: PlayPolicies | null;
  /** The config as the files a verl run of the reference needs, zipped (Settings > Export to verl; src/browser/verl-download.ts); null when this build has none. */
  verl: ((config: Config, preset: string | null) => Promise<{ blob: Blob; fileName: string }>) | null;
  /** Import task sets here (Settings > Task sets); null when this build has no grader or storage. */
  taskSets: TaskSetsIO | null;
  /** Pretrain the base models here (Settings); null when this build cannot. */
  pretrain: PretrainHere | null;
  /** WebGPU probe before the trainer reports its backend. */
  probeGpu: () => Promise<GpuProbe>;
  /** The page URL (query: config + flags). */
  url: URL;
  /** Replace the address bar's URL (share state), without navigation. */
  replaceUrl: (url: string) => void;
  storage: Storage | null;
  prefersDark: () => boolean;
}
