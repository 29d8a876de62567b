/**
 * Clients for the worker-side engines, over comlink: the worker file exposes the core object
 * (`Comlink.expose(trainer)`), and the UI gets the same interface back. Callbacks that cross the
 * thread boundary (event listeners) are wrapped in Comlink.proxy here, once.
 */
import * as Comlink from "comlink";
import type { TrainerControl, TrainerEvent } from "../core/loop/events.ts";
import type { TrainerWorkerApi, TrainerWorkerOptions } from "../browser/trainer-worker.ts";
import type { TrainerLiveness } from "./deps.ts";
import { serveSpawner } from "../browser/worker-spawn.ts";

/**
 * A TrainerControl living in `worker` (workers/trainer.worker.ts exposes one), configured with
 * `options` first, and how to tell whether its thread still answers (`alive`: a ping within
 * `limitMs`) and end it (`close`).
 */
export async function trainerFromWorker(worker: Worker, options: TrainerWorkerOptions = {}, limitMs = 60_000): Promise<TrainerControl & TrainerLiveness> {
  const remote = Comlink.wrap<TrainerWorkerApi>(worker);
  await remote.configure(options);
  // The trainer's policy and grader workers are created here, on the page (worker-spawn.ts says why),
  // and end with it.
  const spawner = new MessageChannel();
  const spawned = serveSpawner(spawner.port1);
  await remote.useSpawner(Comlink.transfer(spawner.port2, [spawner.port2]));
  return {
    alive: () =>
      new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), limitMs);
        remote.ping().then((ok) => resolve(ok), () => resolve(false)).finally(() => clearTimeout(timer));
      }),
    close: () => {
      worker.terminate();
      spawned.close();
    },
    start: (config) => remote.start(config),
    resume: (runId) => remote.resume(runId),
    autoResume: (runId, cause) => remote.autoResume(runId, cause),
    warm: (config) => remote.warm(config),
    pause: () => remote.pause(),
    stepOnce: (runId) => remote.stepOnce(runId),
    stop: () => remote.stop(),
    subscribe: (listener: (e: TrainerEvent) => void) => remote.subscribe(Comlink.proxy(listener)),
    unsubscribe: (id) => remote.unsubscribe(id),
  };
}
