/**
 * The hostile `.a1run` corpus of issue 32, generated (never committed as binaries): one small file
 * per class of attack on the import, each built from a valid bundle of a real (tiny) run and bent
 * in one way, with what the app must answer: a refusal naming the entry or bound, or (for payloads
 * that are valid data) acceptance as inert text. tests/e2e/hostile-import.test.ts imports every one
 * through the app's own Import button; `npm run bench -- import` uses heavyBundle.
 *
 *   npx tsx scripts/hostile-bundles.ts [--out DIR]   # writes DIR/<name>.a1run (default test-artifacts/hostile)
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { strFromU8, strToU8, unzipSync, zipSync, type Zippable } from "fflate";
import { exportBundle, sha256Hex, taskSetHash, type RunSnapshot, type SnapshotCheckpoint } from "../src/core/bundle.ts";
import { bundleBounds } from "../src/core/bundle-bounds.ts";
import { parseConfig, type Config } from "../src/core/config/index.ts";
import { emptyMistakeBook, updateMistakeBook, type MistakeBook } from "../src/core/loop/mistake-book.ts";
import type { DuelRecord, StepMetrics } from "../src/core/loop/types.ts";
import { Rng } from "../src/core/rng.ts";
import { duel, fakeMetrics, policyBytes } from "../tests/unit/storage/helpers.ts";

/** One hostile file and what the app must do with it. */
export interface HostileBundle {
  /** File name stem: `<name>.a1run`. */
  name: string;
  /** The attack, in words. */
  what: string;
  bytes: Uint8Array;
  /** The refusal's message must match; null: the file is valid data and must be accepted, shown inert. */
  refused: RegExp | null;
}

/** A script payload: run as code anywhere, it sets this global. */
export const PWNED = "__a1pwned";
const SCRIPT = `<img src=x onerror="window.${PWNED}=1"><script>window.${PWNED}=1</script>`;
const EXPORTED_AT = "2026-01-01T00:00:00.000Z";
const TASK = "t1";

/** A run of `steps` steps of `config` (a 4-step tiny code-a1 run by default), with checkpoints at `checkpointSteps`. */
export async function runSnapshot(opts: { id?: string; steps?: number; config?: Partial<Config>; checkpointSteps?: number[]; seed?: number } = {}): Promise<RunSnapshot> {
  const steps = opts.steps ?? 4;
  const seed = opts.seed ?? 5;
  const config = parseConfig({ seed, steps, ...opts.config });
  const rng = new Rng(seed);
  const metrics: StepMetrics[] = [];
  const duels: { step: number; records: DuelRecord[] }[] = [];
  let book: MistakeBook = emptyMistakeBook();
  const books = new Map<number, MistakeBook>([[0, book]]);
  for (let s = 1; s <= steps; s++) {
    book = updateMistakeBook(book, TASK, s, { failed: [{ test: `assert f(${s}) == ${s}`, code: "def f(x):\n    return 0" }], passed: [] }).book;
    books.set(s, book);
    metrics.push(fakeMetrics(s, rng));
    if (s > steps - config.duel_records_kept) duels.push({ step: s, records: [duel(s, TASK)] });
  }
  const checkpoints: SnapshotCheckpoint[] = (opts.checkpointSteps ?? []).map((step, i) => ({
    step, kept: true, rng_state: null, loop_state: { cursor: step }, mistake_book: books.get(step)!,
    policies: Object.fromEntries((["code", "test"] as const).map((p, j) => [p, new Uint8Array(policyBytes(seed + 2 * i + j, p === "code" ? config.code_model : config.test_model))])),
  }));
  const task_set_hash = await taskSetHash([{ id: TASK, reference: "def f(x):\n    return x" }]);
  return {
    run: { id: opts.id ?? "stranger-run", name: "a stranger's run", status: "done", created: 1_767_225_600_000, updated: 1_767_225_600_000, step: steps, rng_state: rng.state(), task_set_hash, loop_state: { cursor: steps } },
    config, metrics, mistake_book: book, checkpoints, duels,
  };
}

/** The files of a bundle, its manifest apart. */
type Files = Record<string, Uint8Array>;

/** Unzip, edit the files and the manifest, zip again (the manifest's sizes and checksums recomputed unless `fix` is false). */
async function rebundle(bundle: Uint8Array, edit: (files: Files, manifest: Record<string, unknown>) => void, fix = true, manifestText = (t: string) => t, deflateBins = false): Promise<Uint8Array> {
  const files = unzipSync(bundle);
  const manifest = JSON.parse(strFromU8(files["manifest.json"])) as Record<string, unknown>;
  delete files["manifest.json"];
  edit(files, manifest);
  if (fix) manifest.files = await Promise.all(Object.entries(files).map(async ([path, data]) => ({ path, bytes: data.length, sha256: await sha256Hex(data) })));
  const zip: Zippable = { "manifest.json": strToU8(manifestText(JSON.stringify(manifest))) };
  for (const [p, d] of Object.entries(files)) zip[p] = [d, { level: p.endsWith(".bin") && !deflateBins ? 0 : 6 }];
  return zipSync(zip);
}

/* eslint-disable @typescript-eslint/no-explicit-any -- the edits below reach into raw JSON on purpose */
const editJson = (files: Files, name: string, f: (v: any) => unknown) => {
  files[name] = strToU8(JSON.stringify(f(JSON.parse(strFromU8(files[name])))));
};
const editRecords = (files: Files, f: (r: any) => unknown) => editJson(files, "duels.json", (d: any[]) => d.map((s) => ({ ...s, records: s.records.map(f) })));
/* eslint-enable @typescript-eslint/no-explicit-any */

/** Rewrite an entry's name in place (local header and central directory): fflate never writes two entries of one name. */
function renameEntry(zip: Uint8Array, from: string, to: string): Uint8Array {
  if (from.length !== to.length) throw new RangeError("renameEntry keeps the name's length");
  const out = zip.slice();
  const a = strToU8(from);
  const b = strToU8(to);
  for (let p = 0; p + a.length <= out.length; p++) {
    if (a.every((x, i) => out[p + i] === x)) out.set(b, p);
  }
  return out;
}

/** Patch the uncompressed size the central directory declares for `name`. */
export function declareSize(zip: Uint8Array, name: string, size: number): Uint8Array {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  for (let p = out.length - 22; p >= 0; p--) {
    if (view.getUint32(p, true) !== 0x02014b50) continue;
    const n = view.getUint16(p + 28, true);
    if (strFromU8(out.subarray(p + 46, p + 46 + n)) === name) {
      view.setUint32(p + 24, size, true);
      return out;
    }
  }
  throw new Error(`${name} is not in the central directory`);
}

/** A checkpoint's float blocks (weights, m, v, reference), to corrupt in place. */
function floats(bin: Uint8Array): Float32Array {
  const header = new DataView(bin.buffer, bin.byteOffset).getUint32(8, true);
  const start = (12 + header + 3) & ~3;
  return new Float32Array(bin.buffer, bin.byteOffset + start, (bin.length - start) >> 2);
}

/** The corpus: every class of issue 32, each file small (the largest about two tiny checkpoints). */
export async function hostileBundles(): Promise<HostileBundle[]> {
  const plain = await exportBundle(await runSnapshot(), EXPORTED_AT);
  const weighted = await exportBundle(await runSnapshot({ checkpointSteps: [4] }), EXPORTED_AT);
  const out: HostileBundle[] = [];
  const add = (name: string, what: string, bytes: Uint8Array, refused: RegExp | null) => out.push({ name, what, bytes, refused });
  const weights = (mutate: (x: Float32Array, bin: Uint8Array) => Uint8Array | void) =>
    rebundle(weighted, (f) => {
      const bin = f["checkpoints/4-test.bin"].slice();
      f["checkpoints/4-test.bin"] = mutate(floats(bin), bin) ?? bin;
    });

  // Not a bundle at all.
  add("empty", "an empty file", new Uint8Array(0), /the file is empty/);
  add("not-a-zip", "a text file named .a1run", strToU8("<html><script>alert(1)</script></html> not a zip"), /not a zip archive/);
  add("truncated", "the first half of a real bundle", plain.slice(0, plain.length >> 1), /not a zip archive|truncated/);
  add("zip-of-something-else", "a zip of unrelated files", zipSync({ "readme.txt": strToU8("hi") }), /unexpected entry "readme\.txt"/);

  // Small files that inflate past what a real run holds (refused before inflating).
  add("bomb-checkpoint", "a 16 MB checkpoint of zeros, deflated to kilobytes", await rebundle(weighted, (f) => void (f["checkpoints/4-code.bin"] = new Uint8Array(16 << 20)), true, undefined, true),
    /checkpoints\/4-code\.bin would inflate to 16777216 bytes, more than the \d+ a real run holds there \(a tiny policy's checkpoint\)/);
  add("bomb-metrics", "metrics.json of 8 MB of spaces", await rebundle(plain, (f) => void (f["metrics.json"] = strToU8(strFromU8(f["metrics.json"]) + " ".repeat(8 << 20)))),
    /metrics\.json would inflate to \d+ bytes, more than the \d+ a real run holds there \(4 steps x \d+ bytes of StepMetrics\)/);
  add("lying-size", "duels.json declares 10 bytes in the manifest and the zip, holds more", declareSize(await rebundle(plain, (_f, m) => void (m.files = (m.files as { path: string; bytes: number }[]).map((x) => (x.path === "duels.json" ? { ...x, bytes: 10 } : x))), false), "duels.json", 10),
    /duels\.json inflates to more than the 10 bytes it declares/);
  add("lying-size-big", "the zip declares 4 GB for mistake-book.json", declareSize(plain, "mistake-book.json", 0xfffffff0),
    /mistake-book\.json (would inflate to \d+ bytes, more than|has \d+ bytes, the manifest says)/);

  // More records than the run's own config can write.
  const entry = (i: number) => ({ test: `assert f(${i}) == ${i}`, frequency: 1, first_step: 1, last_step: 1, failed_code: "def f(x):\n    return 0" });
  add("too-many-mistakes", "20,000 Mistake Book rows for a 4-step run", await rebundle(plain, (f) => void (f["mistake-book.json"] = strToU8(JSON.stringify({ tasks: { [TASK]: Array.from({ length: 20_000 }, (_, i) => entry(i)) } })))),
    /mistake-book\.json( would inflate to \d+ bytes, more than|: the Mistake Book's entry count holds 20000, more than the \d+ a real run of this config holds)/);
  add("too-many-steps", "run.step 400,000 in a run of 4 steps", await rebundle(plain, (_f, m) => void (m.run = { ...(m.run as object), step: 400_000 })), /run\.step must be an integer in 0\.\.4 \(config\.steps\)/);
  add("too-many-records", "50 duel records in one step, tasks_per_step is 4", await rebundle(plain, (f) => editJson(f, "duels.json", (d: { step: number; records: unknown[] }[]) => d.map((s) => ({ ...s, records: Array.from({ length: 50 }, () => s.records[0]) })))),
    /duels\.json\[0\]\.records holds 50, more than the 4 a real run of this config holds \(tasks_per_step\)/);
  add("too-many-checkpoints", "a checkpoint at a step past the run's", await rebundle(weighted, (f) => editJson(f, "checkpoints.json", (c: { step: number }[]) => [...c, { ...c[0], step: 9 }])),
    /checkpoints\.json\[1\] must be \{step in 0\.\.4/);

  // Records malformed in depth.
  add("duel-codes", "duel codes [null, 1, {text: 5}]", await rebundle(plain, (f) => editRecords(f, (r) => ({ ...r, codes: [null, 1, { text: 5 }] }))), /duels\.json: \[0\]\.records\[0\]\.codes\[0\] must be an object/);
  add("duel-topvar", "duel topvar {}", await rebundle(plain, (f) => editRecords(f, (r) => ({ ...r, topvar: {} }))), /topvar\.std is missing/);
  add("duel-verdict", "a line verdict that is not pass or fail", await rebundle(plain, (f) => editRecords(f, (r) => ({ ...r, codes: r.codes.map((c: { suites: { lines: unknown[] }[] }) => ({ ...c, suites: c.suites.map((s) => ({ ...s, lines: [{ validity: "valid", verdict: { toString: "x" }, reason: "" }] })) })) }))),
    /verdict must be one of pass, fail/);
  add("metrics-nan", "a metric that is a string", await rebundle(plain, (f) => editJson(f, "metrics.json", (m: Record<string, unknown>[]) => [{ ...m[0], kl_code: "NaN" }, ...m.slice(1)])), /metrics\.json\[0\]\.kl_code must be a finite number/);
  add("rng-zero", "an all-zero generator state (draws 0 for ever)", await rebundle(plain, (_f, m) => void (m.run = { ...(m.run as object), rng_state: [0, 0, 0, 0] })), /manifest run: rng_state is all zeros/);
  add("id-direction", "a run id with a right-to-left override (reads as another run's)", await rebundle(plain, (_f, m) => void (m.run = { ...(m.run as object), id: "my-own-run\u202e2-" })), /manifest run\.id "my-own-run\\u202e2-" holds control or text-direction characters/);
  add("config-range", "a config value out of its range", await rebundle(plain, (f) => editJson(f, "config.json", (c: Record<string, unknown>) => ({ ...c, num_generations: 100_000 }))), /config\.json: config\.num_generations: expected a value in \[2, 64\]/);

  // Weights: not finite, garbage, of another shape, names or size.
  add("weights-nan", "NaN in the Test policy's weights", await weights((x) => void (x[5] = NaN)), /checkpoints\/4-test\.bin: tensor wte \(weights\) holds NaN at index 5/);
  add("weights-infinity", "Infinity in the reference weights", await weights((x) => void (x[x.length - 1] = Infinity)), /checkpoints\/4-test\.bin: tensor \S+ \(reference weights\) holds Infinity/);
  const rng = new Rng(9);
  add("weights-garbage", "random bytes in place of floats", await weights((x) => new Uint32Array(x.buffer, x.byteOffset, x.length).forEach((_, i, a) => void (a[i] = rng.int(2 ** 32)))), /checkpoints\/4-test\.bin: tensor \S+ \(weights\) holds/);
  add("weights-shape", "tiny weights where the config names a small Test policy", await rebundle(weighted, (f) => editJson(f, "config.json", (c: Record<string, unknown>) => ({ ...c, test_model: "small" }))),
    /checkpoints\/4-test\.bin is not a small policy of this app's vocabulary \(layers \d+, expected \d+/);
  add("weights-names", "a tensor renamed in the checkpoint's header", await weights((_x, bin) => renameEntry(bin, '"wte"', '"wtf"')), /checkpoints\/4-test\.bin: checkpoint parameter table does not match its config/);
  add("weights-dtype", "float64 data: twice the bytes of float32", await weights((x, bin) => {
    const wide = new Uint8Array(bin.length + x.byteLength);
    wide.set(bin);
    return wide;
  }), /checkpoints\/4-test\.bin (would inflate to \d+ bytes, more than|: checkpoint is \d+ bytes, expected)/);
  add("weights-cut", "a checkpoint cut short", await rebundle(weighted, (f) => void (f["checkpoints/4-test.bin"] = f["checkpoints/4-test.bin"].slice(0, 1000))), /checkpoints\/4-test\.bin: checkpoint (header is truncated|is 1000 bytes)/);

  // Nesting, prototype keys, entries.
  const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
  add("deep-nesting", "two million levels of nesting in a checkpoint's loop_state", await rebundle(weighted, (f) => {
    f["checkpoints.json"] = strToU8(strFromU8(f["checkpoints.json"]).replace('"loop_state":{"cursor":4}', `"loop_state":${deep(2_000_000)}`));
  }), /checkpoints\.json is nested more than 64 levels deep/);
  add("deep-nesting-manifest", "deep nesting in the manifest's run.loop_state", await rebundle(plain, (_f, m) => void (m.run = { ...(m.run as object), loop_state: "__DEEP__" }), true, (t) => t.replace('"__DEEP__"', deep(5_000))),
    /manifest\.json is nested more than 64 levels deep/);
  add("proto-config", "__proto__ in config.json", await rebundle(plain, (f) => void (f["config.json"] = strToU8(strFromU8(f["config.json"]).replace("{", '{"__proto__":{"polluted":1},')))), /config\.__proto__: unknown field/);
  add("proto-run", "a constructor key in the manifest's run", await rebundle(plain, (_f, m) => void (m.run = JSON.parse(JSON.stringify(m.run).replace("{", '{"constructor":{"prototype":{"polluted":1}},')) as unknown)), /manifest run must have exactly the fields/);
  add("proto-path", "a manifest path named __proto__", await rebundle(plain, (_f, m) => void (m.files = [...(m.files as unknown[]), { path: "__proto__", bytes: 1, sha256: "0".repeat(64) }]), false), /\.path "__proto__" is not a file of an \.a1run bundle/);
  add("traversal", "an entry ../../etc/passwd", await rebundle(plain, (f) => void (f["../../etc/passwd"] = strToU8("root"))), /unexpected entry "\.\.\/\.\.\/etc\/passwd"/);
  add("traversal-bin", "a checkpoint path that climbs out", await rebundle(weighted, (f) => editJson(f, "checkpoints.json", (c: { policies: Record<string, string> }[]) => [{ ...c[0], policies: { ...c[0].policies, code: "checkpoints/../config.json" } }])),
    /policies\.code does not point at its weights file/);
  add("duplicate", "config.json twice in the zip", renameEntry(await rebundle(plain, (f) => void (f["config.jsoX"] = f["config.json"]), false), "config.jsoX", "config.json"), /contains "config\.json" twice/);
  add("unlisted", "an entry the manifest does not list", await rebundle(plain, (f) => void (f["checkpoints/3-code.bin"] = strToU8("x")), false), /manifest does not list/);
  add("checksum", "an edited file under the old checksum", await rebundle(plain, (f) => editJson(f, "metrics.json", (m: object[]) => m.map((x) => ({ ...x, code_reward: 1 }))), false),
    /metrics\.json (has \d+ bytes, the manifest says|does not match its checksum)/);
  add("newer-format", "a format version from the future", await rebundle(plain, (_f, m) => void (m.format_version = 99)), /newer than this app reads/);

  // Valid data that must stay inert: scripts in every text field, prototype-named tasks, a clock in 2286.
  add("script-payloads", "script payloads in the name, task ids, tests, codes and reasons", await exportBundle(await scriptSnapshot(), EXPORTED_AT), null);
  add("proto-tasks", "Mistake Book tasks named __proto__ and constructor", await rebundle(plain, (f) => {
    f["mistake-book.json"] = strToU8(`{"tasks": {"constructor": [${JSON.stringify(entry(1))}], "__proto__": [${JSON.stringify(entry(2))}]}}`);
  }), null);
  add("future-updated", "created and updated 9999999999999 (year 2286)", await rebundle(plain, (_f, m) => void (m.run = { ...(m.run as object), id: "future-run", created: 9_999_999_999_999, updated: 9_999_999_999_999 })), null);
  add("extreme-metrics", "metrics at the ends of the finite numbers (1e308, -1e308, 5e-324)", await rebundle(plain, (f, m) => {
    m.run = { ...(m.run as object), id: "extreme-run" };
    editJson(f, "metrics.json", (rows: Record<string, unknown>[]) => rows.map((x, i) => {
      const out: Record<string, unknown> = { ...x };
      for (const k of Object.keys(out)) if (k !== "step" && typeof out[k] === "number") out[k] = [1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER][i % 4];
      return out;
    }));
  }), null);
  add("long-texts", "a program and a failing program of a million characters (within what max_completion_length 4096 allows)", await exportBundle(await longSnapshot(), EXPORTED_AT), null);
  return out;
}

/** Characters of each long text of longSnapshot. */
export const LONG_CHARS = 1_000_000;

/** A valid run at max_completion_length 4096 whose program texts are as long as a million characters. */
async function longSnapshot(): Promise<RunSnapshot> {
  const s = await runSnapshot({ id: "long-run", config: { max_completion_length: 4096 } });
  const long = ("def f(x):\n" + "    x = x + 1\n".repeat(LONG_CHARS)).slice(0, LONG_CHARS);
  s.mistake_book = updateMistakeBook(emptyMistakeBook(), TASK, 1, { failed: [{ test: "assert f(1) == 2", code: long }], passed: [] }).book;
  s.duels = s.duels.map((d) => {
    const r = duel(d.step, TASK);
    r.codes[0].text = long;
    return { ...d, records: [r] };
  });
  return s;
}

/** A valid run whose every text field carries a script payload. */
async function scriptSnapshot(): Promise<RunSnapshot> {
  const s = await runSnapshot({ id: "payload-run" });
  const task = `${TASK}${SCRIPT}`;
  s.run.name = `payload ${SCRIPT}`;
  let book = emptyMistakeBook();
  book = updateMistakeBook(book, task, 1, { failed: [{ test: `assert f(1) == "${SCRIPT}"`, code: `def f(x):\n    return "${SCRIPT}"` }], passed: [] }).book;
  s.mistake_book = book;
  s.duels = s.duels.map((d) => {
    const r = duel(d.step, task);
    r.codes[0].text = `def f(x):\n    return "${SCRIPT}"`;
    r.codes[0].suites[0].text = `assert f(1) == "${SCRIPT}"`;
    r.codes[0].suites[0].lines[0].reason = SCRIPT;
    return { ...d, records: [r] };
  });
  return s;
}

/**
 * The heaviest file a run of this config may legitimately be: `steps` steps, a checkpoint at every
 * step (two tiny policies each) and a full Mistake Book. Accepted by the import: for the Cancel test
 * and the responsiveness bench.
 */
export async function heavyBundle(steps = 8): Promise<Uint8Array> {
  const s = await runSnapshot({ id: "heavy-run", steps, checkpointSteps: Array.from({ length: steps }, (_, i) => i + 1) });
  const bookRows = bundleBounds(s.config, steps).counts.mistakeEntries.max;
  const perTask = Math.ceil(bookRows / 8);
  const tasks: MistakeBook["tasks"] = {};
  for (let t = 0; t < 8 && t * perTask < bookRows; t++) {
    tasks[`task-${t}`] = Array.from({ length: Math.min(perTask, bookRows - t * perTask) }, (_, i) => ({ test: `assert f(${i}) == ${i} # ${"x".repeat(40)}`, frequency: 1 + (i % 5), first_step: 1, last_step: steps, failed_code: `def f(x):\n    return ${i}` }));
  }
  s.mistake_book = { tasks };
  return exportBundle(s, EXPORTED_AT);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const i = process.argv.indexOf("--out");
  const dir = i >= 0 ? process.argv[i + 1] : "test-artifacts/hostile";
  mkdirSync(dir, { recursive: true });
  for (const b of await hostileBundles()) {
    writeFileSync(join(dir, `${b.name}.a1run`), b.bytes);
    console.log(`${b.name}.a1run  ${b.bytes.length} bytes  ${b.what}`);
  }
}
