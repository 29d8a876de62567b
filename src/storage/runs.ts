/**
 * Runs in IndexedDB: create, list, commit a step, checkpoint, resume, delete. Every write is one
 * transaction that is aborted on any failure, so a crash, a closed tab or a full disk never leaves
 * half a step (commitStep writes metrics + Mistake Book delta + duel records + step counter + RNG
 * state together).
 *
 * Resuming: a run resumes from its latest checkpoint (weights, Mistake Book, RNG and loop state of
 * that step); resumeRun rolls everything newer back in one transaction, and the loop reruns those
 * steps, reaching the same metrics with the same seed and backend. Commit with a non-kept
 * ("rolling") checkpoint every step to make the resume point the last complete step.
 */
import type { IDBPTransaction, StoreNames } from "idb";
import type { Config } from "../core/config/fields.ts";
import { compareEntries, type MistakeBook, type MistakeBookDelta } from "../core/loop/mistake-book.ts";
import { own, setOwn } from "../core/own.ts";
import type { DuelRecord, StepMetrics } from "../core/loop/types.ts";
import type { RunFailure } from "../core/loop/events.ts";
import type { RngState } from "../core/rng.ts";
import type { ArenaDB, ArenaDatabase, CheckpointRecord, DuelsRecord, RunRecord, RunStatus } from "./db.ts";
import { RunNotFoundError, StepOrderError } from "./errors.ts";
import { Requests, inTransaction } from "./transaction.ts";

type Stores = StoreNames<ArenaDB>;
type WriteTx<S extends Stores[]> = IDBPTransaction<ArenaDB, S, "readwrite">;

const ALL_STORES = ["runs", "metrics", "checkpoints", "mistakes", "duels"] as const satisfies Stores[];

export const runRange = (runId: string) => IDBKeyRange.bound([runId, -Infinity], [runId, Infinity]);
export const runTextRange = (runId: string) => IDBKeyRange.bound([runId], [runId, []]);

export interface NewRun {
  name: string;
  config: Config;
  task_set_hash: string;
  /** Wanted id; a free variant (`id-2`, `id-3`...) is used if taken. Default: derived from the time. */
  id?: string;
}

/** Create a run (status "created", step 0). Never overwrites: a taken id gets a suffix. */
export function createRun(db: ArenaDatabase, input: NewRun): Promise<RunRecord> {
  const now = Date.now();
  return inTransaction(db, ["runs"], "creating a run", async (tx) => {
    const id = await freeRunId(tx, input.id ?? `run-${now.toString(36)}`);
    const run: RunRecord = {
      id,
      name: input.name,
      config: input.config,
      status: "created",
      created: now,
      updated: now,
      step: 0,
      rng_state: null,
      task_set_hash: input.task_set_hash,
      loop_state: null,
    };
    await tx.objectStore("runs").add(run);
    return run;
  });
}

/** A run id not yet stored, starting from `wanted`. */
export async function freeRunId(tx: IDBPTransaction<ArenaDB, Stores[], "readwrite" | "readonly">, wanted: string): Promise<string> {
  const runs = tx.objectStore("runs");
  for (let i = 1; i < 10_000; i++) {
    const id = i === 1 ? wanted : `${wanted}-${i}`;
    if ((await runs.getKey(id)) === undefined) return id;
  }
  throw new Error(`no free run id near ${JSON.stringify(wanted)}`);
}

/** All runs, most recently updated first. */
export async function listRuns(db: ArenaDatabase): Promise<RunRecord[]> {
  return (await db.getAllFromIndex("runs", "by-updated")).reverse();
}

export async function getRun(db: ArenaDatabase, runId: string): Promise<RunRecord> {
  const run = await db.get("runs", runId);
  if (!run) throw new RunNotFoundError(runId);
  return run;
}

export function setRunStatus(db: ArenaDatabase, runId: string, status: RunStatus): Promise<RunRecord> {
  return inTransaction(db, ["runs"], "updating a run", async (tx) => {
    const run = await tx.objectStore("runs").get(runId);
    if (!run) throw new RunNotFoundError(runId);
    const next = { ...run, status, updated: Date.now() };
    await tx.objectStore("runs").put(next);
    return next;
  });
}

/**
 * Keep why a run stopped: one more in `count` than the stored failure when that has the same
 * signature at the same step (nothing committed since), else a first one.
 */
export function recordRunFailure(db: ArenaDatabase, runId: string, f: Omit<RunFailure, "count">): Promise<RunFailure> {
  return inTransaction(db, ["runs"], "updating a run", async (tx) => {
    const run = await tx.objectStore("runs").get(runId);
    if (!run) throw new RunNotFoundError(runId);
    const same = run.failure && run.failure.signature === f.signature && run.failure.step === f.step;
    const failure: RunFailure = { ...f, count: same ? run.failure!.count + 1 : 1 };
    await tx.objectStore("runs").put({ ...run, failure, updated: Date.now() });
    return failure;
  });
}

/** A checkpoint to write with a step or at pause. */
export interface CheckpointInput {
  policies: Record<string, ArrayBuffer>;
  /** The whole Mistake Book after the step (the loop holds it in memory). */
  mistakeBook: MistakeBook;
  /** true: retained (every checkpoint_every steps, at pause); false: replaces the rolling resume point. */
  kept: boolean;
}

/**
 * Which checkpoint step `step` writes: kept every checkpoint_every steps and at the last step;
 * otherwise a rolling one if `rolling` (then a reload resumes from the last complete step, at the
 * cost of writing the weights every step), else none (resume from the last kept checkpoint).
 */
export function checkpointKind(config: Pick<Config, "checkpoint_every" | "steps">, step: number, rolling: boolean): "kept" | "rolling" | null {
  if (step % config.checkpoint_every === 0 || step === config.steps) return "kept";
  return rolling ? "rolling" : null;
}

/** Everything one training step writes. */
export interface StepCommit {
  runId: string;
  step: number;
  metrics: StepMetrics;
  /** One delta per task touched this step. */
  mistakeBook: readonly MistakeBookDelta[];
  /** This step's duel records; null to store none. Older steps beyond config.duel_records_kept are pruned. */
  duels: readonly DuelRecord[] | null;
  /** RNG state after the step. */
  rngState: RngState;
  loopState?: unknown;
  checkpoint?: CheckpointInput;
  /** Default "running". */
  status?: RunStatus;
}

/**
 * Commit one complete step in ONE transaction: metrics, Mistake Book delta, duel records,
 * optional checkpoint, step counter and RNG state. Steps must come in order (run.step + 1), else
 * StepOrderError; on any failure nothing of the step is stored.
 */
export function commitStep(db: ArenaDatabase, c: StepCommit): Promise<RunRecord> {
  if (c.metrics.step !== c.step) throw new RangeError(`metrics.step (${c.metrics.step}) differs from step (${c.step})`);
  return inTransaction(db, [...ALL_STORES], `saving step ${c.step}`, async (tx) => {
    const run = await tx.objectStore("runs").get(c.runId);
    if (!run) throw new RunNotFoundError(c.runId);
    if (c.step !== run.step + 1) throw new StepOrderError(c.runId, run.step + 1, c.step);
    const ops = new Requests();
    ops.add(tx.objectStore("metrics").add({ run: c.runId, step: c.step, metrics: c.metrics }));
    const mistakes = tx.objectStore("mistakes");
    for (const d of c.mistakeBook) {
      for (const test of d.removed) ops.add(mistakes.delete([c.runId, d.task, test]));
      for (const e of [...d.added, ...d.changed]) ops.add(mistakes.put({ ...e, run: c.runId, task: d.task }));
    }
    const keep = run.config.duel_records_kept;
    const duels = tx.objectStore("duels");
    if (c.duels && keep > 0) ops.add(duels.put({ run: c.runId, step: c.step, records: [...c.duels] }));
    if (c.step - keep >= 0) ops.add(duels.delete(IDBKeyRange.bound([c.runId, -Infinity], [c.runId, c.step - keep])));
    if (c.checkpoint) ops.add(putCheckpoint(tx, run.id, c.step, c.checkpoint, c.rngState, c.loopState ?? null));
    // A committed step is progress: an earlier failure no longer counts towards "twice the same way".
    const { failure: _cleared, ...unfailed } = run;
    const next: RunRecord = {
      ...unfailed,
      step: c.step,
      rng_state: c.rngState,
      loop_state: c.loopState ?? null,
      status: c.status ?? "running",
      updated: Date.now(),
    };
    ops.add(tx.objectStore("runs").put(next));
    await ops.all();
    return next;
  });
}

async function putCheckpoint(
  tx: WriteTx<Stores[]>,
  runId: string,
  step: number,
  cp: CheckpointInput,
  rngState: RngState | null,
  loopState: unknown,
): Promise<void> {
  const store = tx.objectStore("checkpoints");
  const existing = await store.getAll(runRange(runId));
  // Only one rolling (non-kept) checkpoint per run: the newest.
  await Promise.all(existing.filter((r) => !r.kept && r.step !== step).map((r) => store.delete([r.run, r.step])));
  const record: CheckpointRecord = {
    run: runId,
    step,
    kept: cp.kept,
    policies: cp.policies,
    mistake_book: cp.mistakeBook,
    rng_state: rngState,
    loop_state: loopState,
  };
  await store.put(record);
}

/** Checkpoint at the run's current step (pause), as a kept checkpoint; sets status "paused". */
export function pauseRun(db: ArenaDatabase, runId: string, cp: Omit<CheckpointInput, "kept">): Promise<RunRecord> {
  return inTransaction(db, [...ALL_STORES], "saving a checkpoint", async (tx) => {
    const run = await tx.objectStore("runs").get(runId);
    if (!run) throw new RunNotFoundError(runId);
    await putCheckpoint(tx, runId, run.step, { ...cp, kept: true }, run.rng_state, run.loop_state);
    const next: RunRecord = { ...run, status: "paused", updated: Date.now() };
    await tx.objectStore("runs").put(next);
    return next;
  });
}

export async function loadMetrics(db: ArenaDatabase, runId: string): Promise<StepMetrics[]> {
  return (await db.getAll("metrics", runRange(runId))).map((r) => r.metrics);
}

/** The live Mistake Book of a run. */
export async function loadMistakeBook(db: ArenaDatabase, runId: string): Promise<MistakeBook> {
  const records = await db.getAll("mistakes", runTextRange(runId));
  const tasks: MistakeBook["tasks"] = {};
  for (const { run: _run, task, ...entry } of records) {
    const list = own(tasks, task); // task ids are input: "constructor" is a valid one
    if (list) list.push(entry);
    else setOwn(tasks, task, [entry]);
  }
  for (const entries of Object.values(tasks)) entries.sort(compareEntries);
  return { tasks };
}

export async function loadDuels(db: ArenaDatabase, runId: string): Promise<DuelsRecord[]> {
  return db.getAll("duels", runRange(runId));
}

export async function listCheckpoints(db: ArenaDatabase, runId: string): Promise<{ step: number; kept: boolean }[]> {
  return (await db.getAll("checkpoints", runRange(runId))).map((r) => ({ step: r.step, kept: r.kept }));
}

export async function loadCheckpoint(db: ArenaDatabase, runId: string, step: number): Promise<CheckpointRecord | undefined> {
  return db.get("checkpoints", [runId, step]);
}

/**
 * Prepare a run for resuming: roll back everything after its latest checkpoint (metrics, duel
 * records, Mistake Book, step counter, RNG state) in one transaction. Returns the run as rolled
 * back and the checkpoint to load (null: no checkpoint, the run restarts from step 0).
 */
export function resumeRun(db: ArenaDatabase, runId: string): Promise<{ run: RunRecord; checkpoint: CheckpointRecord | null }> {
  return inTransaction(db, [...ALL_STORES], "rolling back to the last checkpoint", async (tx) => {
    const run = await tx.objectStore("runs").get(runId);
    if (!run) throw new RunNotFoundError(runId);
    const cursor = await tx.objectStore("checkpoints").openCursor(runRange(runId), "prev");
    const checkpoint = cursor?.value ?? null;
    const step = checkpoint?.step ?? 0;
    if (step === run.step) return { run, checkpoint };
    const after = IDBKeyRange.bound([runId, step], [runId, Infinity], true, false);
    const ops = new Requests();
    ops.add(tx.objectStore("metrics").delete(after));
    ops.add(tx.objectStore("duels").delete(after));
    const mistakes = tx.objectStore("mistakes");
    ops.add(mistakes.delete(runTextRange(runId)));
    for (const [task, entries] of Object.entries(checkpoint?.mistake_book.tasks ?? {})) {
      for (const e of entries) ops.add(mistakes.put({ ...e, run: runId, task }));
    }
    const next: RunRecord = {
      ...run,
      step,
      rng_state: checkpoint?.rng_state ?? null,
      loop_state: checkpoint?.loop_state ?? null,
      status: "paused",
      updated: Date.now(),
    };
    ops.add(tx.objectStore("runs").put(next));
    await ops.all();
    return { run: next, checkpoint };
  });
}

/** Delete a run and everything of it. */
export function deleteRun(db: ArenaDatabase, runId: string): Promise<void> {
  return inTransaction(db, [...ALL_STORES], "deleting a run", async (tx) => {
    await Promise.all([
      tx.objectStore("runs").delete(runId),
      tx.objectStore("metrics").delete(runRange(runId)),
      tx.objectStore("checkpoints").delete(runRange(runId)),
      tx.objectStore("duels").delete(runRange(runId)),
      tx.objectStore("mistakes").delete(runTextRange(runId)),
    ]);
  });
}

