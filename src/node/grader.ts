/**
 * The grader in Node: the shared supervisor (src/core/grader/supervisor.ts) driving runners in
 * child processes, each under Node's permission model: it may read only Pyodide's files and its
 * own, write nothing, start no process or worker, and generate no code from strings
 * (src/node/grader-child.mjs). An escape out of Python would still find nothing to touch.
 *
 *   const grader = await createNodeGrader();
 *   const result = await grader.grade({ tasks, codes, suites, golden, limits });
 *   await grader.close();
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import type { Readable } from "node:stream";
import { createSupervisedGrader, type RunnerHost, type SpawnRunner, type SupervisedGrader, type SupervisorOptions } from "../core/grader/supervisor.ts";
import { BASE_SNAPSHOT_RECIPE, RUNNER_ENV, type RunnerEvent } from "../core/grader/runner.js";

export const HARNESS_PATH = new URL("../core/grader/harness.py", import.meta.url);
const CHILD = new URL("./grader-child.mjs", import.meta.url);
const RUNNER_DIR = new URL("../core/grader/", import.meta.url);
const PYODIDE = new URL(import.meta.resolve("pyodide/pyodide.mjs"));

/**
 * The command line of a runner process: what it may read, and nothing else (with a base snapshot,
 * that one file too: `baseSnapshot` below).
 */
export function runnerArgs(role: string, snapshot?: string): string[] {
  const dir = (u: URL) => fileURLToPath(new URL("./", u));
  return [
    "--experimental-permission",
    `--allow-fs-read=${dir(PYODIDE)}`,
    `--allow-fs-read=${fileURLToPath(RUNNER_DIR)}`,
    `--allow-fs-read=${fileURLToPath(CHILD)}`,
    ...(snapshot ? [`--allow-fs-read=${snapshot}`] : []),
    "--disallow-code-generation-from-strings",
    "--no-warnings",
    "--max-old-space-size=1024",
    fileURLToPath(CHILD),
    PYODIDE.href,
    fileURLToPath(HARNESS_PATH),
    role,
    ...(snapshot ? [snapshot] : []),
  ];
}

/**
 * The base snapshot in Node (runner.js `takeBaseSnapshot`): the memory of a Pyodide that has just
 * started with the runners' environment (RUNNER_ENV), and has run nothing else. A runner process loads it instead of
 * starting Python from scratch (about 0.4 s instead of 2.5-3.5 s here), then sets up the harness as
 * before; every restart after a kill gains the same. What the runner runs is unchanged: the
 * snapshot is taken before the harness, any candidate or any reference exists.
 *
 * Built once per Pyodide version and environment by the runners' own script (grader-child.mjs, role
 * `snapshot`, under the runners' permissions plus a write of its cache folder),
 * and cached in node_modules/.cache/code-a1-arena/ (beside the Pyodide it belongs to; ~31 MB).
 * A snapshot that does not load (another build, a damaged file) is caught by the runner, which
 * then starts from scratch and says so in its `ready` event. `CODE_A1_NO_SNAPSHOT=1` turns it off
 * (benchmarks compare the two in one run).
 *
 *   const path = await baseSnapshot(); // undefined: off, or it could not be built
 *
 * Where the snapshot for this Pyodide (version, wasm size), environment and recipe lives:
 */
export function baseSnapshotPath(): string {
  const { version } = JSON.parse(readFileSync(new URL("./package.json", PYODIDE), "utf8")) as { version: string };
  const key = createHash("sha256")
    .update(JSON.stringify([version, statSync(new URL("./pyodide.asm.wasm", PYODIDE)).size, RUNNER_ENV, BASE_SNAPSHOT_RECIPE]))
    .digest("hex")
    .slice(0, 16);
  return fileURLToPath(new URL(`../.cache/code-a1-arena/pyodide-${version}-${key}.snapshot`, PYODIDE));
}

let pending: Promise<string | undefined> | undefined;

/** The base snapshot's path, built on first use (undefined where it is turned off or failed). */
export function baseSnapshot(): Promise<string | undefined> {
  if (process.env.CODE_A1_NO_SNAPSHOT === "1") return Promise.resolve(undefined);
  pending ??= (async () => {
    const path = baseSnapshotPath();
    if (existsSync(path)) return path;
    mkdirSync(dirname(path), { recursive: true });
    const args = runnerArgs("snapshot", path);
    args.splice(1, 0, `--allow-fs-write=${dirname(path)}`, `--allow-fs-read=${dirname(path)}`);
    await promisify(execFile)(process.execPath, args, { timeout: 120_000 });
    return path;
  })().catch((e: unknown) => {
    // Runners then start from scratch, as they did before snapshots: slower, never wrong.
    console.warn(`the grader's base snapshot could not be built, runners start Python from scratch: ${String((e as Error)?.message ?? e).slice(0, 2000)}`);
    return undefined;
  });
  return pending;
}

export type NodeGraderOptions = SupervisorOptions;

/** Start a Node grader; its first runners start right away. */
export async function createNodeGrader(options: NodeGraderOptions = {}): Promise<SupervisedGrader> {
  const grader = createSupervisedGrader(spawnNodeRunner, options);
  // Warm up: a tiny batch starts both runners now instead of on the first real call.
  await grader.grade({ tasks: [{ id: "t", entry_point: "f", reference: "def f():\n    return 0" }], codes: [{ task: "t", code: "def f():\n    return 0" }], suites: [{ code: 0, text: "assert f() == 0" }] });
  return grader;
}

const MAX_LINE_CHARS = 4 * 2 ** 20;

/** Newline-delimited JSON from a stream. */
function readLines(stream: Readable, onLine: (line: string) => void): void {
  let buffered = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    buffered += chunk;
    // A runner's events are small (results are capped at 1 MB); a longer line is not protocol.
    if (buffered.length > MAX_LINE_CHARS && buffered.indexOf("\n") < 0) {
      buffered = "";
      onLine("\u0000");
      return;
    }
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line) onLine(line);
    }
  });
}

/**
 * A runner in a child process that takes requests as JSON lines on stdin and answers with JSON
 * lines on `events`: resolves at its `ready` event, rejects if it fails or exits before.
 */
export function childProcessRunner(
  child: ChildProcess,
  events: Readable,
  what: string,
  onEvent: (event: RunnerEvent) => void,
  onExit: (why: string) => void,
  signal?: AbortSignal,
): Promise<RunnerHost> {
  return new Promise<RunnerHost>((resolve, reject) => {
    // A start the supervisor gave up on: the process goes (its exit rejects this promise).
    signal?.addEventListener("abort", () => child.kill("SIGKILL"), { once: true });
    let stderr = "";
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (d: string) => (stderr = (stderr + d).slice(-2000)));
    child.stdin!.on("error", () => undefined); // a dead child's pipe: the exit handler reports it
    let ready = false;
    const host: RunnerHost = {
      send: (request) => child.stdin!.write(JSON.stringify(request) + "\n"),
      terminate: () =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          child.once("exit", () => done());
          child.kill("SIGKILL");
        }),
    };
    readLines(events, (line) => {
      let event: RunnerEvent;
      try {
        event = JSON.parse(line) as RunnerEvent;
      } catch {
        // Not protocol: whatever wrote it is not trusted any more.
        child.kill("SIGKILL");
        return;
      }
      if (!event || typeof event !== "object") return void child.kill("SIGKILL");
      if (event.type === "ready") {
        ready = true;
        resolve(host);
      } else if (event.type === "failed" && !ready) {
        reject(new Error(`${what} failed to start: ${event.error}`));
      } else onEvent(event);
    });
    child.on("error", (e) => reject(e));
    child.on("exit", (code, signal) => {
      const why = `${what} exited (${signal ?? `code ${code}`})${stderr ? `: ${stderr.trim().split("\n").slice(-3).join(" | ")}` : ""}`;
      if (!ready) reject(new Error(`${what} failed to start: ${why}`));
      onExit(why);
    });
  });
}

export const spawnNodeRunner: SpawnRunner = async (role, onEvent, onExit, signal) => {
  const snapshot = await baseSnapshot();
  if (signal?.aborted) throw new Error(`grader ${role}: its start was given up`);
  const child = spawn(process.execPath, runnerArgs(role, snapshot), { stdio: ["pipe", "ignore", "pipe", "pipe"] });
  return childProcessRunner(child, child.stdio[3] as Readable, `grader ${role}`, onEvent, onExit, signal);
};

/**
 * Test and debugging aid: what JavaScript that escaped Python could do inside a runner process
 * (file writes, reads outside its assets, processes, workers, network, code from strings, the
 * stripped globals): every entry "blocked" or "undefined" under the lockdown.
 */
export async function probeRunnerProcess(): Promise<Record<string, string>> {
  let answer: (scope: Record<string, string>) => void = () => undefined;
  const seen = new Promise<Record<string, string>>((resolve) => (answer = resolve));
  const host = await spawnNodeRunner("sandbox", (event) => {
    const e = event as unknown as { type: string; report?: string };
    if (e.type === "probe" && e.report) answer(JSON.parse(e.report) as Record<string, string>);
  }, () => undefined);
  try {
    host.send({ type: "probe" } as never);
    return await seen;
  } finally {
    await host.terminate();
  }
}
