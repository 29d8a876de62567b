/**
 * Entry point: builds the app's dependencies for this browser and mounts the shell (app.ts).
 *
 * Engines are found at build time: a worker file that exists is bundled and used, one that does
 * not yet exist leaves its part of the UI explaining what is missing:
 *   workers/trainer.worker.ts -> Start, pause/resume/step/stop, auto-resume (a TrainerControl
 *                                exposed with comlink, see worker-clients.ts)
 *   src/browser/grader-client.ts      -> Play (createBrowserGrader: sandboxes in workers/grader.worker.ts)
 */
import "./styles.css";
import { wrap } from "comlink";
import { openArenaDb } from "../storage/db.ts";
import { createApp } from "./app.ts";
import type { AppDeps } from "./deps.ts";
import { probeWebGpu } from "./gpu-probe.ts";
import { registerOffline } from "./offline.ts";
import { applyPrefs, loadPrefs } from "./prefs.ts";
import { indexedDbBundles } from "./run-bundles.ts";
import { indexedDbRunStore, sharedConnection } from "./run-store.ts";
import { trainerFromWorker } from "./worker-clients.ts";
import { readLaunch } from "./share.ts";
import { createPlayPolicies } from "../browser/play-policies.ts";
import { createPretrainHere } from "../browser/pretrain-here.ts";
import { createTaskSets } from "../browser/task-set-import.ts";
import type { BuiltinTasks } from "../browser/tasks-worker.ts";

type WorkerCtor = new () => Worker;
type GraderClient = typeof import("../browser/grader-client.ts");
const trainerWorkers = import.meta.glob<WorkerCtor>("../../workers/trainer.worker.ts", { query: "?worker", import: "default" });
const graderClients = import.meta.glob<GraderClient>("../browser/grader-client.ts");

function firstLoader<T>(found: Record<string, () => Promise<T>>): (() => Promise<T>) | null {
  const loaders = Object.values(found);
  return loaders.length > 0 ? loaders[0] : null;
}

const storage = (() => {
  try {
    return window.localStorage;
  } catch {
    return null; // storage disabled: preferences do not persist
  }
})();
const prefersDark = () => window.matchMedia?.("(prefers-color-scheme: dark)").matches ?? false;
// Theme before the first paint, so a dark-mode visitor never sees a white flash.
applyPrefs(document.documentElement, loadPrefs(storage), prefersDark());

const session = (() => {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
})();
// Cross-origin isolation on a static host, and offline after the first visit (offline.ts); built
// app only (no HMR): in `vite dev` it would cache Vite's on-the-fly modules, and the dev server
// sends the isolation headers itself. (import.meta.env.PROD is false in builds made under vitest.)
// A first visit to a static host reloads once here; until then no worker starts.
const offline = import.meta.hot
  ? Promise.resolve({ isolated: self.crossOriginIsolated, problem: null })
  : registerOffline({ nav: navigator, page: location, perf: performance, isolated: self.crossOriginIsolated, session, reload: () => location.reload() });

// Debugging flags (share.ts): where the sandbox loads Pyodide from, and short watchdog limits.
const { debug } = readLaunch(location.search);
const debugMs = debug.watchdogS === undefined ? undefined : debug.watchdogS * 1000;

const trainerLoader = firstLoader(trainerWorkers);
// `?debug_stall_trainer=N`: the first trainer worker stalls after its first start or resume; a silent one is restarted after N s.
let trainersStarted = 0;
const graderLoader = firstLoader(graderClients);
const db = typeof indexedDB === "undefined" ? null : sharedConnection(() => openArenaDb({ onVersionChange: () => alert("Code-A1 Arena was updated in another tab: reload this page.") }));

const deps: AppDeps = {
  trainer: trainerLoader
    ? async () => {
        await offline; // so the worker's scripts and wasm go through the offline cache
        return trainerFromWorker(new (await trainerLoader())(), {
          pyodidePath: debug.pyodidePath,
          watchdog: debugMs === undefined ? undefined : { startMs: debugMs, firstMs: debugMs, minMs: debugMs },
          stallAfterLaunch: debug.stallTrainerS !== undefined && trainersStarted++ === 0,
        }, debug.stallTrainerS === undefined ? undefined : debug.stallTrainerS * 1000);
      }
    : null,
  runs: db ? indexedDbRunStore(db) : null,
  bundles: db ? indexedDbBundles(db, () => new Worker(new URL("../../workers/bundle.worker.ts", import.meta.url), { type: "module" })) : null,
  // Both built-in sets for the pickers: hand-written arena-v1 first, then generated arena-v2, built in
  // a worker (seconds of work that froze the page's thread at every start).
  tasks: async () => {
    await offline;
    const worker = new Worker(new URL("../../workers/tasks.worker.ts", import.meta.url), { type: "module" });
    try {
      return await wrap<BuiltinTasks>(worker).builtinTasks();
    } finally {
      worker.terminate();
    }
  },
  grader: graderLoader
    ? async () => {
        await offline;
        // Play's grader: a runner that never starts fails its grading with why, after the same limit.
        return (await graderLoader()).createBrowserGrader({ pyodidePath: debug.pyodidePath, startTimeoutMs: debugMs });
      }
    : null,
  policies: db ? createPlayPolicies(db) : null,
  taskSets: db && graderLoader
    ? createTaskSets(db, async () => {
        await offline;
        return graderLoader();
      })
    : null,
  pretrain: createPretrainHere(graderLoader
    ? async () => {
        await offline;
        return graderLoader();
      }
    : null),
  verl: async (config, preset) => (await import("../browser/verl-download.ts")).verlDownload(config, preset),
  probeGpu: () => probeWebGpu(navigator),
  url: new URL(location.href),
  replaceUrl: (url) => history.replaceState(null, "", url),
  storage,
  prefersDark,
};

const root = document.getElementById("app");
if (!root) throw new Error("index.html has no #app element");
const app = createApp(root, deps);
// For end-to-end tests and debugging from the console: the state and the actions, read-only use.
(window as unknown as { arena?: unknown }).arena = { store: app.store, ready: app.ready };
void offline.then(({ problem }) => {
  if (problem) app.actions.notify("error", problem);
});
