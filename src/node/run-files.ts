/**
 * Runs as files, for the Node command lines (scripts/train.ts, eval.ts, reproduce.ts): task files,
 * `.a1run` bundles (the app's format, src/core/bundle.ts), an in-memory RunStore that becomes a
 * bundle, the evaluation bench cached on disk, and the two players on the wasm backend, started
 * from the base checkpoints in public/checkpoints/ (or fresh seeded weights when none ship).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { benchFile, benchFromFile, benchKey, mutantsKey } from "../core/arena/bench-file.ts";
import { exportBundle, importBundle, type RunSnapshot, type SnapshotCheckpoint } from "../core/bundle.ts";
import { IMPORTED_TASK_SET, TASK_SETS, type Config } from "../core/config/fields.ts";
import type { Bench } from "../core/arena/metrics-evaluate.ts";
import { prepareBench } from "../core/arena/mutants.ts";
import { HeldoutIndex, withoutLeakingMutants } from "../core/arena/split-leaks.ts";
import { validateTaskFile, type Task, type TaskFile, type ValidateOptions } from "../core/arena/task.ts";
import { BUILTIN_TASK_SETS, builtinTaskSet } from "../core/arena/task-suite.ts";
import { baseCheckpointFile } from "../core/duel/pretrain.ts";
import type { RunCommit, RunStore } from "../core/duel/run.ts";
import type { Grader } from "../core/grader/types.ts";
import { emptyMistakeBook, type MistakeBook, type MistakeBookDelta } from "../core/loop/mistake-book.ts";
import type { EvalProgress } from "../core/arena/metrics-evaluate.ts";
import { createNodeRunPython, mutateSource } from "./python-runner.ts";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "../..");
/** The built-in task suite. */
export const DEFAULT_TASKS_PATH = join(ROOT, "src/core/arena/tasks/arena-v1.json");
/** Where base checkpoints ship (file names: baseCheckpointFile in src/core/duel/pretrain.ts). */
export const BASE_CHECKPOINT_DIR = join(ROOT, "public/checkpoints");

/** A run file or task file cannot be used; the message says which and why. */
export class RunFileError extends Error {
  override name = "RunFileError";
}

/**
 * Read and validate a task-suite file (default: the built-in arena-v1); `strict: false` for imported
 * files. A built-in set's name (`arena-v1`, `arena-v2`) gives that set.
 */
export function loadTaskFile(path = DEFAULT_TASKS_PATH, opts: ValidateOptions = {}): TaskFile {
  const builtin = builtinTaskSet(path);
  if (builtin) return builtin;
  if (!existsSync(path)) throw new RunFileError(`task file not found: ${path} (built-in sets: ${Object.keys(BUILTIN_TASK_SETS).join(", ")})`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new RunFileError(`task file ${path} is not valid JSON: ${(e as Error).message}`);
  }
  try {
    return validateTaskFile(raw, opts);
  } catch (e) {
    throw new RunFileError(`task file ${path} is not a valid task suite: ${(e as Error).message}`);
  }
}

/**
 * The task set a command line's run uses: `--tasks` when given (a built-in name is recorded as the
 * config's task_set, so the bundle says what it trained on), else the config's task_set.
 */
export function runTaskFile(tasksFlag: string | undefined, config: Config): { file: TaskFile; config: Config } {
  if (tasksFlag === undefined) {
    if (IMPORTED_TASK_SET.test(config.task_set)) {
      throw new RunFileError(`task_set ${config.task_set} names a set imported in a browser: give its task file with --tasks FILE (a run's bundle carries it)`);
    }
    return { file: loadTaskFile(config.task_set), config };
  }
  const file = loadTaskFile(tasksFlag);
  const named = (TASK_SETS as readonly string[]).includes(tasksFlag) ? { ...config, task_set: tasksFlag as Config["task_set"] } : config;
  return { file, config: named };
}

/** Read an `.a1run` bundle, fully validated (BundleError says what is wrong). */
export async function readRunFile(path: string): Promise<RunSnapshot> {
  if (!existsSync(path)) throw new RunFileError(`run file not found: ${path}`);
  return importBundle(new Uint8Array(readFileSync(path)));
}

/** Write a run as an `.a1run` bundle; written to a temporary name first, so a crash never leaves half a file. */
export async function writeRunFile(path: string, snapshot: RunSnapshot): Promise<void> {
  const bytes = await exportBundle(snapshot);
  mkdirSync(dirname(resolve(path)), { recursive: true });
  const tmp = `${path}.partial`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, path);
}

/** Apply one step's Mistake Book deltas (the same rule as storage/runs.ts commitStep). */
export function applyMistakeBookDeltas(book: MistakeBook, deltas: readonly MistakeBookDelta[]): MistakeBook {
  const tasks = { ...book.tasks };
  for (const d of deltas) {
    const entries = new Map((tasks[d.task] ?? []).map((e) => [e.test, e]));
    for (const test of d.removed) entries.delete(test);
    for (const e of [...d.added, ...d.changed]) entries.set(e.test, e);
    if (entries.size) tasks[d.task] = [...entries.values()];
    else delete tasks[d.task];
  }
  return { tasks };
}

/**
 * The Node RunStore: keeps the run as a RunSnapshot in memory (the same shape IndexedDB exports)
 * and writes it to `path` at every kept checkpoint and at the end, so a long run can be opened
 * before it finishes. One rolling checkpoint is kept, as in IndexedDB.
 */
export class FileRunStore implements RunStore {
  readonly snapshot: RunSnapshot;

  constructor(
    readonly path: string | null,
    init: { id: string; name: string; config: Config; taskSetHash: string; initial?: SnapshotCheckpoint; taskSet?: TaskFile },
  ) {
    const t = Date.now();
    this.snapshot = {
      run: { id: init.id, name: init.name, status: "created", created: t, updated: t, step: 0, rng_state: null, task_set_hash: init.taskSetHash, loop_state: null },
      config: init.config,
      metrics: [],
      mistake_book: emptyMistakeBook(),
      checkpoints: init.initial ? [init.initial] : [],
      duels: [],
      // A set the app does not ship travels in the bundle (it must hash to taskSetHash).
      ...(init.taskSet ? { task_set: init.taskSet } : {}),
    };
  }

  async commitStep(c: RunCommit): Promise<void> {
    const s = this.snapshot;
    if (c.step !== s.run.step + 1) throw new RangeError(`run ${c.runId}: step ${c.step} committed after step ${s.run.step}`);
    s.metrics.push(c.metrics);
    s.mistake_book = c.checkpoint ? c.checkpoint.mistakeBook : applyMistakeBookDeltas(s.mistake_book, c.mistakeBook);
    const keep = s.config.duel_records_kept;
    if (keep > 0) s.duels.push({ step: c.step, records: [...c.duels] });
    s.duels = s.duels.filter((d) => d.step > c.step - keep);
    if (c.checkpoint) {
      s.checkpoints = s.checkpoints.filter((cp) => cp.kept || cp.step === 0);
      s.checkpoints.push({
        step: c.step,
        kept: c.checkpoint.kept,
        policies: Object.fromEntries(Object.entries(c.checkpoint.policies).map(([k, b]) => [k, new Uint8Array(b.slice(0))])),
        mistake_book: c.checkpoint.mistakeBook,
        rng_state: c.rngState,
        loop_state: null,
      });
    }
    s.run = { ...s.run, step: c.step, rng_state: c.rngState, status: c.status ?? "running", updated: Date.now() };
    if (this.path && (c.checkpoint?.kept || c.status === "done")) await writeRunFile(this.path, s);
  }

  async save(): Promise<void> {
    if (this.path) await writeRunFile(this.path, this.snapshot);
  }
}

/** Path of the base checkpoint of a size, if one ships in public/checkpoints/ (npm run pretrain-base). */
export function baseCheckpointPath(size: Config["code_model"], dir = BASE_CHECKPOINT_DIR): string | null {
  const path = join(dir, baseCheckpointFile(size));
  return existsSync(path) ? path : null;
}


/**
 * The evaluation bench (plus tests + surviving mutants) for `tasks`, built once and cached in
 * `cacheDir` under the task set's hash and the mutants' key (bench-file.ts): building it runs every
 * reference and mutant in Pyodide, about two minutes for arena-v1 on two cores.
 */
export async function loadOrPrepareBench(
  grader: Grader,
  tasks: Task[],
  cacheDir: string | null,
  onProgress?: (p: EvalProgress) => void,
  heldout: HeldoutIndex = new HeldoutIndex(tasks),
): Promise<Bench> {
  // No mutant of a train task may be a held-out reference up to constants (split-leaks.ts); filtered
  // on the way out, so a bench cached before the filter is clean too.
  const clean = (b: Bench): Bench => ({ ...b, mutants: withoutLeakingMutants(b.tasks, b.mutants, heldout) });
  const source = mutateSource();
  const path = cacheDir ? join(cacheDir, `bench-${await benchKey(tasks)}-${await mutantsKey(source)}.json`) : null;
  if (path && existsSync(path)) {
    const { bench } = await benchFromFile(tasks, JSON.parse(readFileSync(path, "utf8")), source);
    if (bench) return clean(bench);
  }
  // One task per prepareBench call: a grader batch then holds one task's mutants, which keeps the
  // harness' work between steps short on a loaded machine (the supervisor's idle watchdog).
  const bench: Bench = { tasks, plus: new Map(), mutants: new Map() };
  const runPython = createNodeRunPython();
  for (const [i, t] of tasks.entries()) {
    const one = await prepareBench(grader, runPython, source, [t]);
    bench.plus.set(t.id, one.plus.get(t.id)!);
    bench.mutants.set(t.id, one.mutants.get(t.id) ?? []);
    onProgress?.({ phase: "mutants", done: i + 1, total: tasks.length, text: `plus tests and mutants for ${i + 1}/${tasks.length} tasks` });
  }
  if (path) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(`${path}.partial`, JSON.stringify(await benchFile(bench, source)));
    renameSync(`${path}.partial`, path);
  }
  return clean(bench);
}
