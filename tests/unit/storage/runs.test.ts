import "fake-indexeddb/auto";
import { openDB } from "idb";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG, parseConfig } from "../../../src/core/config/index.ts";
import { emptyMistakeBook, updateMistakeBook, type MistakeBook, type MistakeBookDelta } from "../../../src/core/loop/mistake-book.ts";
import { Rng } from "../../../src/core/rng.ts";
import { DB_VERSION, openArenaDb, type ArenaDatabase } from "../../../src/storage/db.ts";
import { StepOrderError, StorageBlockedError, StorageQuotaError, StorageVersionError } from "../../../src/storage/errors.ts";
import {
  checkpointKind,
  commitStep,
  createRun,
  deleteRun,
  getRun,
  listCheckpoints,
  listRuns,
  loadCheckpoint,
  loadDuels,
  loadMetrics,
  loadMistakeBook,
  pauseRun,
  recordRunFailure,
  resumeRun,
} from "../../../src/storage/runs.ts";
import { snapshotRun } from "../../../src/storage/snapshot.ts";
import { bytes, duel, fakeMetrics } from "./helpers.ts";

let dbCount = 0;
const open: ArenaDatabase[] = [];
async function freshDb(): Promise<{ db: ArenaDatabase; name: string }> {
  const name = `test-${++dbCount}`;
  const db = await openArenaDb({ name });
  open.push(db);
  return { db, name };
}
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

/** A deterministic Mistake Book history: step s fails tests s and s+1, passes test s-1. */
function bookStep(book: MistakeBook, step: number): { book: MistakeBook; delta: MistakeBookDelta } {
  const T = (i: number) => `assert f(${i}) == ${i}`;
  return updateMistakeBook(book, "task-a", step, {
    failed: [{ test: T(step), code: `c${step}` }, { test: T(step + 1), code: `c${step}` }],
    passed: [T(step - 1), T(step - 1)],
  });
}

/** Commit steps from..to, returning the book after them. */
async function commitSteps(db: ArenaDatabase, runId: string, from: number, to: number, book: MistakeBook, rng: Rng, checkpointAt: (s: number) => boolean | null = () => null) {
  for (let s = from; s <= to; s++) {
    const r = bookStep(book, s);
    book = r.book;
    const kept = checkpointAt(s);
    await commitStep(db, {
      runId,
      step: s,
      metrics: fakeMetrics(s, rng),
      mistakeBook: [r.delta],
      duels: [duel(s, "task-a")],
      rngState: rng.state(),
      loopState: { cursor: s },
      checkpoint: kept === null ? undefined : { policies: { code: bytes(64, s), test: bytes(32, s + 100) }, mistakeBook: book, kept },
    });
  }
  return book;
}

describe("runs in IndexedDB", () => {
  it("creates runs without ever overwriting one", async () => {
    const { db } = await freshDb();
    const a = await createRun(db, { id: "r", name: "a", config: DEFAULT_CONFIG, task_set_hash: "h" });
    const b = await createRun(db, { id: "r", name: "b", config: DEFAULT_CONFIG, task_set_hash: "h" });
    expect([a.id, b.id]).toEqual(["r", "r-2"]);
    expect((await getRun(db, "r")).name).toBe("a");
    expect((await listRuns(db)).map((r) => r.id).sort()).toEqual(["r", "r-2"]);
  });

  it("commits steps: metrics, Mistake Book, duels (pruned), step counter and RNG state", async () => {
    const { db } = await freshDb();
    const config = parseConfig({ duel_records_kept: 3 });
    const run = await createRun(db, { id: "r", name: "x", config, task_set_hash: "h" });
    const rng = new Rng(1);
    const book = await commitSteps(db, run.id, 1, 6, emptyMistakeBook(), rng);
    const stored = await getRun(db, run.id);
    expect(stored.step).toBe(6);
    expect(stored.rng_state).toEqual(rng.state());
    expect(stored.loop_state).toEqual({ cursor: 6 });
    const check = new Rng(1);
    expect(await loadMetrics(db, run.id)).toEqual([1, 2, 3, 4, 5, 6].map((s) => fakeMetrics(s, check)));
    expect(await loadMistakeBook(db, run.id)).toEqual(book);
    expect((await loadDuels(db, run.id)).map((d) => d.step)).toEqual([4, 5, 6]);
  });

  it("counts a failure repeated at the same step, forgets it at the next commit, and never exports it", async () => {
    const { db } = await freshDb();
    const run = await createRun(db, { id: "r", name: "x", config: DEFAULT_CONFIG, task_set_hash: "h" });
    const stuck = { signature: "sandbox:PhaseStuckError", message: "The Python sandbox did not start", step: 0, retry: true };
    expect((await recordRunFailure(db, run.id, stuck)).count).toBe(1);
    expect((await recordRunFailure(db, run.id, stuck)).count).toBe(2);
    // Another way of failing starts its own count.
    expect((await recordRunFailure(db, run.id, { ...stuck, signature: "interrupted" })).count).toBe(1);
    expect((await snapshotRun(db, run.id)).run).not.toHaveProperty("failure");
    await commitSteps(db, run.id, 1, 1, emptyMistakeBook(), new Rng(3));
    expect((await getRun(db, run.id)).failure).toBeUndefined();
    expect((await recordRunFailure(db, run.id, { ...stuck, step: 1 })).count).toBe(1);
  });

  it("refuses steps out of order and writes nothing of them", async () => {
    const { db } = await freshDb();
    const run = await createRun(db, { id: "r", name: "x", config: DEFAULT_CONFIG, task_set_hash: "h" });
    const rng = new Rng(2);
    await commitSteps(db, run.id, 1, 2, emptyMistakeBook(), rng);
    const bad = commitStep(db, { runId: run.id, step: 2, metrics: fakeMetrics(2, rng), mistakeBook: [], duels: null, rngState: rng.state() });
    await expect(bad).rejects.toBeInstanceOf(StepOrderError);
    await expect(bad).rejects.toThrow(/expected to commit step 3, got step 2/);
    expect((await loadMetrics(db, run.id)).length).toBe(2);
  });

  it("an aborted step transaction leaves nothing half-written", async () => {
    const { db } = await freshDb();
    const run = await createRun(db, { id: "r", name: "x", config: DEFAULT_CONFIG, task_set_hash: "h" });
    const rng = new Rng(3);
    const book = await commitSteps(db, run.id, 1, 2, emptyMistakeBook(), rng);
    const before = { run: await getRun(db, run.id), metrics: await loadMetrics(db, run.id), book: await loadMistakeBook(db, run.id), duels: await loadDuels(db, run.id) };
    // Step 3's metrics and Mistake Book delta are queued first; the duel record cannot be cloned
    // (a function inside), which fails the step after those writes were issued.
    const r = bookStep(book, 3);
    expect(r.delta.added.length + r.delta.removed.length).toBeGreaterThan(0);
    const poisoned = { ...duel(3, "task-a"), topvar: { std: [0], selected: [0], oops: () => 1 } };
    await expect(
      commitStep(db, { runId: run.id, step: 3, metrics: fakeMetrics(3, rng), mistakeBook: [r.delta], duels: [poisoned], rngState: rng.state() }),
    ).rejects.toThrow(/clone/i);
    expect({ run: await getRun(db, run.id), metrics: await loadMetrics(db, run.id), book: await loadMistakeBook(db, run.id), duels: await loadDuels(db, run.id) }).toEqual(before);
    // and the run continues normally with step 3
    await commitSteps(db, run.id, 3, 3, book, rng);
    expect((await getRun(db, run.id)).step).toBe(3);
  });

  it("a quota error becomes StorageQuotaError and loses nothing stored", async () => {
    const { db } = await freshDb();
    const run = await createRun(db, { id: "r", name: "x", config: DEFAULT_CONFIG, task_set_hash: "h" });
    const rng = new Rng(4);
    const book = await commitSteps(db, run.id, 1, 1, emptyMistakeBook(), rng);
    const metricsBefore = await loadMetrics(db, run.id);
    // Fault injection: the browser's store refuses the checkpoint (what a full disk does).
    const realPut = IDBObjectStore.prototype.put;
    const spy = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore["put"]>) {
      if (this.name === "checkpoints") throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
      return realPut.apply(this, args);
    };
    IDBObjectStore.prototype.put = spy;
    try {
      const r = bookStep(book, 2);
      const p = commitStep(db, {
        runId: run.id,
        step: 2,
        metrics: fakeMetrics(2, rng),
        mistakeBook: [r.delta],
        duels: null,
        rngState: rng.state(),
        checkpoint: { policies: { code: bytes(16, 1) }, mistakeBook: r.book, kept: true },
      });
      await expect(p).rejects.toBeInstanceOf(StorageQuotaError);
      await expect(p).rejects.toThrow(/storage is full while saving step 2.*Nothing already stored was changed/);
    } finally {
      IDBObjectStore.prototype.put = realPut;
    }
    expect((await getRun(db, run.id)).step).toBe(1);
    expect(await loadMetrics(db, run.id)).toEqual(metricsBefore);
    expect(await loadMistakeBook(db, run.id)).toEqual(book);
  });

  it("keeps one rolling checkpoint and resumes from the latest checkpoint, rolling back newer steps", async () => {
    const { db } = await freshDb();
    const run = await createRun(db, { id: "r", name: "x", config: DEFAULT_CONFIG, task_set_hash: "h" });
    const rng = new Rng(5);
    const books: MistakeBook[] = [emptyMistakeBook()];
    // kept checkpoint at 2, rolling ones at 3 and 4, nothing at 5
    let book = emptyMistakeBook();
    for (let s = 1; s <= 5; s++) {
      book = await commitSteps(db, run.id, s, s, book, rng, (x) => (x === 2 ? true : x === 3 || x === 4 ? false : null));
      books.push(book);
    }
    expect(await listCheckpoints(db, run.id)).toEqual([{ step: 2, kept: true }, { step: 4, kept: false }]);
    const { run: resumed, checkpoint } = await resumeRun(db, run.id);
    expect(resumed.step).toBe(4);
    expect(resumed.status).toBe("paused");
    expect(resumed.loop_state).toEqual({ cursor: 4 });
    expect(checkpoint?.step).toBe(4);
    expect(new Uint8Array(checkpoint!.policies.code)).toEqual(new Uint8Array(bytes(64, 4)));
    expect((await loadMetrics(db, run.id)).map((m) => m.step)).toEqual([1, 2, 3, 4]);
    expect((await loadDuels(db, run.id)).map((d) => d.step)).toEqual([1, 2, 3, 4]);
    expect(await loadMistakeBook(db, run.id)).toEqual(books[4]);
    // rerunning step 5 from the checkpoint's state is accepted
    const rerun = Rng.fromState(checkpoint!.rng_state!);
    await commitSteps(db, run.id, 5, 5, checkpoint!.mistake_book, rerun);
    expect(await loadMistakeBook(db, run.id)).toEqual(books[5]);
  });

  it("pause writes a kept checkpoint at the current step; delete removes everything", async () => {
    const { db } = await freshDb();
    const run = await createRun(db, { id: "r", name: "x", config: DEFAULT_CONFIG, task_set_hash: "h" });
    const other = await createRun(db, { id: "o", name: "y", config: DEFAULT_CONFIG, task_set_hash: "h" });
    const rng = new Rng(6);
    const book = await commitSteps(db, run.id, 1, 3, emptyMistakeBook(), rng);
    await commitSteps(db, other.id, 1, 1, emptyMistakeBook(), rng);
    const paused = await pauseRun(db, run.id, { policies: { code: bytes(8, 9) }, mistakeBook: book });
    expect(paused.status).toBe("paused");
    expect((await loadCheckpoint(db, run.id, 3))?.kept).toBe(true);
    expect((await resumeRun(db, run.id)).run.step).toBe(3);
    await deleteRun(db, run.id);
    expect((await listRuns(db)).map((r) => r.id)).toEqual(["o"]);
    expect(await loadMetrics(db, run.id)).toEqual([]);
    expect(await loadMistakeBook(db, run.id)).toEqual({ tasks: {} });
    expect((await loadMetrics(db, other.id)).length).toBe(1);
    expect((await loadMistakeBook(db, other.id)).tasks["task-a"]?.length).toBeGreaterThan(0);
  });
});

describe("opening and migrations", () => {
  it("upgrades an old database keeping its runs", async () => {
    const name = `mig-${++dbCount}`;
    const v1 = await openArenaDb({ name, version: 1 });
    expect(v1.objectStoreNames.contains("duels")).toBe(false);
    await v1.put("runs", { id: "old", name: "old", config: DEFAULT_CONFIG, status: "paused", created: 1, updated: 1, step: 0, rng_state: null, task_set_hash: "h", loop_state: null });
    v1.close();
    const db = await openArenaDb({ name });
    open.push(db);
    expect(db.version).toBe(DB_VERSION);
    expect(db.objectStoreNames.contains("duels")).toBe(true);
    expect((await getRun(db, "old")).name).toBe("old");
  });

  it("version 4 gives metrics stored before the held-out split keys those keys as null, and keeps the rest", async () => {
    const name = `mig4-${++dbCount}`;
    const v3 = await openArenaDb({ name, version: 3 });
    const rng = new Rng("mig4");
    const stored = [1, 2].map((step) => {
      const { plus_pass_heldout_compositional: _c, plus_pass_heldout_family: _f, ...rest } = fakeMetrics(step, rng);
      return rest;
    });
    for (const m of stored) await v3.put("metrics", { run: "old", step: m.step, metrics: m as never });
    v3.close();
    const db = await openArenaDb({ name });
    open.push(db);
    const back = await loadMetrics(db, "old");
    expect(back).toEqual(stored.map((m) => ({ ...m, plus_pass_heldout_compositional: null, plus_pass_heldout_family: null })));
  });

  it("version 5 renames the rollout rate bug_detection to rollout_fail_rate and gives the later keys null", async () => {
    const name = `mig5-${++dbCount}`;
    const v4 = await openArenaDb({ name, version: 4 });
    const rng = new Rng("mig5");
    const current = [1, 2].map((step) => fakeMetrics(step, rng));
    const stored = current.map(({ rollout_fail_rate, gen_fail: _g, fresh_fail_rate: _f, mut_suite: _m, mul_suite: _s, bug_detection_heldout: _b, ...rest }) => ({ ...rest, bug_detection: rollout_fail_rate }));
    for (const m of stored) await v4.put("metrics", { run: "old", step: m.step, metrics: m as never });
    v4.close();
    const db = await openArenaDb({ name });
    open.push(db);
    expect(await loadMetrics(db, "old")).toEqual(current.map((m) => ({ ...m, gen_fail: null, fresh_fail_rate: null, mut_suite: null, mul_suite: null, bug_detection_heldout: null })));
  });

  it("a blocked upgrade rejects with StorageBlockedError instead of hanging, and loses nothing", async () => {
    const name = `blk-${++dbCount}`;
    const v1 = await openArenaDb({ name, version: 1 });
    await v1.put("runs", { id: "kept", name: "k", config: DEFAULT_CONFIG, status: "paused", created: 1, updated: 1, step: 0, rng_state: null, task_set_hash: "h", loop_state: null });
    // An old tab that ignores versionchange keeps the connection open.
    const stubborn = await openDB(name, 1);
    v1.close();
    const blocked = openArenaDb({ name });
    await expect(blocked).rejects.toBeInstanceOf(StorageBlockedError);
    await expect(blocked).rejects.toThrow(new RegExp(`from version 1 to ${DB_VERSION}, but another tab still has the old version open`));
    expect((await stubborn.get("runs", "kept"))?.name).toBe("k");
    stubborn.close();
    const db = await openArenaDb({ name });
    open.push(db);
    expect((await getRun(db, "kept")).name).toBe("k");
  });

  it("a database from a newer app rejects with StorageVersionError", async () => {
    const name = `new-${++dbCount}`;
    (await openDB(name, DB_VERSION + 3)).close();
    await expect(openArenaDb({ name })).rejects.toBeInstanceOf(StorageVersionError);
  });
});

describe("checkpoint policy", () => {
  it("kept every checkpoint_every steps and at the end, rolling or none in between", () => {
    const c = { checkpoint_every: 10, steps: 25 };
    expect([1, 9, 10, 20, 24, 25].map((s) => checkpointKind(c, s, true))).toEqual(["rolling", "rolling", "kept", "kept", "rolling", "kept"]);
    expect([1, 10, 25].map((s) => checkpointKind(c, s, false))).toEqual([null, "kept", "kept"]);
  });
});
