// The Node grader's runner process (src/node/grader.ts starts it). Plain JavaScript: it runs under
// Node's permission model (no file writes, reads of its own assets only, no child processes, no
// workers) with code generation from strings disallowed, where no TypeScript loader may run.
//
//   node --experimental-permission --allow-fs-read=... --disallow-code-generation-from-strings \
//        grader-child.mjs <pyodide.mjs URL> <harness.py path> <judge|sandbox> [<base snapshot path>]
//
// With a base snapshot (src/node/grader.ts `baseSnapshot`) Python's start is loaded from it; one that does
// not load is left, and Python starts from scratch (the ready event's `start` says which). The same
// script makes that snapshot, as role `snapshot` (allowed to write its one file, it starts no runner),
// so that the interpreter it keeps is the one a runner process would start: even the program path
// in its environment (`_`) is this script's.
//
// Protocol: requests arrive as JSON lines on stdin; events leave as JSON lines on fd 3, written
// synchronously so that the supervisor sees each step as it ends, even while Python runs on.
import { constants, readFileSync, renameSync, writeFileSync, writeSync } from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { encodeEvent, loadRunnerPyodide, makeBaseSnapshot, probeGlobalScope, startRunner, stripGlobalScope, STRIPPED_GLOBALS } from "../core/grader/runner.js";

const [pyodideUrl, harnessPath, role, snapshotPath] = process.argv.slice(2);
const stdin = process.stdin;
const EVENTS = 3;

// Taken before any candidate runs (escaped JavaScript could replace them later).
const bufferFrom = Buffer.from.bind(Buffer);
const parseJson = JSON.parse;

/** @param {import("../core/grader/runner.js").RunnerEvent | { type: "probe", report: string }} event */
function emit(event) {
  const bytes = bufferFrom(encodeEvent(/** @type {any} */ (event)) + "\n");
  for (let off = 0; off < bytes.length; ) {
    try {
      off += writeSync(EVENTS, bytes, off);
    } catch (e) {
      if (e.code !== "EAGAIN") throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1); // the pipe is full: wait 1 ms
    }
  }
}

// Node 20's permission model has no switch for the network: cut it here, before Pyodide (which
// imports node:net and node:tls for its socket file system) or anything else can hold a reference.
const require = createRequire(import.meta.url);
const refuse = (what) => () => {
  throw new Error(`${what} is not available in the grader sandbox`);
};
for (const name of ["net", "tls", "http", "https", "http2", "dgram", "dns"]) {
  const mod = require(name);
  for (const key of ["connect", "createConnection", "createServer", "request", "get", "createSocket", "lookup", "resolve"]) {
    if (typeof mod[key] === "function") mod[key] = refuse(`${name}.${key}`);
  }
}
require("net").Socket.prototype.connect = refuse("net.Socket.connect");
require("net").Server.prototype.listen = refuse("net.Server.listen");
require("dgram").Socket.prototype.bind = refuse("dgram.Socket.bind");
require("dgram").Socket.prototype.send = refuse("dgram.Socket.send");
const vm = require("vm");
for (const key of ["runInThisContext", "runInNewContext", "runInContext", "compileFunction", "Script", "SourceTextModule"]) {
  if (key in vm) vm[key] = refuse(`vm.${key}`);
}
syncBuiltinESMExports();

// Pyodide's Node file system reads flag values through process.binding, which the permission
// model refuses: hand it the same constants.
const binding = process.binding;
process.binding = (name) => (name === "constants" ? { fs: constants, os: {} } : binding.call(process, name));

// What JavaScript that escaped Python could do here (answers {type: "probe"}; tests check it).
const fs = require("fs");
const attempts = {
  "fs.write": () => fs.writeFileSync("/tmp/code-a1-grader-probe", "x"),
  "fs.read outside its assets": () => fs.readFileSync("/etc/hostname"),
  "child_process": () => require("child_process").execFileSync("true"),
  "worker_threads": () => new (require("worker_threads").Worker)("0", { eval: true }),
  "net.connect": () => require("net").connect(9, "127.0.0.1").destroy(),
  "http.request": () => require("http").request("http://127.0.0.1:9/").destroy(),
  "new Function": () => new (Object.getPrototypeOf(Math.max).constructor ?? Function)("return 0")(),
  "vm.runInThisContext": () => require("vm").runInThisContext("0"),
};
const probeHost = () => {
  const seen = {};
  for (const [name, attempt] of Object.entries(attempts)) {
    try {
      attempt();
      seen[name] = "allowed";
    } catch {
      seen[name] = "blocked";
    }
  }
  return seen;
};

/**
 * Role `snapshot`: runner.js's base snapshot, written to a temporary file and renamed into place
 * (atomic: a reader sees the whole file or none).
 */
async function writeBaseSnapshot(loadPyodide, out) {
  const bytes = await makeBaseSnapshot(loadPyodide, {});
  const tmp = `${out}.${process.pid}.tmp`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, out);
}

try {
  const { loadPyodide } = await import(pyodideUrl);
  if (role === "snapshot") {
    await writeBaseSnapshot(loadPyodide, snapshotPath);
    process.exit(0);
  }
  const { pyodide, start } = await loadRunnerPyodide(loadPyodide, {}, snapshotPath ? readFileSync(snapshotPath) : undefined);
  const failed = stripGlobalScope(globalThis, [...STRIPPED_GLOBALS, "process", "require"]);
  if (failed.length) throw new Error(`could not strip globals: ${failed.join(", ")}`);
  const runner = startRunner(pyodide, readFileSync(harnessPath, "utf8"), role);
  emit({ type: "ready", report: runner.report, start });
  let buffered = "";
  stdin.setEncoding("utf8");
  stdin.on("data", (chunk) => {
    buffered += chunk;
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (!line) continue;
      const request = parseJson(line);
      if (request.type === "probe") emit({ type: "probe", report: JSON.stringify({ ...probeHost(), ...probeGlobalScope(globalThis, [...STRIPPED_GLOBALS, "process", "require"]) }) });
      else runner.handle(request, emit);
    }
  });
} catch (e) {
  if (role !== "snapshot") emit({ type: "failed", id: -1, error: String(e?.stack ?? e).slice(0, 2000) });
  throw e; // (its stack on stderr)
}
