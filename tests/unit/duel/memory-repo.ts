/** A run repository in memory for TrainerService tests: what IndexedDB does in the app, minus the disk. */
import type { Config } from "../../../src/core/config/index.ts";
import type { RunCommit } from "../../../src/core/duel/run.ts";
import type { RunRepository } from "../../../src/core/duel/trainer-service.ts";
import type { RunFailure } from "../../../src/core/loop/events.ts";
import { emptyMistakeBook } from "../../../src/core/loop/mistake-book.ts";
import { Rng } from "../../../src/core/rng.ts";

/** The app's repository, in memory: failures kept as IndexedDB keeps them (storage/runs.ts recordRunFailure). */
export function memoryRepo() {
  const runs = new Map<string, { config: Config; commits: RunCommit[]; status: string; failure: RunFailure | null }>();
  const repo: RunRepository = {
    async create(config) {
      const id = `run-${runs.size + 1}`;
      runs.set(id, { config, commits: [], status: "created", failure: null });
      return id;
    },
    async commitStep(c) {
      const r = runs.get(c.runId)!;
      r.commits.push(c);
      r.failure = null;
    },
    async resume(runId) {
      const r = runs.get(runId)!;
      const last = r.commits.at(-1);
      r.status = "paused";
      return {
        config: r.config,
        state: last ? { step: last.step, book: last.checkpoint!.mistakeBook, rng: last.rngState } : { step: 0, book: emptyMistakeBook(), rng: new Rng(r.config.seed).state() },
        policies: last?.checkpoint?.policies ?? null,
      };
    },
    async setStatus(runId, status) {
      runs.get(runId)!.status = status;
    },
    async recordFailure(runId, f) {
      const r = runs.get(runId)!;
      const same = r.failure && r.failure.signature === f.signature && r.failure.step === f.step;
      r.failure = { ...f, count: same ? r.failure!.count + 1 : 1 };
      return r.failure;
    },
    async trouble(runId) {
      const r = runs.get(runId)!;
      return { status: r.status, step: r.commits.at(-1)?.step ?? 0, failure: r.failure };
    },
  };
  return { runs, repo };
}
