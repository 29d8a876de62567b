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
import { strFromU8, strToU8, unzipSync, zipSync, type Zippable } from "fflate";
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
    super(`Cannot open this .a1run file: ${message}`, options);
  }
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
  /** Largest single JSON file after inflating (bytes). */
  maxJsonBytes?: number;
  /** When given, the bundle's task set must have this hash. */
  expectTaskSetHash?: string;
}

const DEFAULT_LIMITS = { maxBundleBytes: 1 << 30, maxTotalBytes: 2 ** 31, maxJsonBytes: 256 << 20 };
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

/** Read and validate an `.a1run` zip. Throws BundleError on anything unexpected. */
export async function importBundle(bytes: Uint8Array, limits: ImportLimits = {}): Promise<RunSnapshot> {
  const lim = { ...DEFAULT_LIMITS, ...limits };
  if (bytes.length > lim.maxBundleBytes) throw new BundleError(`it is ${bytes.length} bytes, more than the ${lim.maxBundleBytes} allowed.`);
  const entries = unzipChecked(bytes, lim);
  const manifest = parseManifest(entries);
  // 1. Every file listed, present, of its size and hash; nothing else.
  const listed = new Set(manifest.files.map((f) => f.path));
  for (const name of entries.keys()) {
    if (name !== "manifest.json" && !listed.has(name)) throw new BundleError(`it contains ${JSON.stringify(name)}, which its manifest does not list.`);
  }
  for (const f of manifest.files) {
    const data = entries.get(f.path);
    if (!data) throw new BundleError(`${f.path} is listed in the manifest but missing (the file may be truncated).`);
    if (data.length !== f.bytes) throw new BundleError(`${f.path} has ${data.length} bytes, the manifest says ${f.bytes} (corrupted).`);
    if ((await sha256Hex(data)) !== f.sha256) throw new BundleError(`${f.path} does not match its checksum (corrupted or edited).`);
  }
  for (const name of JSON_FILES) if (!listed.has(name)) throw new BundleError(`${name} is missing.`);
  // 2. Every value against its schema.
  const json = (name: (typeof JSON_FILES)[number]) => parseJson(entries.get(name)!, name);
  const config = wrap("config.json", () => parseFullConfig(json("config.json")));
  const run = validateRun(manifest.run);
  if (manifest.seed !== config.seed) throw new BundleError(`manifest seed ${manifest.seed} differs from config.seed ${config.seed}.`);
  if (manifest.task_set_hash !== run.task_set_hash) throw new BundleError("manifest task_set_hash differs from the run's.");
  if (lim.expectTaskSetHash !== undefined && run.task_set_hash !== lim.expectTaskSetHash) {
    throw new BundleError("it was trained on a different task set than this app's; open it with the same task set.");
  }
  const metrics = validateMetrics(json("metrics.json"), run.step);
  const mistake_book = wrap("mistake-book.json", () => validateMistakeBook(json("mistake-book.json")));
  const duels = validateDuels(json("duels.json"), run.step);
  const checkpoints = validateCheckpoints(json("checkpoints.json"), run.step, entries);
  const binUsed = new Set(checkpoints.flatMap((c) => Object.keys(c.policies).map((p) => `checkpoints/${c.step}-${p}.bin`)));
  for (const path of listed) {
    if (path.endsWith(".bin") && !binUsed.has(path)) throw new BundleError(`${path} belongs to no checkpoint.`);
  }
  const snapshot: RunSnapshot = { run, config, metrics, mistake_book, checkpoints, duels };
  if (listed.has(TASK_SET_FILE)) {
    const file = wrap(TASK_SET_FILE, () => validateTaskFile(parseJson(entries.get(TASK_SET_FILE)!, TASK_SET_FILE), { strict: false }));
    if (!(await hashesTo(file, run.task_set_hash))) throw new BundleError(`${TASK_SET_FILE} is not the task set the run trained on (its hash differs from task_set_hash).`);
    snapshot.task_set = file;
  }
  return snapshot;
}

/** Whether a task file is the one a run's task_set_hash names (hashed as a file or as its task list). */
async function hashesTo(file: TaskFile, hash: string): Promise<boolean> {
  return (await taskSetHash(file)) === hash || (await taskSetHash(file.tasks)) === hash;
}

/**
 * The archive's entries by name. A Map, not the object fflate returns: names come from the file,
 * and looking one up in an object also finds inherited ones (`constructor`, `__proto__`).
 */
function unzipChecked(bytes: Uint8Array, lim: typeof DEFAULT_LIMITS): Map<string, Uint8Array> {
  const seen = new Set<string>();
  let total = 0;
  try {
    const unzipped = unzipSync(bytes, {
      filter: (f) => {
        if (seen.has(f.name)) throw new BundleError(`it contains ${JSON.stringify(f.name)} twice.`);
        seen.add(f.name);
        const known = f.name === "manifest.json" || isBundleFile(f.name);
        if (!known) throw new BundleError(`it contains an unexpected entry ${JSON.stringify(f.name.slice(0, 80))}.`);
        const max = f.name.endsWith(".json") ? lim.maxJsonBytes : lim.maxTotalBytes;
        total += f.originalSize;
        if (f.originalSize > max || total > lim.maxTotalBytes) {
          throw new BundleError(`${f.name} would inflate to ${f.originalSize} bytes (total ${total}), beyond the limit; refusing (possible zip bomb).`);
        }
        return true;
      },
    });
    return new Map(Object.entries(unzipped));
  } catch (e) {
    if (e instanceof BundleError) throw e;
    throw new BundleError(`it is not a readable zip archive (${e instanceof Error ? e.message : String(e)}); the file may be truncated or not an .a1run.`, { cause: e });
  }
}

interface Manifest {
  format: string;
  format_version: number;
  run: unknown;
  seed: number;
  task_set_hash: string;
  files: { path: string; bytes: number; sha256: string }[];
}

function parseManifest(entries: Map<string, Uint8Array>): Manifest {
  const raw = entries.get("manifest.json");
  if (!raw) throw new BundleError("manifest.json is missing; this is not an .a1run file.");
  const m = parseJson(raw, "manifest.json");
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
  const paths = new Set<string>();
  (m.files as unknown[]).forEach((f, i) => {
    if (!isRecord(f) || typeof f.path !== "string" || typeof f.bytes !== "number" || typeof f.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(f.sha256)) {
      throw new BundleError(`manifest files[${i}] must be {path, bytes, sha256}.`);
    }
    if (!isBundleFile(f.path)) {
      throw new BundleError(`manifest files[${i}].path ${JSON.stringify(f.path.slice(0, 80))} is not a file of an .a1run bundle (${JSON_FILES.join(", ")}, checkpoints/<step>-<policy>.bin).`);
    }
    if (paths.has(f.path)) throw new BundleError(`manifest lists ${f.path} twice.`);
    paths.add(f.path);
  });
  return m as unknown as Manifest;
}

function parseJson(data: Uint8Array, name: string): unknown {
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
  return v as unknown as RngState;
}

function validateRun(v: unknown): SnapshotRun {
  const keys = "created,id,loop_state,name,rng_state,status,step,task_set_hash,updated";
  if (!isRecord(v) || Object.keys(v).sort().join(",") !== keys) throw new BundleError(`manifest run must have exactly the fields ${keys}.`);
  if (typeof v.id !== "string" || v.id.length === 0 || v.id.length > 200) throw new BundleError("manifest run.id must be a non-empty string.");
  if (typeof v.name !== "string" || v.name.length > 1000) throw new BundleError("manifest run.name must be a string.");
  if (!RUN_STATUSES.includes(v.status as RunStatus)) throw new BundleError(`manifest run.status must be one of ${RUN_STATUSES.join(", ")}.`);
  if (!isInt(v.created) || !isInt(v.updated) || !isInt(v.step)) throw new BundleError("manifest run.created, updated and step must be non-negative integers.");
  if (typeof v.task_set_hash !== "string") throw new BundleError("manifest run.task_set_hash must be a string.");
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

function validateDuels(v: unknown, steps: number): RunSnapshot["duels"] {
  if (!Array.isArray(v)) throw new BundleError("duels.json must be an array.");
  const seen = new Set<number>();
  v.forEach((d: unknown, i) => {
    const at = `duels.json[${i}]`;
    if (!isRecord(d) || !isInt(d.step, 1) || d.step > steps || !Array.isArray(d.records)) throw new BundleError(`${at} must be {step in 1..${steps}, records: []}.`);
    if (seen.has(d.step)) throw new BundleError(`${at}: step ${d.step} appears twice.`);
    seen.add(d.step);
    d.records.forEach((r: unknown, j) => {
      if (!isRecord(r) || r.step !== d.step || typeof r.task !== "string" || !Array.isArray(r.codes) || !isRecord(r.topvar)) {
        throw new BundleError(`${at}.records[${j}] is not a duel record of step ${d.step}.`);
      }
    });
  });
  return v as RunSnapshot["duels"];
}

function validateCheckpoints(v: unknown, steps: number, entries: Map<string, Uint8Array>): SnapshotCheckpoint[] {
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
