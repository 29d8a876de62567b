/* eslint-disable @typescript-eslint/no-explicit-any -- these tests edit the raw JSON inside bundles */
import "fake-indexeddb/auto";
import { strFromU8, strToU8, unzipSync, zipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BUNDLE_VERSION, BundleError, exportBundle, importBundle, nestedDeeperThan, sha256Hex, taskSetHash, type RunSnapshot } from "../../src/core/bundle.ts";
import { parseConfig } from "../../src/core/config/index.ts";
import { emptyMistakeBook, updateMistakeBook } from "../../src/core/loop/mistake-book.ts";
import { Rng } from "../../src/core/rng.ts";
import { openArenaDb, type ArenaDatabase } from "../../src/storage/db.ts";
import { commitStep, createRun, pauseRun } from "../../src/storage/runs.ts";
import { snapshotRun, storeSnapshot } from "../../src/storage/snapshot.ts";
import { duel, fakeMetrics, policyBytes } from "./storage/helpers.ts";
import { indexedDbBundles } from "../../src/ui/run-bundles.ts";
import { importRunFile } from "../../src/browser/run-import.ts";
import { declareSize } from "../../scripts/hostile-bundles.ts";

let db: ArenaDatabase;
let snapshot: RunSnapshot;
let bundle: Uint8Array;

/** A real run: 4 steps through storage, kept checkpoint at 2, paused at 4. */
beforeAll(async () => {
  db = await openArenaDb({ name: "bundle-test" });
  const hash = await taskSetHash([{ id: "t1", reference: "def f(x):\n    return x" }]);
  const run = await createRun(db, { id: "run-a", name: "classroom seed 3", config: parseConfig({ seed: 3 }), task_set_hash: hash });
  const rng = new Rng(3);
  let book = emptyMistakeBook();
  for (let s = 1; s <= 4; s++) {
    const r = updateMistakeBook(book, "t1", s, { failed: [{ test: `assert f(${s}) == ${s}`, code: "def f(x):\n    return 0" }], passed: [`assert f(${s - 1}) == ${s - 1}`] });
    book = r.book;
    await commitStep(db, {
      runId: run.id,
      step: s,
      metrics: fakeMetrics(s, rng),
      mistakeBook: [r.delta],
      duels: [duel(s, "t1")],
      rngState: rng.state(),
      loopState: { cursor: s },
      checkpoint: s === 2 ? { policies: { code: policyBytes(1), test: policyBytes(2) }, mistakeBook: book, kept: true } : undefined,
    });
  }
  await pauseRun(db, run.id, { policies: { code: policyBytes(3), test: policyBytes(4) }, mistakeBook: book });
  snapshot = await snapshotRun(db, run.id);
  bundle = await exportBundle(snapshot, "2026-01-01T00:00:00.000Z");
});
afterAll(() => db?.close());

/** Unzip, edit, zip again; with fix, the manifest's sizes and checksums are recomputed. */
async function rebundle(edit: (files: Record<string, Uint8Array>, manifest: Record<string, unknown>) => void, fix = true): Promise<Uint8Array> {
  const files = unzipSync(bundle);
  const manifest = JSON.parse(strFromU8(files["manifest.json"])) as Record<string, unknown>;
  delete files["manifest.json"];
  edit(files, manifest);
  if (fix) {
    manifest.files = await Promise.all(Object.entries(files).map(async ([path, data]) => ({ path, bytes: data.length, sha256: await sha256Hex(data) })));
  }
  // Weights stored, as exportBundle does: deflating megabytes of floats per case would dominate the test's time.
  const zip = Object.fromEntries(Object.entries(files).map(([p, d]) => [p, [d, { level: p.endsWith(".bin") ? 0 : 6 }] as const]));
  return zipSync({ ...zip, "manifest.json": strToU8(JSON.stringify(manifest)) });
}
const editJson = (files: Record<string, Uint8Array>, name: string, f: (v: any) => unknown) => {
  files[name] = strToU8(JSON.stringify(f(JSON.parse(strFromU8(files[name])))));
};

/**
 * A snapshot with each checkpoint's weights as their byte length and SHA-256: toEqual walks a typed
 * array element by element, minutes for the megabytes of real checkpoints; a digest compares the same bytes.
 */
async function digested(s: RunSnapshot): Promise<unknown> {
  const checkpoints = await Promise.all(s.checkpoints.map(async (c) => ({
    ...c,
    policies: Object.fromEntries(await Promise.all(Object.entries(c.policies).map(async ([k, b]) => [k, `${b.length} bytes, sha256 ${await sha256Hex(b)}`] as const))),
  })));
  return { ...s, checkpoints };
}

async function refusal(data: Uint8Array, limits = {}): Promise<string> {
  try {
    await importBundle(data, limits);
  } catch (e) {
    expect(e).toBeInstanceOf(BundleError);
    return (e as Error).message;
  }
  throw new Error("bundle was accepted");
}

// Real tiny checkpoints (2.3 MB each) through fake-indexeddb: seconds, more on a loaded machine.
describe(".a1run bundles", { timeout: 120_000 }, () => {
  it("round-trip a stored run exactly, and import never overwrites", async () => {
    const back = await importBundle(bundle);
    expect(await digested(back)).toEqual(await digested(snapshot));
    expect(back.checkpoints.map((c) => c.step)).toEqual([2, 4]);
    expect(back.metrics.length).toBe(4);
    const stored = await storeSnapshot(db, back);
    expect(stored.id).toBe("run-a-2");
    const again = await snapshotRun(db, stored.id);
    expect(await digested({ ...again, run: { ...again.run, id: "run-a" } })).toEqual(await digested(snapshot));
    // the original is untouched
    expect((await snapshotRun(db, "run-a")).run.id).toBe("run-a");
  });

  it("export is deterministic for the same run and time", async () => {
    expect(await sha256Hex(await exportBundle(snapshot, "2026-01-01T00:00:00.000Z"))).toBe(await sha256Hex(bundle));
  });

  it("export does not read the clock (zip entry times are the export time)", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(new Date("2030-05-05T10:00:01Z"));
      const a = await exportBundle(snapshot, "2026-01-01T00:00:00.000Z");
      vi.setSystemTime(new Date("2031-06-06T11:11:11Z"));
      expect(await sha256Hex(await exportBundle(snapshot, "2026-01-01T00:00:00.000Z"))).toBe(await sha256Hex(a));
    } finally {
      vi.useRealTimers();
    }
  });

  it("refuses truncated files and non-zips", async () => {
    expect(await refusal(bundle.slice(0, Math.floor(bundle.length / 2)))).toMatch(/not a zip archive.*truncated.*An \.a1run file is a run exported by Code-A1 Arena/);
    expect(await refusal(strToU8("hello, not a zip at all, just text that is long enough"))).toMatch(/not a zip archive.*An \.a1run file is a run exported/);
    expect(await refusal(new Uint8Array(0))).toMatch(/the file is empty\. An \.a1run file is a run exported/);
  });

  it("refuses corrupted content by checksum", async () => {
    const flipped = await rebundle((files) => {
      files["checkpoints/2-code.bin"][17] ^= 0xff;
    }, false);
    expect(await refusal(flipped)).toMatch(/checkpoints\/2-code.bin does not match its checksum/);
    const edited = await rebundle((files) => editJson(files, "metrics.json", (m) => m.map((x: any) => ({ ...x, code_reward: 1 }))), false);
    expect(await refusal(edited)).toMatch(/metrics.json (has \d+ bytes|does not match its checksum)/);
  });

  it("refuses newer format versions and foreign manifests", async () => {
    expect(await refusal(await rebundle((_f, m) => void (m.format_version = BUNDLE_VERSION + 1)))).toMatch(/newer than this app reads.*update Code-A1 Arena/);
    expect(await refusal(await rebundle((_f, m) => void (m.format = "something-else")))).toMatch(/manifest format/);
    expect(await refusal(zipSync({ "readme.txt": strToU8("hi") }))).toMatch(/unexpected entry "readme.txt"/);
  });

  it("reads a bundle from before the held-out split metrics as not measured there", async () => {
    const old = await rebundle((f) => editJson(f, "metrics.json", (m: Record<string, unknown>[]) => m.map(({ plus_pass_heldout_compositional: _c, plus_pass_heldout_family: _f, ...rest }) => rest)));
    const back = await importBundle(old);
    expect(back.metrics.map((m) => [m.plus_pass_heldout_compositional, m.plus_pass_heldout_family])).toEqual(back.metrics.map(() => [null, null]));
    expect(back.metrics.map((m) => m.plus_pass_heldout)).toEqual(snapshot.metrics.map((m) => m.plus_pass_heldout));
    // Any other missing key is still refused (tested below); a wrong type in the new keys too.
    expect(await refusal(await rebundle((f) => editJson(f, "metrics.json", (m: Record<string, unknown>[]) => m.map((x) => ({ ...x, plus_pass_heldout_family: "x" })))))).toMatch(/plus_pass_heldout_family must be a number or null/);
  });

  it("reads a bundle from before the rollout rate's rename: bug_detection becomes rollout_fail_rate, gen_fail and the new evaluation keys not measured", async () => {
    const old = await rebundle((f) =>
      editJson(f, "metrics.json", (m: Record<string, unknown>[]) =>
        m.map(({ rollout_fail_rate, gen_fail: _g, fresh_fail_rate: _f, mut_suite: _m, mul_suite: _s, bug_detection_heldout: _b, ...rest }) => ({ ...rest, bug_detection: rollout_fail_rate }))),
    );
    const back = await importBundle(old);
    expect(back.metrics.map((m) => m.rollout_fail_rate)).toEqual(snapshot.metrics.map((m) => m.rollout_fail_rate));
    expect(back.metrics.every((m) => m.gen_fail === null && m.fresh_fail_rate === null && m.bug_detection_heldout === null && m.mul_suite === null)).toBe(true);
    expect(back.metrics.some((m) => "bug_detection" in m)).toBe(false);
    // A later step key is a number or null, nothing else.
    expect(await refusal(await rebundle((f) => editJson(f, "metrics.json", (m: Record<string, unknown>[]) => m.map((x) => ({ ...x, gen_fail: "x" })))))).toMatch(/gen_fail must be a finite number or null/);
  });

  it("refuses hostile entries: path traversal, duplicates, unlisted or missing files", async () => {
    expect(await refusal(await rebundle((f) => void (f["../../etc/passwd"] = strToU8("x"))))).toMatch(/unexpected entry "..\/..\/etc\/passwd"/);
    expect(await refusal(await rebundle((f) => void (f["checkpoints/9-code.bin"] = strToU8("x"))))).toMatch(/checkpoints\/9-code.bin belongs to no checkpoint/);
    expect(await refusal(await rebundle((f) => void (f["checkpoints/9-code.bin"] = strToU8("x")), false))).toMatch(/manifest does not list/);
    expect(await refusal(await rebundle((f) => void delete f["checkpoints/4-test.bin"], false))).toMatch(/4-test.bin is listed in the manifest but missing/);
    expect(await refusal(await rebundle((f) => void delete f["duels.json"]))).toMatch(/duels.json is missing/);
  });

  it("refuses entries that would inflate beyond the limits before inflating them", async () => {
    const big = await rebundle((f) => void (f["metrics.json"] = strToU8(JSON.stringify(new Array(500_000).fill(0)))));
    expect(big.length).toBeLessThan(bundle.length + 20_000); // compresses well: the size only shows when inflated
    expect(await refusal(big)).toMatch(/metrics.json would inflate to 1000001 bytes, more than the \d+ a real run holds there \(4 steps x \d+ bytes of StepMetrics\); refused before inflating/);
    expect(await refusal(bundle, { maxBundleBytes: 100 })).toMatch(/more than the 100 allowed/);
  });

  it("refuses schema violations with the field named", async () => {
    const cases: [(f: Record<string, Uint8Array>, m: Record<string, any>) => void, RegExp][] = [
      [(f) => editJson(f, "config.json", (c) => ({ ...c, alpah: 0.1 })), /config.json: config.alpah: unknown field/],
      [(f) => editJson(f, "config.json", (c) => JSON.parse(JSON.stringify({ ...c }).replace("{", '{"__proto__":{"x":1},'))), /config.__proto__: unknown field/],
      [(f) => editJson(f, "config.json", (c) => ({ ...c, alpha: 7 })), /config.alpha: expected a value in \[0, 1\]/],
      [(f) => editJson(f, "metrics.json", (m) => m.slice(1)), /metrics.json has 3 steps, the run has 4/],
      [(f) => editJson(f, "metrics.json", (m) => [{ ...m[0], extra: 1 }, ...m.slice(1)]), /metrics.json\[0\] must have exactly the StepMetrics fields; missing: none; unknown: extra\.$/],
      [(f) => editJson(f, "metrics.json", (m) => [(({ clip_fraction_code: _, ...rest }) => rest)(m[0] as Record<string, unknown>), ...m.slice(1)]), /missing: clip_fraction_code; unknown: none \(a bundle from an earlier version/],
      [(f) => editJson(f, "metrics.json", (m) => [{ ...m[0], kl_code: "x" }, ...m.slice(1)]), /metrics.json\[0\].kl_code must be a finite number/],
      [(f) => editJson(f, "mistake-book.json", (b) => ({ tasks: { t1: [{ ...b.tasks.t1[0], frequency: -1 }] } })), /mistake-book.json: mistake_book.tasks\["t1"\]\[0\].frequency/],
      [(f) => editJson(f, "checkpoints.json", (c) => [{ ...c[0], step: 99 }, c[1]]), /checkpoints.json\[0\] must be \{step in 0..4/],
      [(f) => editJson(f, "checkpoints.json", (c) => [{ ...c[0], policies: { code: "../../x.bin" } }, c[1]]), /policies.code does not point at its weights file/],
      [(f) => editJson(f, "duels.json", (d) => [...d, d[0]]), /step \d appears twice/],
      [(_f, m) => void (m.run = { ...m.run, status: "exploded" }), /run.status must be one of/],
      [(_f, m) => void (m.run = { ...m.run, rng_state: [1, 2, 3] }), /rng_state must be 4 uint32/],
      [(_f, m) => void (m.run = { ...m.run, rng_state: [0, 0, 0, 0] }), /manifest run: rng_state is all zeros, a state the generator never reaches/],
      [(f) => editJson(f, "checkpoints.json", (c) => [{ ...c[0], rng_state: [0, 0, 0, 0] }, c[1]]), /checkpoints.json\[0\]: rng_state is all zeros/],
      [(_f, m) => void (m.run = { ...m.run, id: "my-run\u202e2-nur" }), /manifest run.id "my-run\\u202e2-nur" holds control or text-direction characters/],
      [(_f, m) => void (m.run = { ...m.run, id: "a\nb" }), /manifest run.id "a\\nb" holds control/],
      [(_f, m) => void (m.run = { ...m.run, name: "bell\u0007" }), /manifest run.name holds control characters/],
      [(_f, m) => void (m.seed = 99), /manifest seed 99 differs from config.seed 3/],
      [(_f, m) => void (m.extra = { polluted: 1 }), /manifest has unknown fields "extra" \(it holds format, format_version, exported_at, run, seed, task_set_hash, files\)/],
      [(_f, m) => void (m.exported_at = { toString: 1 }), /manifest exported_at must be a time/],
    ];
    for (const [edit, re] of cases) expect(await refusal(await rebundle(edit))).toMatch(re);
    const extraFileField = await rebundle((_f, m) => void (m.files = (m.files as object[]).map((f, i) => (i === 0 ? { ...f, mode: 0o777 } : f))), false);
    expect(await refusal(extraFileField)).toMatch(/manifest files\[0\] must be \{path, bytes, sha256\}/);
  });

  it("refuses manifest paths named like inherited properties as a BundleError naming the field, and stores nothing", async () => {
    const bundles = indexedDbBundles(async () => db);
    const count = async () => ({ runs: (await db.getAll("runs")).length, mistakes: (await db.getAll("mistakes")).length, checkpoints: (await db.getAll("checkpoints")).length });
    const before = await count();
    for (const path of ["constructor", "__proto__", "toString", "hasOwnProperty", "checkpoints/constructor"]) {
      const hostile = await rebundle((_f, m) => void (m.files = [...(m.files as unknown[]), { path, bytes: 1, sha256: "0".repeat(64) }]), false);
      const message = await refusal(hostile);
      expect(message, path).toMatch(/manifest files\[\d+\]\.path /);
      expect(message, path).toContain(`.path ${JSON.stringify(path)} is not a file of an .a1run bundle`);
      await expect(bundles.importRun(new File([hostile as Uint8Array<ArrayBuffer>], "hostile.a1run"))).rejects.toThrow(BundleError);
    }
    // A policy called "constructor" has to point at its own weights file like any other.
    const noWeights = await rebundle((f) => editJson(f, "checkpoints.json", (c) => [{ ...c[0], policies: { ...c[0].policies, constructor: "checkpoints/2-constructor.bin" } }, c[1]]));
    expect(await refusal(noWeights)).toMatch(/checkpoints.json\[0\].policies.constructor does not point at its weights file/);
    expect(await count()).toEqual(before);
  });

  it("a Mistake Book with tasks called constructor and __proto__ round-trips through import, storage and export", async () => {
    const entry = (test: string) => ({ test, frequency: 1, first_step: 1, last_step: 1, failed_code: "def f(x):\n    return 0" });
    const tasks = '{"constructor": [' + JSON.stringify(entry("assert f(1) == 1")) + '], "__proto__": [' + JSON.stringify(entry("assert f(2) == 2")) + "]}";
    const edited = await rebundle((f) => void (f["mistake-book.json"] = strToU8(`{"tasks": ${tasks}}`)));
    const back = await importBundle(edited);
    expect(Object.keys(back.mistake_book.tasks).sort()).toEqual(["__proto__", "constructor"]);
    const stored = await storeSnapshot(db, back);
    const again = await snapshotRun(db, stored.id);
    expect(Object.keys(again.mistake_book.tasks).sort()).toEqual(["__proto__", "constructor"]);
    expect(Object.getPrototypeOf(again.mistake_book.tasks)).toBe(Object.prototype);
    expect(again.mistake_book.tasks["constructor"]).toEqual([entry("assert f(1) == 1")]);
    expect(Object.getOwnPropertyDescriptor(again.mistake_book.tasks, "__proto__")?.value).toEqual([entry("assert f(2) == 2")]);
    const reexported = await importBundle(await exportBundle(again, "2026-01-01T00:00:00.000Z"));
    expect(Object.keys(reexported.mistake_book.tasks).sort()).toEqual(["__proto__", "constructor"]);
  });

  it("refuses a file larger than a bundle may be from its size, before reading it", async () => {
    const huge = { name: "huge.a1run", size: 5 * 2 ** 30, arrayBuffer: () => Promise.reject(new Error("read")) } as unknown as File;
    const bundles = indexedDbBundles(async () => db);
    await expect(bundles.importRun(huge)).rejects.toThrow(/Cannot open this \.a1run file: it is 5368709120 bytes, more than the 1073741824 allowed\./);
    await expect(importRunFile(huge, () => {})).rejects.toThrow(/it is 5368709120 bytes, more than the 1073741824 allowed/);
  });

  it("checks the task set when asked", async () => {
    expect(await refusal(bundle, { expectTaskSetHash: "0".repeat(64) })).toMatch(/different task set/);
    await expect(importBundle(bundle, { expectTaskSetHash: snapshot.run.task_set_hash })).resolves.toBeDefined();
  });
});

describe("a run from a stranger (issue 32's classes)", { timeout: 120_000 }, () => {
  it("refuses an entry beyond what the config allows before inflating, naming the entry and the bound", async () => {
    const bomb = await rebundle((f) => void (f["checkpoints/2-code.bin"] = new Uint8Array(50 << 20)));
    expect(bomb.length).toBeLessThan(bundle.length + (51 << 20));
    expect(await refusal(bomb)).toMatch(/checkpoints\/2-code.bin would inflate to 52428800 bytes, more than the \d+ a real run holds there \(a tiny policy's checkpoint\); refused before inflating/);
  });

  it("stops at the declared size when a zip lies about it", async () => {
    const lying = declareSize(await rebundle(() => {}), "duels.json", 10);
    expect(await refusal(lying)).toMatch(/duels.json (inflates to more than the 10 bytes it declares|has 10 bytes, the manifest says)/);
    const fixed = await rebundle((_f, m) => void (m.files = (m.files as { path: string; bytes: number }[]).map((x) => (x.path === "duels.json" ? { ...x, bytes: 10 } : x))), false);
    expect(await refusal(declareSize(fixed, "duels.json", 10))).toMatch(/duels.json inflates to more than the 10 bytes it declares/);
  });

  it("refuses more Mistake Book entries than the run's steps can write", async () => {
    const entry = (i: number) => ({ test: `assert f(${i}) == ${i}`, frequency: 1, first_step: 1, last_step: 1, failed_code: "def f(x):\n    return 0" });
    const many = await rebundle((f) => void (f["mistake-book.json"] = strToU8(JSON.stringify({ tasks: { t1: Array.from({ length: 5000 }, (_, i) => entry(i)) } }))));
    expect(await refusal(many)).toMatch(/mistake-book.json: the Mistake Book's entry count holds 5000, more than the 2048 a real run of this config holds \(4 steps x 512 failures per step/);
  });

  it("checks duel records in depth", async () => {
    const cases: [(r: any) => unknown, RegExp][] = [
      [(r) => ({ ...r, codes: [null, 1, { text: 5 }] }), /duels.json: \[0\].records\[0\].codes\[0\] must be an object/],
      [(r) => ({ ...r, topvar: {} }), /topvar.std is missing/],
      [(r) => ({ ...r, codes: [{ ...r.codes[0], suites: [{ ...r.codes[0].suites[0], lines: [{ validity: "valid", verdict: "pwned", reason: "" }] }] }] }), /verdict must be one of pass, fail/],
      [(r) => ({ ...r, codes: [{ ...r.codes[0], reward: null }] }), /codes\[0\].reward must be a finite number/],
      [(r) => ({ ...r, topvar: { std: [0], selected: [7] } }), /topvar.selected\[0\] must be an integer in 0..0/],
    ];
    for (const [edit, re] of cases) {
      expect(await refusal(await rebundle((f) => editJson(f, "duels.json", (d) => d.map((s: any) => ({ ...s, records: s.records.map(edit) })))))).toMatch(re);
    }
  });

  it("refuses NaN, infinite or garbage weights naming the tensor", async () => {
    const withWeights = (mutate: (floats: Float32Array) => void) => rebundle((f) => {
      const b = f["checkpoints/4-test.bin"].slice();
      const header = new DataView(b.buffer).getUint32(8, true);
      mutate(new Float32Array(b.buffer, (12 + header + 3) & ~3));
      f["checkpoints/4-test.bin"] = b;
    });
    expect(await refusal(await withWeights((x) => void (x[5] = NaN)))).toMatch(/checkpoints\/4-test.bin: tensor wte \(weights\) holds NaN at index 5; no training writes that/);
    expect(await refusal(await withWeights((x) => void (x[x.length - 1] = Infinity)))).toMatch(/tensor \S+ \(reference weights\) holds Infinity/);
    const rng = new Rng(9);
    expect(await refusal(await withWeights((x) => new Uint32Array(x.buffer, x.byteOffset, x.length).forEach((_, i, a) => void (a[i] = rng.int(2 ** 32)))))).toMatch(/checkpoints\/4-test.bin: tensor wte \(weights\) holds/);
    expect(await refusal(await rebundle((f) => void (f["checkpoints/4-test.bin"] = f["checkpoints/4-test.bin"].slice(0, 1000))))).toMatch(/checkpoints\/4-test.bin: checkpoint (header is truncated|is 1000 bytes)/);
  });

  it("deep nesting is a clear error, not a stack overflow", async () => {
    const deep = "[".repeat(2_000_000) + "]".repeat(2_000_000);
    const nested = await rebundle((_f, m) => void (m.run = { ...(m.run as object), loop_state: "__DEEP__" }));
    const files = unzipSync(nested);
    files["manifest.json"] = strToU8(strFromU8(files["manifest.json"]).replace('"__DEEP__"', deep));
    expect(await refusal(zipSync(files))).toMatch(/manifest.json would inflate|loop_state is nested more than 16 levels deep/);
    const inCheckpoint = (levels: number) => rebundle((f) => {
      f["checkpoints.json"] = strToU8(strFromU8(f["checkpoints.json"]).replace('"loop_state":{"cursor":2}', `"loop_state":${"[".repeat(levels)}${"]".repeat(levels)}`));
    });
    // Refused before JSON.parse (seconds on millions of levels), naming the file and the bound.
    expect(await refusal(await inCheckpoint(100_000))).toMatch(/checkpoints.json is nested more than 64 levels deep; no run writes that/);
    // Within what JSON may nest, loop_state has its own, smaller bound.
    expect(await refusal(await inCheckpoint(20))).toMatch(/checkpoints.json step 2 loop_state is nested more than 16 levels deep/);
  });

  it("quotes a stranger's text escaped and clipped in its messages", async () => {
    const huge = "t".repeat(100_000) + "\u202e";
    const message = await refusal(await rebundle((f) => void (f["mistake-book.json"] = strToU8(JSON.stringify({ tasks: { [huge]: [1] } })))));
    expect(message).toMatch(/^Cannot open this \.a1run file: mistake-book.json: mistake_book.tasks\["t{100,}/);
    expect(message).toMatch(/… \(\d+ more characters\)$/);
    expect(message.length).toBeLessThan(2100);
    const rlo = await refusal(await rebundle((f) => void (f["mistake-book.json"] = strToU8(JSON.stringify({ tasks: { "a\u202eb": [1] } })))));
    expect(rlo).toContain('tasks["a\\u202eb"]');
    expect(rlo).not.toContain("\u202e");
  });

  it("counts nesting outside strings only", () => {
    const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
    expect(nestedDeeperThan(strToU8(deep(64)), 64)).toBe(false);
    expect(nestedDeeperThan(strToU8(deep(65)), 64)).toBe(true);
    expect(nestedDeeperThan(strToU8(`{"a": ${deep(3)}}`), 3)).toBe(true);
    // Brackets and escaped quotes inside strings are text.
    expect(nestedDeeperThan(strToU8(JSON.stringify({ t: "[".repeat(1000), u: '\\"{{{{' + "{".repeat(100) })), 2)).toBe(false);
  });

  it("clamps an imported run's times to the import time and marks it imported", async () => {
    const future = await rebundle((_f, m) => void (m.run = { ...(m.run as object), created: 9999999999999, updated: 9999999999999 }));
    const now = Date.now();
    const stored = await storeSnapshot(db, await importBundle(future), now);
    expect([stored.created, stored.updated, stored.imported]).toEqual([now, now, now]);
    // Exported again, the mark does not travel: the next importer's clock decides.
    expect((await snapshotRun(db, stored.id)).run).not.toHaveProperty("imported");
  });
});
