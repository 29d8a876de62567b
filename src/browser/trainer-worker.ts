/**
 * What the training orchestrator's module worker (workers/trainer.worker.ts) serves, so a step never
 * blocks the page: a TrainerService (src/core/duel/trainer-service.ts) over the browser host (policy workers,
 * IndexedDB, the grader's sandbox workers), exposed with comlink as a TrainerControl, plus
 * `configure` (debugging options from the page's URL), called before anything else.
 */
import { createBrowserGrader } from "./grader-client.ts";
import { createBrowserTrainerHost } from "./trainer-host.ts";
import { useRemoteSpawner } from "./worker-spawn.ts";
import { TrainerService } from "../core/duel/trainer-service.ts";
import { DEFAULT_WATCHDOG, type WatchdogLimits } from "../core/duel/watchdog.ts";
import type { TrainerControl } from "../core/loop/events.ts";

export interface TrainerWorkerOptions {
  /** The watchdog's limits (src/core/duel/watchdog.ts); the runners' start limit follows `startMs`. */
  watchdog?: Partial<WatchdogLimits>;
  /** Where the grader's runners load Pyodide (default /pyodide/): `?debug_pyodide=`. */
  pyodidePath?: string;
  /** Block this worker's thread for good once it has first started or resumed a run: `?debug_stall_trainer=`. */
  stallAfterLaunch?: boolean;
}

export type TrainerWorkerApi = TrainerControl & {
  configure(options: TrainerWorkerOptions): Promise<void>;
  /**
   * Create the policy and grader workers through the page at `port` (its serveSpawner), not from
   * this worker: call before the trainer's first use (src/browser/worker-spawn.ts says why).
   */
  useSpawner(port: MessagePort): Promise<void>;
  /** Answers at once: the page asks, to tell a worker whose thread is stuck (src/ui/worker-clients.ts). */
  ping(): Promise<true>;
};

/** The worker's TrainerControl; the service behind it is created at the first call that needs it (after configure). */
export function createTrainerWorkerApi(): TrainerWorkerApi {
  let options: TrainerWorkerOptions = {};
  let created: Promise<TrainerService> | null = null;
  const service = (): Promise<TrainerService> =>
    (created ??= (async () => {
      const startMs = options.watchdog?.startMs ?? DEFAULT_WATCHDOG.startMs;
      const grader = createBrowserGrader({ startTimeoutMs: startMs, pyodidePath: options.pyodidePath });
      return new TrainerService(await createBrowserTrainerHost(grader), { watchdog: options.watchdog });
    })());
  const stallIfAsked = <T>(answer: T): T => {
    if (options.stallAfterLaunch) {
      options = { ...options, stallAfterLaunch: false };
      setTimeout(() => {
        // What a stuck worker thread looks like to the page: nothing answers, no event comes.
        while (Date.now() > 0) void 0;
      }, 0);
    }
    return answer;
  };
  return {
    async configure(o) {
      if (created) throw new Error("configure() must come before the trainer's first use");
      options = o;
    },
    async useSpawner(port) {
      if (created) throw new Error("useSpawner() must come before the trainer's first use");
      useRemoteSpawner(port);
    },
    start: async (config) => stallIfAsked(await (await service()).start(config)),
    ping: async () => true,
    resume: async (runId) => stallIfAsked(await (await service()).resume(runId)),
    autoResume: async (runId, cause) => (await service()).autoResume(runId, cause),
    warm: async (config) => (await service()).warm(config),
    pause: async () => (await service()).pause(),
    stepOnce: async (runId) => (await service()).stepOnce(runId),
    stop: async () => (await service()).stop(),
    subscribe: async (listener) => (await service()).subscribe(listener),
    unsubscribe: async (id) => (await service()).unsubscribe(id),
  };
}
