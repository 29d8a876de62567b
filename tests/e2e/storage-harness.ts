/**
 * Page-side harness for tests/e2e/storage.test.ts: the real storage module bundled for the browser,
 * exposed on `window.arenaStorage` so that two pages of one origin can share IndexedDB and locks.
 */
import { DEFAULT_CONFIG } from "../../src/core/config/fields.ts";
import { EVAL_METRIC_KEYS, STEP_METRIC_KEYS, type StepMetrics } from "../../src/core/loop/types.ts";
import { openArenaDb, type ArenaDatabase } from "../../src/storage/db.ts";
import { isRunLocked, tryLockRun, waitForRunLock, type RunLock } from "../../src/storage/lock.ts";
import { commitStep, createRun, getRun, listRuns, loadMetrics } from "../../src/storage/runs.ts";

let db: ArenaDatabase | undefined;
const held = new Map<string, RunLock>();
const database = async () => (db ??= await openArenaDb({ name: "e2e-storage" }));

function metrics(step: number): StepMetrics {
  const m: Record<string, number | null> = { step };
  STEP_METRIC_KEYS.forEach((k, i) => (m[k] = (step * 10 + i) / 1000));
  for (const k of EVAL_METRIC_KEYS) m[k] = null;
  return m as StepMetrics;
}

const api = {
  async createRun(id: string) {
    return (await createRun(await database(), { id, name: id, config: { ...DEFAULT_CONFIG }, task_set_hash: "e2e" })).id;
  },
  async commit(runId: string, step: number, poison = false) {
    const duel = poison ? [{ step, task: "t", codes: [], mistake_book_tests: [], topvar: { std: [], selected: [], fn: () => 0 } }] : null;
    await commitStep(await database(), {
      runId,
      step,
      metrics: metrics(step),
      mistakeBook: [{ task: "t", step, added: [{ test: `assert f(${step}) == 0`, frequency: 1, first_step: step, last_step: step, failed_code: "c" }], removed: [], changed: [] }],
      duels: duel as never,
      rngState: [step, 2, 3, 4],
    });
  },
  async view(runId: string) {
    const d = await database();
    const run = await getRun(d, runId);
    return { runs: (await listRuns(d)).map((r) => r.id), step: run.step, metrics: (await loadMetrics(d, runId)).map((m) => m.step) };
  },
  async tryLock(runId: string) {
    const lock = await tryLockRun(runId);
    if (lock) held.set(runId, lock);
    return lock !== null;
  },
  async waitLock(runId: string) {
    held.set(runId, await waitForRunLock(runId));
    return true;
  },
  release(runId: string) {
    held.get(runId)?.release();
    held.delete(runId);
  },
  isLocked: (runId: string) => isRunLocked(runId),
};

export type StorageHarness = typeof api;
(globalThis as unknown as { arenaStorage: StorageHarness }).arenaStorage = api;
