/**
 * The grader's base snapshot in Node: the memory of a Pyodide that has just started with the
 * runners' environment (RUNNER_ENV), and has run nothing else. A runner process loads it instead of
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
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { BASE_SNAPSHOT_RECIPE, RUNNER_ENV } from "../core/grader/runner.js";
import { runnerArgs } from "./grader.ts";

const PYODIDE = new URL(import.meta.resolve("pyodide/pyodide.mjs"));

/** Where the snapshot for this Pyodide (version, wasm size), environment and recipe lives. */
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
