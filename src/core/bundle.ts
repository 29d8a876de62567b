/**
 * `.a1run` run bundles: one zip (fflate) that carries a whole run between machines, the app and the
 * command line. Import trusts nothing: sizes are checked before inflating, every file against the
 * manifest's SHA-256, every value against its schema; any problem is a BundleError that says what.
 *
 * Layout (format_version 1):
 *   manifest.json         {format, format_version, exported_at, run, seed, task_set_hash, files}
 *   config.json           the full Config
 *   metrics.json          StepMetrics[] for steps 1..run.step
 *   mistake-book.json     the Mistake Book after run.step
 *   duels.json            [{step, records: DuelRecord[]}] (the last steps kept)
 *   checkpoints.json      [{step, kept, policies: {name: path}, mistake_book, rng_state, loop_state}]
 *   checkpoints/<step>-<policy>.bin   serialised weights
 *   task-set.json         optional (format_version 2): the task file the run trained on, for a run on a
 *                         task set the app does not ship (an imported one); it must hash to task_set_hash
 */
import { strFromU8, strToU8, zipSync, type Zippable } from "fflate";
import { bundleBounds, configJsonBound, recordLimits, MAX_BUNDLE_BYTES, MAX_TOTAL_BYTES, WEIGHT_BOUNDS, type Bound, type BundleBounds } from "./bundle-bounds.ts";
import { inflateEntry, readCentralDirectory, ZipFormatError, type ZipEntry } from "./bundle-zip.ts";
import { arenaVocabulary } from "./duel/contexts.ts";
import { checkDuelRecord, checkMistakeEntry } from "./loop/record-schema.ts";
import { decodeCheckpoint, implausibleWeight } from "./policy/checkpoint.ts";
import { modelConfig, type ModelSize } from "./policy/config.ts";
import type { Config } from "./config/fields.ts";
import { parseFullConfig } from "./config/parse.ts";
import { validateMistakeBook, type MistakeBook } from "./loop/mistake-book.ts";
import { EVAL_METRIC_KEYS, LATER_STEP_METRIC_KEYS, migrateStepMetrics, RUN_STATUSES, STEP_METRIC_KEYS, type DuelRecord, type RunStatus, type StepMetrics } from "./loop/types.ts";
import { setOwn } from "./own.ts";
import type { RngState } from "./rng.ts";
import { validateTaskFile, type TaskFile } from "./arena/task.ts";

export const BUNDLE_FORMAT = "code-a1-arena/run";
/** Newest format read; version 1 (no task set) is still written when a bundle carries none. */
export const BUNDLE_VERSION = 2;
export const BUNDLE_EXTENSION = ".a1run";

/** A bundle cannot be read; the message says why and what to do. */
export class BundleError extends Error {
  override name = "BundleError";
  constructor(message: string, options?: ErrorOptions) {
    super(`Cannot open this .a1run file: ${showable(message)}`, options);
  }
}

/** Longest message a BundleError shows: names and values quoted from the file are the stranger's text. */
const MESSAGE_CHARS = 2000;

/**
 * A message quoting a stranger's file, fit to show: control and text-direction characters escaped
 * (\u202e would make the rest of a notice read backwards), clipped to MESSAGE_CHARS.
 */
function showable(message: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what this pattern finds
  const escaped = message.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return escaped.length > MESSAGE_CHARS ? `${escaped.slice(0, MESSAGE_CHARS)}… (${escaped.length - MESSAGE_CHARS} more characters)` : escaped;
}

/** The run's own fields, as stored (src/storage/db.ts RunRecord is these plus the config). */
export interface SnapshotRun {
  id: string;
  name: string;
  status: RunStatus;
  /** Epoch milliseconds. */
  created: number;
  updated: number;
  /** Last complete step (0: none yet). */
  step: number;
  /** RNG state after the last complete step (null before the first). */
  rng_state: RngState | null;
  /** Hash of the task set the run trains on (bundles check it). */
  task_set_hash: string;
  /** Other resumable loop state (e.g. a task-order cursor), JSON. */
  loop_state: unknown;
}

export interface SnapshotCheckpoint {
  step: number;
  kept: boolean;
  policies: Record<string, Uint8Array>;
  mistake_book: MistakeBook;
  rng_state: RngState | null;
  loop_state: unknown;
}

/** Everything of a run, independent of where it is stored. */
export interface RunSnapshot {
  run: SnapshotRun;
  config: Config;
  metrics: StepMetrics[];
  mistake_book: MistakeBook;
  checkpoints: SnapshotCheckpoint[];
  duels: { step: number; records: DuelRecord[] }[];
  /** The task set itself, when the run trained on one the app does not ship (an imported set). */
  task_set?: TaskFile;
}

export interface ImportLimits {
  /** Largest bundle file accepted (bytes). */
  maxBundleBytes?: number;
  /** Largest total size after inflating (bytes). */
  maxTotalBytes?: number;
  /** When given, the bundle's task set must have this hash. */
  expectTaskSetHash?: string;
}

const DEFAULT_LIMITS = { maxBundleBytes: MAX_BUNDLE_BYTES, maxTotalBytes: MAX_TOTAL_BYTES };
const JSON_FILES = ["config.json", "metrics.json", "mistake-book.json", "duels.json", "checkpoints.json"] as const;
const TASK_SET_FILE = "task-set.json";
const POLICY_NAME = /^[a-z][a-z0-9_-]{0,31}$/;
const BIN_PATH = /^checkpoints\/(0|[1-9][0-9]{0,8})-([a-z][a-z0-9_-]{0,31})\.bin$/;

/** SHA-256 of bytes, lowercase hex (Web Crypto: Node >= 20 and browsers). */
export async function sha256Hex(data: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", data as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** JSON with object keys sorted, so that equal values hash equally. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** Hash identifying a task set: SHA-256 of its canonical JSON. */
export function taskSetHash(tasks: unknown): Promise<string> {
  return sha256Hex(strToU8(canonicalJson(tasks)));
}

/** Write a run as an `.a1run` zip. */
export async function exportBundle(snapshot: RunSnapshot, exportedAt = new Date().toISOString()): Promise<Uint8Array> {
  // What is written is what import accepts: one schema, one table of bounds.
  checkSnapshot(snapshot);
  const files: Record<string, Uint8Array> = {
    "config.json": strToU8(JSON.stringify(snapshot.config)),
    "metrics.json": strToU8(JSON.stringify(snapshot.metrics)),
    "mistake-book.json": strToU8(JSON.stringify(snapshot.mistake_book)),
    "duels.json": strToU8(JSON.stringify(snapshot.duels)),
  };
  const checkpoints = snapshot.checkpoints.map((cp) => {
    const policies: Record<string, string> = {};
    for (const [name, bytes] of Object.entries(cp.policies)) {
      if (!POLICY_NAME.test(name)) throw new RangeError(`policy name ${JSON.stringify(name)} must match ${POLICY_NAME}`);
      const path = `checkpoints/${cp.step}-${name}.bin`;
      policies[name] = path;
      files[path] = bytes;
    }
    return { step: cp.step, kept: cp.kept, policies, mistake_book: cp.mistake_book, rng_state: cp.rng_state, loop_state: cp.loop_state };
  });
  files["checkpoints.json"] = strToU8(JSON.stringify(checkpoints));
  if (snapshot.task_set) {
    if (!(await hashesTo(snapshot.task_set, snapshot.run.task_set_hash))) throw new RangeError("the run's task_set does not hash to its task_set_hash");
    files[TASK_SET_FILE] = strToU8(JSON.stringify(snapshot.task_set));
  }
  const listing = await Promise.all(Object.entries(files).map(async ([path, data]) => ({ path, bytes: data.length, sha256: await sha256Hex(data) })));
  const manifest = {
    format: BUNDLE_FORMAT,
    format_version: snapshot.task_set ? 2 : 1,
    exported_at: exportedAt,
    run: snapshot.run,
    seed: snapshot.config.seed,
    task_set_hash: snapshot.run.task_set_hash,
    files: listing,
  };
  // Every entry is stamped with the export time, not the clock at zipping: same run and time, same bytes.
  const mtime = new Date(exportedAt);
  const zip: Zippable = { "manifest.json": [strToU8(JSON.stringify(manifest, null, 1)), { mtime }] };
  // Weights barely compress; storing them keeps export fast.
  for (const [path, data] of Object.entries(files)) zip[path] = [data, { level: path.endsWith(".bin") ? 0 : 6, mtime }];
  return zipSync(zip, { mtime });
}

/** What the import is doing, for a progress bar. */
export interface ImportProgress {
  phase: "read" | "inflate" | "check" | "store";
  done: number;
  total: number;
  text: string;
}

export interface ImportOptions extends ImportLimits {
  onProgress?: (p: ImportProgress) => void;
  /** Checked between entries: an aborted import rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** A file's size before it is read at all: an empty file, or one larger than a bundle may be, is refused (reading 5 GB into memory would fail with a raw allocation error). */
export function checkBundleSize(size: number, max: number = MAX_BUNDLE_BYTES): void {
  if (size === 0) throw new BundleError(`the file is empty. ${WHAT_IS_A1RUN}`);
  if (size > max) throw new BundleError(`it is ${size} bytes, more than the ${max} allowed.`);
}

/** What a stranger's file should have been, for the messages that refuse one. */
export const WHAT_IS_A1RUN =
  "An .a1run file is a run exported by Code-A1 Arena (Runs & Compare > Export, or npm run train -- --out x.a1run): a zip of its manifest, config, metrics, Mistake Book, duel records and checkpoints.";

/**
 * Read and validate an `.a1run` zip. Throws BundleError on anything unexpected.
 *
 * 1. The central directory: names known and unique, nothing inflated yet.
 * 2. config.json, bounded by the config table alone; then manifest.json, bounded by the config.
 * 3. Every other entry's declared size against what a run of that config at that step can hold
 *    (bundle-bounds.ts), and the total: refused naming the entry and the bound, before inflating.
 * 4. Each entry inflated (never past its declared size), its size and SHA-256 against the manifest.
 * 5. Every record in depth with the schema the writer uses (checkSnapshot); weights decoded, of
 *    the model size the config names, finite and within what training can reach.
 */
export async function importBundle(bytes: Uint8Array, opts: ImportOptions = {}): Promise<RunSnapshot> {
  const lim = { ...DEFAULT_LIMITS, ...opts };
  const progress = (phase: ImportProgress["phase"], done: number, total: number, text: string) => opts.onProgress?.({ phase, done, total, text });
  const checkAbort = () => opts.signal?.throwIfAborted();
  checkBundleSize(bytes.length, lim.maxBundleBytes);
  // 1.
  progress("read", 0, 1, "reading the archive's directory");
  const entries = listEntries(bytes);
  const inflate = (e: ZipEntry, bound: Bound, onBytes?: (n: number) => void) => {
    if (e.size > bound.max) throw new BundleError(`${e.name} would inflate to ${e.size} bytes, more than the ${bound.max} a real run holds there (${bound.why}); refused before inflating (possible zip bomb).`);
    try {
      return inflateEntry(bytes, e, onBytes);
    } catch (err) {
      throw new BundleError(`${(err as Error).message}.`, { cause: err });
    }
  };
  // 2.
  const configEntry = entries.get("config.json");
  const manifestEntry = entries.get("manifest.json");
  if (!manifestEntry) throw new BundleError(`manifest.json is missing. ${WHAT_IS_A1RUN}`);
  if (!configEntry) throw new BundleError("config.json is missing.");
  const configBytes = inflate(configEntry, configJsonBound());
  const config = wrap("config.json", () => parseFullConfig(parseJson(configBytes, "config.json")));
  const manifestBytes = inflate(manifestEntry, bundleBounds(config, config.steps).json["manifest.json"]);
  const manifest = parseManifest(parseJson(manifestBytes, "manifest.json"));
  const run = validateRun(manifest.run, config);
  if (manifest.seed !== config.seed) throw new BundleError(`manifest seed ${manifest.seed} differs from config.seed ${config.seed}.`);
  if (manifest.task_set_hash !== run.task_set_hash) throw new BundleError("manifest task_set_hash differs from the run's.");
  if (lim.expectTaskSetHash !== undefined && run.task_set_hash !== lim.expectTaskSetHash) {
    throw new BundleError("it was trained on a different task set than this app's; open it with the same task set.");
  }
  // 3. Listed = present, each of its listed size and within its bound; nothing inflated yet.
  const bounds = bundleBounds(config, run.step);
  const listed = new Map(manifest.files.map((f) => [f.path, f]));
  for (const name of entries.keys()) {
    if (name !== "manifest.json" && !listed.has(name)) throw new BundleError(`it contains ${JSON.stringify(name)}, which its manifest does not list.`);
  }
  for (const name of JSON_FILES) if (!listed.has(name)) throw new BundleError(`${name} is missing.`);
  let total = manifestEntry.size;
  for (const f of manifest.files) {
    const e = entries.get(f.path);
    if (!e) throw new BundleError(`${f.path} is listed in the manifest but missing (the file may be truncated).`);
    if (e.size !== f.bytes) throw new BundleError(`${f.path} has ${e.size} bytes, the manifest says ${f.bytes} (corrupted).`);
    const bound = entryBound(f.path, bounds);
    if (e.size > bound.max) throw new BundleError(`${f.path} would inflate to ${e.size} bytes, more than the ${bound.max} a real run holds there (${bound.why}); refused before inflating (possible zip bomb).`);
    total += e.size;
  }
  if (total > lim.maxTotalBytes) throw new BundleError(`its files would inflate to ${total} bytes in all, more than the ${lim.maxTotalBytes} allowed; refused before inflating (possible zip bomb).`);
  // 4.
  const files = new Map<string, Uint8Array>([["config.json", configBytes]]);
  let done = 0;
  for (const f of manifest.files) {
    checkAbort();
    const e = entries.get(f.path)!;
    const data = f.path === "config.json" ? configBytes : inflate(e, { max: f.bytes, why: "its listed size" }, (n) => progress("inflate", done + n, total, `inflating ${f.path}`));
    done += data.length;
    progress("inflate", done, total, `checking ${f.path}`);
    if ((await sha256Hex(data)) !== f.sha256) throw new BundleError(`${f.path} does not match its checksum (corrupted or edited).`);
    files.set(f.path, data);
  }
  // 5.
  checkAbort();
  progress("check", 0, 1, "checking every record");
  const json = (name: (typeof JSON_FILES)[number]) => parseJson(files.get(name)!, name);
  const metrics = validateMetrics(json("metrics.json"), run.step);
  const mistake_book = wrap("mistake-book.json", () => validateMistakeBook(json("mistake-book.json")));
  const duels = json("duels.json") as RunSnapshot["duels"];
  const checkpoints = readCheckpoints(json("checkpoints.json"), run.step, files);
  const binUsed = new Set(checkpoints.flatMap((c) => Object.keys(c.policies).map((p) => `checkpoints/${c.step}-${p}.bin`)));
  for (const path of listed.keys()) {
    if (path.endsWith(".bin") && !binUsed.has(path)) throw new BundleError(`${path} belongs to no checkpoint.`);
  }
  const snapshot: RunSnapshot = { run, config, metrics, mistake_book, checkpoints, duels };
  if (listed.has(TASK_SET_FILE)) {
    const file = wrap(TASK_SET_FILE, () => validateTaskFile(parseJson(files.get(TASK_SET_FILE)!, TASK_SET_FILE), { strict: false }));
    if (!(await hashesTo(file, run.task_set_hash))) throw new BundleError(`${TASK_SET_FILE} is not the task set the run trained on (its hash differs from task_set_hash).`);
    snapshot.task_set = file;
  }
  checkSnapshot(snapshot, bounds);
  progress("check", 1, 1, "checked");
  return snapshot;
}

/**
 * Everything of a snapshot against the schema and the bounds of its config and step: what
 * exportBundle writes and what importBundle accepts are one definition. Throws BundleError.
 */
export function checkSnapshot(s: RunSnapshot, bounds: BundleBounds = bundleBounds(s.config, s.run.step)): void {
  const { counts, chars } = bounds;
  const steps = s.run.step;
  const lim = recordLimits(bounds, steps);
  const over = (what: string, n: number, b: Bound) => {
    if (n > b.max) throw new BundleError(`${what} holds ${n}, more than the ${b.max} a real run of this config holds (${b.why}).`);
  };
  const checkBook = (book: MistakeBook, at: string) => {
    const tasks = Object.entries(book.tasks);
    over(`${at}: the Mistake Book's entry count`, tasks.reduce((a, [, e]) => a + e.length, 0), counts.mistakeEntries);
    for (const [task, entries] of tasks) {
      if (task.length > chars.taskId.max) throw new BundleError(`${at}: a task id has ${task.length} characters, more than ${chars.taskId.max}.`);
      entries.forEach((e, i) => wrap(at, () => checkMistakeEntry(e, `tasks[${JSON.stringify(task.slice(0, 40))}][${i}]`, lim)));
    }
  };
  checkLoopState(s.run.loop_state, "manifest run.loop_state");
  checkBook(s.mistake_book, "mistake-book.json");
  if (!Array.isArray(s.duels)) throw new BundleError("duels.json must be a list.");
  const seen = new Set<number>();
  s.duels.forEach((d: unknown, i) => {
    const at = `duels.json[${i}]`;
    if (!isRecord(d) || Object.keys(d).sort().join(",") !== "records,step" || !isInt(d.step, 1) || d.step > steps || !Array.isArray(d.records)) {
      throw new BundleError(`${at} must be {step in 1..${steps}, records: [...]}.`);
    }
    if (seen.has(d.step)) throw new BundleError(`${at}: step ${d.step} appears twice.`);
    seen.add(d.step);
    over(`${at}.records`, d.records.length, counts.recordsPerStep);
    const step = d.step;
    d.records.forEach((r: unknown, j) => wrap("duels.json", () => checkDuelRecord(r, `[${i}].records[${j}]`, step, lim)));
  });
  over("duels.json: the number of steps", s.duels.length, counts.duelSteps);
  over("checkpoints.json: the number of checkpoints", s.checkpoints.length, counts.checkpoints);
  for (const c of s.checkpoints) {
    const at = `checkpoints.json step ${c.step}`;
    checkBook(c.mistake_book, at);
    checkLoopState(c.loop_state, `${at} loop_state`);
    const expected = Object.keys(bounds.weights).sort().join(",");
    if (Object.keys(c.policies).sort().join(",") !== expected) throw new BundleError(`${at}: its policies must be ${expected} (mode ${s.config.mode}).`);
    for (const [name, bytes] of Object.entries(c.policies)) checkWeights(bytes, `checkpoints/${c.step}-${name}.bin`, name === "test" ? s.config.test_model : s.config.code_model, bounds.weights[name]);
  }
}

/** A policy's weights: a checkpoint of the model size the config names, every value plausible. */
function checkWeights(bytes: Uint8Array, path: string, size: ModelSize, bound: Bound): void {
  if (bytes.length > bound.max) throw new BundleError(`${path} has ${bytes.length} bytes, more than the ${bound.max} of ${bound.why}.`);
  const data = wrap(path, () => decodeCheckpoint(bytes.slice().buffer as ArrayBuffer));
  const want = modelConfig(size, arenaVocabulary().size);
  const got = data.config;
  const keys = ["layers", "heads", "dModel", "context", "vocab", "tiedHead"] as const;
  const differ = keys.filter((k) => got[k] !== want[k]);
  if (differ.length > 0) throw new BundleError(`${path} is not a ${size} policy of this app's vocabulary (${differ.map((k) => `${k} ${String(got[k])}, expected ${String(want[k])}`).join("; ")}).`);
  const problem = implausibleWeight(data, WEIGHT_BOUNDS);
  if (problem) throw new BundleError(`${path}: ${problem}; no training writes that (corrupted or forged weights).`);
}

/** loop_state is free-form JSON the loop may keep: small and shallow, checked without recursion. */
const LOOP_STATE = { depth: 16, nodes: 10_000 } as const;
function checkLoopState(v: unknown, at: string): void {
  const stack: [unknown, number][] = [[v, 0]];
  let nodes = 0;
  while (stack.length > 0) {
    const [x, depth] = stack.pop()!;
    if (++nodes > LOOP_STATE.nodes) throw new BundleError(`${at} holds more than ${LOOP_STATE.nodes} values.`);
    if (depth > LOOP_STATE.depth) throw new BundleError(`${at} is nested more than ${LOOP_STATE.depth} levels deep.`);
    if (x === null || typeof x === "string" || typeof x === "boolean") continue;
    if (typeof x === "number") {
      if (!Number.isFinite(x)) throw new BundleError(`${at} holds a number that is not finite.`);
      continue;
    }
    if (typeof x !== "object") throw new BundleError(`${at} holds a value that is not JSON.`);
    for (const child of Object.values(x as object)) stack.push([child, depth + 1]);
  }
}

/** Each entry's bound by its path. */
function entryBound(path: string, b: BundleBounds): Bound {
  if (Object.hasOwn(b.json, path)) return b.json[path as keyof BundleBounds["json"]];
  const m = BIN_PATH.exec(path);
  const policy = m?.[2];
  if (policy && Object.hasOwn(b.weights, policy)) return b.weights[policy];
  return { max: 0, why: `no policy ${JSON.stringify(policy ?? path)} in a run of this mode` };
}

/** Whether a task file is the one a run's task_set_hash names (hashed as a file or as its task list). */
async function hashesTo(file: TaskFile, hash: string): Promise<boolean> {
  return (await taskSetHash(file)) === hash || (await taskSetHash(file.tasks)) === hash;
}

/**
 * The archive's entries by name, from its central directory (nothing inflated). A Map, not an
 * object: names come from the file, and looking one up in an object also finds inherited ones
 * (`constructor`, `__proto__`).
 */
function listEntries(bytes: Uint8Array): Map<string, ZipEntry> {
  let list: ZipEntry[];
  try {
    list = readCentralDirectory(bytes);
  } catch (e) {
    if (!(e instanceof ZipFormatError)) throw e;
    throw new BundleError(`${e.message}; the file may be truncated, or not an .a1run at all. ${WHAT_IS_A1RUN}`, { cause: e });
  }
  const entries = new Map<string, ZipEntry>();
  for (const e of list) {
    if (entries.has(e.name)) throw new BundleError(`it contains ${JSON.stringify(e.name.slice(0, 80))} twice.`);
    if (e.name !== "manifest.json" && !isBundleFile(e.name)) throw new BundleError(`it contains an unexpected entry ${JSON.stringify(e.name.slice(0, 80))}.`);
    entries.set(e.name, e);
  }
  return entries;
}

interface Manifest {
  format: string;
  format_version: number;
  run: unknown;
  seed: number;
  task_set_hash: string;
  files: { path: string; bytes: number; sha256: string }[];
}

const MANIFEST_KEYS = ["format", "format_version", "exported_at", "run", "seed", "task_set_hash", "files"];

function parseManifest(m: unknown): Manifest {
  if (!isRecord(m)) throw new BundleError("manifest.json is not an object.");
  if (m.format !== BUNDLE_FORMAT) throw new BundleError(`manifest format is ${JSON.stringify(m.format)}, expected ${JSON.stringify(BUNDLE_FORMAT)}.`);
  if (typeof m.format_version !== "number" || !Number.isInteger(m.format_version) || m.format_version < 1) {
    throw new BundleError("manifest format_version is missing or invalid.");
  }
  if (m.format_version > BUNDLE_VERSION) {
    throw new BundleError(`it has format version ${m.format_version}, newer than this app reads (${BUNDLE_VERSION}); update Code-A1 Arena.`);
  }
  if (typeof m.seed !== "number" || typeof m.task_set_hash !== "string" || !Array.isArray(m.files)) {
    throw new BundleError("manifest lacks seed, task_set_hash or files.");
  }
  // Exactly what exportBundle writes: nothing else rides along (a `__proto__` key is an own key of JSON.parse's result).
  const extra = Object.keys(m).filter((k) => !MANIFEST_KEYS.includes(k));
  if (extra.length > 0) throw new BundleError(`manifest has unknown fields ${extra.slice(0, 5).map((k) => JSON.stringify(k.slice(0, 40))).join(", ")} (it holds ${MANIFEST_KEYS.join(", ")}).`);
  if (typeof m.exported_at !== "string" || m.exported_at.length > 40) throw new BundleError("manifest exported_at must be a time (ISO text).");
  const paths = new Set<string>();
  (m.files as unknown[]).forEach((f, i) => {
    if (!isRecord(f) || Object.keys(f).length !== 3 || typeof f.path !== "string" || typeof f.bytes !== "number" || typeof f.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(f.sha256)) {
      throw new BundleError(`manifest files[${i}] must be {path, bytes, sha256}.`);
    }
    if (!isBundleFile(f.path)) {
      throw new BundleError(`manifest files[${i}].path ${JSON.stringify(f.path.slice(0, 80))} is not a file of an .a1run bundle (${[...JSON_FILES, TASK_SET_FILE].join(", ")}, checkpoints/<step>-<policy>.bin).`);
    }
    if (paths.has(f.path)) throw new BundleError(`manifest lists ${f.path} twice.`);
    paths.add(f.path);
  });
  return m as unknown as Manifest;
}

/**
 * Deepest nesting of any JSON file an app writes: duel records are about 10 levels, a checkpoint
 * with its loop_state (LOOP_STATE.depth) about 20. Deeper is refused before JSON.parse, which takes
 * seconds on millions of levels and whose result cannot be stored (structured clone recurses).
 */
export const MAX_JSON_DEPTH = 64;

/** Whether JSON text nests arrays and objects deeper than `max` (strings skipped), in one pass over the bytes. */
export function nestedDeeperThan(data: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < data.length; i++) {
    const c = data[i];
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

function parseJson(data: Uint8Array, name: string): unknown {
  if (nestedDeeperThan(data, MAX_JSON_DEPTH)) throw new BundleError(`${name} is nested more than ${MAX_JSON_DEPTH} levels deep; no run writes that (a forged file).`);
  try {
    return JSON.parse(strFromU8(data));
  } catch (e) {
    throw new BundleError(`${name} is not valid JSON.`, { cause: e });
  }
}

function wrap<T>(name: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof BundleError) throw e;
    throw new BundleError(`${name}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

const isInt = (v: unknown, min = 0): v is number => typeof v === "number" && Number.isInteger(v) && v >= min;

function validateRngState(v: unknown, where: string): RngState | null {
  if (v === null) return null;
  if (!Array.isArray(v) || v.length !== 4 || !v.every((x) => isInt(x) && x <= 0xffffffff)) throw new BundleError(`${where}: rng_state must be 4 uint32 or null.`);
  // xoshiro128** never reaches the zero state (it would draw 0 for ever): no run writes it.
  if (v.every((x) => x === 0)) throw new BundleError(`${where}: rng_state is all zeros, a state the generator never reaches (a forged file).`);
  return v as unknown as RngState;
}

/** Control characters (C0, DEL, C1) and the Unicode text-direction controls (embeddings, overrides, isolates, marks). */
// eslint-disable-next-line no-control-regex -- control characters are what this pattern finds
const UNSHOWABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** A name is shown in its own table cell (a text direction cannot leak out of it): control characters only, tabs and new lines allowed. */
// eslint-disable-next-line no-control-regex -- control characters are what this pattern finds
const CONTROL_IN_NAME = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

function validateRun(v: unknown, config: Config): SnapshotRun {
  const keys = "created,id,loop_state,name,rng_state,status,step,task_set_hash,updated";
  if (!isRecord(v) || Object.keys(v).sort().join(",") !== keys) throw new BundleError(`manifest run must have exactly the fields ${keys}.`);
  if (typeof v.id !== "string" || v.id.length === 0 || v.id.length > 200) throw new BundleError("manifest run.id must be a string of 1 to 200 characters.");
  // The id is shown in notices and tables: no control characters, no bidirectional overrides that would make it read as another run's.
  if (UNSHOWABLE.test(v.id)) throw new BundleError(`manifest run.id ${JSON.stringify(v.id.slice(0, 80))} holds control or text-direction characters.`);
  if (typeof v.name !== "string" || v.name.length > 1000) throw new BundleError("manifest run.name must be a string of at most 1000 characters.");
  if (CONTROL_IN_NAME.test(v.name)) throw new BundleError("manifest run.name holds control characters.");
  if (!RUN_STATUSES.includes(v.status as RunStatus)) throw new BundleError(`manifest run.status must be one of ${RUN_STATUSES.join(", ")}.`);
  if (!isInt(v.created) || !isInt(v.updated)) throw new BundleError("manifest run.created and updated must be times (non-negative integers, epoch ms).");
  if (!isInt(v.step) || v.step > config.steps) throw new BundleError(`manifest run.step must be an integer in 0..${config.steps} (config.steps).`);
  if (typeof v.task_set_hash !== "string" || v.task_set_hash.length > 200) throw new BundleError("manifest run.task_set_hash must be a string (a SHA-256 in hex).");
  validateRngState(v.rng_state, "manifest run");
  return v as unknown as SnapshotRun;
}

function validateMetrics(v: unknown, steps: number): StepMetrics[] {
  if (!Array.isArray(v)) throw new BundleError("metrics.json must be an array.");
  if (v.length !== steps) throw new BundleError(`metrics.json has ${v.length} steps, the run has ${steps}.`);
  const expected = ["step", ...STEP_METRIC_KEYS, ...EVAL_METRIC_KEYS].sort().join(",");
  v.forEach((m: unknown, i) => {
    const at = `metrics.json[${i}]`;
    if (!isRecord(m)) throw new BundleError(`${at} must have exactly the StepMetrics fields.`);
    // A bundle from an earlier version: renamed keys under today's names, later keys not measured then.
    migrateStepMetrics(m);
    if (Object.keys(m).sort().join(",") !== expected) {
      const want = ["step", ...STEP_METRIC_KEYS, ...EVAL_METRIC_KEYS];
      const missing = want.filter((k) => !Object.hasOwn(m, k));
      const extra = Object.keys(m).filter((k) => !want.includes(k as never));
      const hint = missing.length && !extra.length ? " (a bundle from an earlier version of the app, before these metrics existed: re-run it to compare it with new runs)" : "";
      throw new BundleError(`${at} must have exactly the StepMetrics fields; missing: ${missing.join(", ") || "none"}; unknown: ${extra.join(", ") || "none"}${hint}.`);
    }
    if (m.step !== i + 1) throw new BundleError(`${at}.step is ${String(m.step)}, expected ${i + 1}.`);
    const nullable = new Set<string>(LATER_STEP_METRIC_KEYS);
    for (const k of STEP_METRIC_KEYS) {
      if (nullable.has(k) && m[k] === null) continue;
      if (typeof m[k] !== "number" || !Number.isFinite(m[k])) throw new BundleError(`${at}.${k} must be a finite number${nullable.has(k) ? " or null" : ""}.`);
    }
    for (const k of EVAL_METRIC_KEYS) if (m[k] !== null && (typeof m[k] !== "number" || !Number.isFinite(m[k]))) throw new BundleError(`${at}.${k} must be a number or null.`);
  });
  return v as StepMetrics[];
}

function readCheckpoints(v: unknown, steps: number, entries: Map<string, Uint8Array>): SnapshotCheckpoint[] {
  if (!Array.isArray(v)) throw new BundleError("checkpoints.json must be an array.");
  const seen = new Set<number>();
  return v.map((c: unknown, i) => {
    const at = `checkpoints.json[${i}]`;
    if (!isRecord(c) || !isInt(c.step) || c.step > steps || typeof c.kept !== "boolean" || !isRecord(c.policies)) {
      throw new BundleError(`${at} must be {step in 0..${steps}, kept, policies, mistake_book, rng_state, loop_state}.`);
    }
    if (seen.has(c.step)) throw new BundleError(`${at}: step ${c.step} appears twice.`);
    seen.add(c.step);
    const policies: Record<string, Uint8Array> = {};
    for (const [name, path] of Object.entries(c.policies)) {
      const weights = typeof path === "string" ? entries.get(path) : undefined;
      if (!POLICY_NAME.test(name) || path !== `checkpoints/${c.step}-${name}.bin` || !weights) {
        throw new BundleError(`${at}.policies.${name.slice(0, 40)} does not point at its weights file.`);
      }
      setOwn(policies, name, weights);
    }
    const mistake_book = wrap(at, () => validateMistakeBook(c.mistake_book, `${at}.mistake_book`));
    return { step: c.step, kept: c.kept, policies, mistake_book, rng_state: validateRngState(c.rng_state, at), loop_state: c.loop_state ?? null };
  });
}

/** A file a bundle may hold besides its manifest. */
function isBundleFile(path: string): boolean {
  return (JSON_FILES as readonly string[]).includes(path) || path === TASK_SET_FILE || BIN_PATH.test(path);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
