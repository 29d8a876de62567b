// @ts-check
/**
 * The inside of the grader: one Pyodide interpreter running the harness (harness.py), and the code
 * that times it. Plain JavaScript (checked by tsc through JSDoc) because it runs where no loader
 * may: in the Node grader's child process under Node's permission model, and in the browser's
 * grader worker. Hosts (src/node/grader-child.mjs, workers/grader.worker.ts) only wire messages.
 *
 * Two roles, one file:
 *  - judge: parses test lines and runs the references (trusted code only);
 *  - sandbox: runs candidates, one UNIT (a load, then its calls) each.
 * In both the interpreter's memory is snapshotted after setup and restored before every unit, so each
 * candidate, and each reference, starts from the same pristine interpreter whatever ran before it
 * (a parse of test lines, another task's reference, another candidate), down to raw memory.
 * Neither decides a verdict: every step's result leaves as text, and the supervisor compares.
 *
 * Time: the runner interrupts a step past its limit from this same thread. Pyodide polls its
 * interrupt buffer every few dozen bytecodes; the buffer here is an object whose element 0 reads
 * as SIGINT (2) once the step's deadline has passed. A loop inside one C call never polls, and code
 * can swallow the KeyboardInterrupt: the supervisor, outside, kills the whole runner then.
 */

/** @typedef {"judge" | "sandbox"} RunnerRole */
/**
 * One candidate (or reference) to run: load `code`, then call `entry` on each of `calls`
 * (canonical argument texts), each step within its limit.
 * A unit: load `code`, then make `calls` in order. `fresh` (ascending call indices): before each of
 * these calls the program is loaded again (a fresh module: its globals, functions and memos new),
 * under `loadMs`, as a step of that call; a reload that is not ok is that call's result and the
 * result of every later call before the next reload (nothing is loaded to call).
 * `more`: more units of this program follow (a candidate's next suites): a heap it grew is kept
 * (whatever its size) until its last unit, which the heap bounds apply to.
 * @typedef {{ code: string, entry: string, calls: string[], loadMs: number, testMs: number, literal: boolean, fresh?: number[], more?: boolean }} RunnerUnit
 */
/**
 * Host -> runner.
 * @typedef {{ type: "plan", id: number, request: string } | { type: "unit", id: number, unit: RunnerUnit }} RunnerRequest
 */
/**
 * Runner -> host. `step` results are harness JSON texts ([outcome, ...]); outcome "timeout" is
 * the runner's own. `done` says whether this runner may take another unit (`fit`).
 * `start`: "snapshot" where Python's start was loaded from the base snapshot, else "fresh" (with why a
 * snapshot given was left).
 * @typedef {{ type: "ready", report: string, start?: string }
 *   | { type: "plan", id: number, plan: string }
 *   | { type: "step", id: number, step: number, result: string }
 *   | { type: "done", id: number, fit: boolean, why: string }
 *   | { type: "failed", id: number, error: string }} RunnerEvent
 */

/**
 * The environment every runner's interpreter starts with. A fixed hash seed: set and dict-of-str
 * iteration orders are then the same in the judge, in every sandbox and after every restart (each
 * process would otherwise draw its own, and a candidate equal to its reference could fail). `_`, which
 * Emscripten sets to the host's script (in Node the runner's own path, in a browser "./this.program"),
 * is the browser's everywhere: a program cannot tell a Node runner from a browser one or from the
 * truth interpreters of the tests, nor read the host's paths (round 39).
 */
export const RUNNER_ENV = Object.freeze({ PYTHONHASHSEED: "0", _: "./this.program", LANG: "C.UTF-8", TZ: "UTC" });

/**
 * Local time is UTC in every runner (round 45). Emscripten's tzset, localtime and mktime read the
 * host's time zone from JavaScript's Date (a browser's own zone, a Node process's TZ), which a program
 * reads in `time.timezone`, `time.localtime(0)`, `time.mktime`; and LANG, which sets CPython's
 * locale, came from the browser's language (RUNNER_ENV pins it). So the runners' Date is one whose
 * local time is UTC, installed in the runner's own global scope (a worker or a runner process) before
 * Python starts: the base snapshot holds what tzset found.
 * @param {typeof globalThis} scope
 */
export function pinLocalTime(scope) {
  const Host = scope.Date;
  if (/** @type {any} */ (Host).localTimeIsUtc) return;
  const P = Host.prototype;
  /** @param {string} name */
  const utc = (name) => /** @type {any} */ (P)[name.replace(/^(get|set)/, "$1UTC")];
  class UtcDate extends Host {
    /** @param {any[]} args  A date of local fields (year, month, ...) is a date of UTC fields. */
    constructor(...args) {
      if (args.length > 1) super(Host.UTC(...(/** @type {[number, number]} */ (/** @type {unknown} */ (args)))));
      else super(.../** @type {[]} */ (/** @type {unknown} */ (args)));
    }
    /** @override */
    getTimezoneOffset() {
      return 0;
    }
    /** Date's legacy year (years since 1900), in UTC as the rest. */
    getYear() {
      return this.getUTCFullYear() - 1900;
    }
  }
  for (const field of ["FullYear", "Month", "Date", "Day", "Hours", "Minutes", "Seconds", "Milliseconds"]) {
    for (const name of [`get${field}`, `set${field}`]) {
      if (name === "setDay") continue;
      Object.defineProperty(UtcDate.prototype, name, { value: utc(name), writable: true, configurable: true });
    }
  }
  Object.defineProperty(UtcDate, "localTimeIsUtc", { value: true });
  scope.Date = /** @type {DateConstructor} */ (/** @type {unknown} */ (UtcDate));
}

/**
 * A runner's Pyodide: from `snapshot` (a base snapshot, `takeBaseSnapshot`'s bytes) where one is
 * given and loads, else started from scratch with RUNNER_ENV; `start` says which, and why a snapshot
 * was left ("fresh: ..."): a snapshot of another build or a damaged one is never used. Started from
 * scratch with `onSnapshot`, it hands that callback the base snapshot of its own start (before the
 * harness: the caller has run nothing yet) and goes on as any runner.
 * @param {(options: any) => Promise<import("pyodide").PyodideAPI>} loadPyodide
 * @param {Record<string, unknown>} options loadPyodide's other options (indexURL)
 * @param {Uint8Array | undefined} snapshot
 * @param {(bytes: Uint8Array) => void} [onSnapshot]
 * @returns {Promise<{ pyodide: import("pyodide").PyodideAPI, start: string }>}
 */
export async function loadRunnerPyodide(loadPyodide, options, snapshot, onSnapshot) {
  pinLocalTime(globalThis);
  let start = "fresh";
  if (snapshot) {
    try {
      return { pyodide: await loadPyodide({ ...options, env: { ...RUNNER_ENV }, _loadSnapshot: snapshot }), start: "snapshot" };
    } catch (e) {
      start = `fresh: the base snapshot did not load (${String(/** @type {Error} */ (e)?.message ?? e).slice(0, 200)})`;
    }
  }
  const pyodide = await loadPyodide({ ...options, env: { ...RUNNER_ENV }, ...(onSnapshot ? { _makeSnapshot: true } : {}) });
  if (onSnapshot) onSnapshot(takeBaseSnapshot(pyodide));
  return { pyodide, start };
}

/** Part of a cached base snapshot's key: raised whenever `takeBaseSnapshot` makes another one. */
export const BASE_SNAPSHOT_RECIPE = 3;

/**
 * The base snapshot of `pyodide`, just started with RUNNER_ENV and `_makeSnapshot` (nothing else run):
 * its memory, so that a runner loads Python's start (a fraction of a second) instead of running it
 * (seconds). A runner loaded from it must be the interpreter a start from scratch gives
 * (tests/unit/grader/snapshot.test.ts compares them): Pyodide's last start step puts "" at the head of
 * sys.path on every load, from a snapshot too, so the snapshot is taken without it (and `pyodide` gets
 * it back).
 * @param {import("pyodide").PyodideAPI} pyodide
 * @returns {Uint8Array}
 */
export function takeBaseSnapshot(pyodide) {
  const sys = /** @type {any} */ (pyodide.pyimport("sys"));
  const path = sys.path;
  try {
    if (path.get(0) !== "") throw new Error(`sys.path does not start with "" after a start: ${path.toString()}`);
    path.remove(""); // the first: the only one
    try {
      return /** @type {any} */ (pyodide).makeMemorySnapshot();
    } finally {
      path.insert(0, "");
    }
  } finally {
    path.destroy();
    sys.destroy();
  }
}

/**
 * A base snapshot made by a Pyodide of its own, and loaded back once to prove it loads.
 * @param {(options: any) => Promise<import("pyodide").PyodideAPI>} loadPyodide
 * @param {Record<string, unknown>} options loadPyodide's other options (indexURL)
 * @returns {Promise<Uint8Array>}
 */
export async function makeBaseSnapshot(loadPyodide, options) {
  /** @type {Uint8Array | undefined} */
  let bytes;
  await loadRunnerPyodide(loadPyodide, options, undefined, (b) => (bytes = b));
  if (!bytes) throw new Error("no base snapshot was made");
  const back = await loadPyodide({ ...options, env: { ...RUNNER_ENV }, _loadSnapshot: bytes });
  const keys = Object.keys(RUNNER_ENV);
  const [env, zone] = JSON.parse(back.runPython(`import os, json, time; json.dumps([[os.environ.get(k) for k in ${JSON.stringify(keys)}], [time.timezone, time.daylight]])`));
  if (keys.some((k, i) => env[i] !== /** @type {Record<string, string>} */ (RUNNER_ENV)[k]) || zone[0] !== 0 || zone[1] !== 0) {
    throw new Error("the base snapshot lost the runners' environment");
  }
  return bytes;
}

/** Largest step result a runner sends (canonical values are capped far below; a forged one is not). */
const MAX_RESULT_CHARS = 1_000_000;

/** A runner whose wasm heap has grown past this is retired after its unit (memory never shrinks). */
export const MAX_HEAP_BYTES = 512 * 2 ** 20;
/**
 * A sandbox whose heap has grown more than this past its snapshot is retired after its unit (a
 * candidate's last: a unit with `more` keeps its heap for the same program's next suite): every
 * restore zero-fills the memory beyond the snapshot, so a candidate that grew the heap by 480 MiB
 * would otherwise cost every later unit of that runner ~40 ms (10x an honest unit), in every later
 * batch. A retirement costs that one candidate one runner start instead.
 */
export const MAX_HEAP_GROWTH_BYTES = 64 * 2 ** 20;

// Built-ins this file relies on, taken before any candidate runs: JavaScript that escaped Python
// could replace them on their prototypes, and the runner must not then restore memory with a
// forged `set` or time steps with a forged clock. (It would also be retired: see intrinsicsChanged.)
const { apply } = Reflect;
const { stringify } = JSON;
const now = performance.now.bind(performance);
const startsWith = String.prototype.startsWith;
const bytesSet = Uint8Array.prototype.set;
const bytesFill = Uint8Array.prototype.fill;
const bytesSlice = Uint8Array.prototype.slice;
const subarray = Uint8Array.prototype.subarray;
const mapKeys = Map.prototype.keys;
const mapClear = Map.prototype.clear;
const mapSize = /** @type {() => number} */ (/** @type {PropertyDescriptor} */ (Reflect.getOwnPropertyDescriptor(Map.prototype, "size")).get);
const arrayFrom = Array.from;
const begins = (/** @type {string} */ text, /** @type {string} */ prefix) => typeof text === "string" && apply(startsWith, text, [prefix]);

/** The objects whose properties JavaScript in this realm relies on. */
const INTRINSICS = () => [
  Object, Object.prototype, Function.prototype, Array, Array.prototype, String, String.prototype, Number.prototype,
  Boolean.prototype, Symbol.prototype, JSON, Math, Reflect, Promise, Promise.prototype, Error.prototype,
  Object.getPrototypeOf(Uint8Array.prototype), Uint8Array.prototype, Map.prototype, Set.prototype,
  WebAssembly, WebAssembly.Memory.prototype, WebAssembly.Table.prototype, Object.getPrototypeOf(performance),
];

/** Every own property (name and value or accessor) of the intrinsics, in order. */
function intrinsicsFingerprint() {
  /** @type {unknown[]} */
  const out = [];
  for (const obj of INTRINSICS()) {
    for (const key of Reflect.ownKeys(obj)) {
      const d = /** @type {PropertyDescriptor} */ (Reflect.getOwnPropertyDescriptor(obj, key));
      out.push(key, d.value, d.get, d.set);
    }
  }
  return out;
}

/** Whether any intrinsic property was added, removed or replaced since `before`. */
function intrinsicsChanged(/** @type {unknown[]} */ before) {
  const after = intrinsicsFingerprint();
  return after.length !== before.length || after.some((v, i) => v !== before[i] && !(Number.isNaN(v) && Number.isNaN(before[i])));
}

/**
 * A runner event as one line of JSON, written field by field: JSON.stringify of an object consults
 * `toJSON` on its prototype chain, which escaped JavaScript could plant.
 * @param {RunnerEvent} event
 */
export function encodeEvent(event) {
  const e = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (event));
  let text = "";
  for (const key of ["type", "id", "step", "fit", "why", "report", "start", "plan", "result", "error"]) {
    const v = e[key];
    if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") text += `${text ? "," : ""}${stringify(key)}:${stringify(v)}`;
  }
  return `{${text}}`;
}

/**
 * Load the harness into `pyodide`, lock the interpreter down, and return the runner.
 * @param {import("pyodide").PyodideAPI} pyodide
 * @param {string} harnessSource
 * @param {RunnerRole} role
 */
export function startRunner(pyodide, harnessSource, role) {
  let deadline = Infinity;
  let fired = false;
  pyodide.setInterruptBuffer(/** @type {any} */ ({
    get 0() {
      // Once per step: a second interrupt could land in Pyodide's glue after the harness has
      // returned. Code that swallows the first one is killed from outside.
      if (fired || now() <= deadline) return 0;
      fired = true;
      return 2; // SIGINT: KeyboardInterrupt in Python
    },
    set 0(_value) {},
  }));
  // Python's own output (print, sys.__stdout__, fatal-error reports) ends here, never in a console.
  const discard = { write: (/** @type {Uint8Array} */ bytes) => bytes.length };
  pyodide.setStdout(discard);
  pyodide.setStderr(discard);
  // Standard input is at EOF, as CPython's with nothing on it (`python3 < /dev/null`): a read gives
  // '' and input() EOFError (it is refused first: an audited event). Never the host's fd 0 (in Node
  // the runner's own request pipe), and never an OSError CPython would not raise (round 42).
  pyodide.setStdin({ stdin: () => null });
  // The harness lives in a private dict, not __main__ (which sys.modules would expose).
  const ns = /** @type {any} */ (pyodide.toPy({}));
  pyodide.runPython(harnessSource, { globals: ns, filename: "harness.py" });
  /** @type {Record<"setup" | "plan" | "load" | "call", (...args: unknown[]) => string>} */
  const harness = { setup: ns.get("setup"), plan: ns.get("plan"), load: ns.get("load"), call: ns.get("call") };
  ns.destroy();
  const report = harness.setup(role);
  const { jsproxies } = JSON.parse(report);
  if (jsproxies !== 0) throw new Error(`grader ${role}: ${jsproxies} JavaScript proxies survived the lockdown`);

  const M = /** @type {any} */ (pyodide)._module;
  // Python references held by JavaScript (PyProxies). A step returns text; anything else a forged
  // harness function returns (a dict, say) reaches JavaScript as a PyProxy, and Pyodide releases a
  // PyProxy that JavaScript's garbage collector finds unreachable with a Py_DecRef from a
  // FinalizationRegistry callback: LATER, between units, on whatever memory the restore put back
  // at that address. (A decref of a live object of the pristine interpreter frees it under the next
  // candidate, whose unit then crashes: a forged verdict.) So every PyProxy made after this point is
  // tracked and destroyed at the end of the step that made it, under that step's clock, while its
  // object is still there; and in the sandbox no PyProxy is ever registered for a late release.
  if (typeof M.enable_pyproxy_allocation_tracing !== "function" || !(M.pyproxy_alloc_map instanceof Map) || typeof M.pyproxy_destroy !== "function") {
    throw new Error(`grader ${role}: this Pyodide does not let the runner track its PyProxies`);
  }
  M.enable_pyproxy_allocation_tracing();
  /** @type {Map<unknown, unknown>} */
  const proxies = M.pyproxy_alloc_map;
  const destroyProxy = M.pyproxy_destroy;
  // Both roles restore their memory before a unit (below), so nothing may be released late.
  M.finalizationRegistry = Object.freeze({ register() {}, unregister() {} });
  /** Destroy every PyProxy made since the last sweep (a fatal error out of Pyodide ends the runner). */
  const sweep = () => {
    if (apply(mapSize, proxies, []) === 0) return;
    const made = arrayFrom(apply(mapKeys, proxies, []));
    apply(mapClear, proxies, []);
    for (const proxy of made) destroyProxy(proxy, "released by the grader", true);
  };
  const intrinsics = intrinsicsFingerprint();
  // Every unit starts from this snapshot, in both roles: a candidate's, and a reference's too (the
  // judge parses test lines between units, and a parse interns each identifier it reads for good;
  // CPython rebuilds a folded set of strings in another iteration order when an equal string was
  // interned before, so a reference run after a batch's lines iterated its own sets otherwise than
  // a candidate in a restored sandbox did).
  const snapshot = apply(bytesSlice, M.HEAPU8, []);
  // JavaScript-side state that Python changes through system calls, outside the wasm memory: the
  // file system's stream table and each stream object (os.close(1) closes fd 1's object in place,
  // os.dup2 replaces it, os.lseek moves it; none raises an audit event) are put back field by
  // field before every unit; what cannot be put back (a new file-system node: a pipe, a file; the
  // working directory; a loaded library; a grown function table) retires the runner after its unit.
  const streams = saveStreams(M.FS);
  const fsBaseline = fsFingerprint(M.FS);
  const libraries = () => Object.keys(M.LDSO?.loadedLibsByName ?? {}).length;
  const baseline = { libraries: libraries(), table: M.wasmTable?.length ?? 0 };

  // The snapshot as runs of pages: all-zero runs are put back with a fill (no read of the snapshot),
  // the others copied; a third of a fresh interpreter's pages are zero.
  const runs = pageRuns(snapshot);
  /** Whether the interpreter is as the snapshot left it (put back at the end of each unit, before its `done`). */
  let pristine = false;
  const restore = () => {
    const heap = M.HEAPU8;
    for (const [from, to, zero] of runs) {
      if (zero) apply(bytesFill, heap, [0, from, to]);
      else apply(bytesSet, heap, [apply(subarray, snapshot, [from, to]), from]);
    }
    if (heap.length > snapshot.length) apply(bytesFill, heap, [0, snapshot.length]);
    restoreStreams(M.FS, streams);
    pristine = true;
  };
  const fitness = (/** @type {boolean} */ more) => {
    restoreStreams(M.FS, streams);
    if (intrinsicsChanged(intrinsics)) return "JavaScript built-ins were changed";
    if (fsFingerprint(M.FS) !== fsBaseline) return "the file system changed";
    if (libraries() !== baseline.libraries) return "a library was loaded";
    if ((M.wasmTable?.length ?? 0) !== baseline.table) return "the function table grew";
    if (!more && M.HEAPU8.length > Math.min(MAX_HEAP_BYTES, snapshot.length + MAX_HEAP_GROWTH_BYTES)) return `the heap grew to ${Math.round(M.HEAPU8.length / 2 ** 20)} MiB`;
    return "";
  };
  /** Run one step within `limitMs`; a step interrupted or past its limit is a timeout. */
  const timed = (/** @type {number} */ limitMs, /** @type {() => string} */ step) => {
    fired = false;
    const t0 = now();
    deadline = t0 + limitMs;
    let out;
    try {
      try {
        out = step();
      } finally {
        sweep();
      }
    } catch (e) {
      // A Python exception out of the harness (an interrupt that landed after it returned) is the
      // step's; anything else is Pyodide failing, and ends this runner.
      if (typeof (/** @type {{ type?: unknown }} */ (e)?.type) !== "string") throw e;
      out = `["error",${stringify(`raised ${String(/** @type {{ type: string }} */ (e).type)}`)}]`;
    } finally {
      deadline = Infinity;
    }
    if (fired || now() - t0 > limitMs) return `["timeout",${stringify(`exceeded ${limitMs} ms`)}]`;
    if (typeof out !== "string") return `["error",${stringify("the step's result is not text")}]`;
    if (out.length > MAX_RESULT_CHARS) return `["error",${stringify("the step's result is too large")}]`;
    return out;
  };

  return {
    report,
    /** @param {RunnerRequest} request @param {(event: RunnerEvent) => void} emit */
    handle(request, emit) {
      const { id } = request;
      try {
        if (request.type === "plan") {
          // A plan starts from the snapshot too (round 11): nothing a unit left reaches a parse.
          if (!pristine) restore();
          pristine = false;
          let plan;
          try {
            plan = harness.plan(request.request);
          } finally {
            sweep();
          }
          restore(); // before the answer, as after a unit: never on the next unit's clock
          emit({ type: "plan", id, plan });
          return;
        }
        const unit = request.unit;
        if (!pristine) restore();
        pristine = false;
        const loaded = timed(unit.loadMs, () => harness.load(unit.code, unit.entry));
        emit({ type: "step", id, step: 0, result: loaded });
        if (begins(loaded, '["ok"')) {
          const fresh = unit.fresh ?? [];
          let nextFresh = 0;
          // A reload that failed answers every call of its group (no program is loaded to call).
          let unloaded = "";
          for (let i = 0; i < unit.calls.length; i++) {
            if (nextFresh < fresh.length && fresh[nextFresh] === i) {
              nextFresh++;
              const again = timed(unit.loadMs, () => harness.load(unit.code, unit.entry));
              unloaded = begins(again, '["ok"') ? "" : again;
            }
            const result = unloaded || timed(unit.testMs, () => harness.call(unit.calls[i], unit.literal));
            emit({ type: "step", id, step: i + 1, result });
            if (begins(result, '["timeout"')) break; // the rest of this unit is not run
          }
        }
        // (A load that failed ends the program's units: no later one follows to keep a heap for.)
        const why = fitness(unit.more === true && begins(loaded, '["ok"'));
        // The restore is the unit's own work, done before its `done` (round 55): the host times it
        // as this unit's, so a program that grew the heap (even untouched: the fill's first touch of
        // gigabytes takes seconds) pays for it, never the unit the host sends next, whose load's
        // timer starts at the send.
        if (why === "") restore();
        emit({ type: "done", id, fit: why === "", why });
      } catch (e) {
        // A JavaScript error out of Pyodide: a fatal interpreter error (it is unusable now).
        emit({ type: "failed", id, error: String(/** @type {Error} */ (e)?.message ?? e).slice(0, 300) });
      }
    },
  };
}

/** Page size of the snapshot's runs (the wasm page). */
const PAGE = 65536;

/**
 * The snapshot as [from, to, allZero] runs of whole pages (the last one may be short).
 * @param {Uint8Array} snapshot
 * @returns {[number, number, boolean][]}
 */
function pageRuns(snapshot) {
  const words = new Uint32Array(snapshot.buffer, snapshot.byteOffset, snapshot.byteLength >>> 2);
  /** @type {[number, number, boolean][]} */
  const runs = [];
  for (let from = 0; from < snapshot.length; from += PAGE) {
    const to = Math.min(from + PAGE, snapshot.length);
    let zero = true;
    for (let w = from >>> 2; w < to >>> 2 && zero; w++) zero = words[w] === 0;
    for (let b = (to >>> 2) << 2; b < to && zero; b++) zero = snapshot[b] === 0;
    const prev = runs[runs.length - 1];
    if (prev && prev[2] === zero) prev[1] = to;
    else runs.push([from, to, zero]);
  }
  return runs;
}

/**
 * @typedef {{ stream: Record<string, unknown>, own: Record<string, unknown>, shared: Record<string, unknown> | null, sharedFields: Record<string, unknown> | null }} SavedStream
 */

/**
 * Each open stream of an Emscripten file system: the object, its own fields, and the fields of the
 * record it shares with its duplicates (`shared`: flags and position).
 * @param {any} FS
 * @returns {(SavedStream | null)[]}
 */
function saveStreams(FS) {
  return FS.streams.map((/** @type {any} */ stream) => stream ? {
    stream, own: { ...stream }, shared: stream.shared ?? null, sharedFields: stream.shared ? { ...stream.shared } : null,
  } : null);
}

/**
 * Put the stream table back as `saveStreams` found it: the same objects at the same descriptors,
 * each with exactly its saved fields (a closed stream's `fd` is null; a dup2 put another object in
 * its place; a seek moved its position), and no descriptor beyond them.
 * @param {any} FS
 * @param {(SavedStream | null)[]} saved
 */
function restoreStreams(FS, saved) {
  const table = FS.streams;
  table.length = 0;
  for (let fd = 0; fd < saved.length; fd++) {
    const s = saved[fd];
    if (!s) {
      table[fd] = undefined;
      continue;
    }
    for (const key of Object.keys(s.stream)) if (!(key in s.own)) delete s.stream[key];
    Object.assign(s.stream, s.own);
    if (s.shared && s.sharedFields) Object.assign(s.shared, s.sharedFields);
    table[fd] = s.stream;
  }
}

/**
 * What of the file system a unit can change for good: every node ever made counts up `nextInode`
 * (a file, a directory, a pipe); the working directory; mounts and devices. A change retires the
 * runner.
 * @param {any} FS
 */
function fsFingerprint(FS) {
  return `${FS.nextInode}|${FS.currentPath}|${FS.mounts?.length}|${Object.keys(FS.devices ?? {}).length}|${FS.root?.mounted ? 1 : 0}`;
}

/** Globals a candidate must not reach even if it escaped Python into JavaScript. */
export const STRIPPED_GLOBALS = [
  "fetch", "XMLHttpRequest", "WebSocket", "WebSocketStream", "WebTransport", "EventSource", "importScripts",
  "indexedDB", "caches", "BroadcastChannel", "Worker", "SharedWorker", "postMessage", "onmessage",
  "onmessageerror", "localStorage", "sessionStorage", "open", "Request", "FileSystemHandle",
  "FileSystemDirectoryHandle", "RTCPeerConnection",
];

/**
 * Replace each name with a non-configurable, non-writable `undefined` on the scope and along its
 * whole prototype chain (so `Object.getPrototypeOf(self).fetch` is gone too), and remove
 * navigator.storage and navigator.locks. Returns the names that could not be redefined.
 * @param {object} scope
 * @param {readonly string[]} names
 */
export function stripGlobalScope(scope = globalThis, names = STRIPPED_GLOBALS) {
  /** @type {string[]} */
  const failed = [];
  const lock = (/** @type {object} */ obj, /** @type {string} */ name) => {
    const own = Object.getOwnPropertyDescriptor(obj, name);
    if (own && !own.configurable) {
      if (own.value === undefined && !own.get) return;
      failed.push(name);
      return;
    }
    Object.defineProperty(obj, name, { value: undefined, writable: false, configurable: false, enumerable: false });
  };
  /** @type {object[]} */
  const chain = [];
  for (let o = scope; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) chain.push(o);
  for (const name of names) for (const obj of chain) lock(obj, name);
  // Any JS object a candidate might still reach leads to `.constructor.constructor`, i.e. Function
  // (an eval): cut that edge for every function kind, as SES-style lockdowns do. The global
  // `Function` itself stays (Pyodide's FFI uses it); code generation from strings is off anyway
  // (the worker's CSP; --disallow-code-generation-from-strings in Node).
  const kinds = [function () {}, async function () {}, function* () {}, async function* () {}];
  for (const fn of kinds) lock(Object.getPrototypeOf(fn), "constructor");
  for (const obj of chain) lock(obj, "eval");
  const nav = /** @type {{ navigator?: object }} */ (scope).navigator;
  if (nav) {
    for (let o = nav; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
      lock(o, "storage");
      lock(o, "locks");
    }
  }
  return [...new Set(failed)];
}

/**
 * How each stripped name, `eval`, navigator.storage/locks, the function-constructor edge and code
 * generation from strings look from `scope`, as JavaScript a candidate escaped into would see
 * them: all "undefined" (codegen: "blocked") after the lockdown.
 * @param {object} scope
 * @param {readonly string[]} names
 */
export function probeGlobalScope(scope = globalThis, names = STRIPPED_GLOBALS) {
  /** @type {Record<string, string>} */
  const seen = {};
  const s = /** @type {Record<string, unknown>} */ (scope);
  for (const name of [...names, "eval"]) seen[name] = typeof s[name];
  const nav = /** @type {{ navigator?: Record<string, unknown> }} */ (scope).navigator;
  if (nav) {
    seen["navigator.storage"] = typeof nav.storage;
    seen["navigator.locks"] = typeof nav.locks;
  }
  seen["function.constructor"] = typeof (function () {}).constructor;
  seen["codegen"] = codeGenerationBlocked() ? "undefined" : "allowed";
  return seen;
}

/** True when `new Function(string)` is refused here (CSP without 'unsafe-eval', or Node's flag). */
export function codeGenerationBlocked() {
  try {
    const F = /** @type {FunctionConstructor} */ (Object.getPrototypeOf(Math.max).constructor ?? Function);
    new F("return 0");
    return false;
  } catch {
    return true;
  }
}
