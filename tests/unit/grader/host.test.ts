/**
 * Defence in depth in Node: a runner process is started under Node's permission model with code
 * generation from strings disallowed, and its network modules and globals cut, so that JavaScript
 * that escaped Python could still not touch the host. The probe runs inside a real runner process.
 */
import { expect, it } from "vitest";
import { probeRunnerProcess, runnerArgs } from "../../../src/node/grader.ts";

it("a runner process can write no file, read nothing but its assets, start nothing, reach no network, generate no code", async () => {
  const seen = await probeRunnerProcess();
  const expected = ["fs.write", "fs.read outside its assets", "child_process", "worker_threads", "net.connect", "http.request", "new Function", "vm.runInThisContext"];
  for (const name of expected) expect([name, seen[name]]).toEqual([name, "blocked"]);
  for (const name of ["fetch", "WebSocket", "process", "require", "eval", "function.constructor", "codegen"]) expect([name, seen[name]]).toEqual([name, "undefined"]);
}, 60_000);

it("the command line grants reads of Pyodide and the runner's own files only", () => {
  const args = runnerArgs("sandbox");
  expect(args).toContain("--experimental-permission");
  expect(args).toContain("--disallow-code-generation-from-strings");
  const reads = args.filter((a) => a.startsWith("--allow-fs-read=")).map((a) => a.slice("--allow-fs-read=".length));
  expect(reads).toHaveLength(3);
  expect(reads.some((r) => r.endsWith("node_modules/pyodide/"))).toBe(true);
  expect(args.some((a) => a.startsWith("--allow-fs-write") || a.startsWith("--allow-child-process") || a.startsWith("--allow-worker"))).toBe(false);
});
