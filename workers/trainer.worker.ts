/**
 * The training orchestrator in its own module worker, so a step never blocks the page: the
 * TrainerControl of src/browser/trainer-worker.ts exposed with comlink.
 */
import { expose } from "comlink";
import { createTrainerWorkerApi } from "../src/browser/trainer-worker.ts";

export type { TrainerWorkerApi, TrainerWorkerOptions } from "../src/browser/trainer-worker.ts";

expose(createTrainerWorkerApi());
