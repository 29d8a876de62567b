/**
 * Imported task sets in IndexedDB (by hash) and in `.a1run` bundles: a run on a stored set exports
 * the set, the bundle brings it back into another database, and a set that is not the one the run
 * trained on is refused.
 */
import "fake-indexeddb/auto";
import { strFromU8, strToU8, unzipSync, zipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BundleError, exportBundle, importBundle, sha256Hex, taskSetHash } from "../../../src/core/bundle.ts";
import { arenaV1 } from "../../../src/core/arena/task-suite.ts";
import { TaskValidationError, type TaskFile } from "../../../src/core/arena/task.ts";
import { parseConfig } from "../../../src/core/config/index.ts";
import { emptyMistakeBook } from "../../../src/core/loop/mistake-book.ts";
import { openArenaDb, type ArenaDatabase } from "../../../src/storage/db.ts";
import { createRun, pauseRun } from "../../../src/storage/runs.ts";
import { snapshotRun, storeSnapshot } from "../../../src/storage/snapshot.ts";
import { findImportedSet, importedSetName, listTaskSets, loadTaskSet, saveTaskSet } from "../../../src/storage/task-sets.ts";
import { policyBytes } from "./helpers.ts";

// Stands for an imported set: two tasks under a name the app does not ship.
const imported: TaskFile = { version: 1, name: "my-mbpp", tasks: arenaV1().tasks.slice(0, 2) };
let db: ArenaDatabase;
let other: ArenaDatabase;
beforeAll(async () => {
  db = await openArenaDb({ name: "task-sets-a" });
  other = await openArenaDb({ name: "task-sets-b" });
});
afterAll(() => {
  db?.close();
  other?.close();
});

describe("task sets in IndexedDB", () => {
  it("stores a set once by its hash, with its report", async () => {
    const a = await saveTaskSet(db, imported, [{ id: "x", status: "trainable" }]);
    // The hash a run on it records (the trainer hashes the task list it trains on).
    expect(a.hash).toBe(await taskSetHash(imported.tasks));
    const again = await saveTaskSet(db, structuredClone(imported));
    expect(again.stored).toBe(a.stored);
    expect((await listTaskSets(db)).map((r) => r.hash)).toEqual([a.hash]);
    expect((await loadTaskSet(db, a.hash))!.report).toEqual([{ id: "x", status: "trainable" }]);
  });

  it("stores nothing for an invalid set", async () => {
    const bad = { ...imported, name: "bad", tasks: [{ ...imported.tasks[0], split: "nowhere" }] } as unknown as TaskFile;
    await expect(saveTaskSet(db, bad)).rejects.toThrow(TaskValidationError);
    expect((await listTaskSets(db)).map((r) => r.name)).toEqual(["my-mbpp"]);
  });
});

describe("bundles carry an imported task set", () => {
  let bundle: Uint8Array;
  beforeAll(async () => {
    const { hash } = await saveTaskSet(db, imported);
    const run = await createRun(db, { id: "run-own", name: "own tasks", config: parseConfig({ seed: 5 }), task_set_hash: hash });
    await pauseRun(db, run.id, { policies: { code: policyBytes(1), test: policyBytes(2) }, mistakeBook: emptyMistakeBook() });
    const snap = await snapshotRun(db, run.id);
    expect(snap.task_set).toEqual(imported);
    bundle = await exportBundle(snap, "2026-01-01T00:00:00.000Z");
  });

  it("exports task-set.json (format version 2) and re-imports it into another database", async () => {
    const files = unzipSync(bundle);
    expect(Object.keys(files)).toContain("task-set.json");
    expect(JSON.parse(strFromU8(files["manifest.json"])).format_version).toBe(2);
    const snap = await importBundle(bundle);
    expect(snap.task_set).toEqual(imported);
    const stored = await storeSnapshot(other, snap);
    expect((await loadTaskSet(other, stored.task_set_hash))!.file).toEqual(imported);
    // Re-running the stored run finds the bundled set by the run's hash.
    expect((await snapshotRun(other, stored.id)).task_set).toEqual(imported);
    // ...and its config names the bundled set, so a re-run in the app trains on it.
    expect(stored.config.task_set).toBe(importedSetName(await taskSetHash(imported.tasks)));
    expect((await findImportedSet(other, stored.config.task_set))!.file).toEqual(imported);
    expect(await findImportedSet(other, "imported:0000000000000000")).toBeNull();
  });

  it("refuses a bundled set that is not the one the run trained on, even with fixed checksums", async () => {
    const files = unzipSync(bundle);
    const manifest = JSON.parse(strFromU8(files["manifest.json"])) as { files: unknown[] };
    delete files["manifest.json"];
    const set = JSON.parse(strFromU8(files["task-set.json"])) as TaskFile;
    set.tasks[0].reference = set.tasks[0].reference.replace("return", "return  ");
    files["task-set.json"] = strToU8(JSON.stringify(set));
    manifest.files = await Promise.all(Object.entries(files).map(async ([path, data]) => ({ path, bytes: data.length, sha256: await sha256Hex(data) })));
    const edited = zipSync({ ...files, "manifest.json": strToU8(JSON.stringify(manifest)) });
    await expect(importBundle(edited)).rejects.toThrow(BundleError);
    await expect(importBundle(edited)).rejects.toThrow(/task-set\.json is not the task set the run trained on/);
  });

  it("a run on a shipped set exports no task set (format version 1)", async () => {
    const run = await createRun(db, { id: "run-v1", name: "builtin", config: parseConfig({ seed: 1 }), task_set_hash: await taskSetHash(arenaV1()) });
    const snap = await snapshotRun(db, run.id);
    expect(snap.task_set).toBeUndefined();
    const files = unzipSync(await exportBundle(snap));
    expect(Object.keys(files)).not.toContain("task-set.json");
    expect(JSON.parse(strFromU8(files["manifest.json"])).format_version).toBe(1);
  });
});

describe("command-line runs on an imported set", () => {
  it("a FileRunRepository's bundle carries an imported set, not a shipped one", async () => {
    const { FileRunRepository } = await import("../../../src/node/node-host.ts");
    const own = new FileRunRepository({ runId: "r1", out: null, file: imported });
    await own.create(parseConfig({ seed: 2 }), await taskSetHash(imported.tasks));
    expect(own.store!.snapshot.task_set).toEqual(imported);
    expect(own.store!.snapshot.run.task_set_hash).toBe(await taskSetHash(imported.tasks));
    const snap = await importBundle(await exportBundle(own.store!.snapshot));
    expect(snap.task_set).toEqual(imported); // hashed as a task list on the command line: accepted too
    const shipped = new FileRunRepository({ runId: "r2", out: null, file: arenaV1() });
    await shipped.create(parseConfig({ seed: 2 }), await taskSetHash(arenaV1().tasks));
    expect(shipped.store!.snapshot.task_set).toBeUndefined();
  });
});
