/**
 * The training orchestrator in its own module worker, so a step never blocks the page: a
 * TrainerService (src/core/duel/trainer-service.ts) over the browser host (policy workers,
 * IndexedDB, the grader's sandbox workers), exposed with comlink as a TrainerControl.
 */
import { expose } from "comlink";
import { createBrowserGrader } from "../src/browser/grader-client.ts";
import { createBrowserTrainerHost } from "../src/browser/trainer-host.ts";
import { TrainerService } from "../src/core/duel/trainer-service.ts";
import type { TrainerControl } from "../src/core/loop/events.ts";

const service = createBrowserTrainerHost(createBrowserGrader()).then((host) => new TrainerService(host));

// Every call waits for the host (IndexedDB open, grader created) once.
const control: TrainerControl = {
  start: async (config) => (await service).start(config),
  resume: async (runId) => (await service).resume(runId),
  pause: async () => (await service).pause(),
  stepOnce: async (runId) => (await service).stepOnce(runId),
  stop: async () => (await service).stop(),
  subscribe: async (listener) => (await service).subscribe(listener),
  unsubscribe: async (id) => (await service).unsubscribe(id),
};
expose(control);
