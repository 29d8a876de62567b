/**
 * The training orchestrator in its own module worker, so a step never blocks the page: a
 * TrainerService (src/core/duel/trainer-service.ts) over the browser host (policy workers,
 * IndexedDB, the grader's sandbox workers), exposed with comlink as a TrainerControl, plus
 * `configure` (debugging options from the page's URL), called before anything else.
 */
import { expose } from "comlink";
import { createBrowserGrader } from "../src/browser/grader-client.ts";
import { createBrowserTrainerHost } from "../src/browser/trainer-host.ts";
import { TrainerService } from "../src/core/duel/trainer-service.ts";
import { DEFAULT_WATCHDOG, type WatchdogLimits } from "../src/core/duel/watchdog.ts";
import type { TrainerControl } from "../src/core/loop/events.ts";

export interface TrainerWorkerOptions {
  /** The watchdog's limits (src/core/duel/watchdog.ts); the runners' start limit follows `startMs`. */
  watchdog?: Partial<WatchdogLimits>;
  /** Where the grader's runners load Pyodide (default /pyodide/): `?debug_pyodide=`. */
  pyodidePath?: string;
}

export type TrainerWorkerApi = TrainerControl & { configure(options: TrainerWorkerOptions): Promise<void> };

let options: TrainerWorkerOptions = {};
let created: Promise<TrainerService> | null = null;
// Created at the first call that needs it (after configure, when the page calls it).
const service = (): Promise<TrainerService> =>
  (created ??= (async () => {
    const startMs = options.watchdog?.startMs ?? DEFAULT_WATCHDOG.startMs;
    const grader = createBrowserGrader({ startTimeoutMs: startMs, pyodidePath: options.pyodidePath });
    return new TrainerService(await createBrowserTrainerHost(grader), { watchdog: options.watchdog });
  })());

const control: TrainerWorkerApi = {
  async configure(o) {
    if (created) throw new Error("configure() must come before the trainer's first use");
    options = o;
  },
  start: async (config) => (await service()).start(config),
  resume: async (runId) => (await service()).resume(runId),
  autoResume: async (runId) => (await service()).autoResume(runId),
  pause: async () => (await service()).pause(),
  stepOnce: async (runId) => (await service()).stepOnce(runId),
  stop: async () => (await service()).stop(),
  subscribe: async (listener) => (await service()).subscribe(listener),
  unsubscribe: async (id) => (await service()).unsubscribe(id),
};
expose(control);
