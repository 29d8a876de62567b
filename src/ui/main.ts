/**
 * Entry point: builds the app's dependencies for this browser and mounts the shell (app.ts).
 *
 * Engines are found at build time: a worker file that exists is bundled and used, one that does
 * not yet exist leaves its part of the UI explaining what is missing:
 *   workers/trainer.worker.ts -> Start, pause/resume/step/stop, auto-resume (TrainerControl)
 *   workers/grader.worker.ts  -> Play (a Grader)
 * Both are expected to `Comlink.expose` the core object (see worker-clients.ts).
 */
import "./styles.css";
import { arenaV1 } from "../core/arena/task-suite.ts";
import { openArenaDb } from "../storage/db.ts";
import { createApp } from "./app.ts";
import type { AppDeps } from "./deps.ts";
import { probeWebGpu } from "./gpu-probe.ts";
import { applyPrefs, loadPrefs } from "./prefs.ts";
import { indexedDbRunStore } from "./run-store.ts";
import { graderFromWorker, trainerFromWorker } from "./worker-clients.ts";

type WorkerCtor = new () => Worker;
const trainerWorkers = import.meta.glob<WorkerCtor>("../../workers/trainer.worker.ts", { query: "?worker", import: "default" });
const graderWorkers = import.meta.glob<WorkerCtor>("../../workers/grader.worker.ts", { query: "?worker", import: "default" });

function firstLoader(found: Record<string, () => Promise<WorkerCtor>>): (() => Promise<WorkerCtor>) | null {
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

const trainerLoader = firstLoader(trainerWorkers);
const graderLoader = firstLoader(graderWorkers);

const deps: AppDeps = {
  trainer: trainerLoader ? async () => trainerFromWorker(new (await trainerLoader())()) : null,
  runs: typeof indexedDB === "undefined" ? null : indexedDbRunStore(() => openArenaDb({ onVersionChange: () => alert("Code-A1 Arena was updated in another tab: reload this page.") })),
  bundles: null, // TODO(issue 5): wire src/core/bundle.ts export/import here (BundleIO in deps.ts)
  tasks: async () => arenaV1().tasks,
  grader: graderLoader ? async () => graderFromWorker(new (await graderLoader())()) : null,
  policies: null, // TODO(issue 4): Test/Code policy sampling for Play (PlayPolicies in deps.ts)
  probeGpu: () => probeWebGpu(navigator),
  url: new URL(location.href),
  replaceUrl: (url) => history.replaceState(null, "", url),
  storage,
  prefersDark,
};

// Offline after the first visit (public/sw.js). Built app only (no HMR): in `vite dev` it would
// cache Vite's on-the-fly modules. (import.meta.env.PROD is false in builds made under vitest.)
if (!import.meta.hot && "serviceWorker" in navigator) {
  navigator.serviceWorker
    .register("/sw.js")
    .then(() => navigator.serviceWorker.ready)
    .then((reg) => {
      const loaded = performance.getEntriesByType("resource").map((e) => e.name).filter((u) => new URL(u).origin === location.origin);
      reg.active?.postMessage({ type: "cache-urls", urls: [location.pathname, ...loaded] });
    })
    .catch((e) => console.warn(`offline support unavailable: ${(e as Error).message}`));
}

const root = document.getElementById("app");
if (!root) throw new Error("index.html has no #app element");
const app = createApp(root, deps);
// For end-to-end tests and debugging from the console: the state and the actions, read-only use.
(window as unknown as { arena?: unknown }).arena = { store: app.store, ready: app.ready };
