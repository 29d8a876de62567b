/**
 * The trainer's RunRepository (src/core/duel/trainer-service.ts) on IndexedDB: runs are created,
 * committed step by step (one transaction each) and resumed from their last checkpoint.
 */
import { parseFullConfig, type Config } from "../core/config/index.ts";
import type { RunRepository } from "../core/duel/trainer-service.ts";
import { emptyMistakeBook } from "../core/loop/mistake-book.ts";
import { Rng } from "../core/rng.ts";
import type { ArenaDatabase } from "./db.ts";
import { commitStep, createRun, getRun, recordRunFailure, resumeRun, setRunStatus } from "./runs.ts";

export function indexedDbRepository(db: ArenaDatabase): RunRepository {
  return {
    async create(config: Config, taskSetHash: string) {
      const name = `${config.mode} seed ${config.seed}`;
      return (await createRun(db, { name, config, task_set_hash: taskSetHash })).id;
    },
    commitStep: (c) => commitStep(db, { ...c, duels: c.duels }),
    async resume(runId) {
      const { run, checkpoint } = await resumeRun(db, runId);
      return {
        // Runs stored before a field existed take the value that reproduces how they trained.
        config: parseFullConfig(run.config),
        state: {
          step: run.step,
          book: checkpoint?.mistake_book ?? emptyMistakeBook(),
          rng: checkpoint?.rng_state ?? new Rng(run.config.seed).state(),
        },
        policies: checkpoint?.policies ?? null,
      };
    },
    async setStatus(runId, status) {
      await setRunStatus(db, runId, status);
    },
    recordFailure: (runId, failure) => recordRunFailure(db, runId, failure),
    async trouble(runId) {
      const run = await getRun(db, runId);
      return { status: run.status, step: run.step, failure: run.failure ?? null };
    },
  };
}
