/**
 * The Node runners' base snapshot (src/node/grader.ts `baseSnapshot`): a runner loads Python's start from
 * it, a damaged one is left for a start from scratch, the runner may read that one file more, and a
 * program sees the same interpreter either way.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { afterAll, expect, it } from "vitest";
import { baseSnapshot, baseSnapshotPath, createNodeGrader, runnerArgs } from "../../../src/node/grader.ts";

/** The first event a runner process started with `snapshot` writes (its ready or failed event). */
function firstEvent(snapshot: string | undefined): Promise<{ type: string; start?: string; error?: string }> {
  const child = spawn(process.execPath, runnerArgs("sandbox", snapshot), { stdio: ["pipe", "ignore", "ignore", "pipe"] });
  return new Promise((resolve, reject) => {
    let text = "";
    const events = child.stdio[3] as Readable;
    events.setEncoding("utf8");
    events.on("data", (d: string) => {
      text += d;
      const nl = text.indexOf("\n");
      if (nl < 0) return;
      child.kill("SIGKILL");
      resolve(JSON.parse(text.slice(0, nl)) as { type: string; start?: string });
    });
    child.on("exit", (code) => reject(new Error(`runner exited (${code}) before its first event`)));
  });
}

it("is built once, where its key says, and a runner starts from it", async () => {
  const path = await baseSnapshot();
  expect(path).toBe(baseSnapshotPath());
  await expect(baseSnapshot()).resolves.toBe(path);
  const event = await firstEvent(path);
  expect([event.type, event.start]).toEqual(["ready", "snapshot"]);
}, 120_000);

it("a damaged snapshot is left: the runner starts Python from scratch and says why", async () => {
  const bad = join(mkdtempSync(join(tmpdir(), "code-a1-snapshot-")), "damaged.snapshot");
  writeFileSync(bad, new Uint8Array(4096).fill(7));
  const event = await firstEvent(bad);
  expect(event.type).toBe("ready");
  expect(event.start).toMatch(/^fresh: the base snapshot did not load \(.*magic/);
}, 120_000);

it("the command line grants one read more: the snapshot file itself", () => {
  const reads = (args: string[]) => args.filter((a) => a.startsWith("--allow-fs-read="));
  const plain = runnerArgs("sandbox");
  const withSnapshot = runnerArgs("sandbox", "/some/cache/base.snapshot");
  expect(reads(withSnapshot)).toEqual([...reads(plain), "--allow-fs-read=/some/cache/base.snapshot"]);
  expect(withSnapshot.at(-1)).toBe("/some/cache/base.snapshot");
});

/**
 * What a program can see of its interpreter's start: hashing, the loaded modules and the
 * environment (through the C-level import shape the harness passes, a list for fromlist), every
 * class that exists, the collector's settings, the allowed modules' own state. Not compared: the
 * reference counts of the few objects Pyodide's own JavaScript holds from its start (`sys`, `os`,
 * `sys.path`: one or two more from the snapshot, whose maker held them too), which only
 * `sys.getrefcount` shows.
 */
const PROBE = `import math, re, collections, functools
def f():
    sys = __import__("sys", None, None, ["modules"])
    os = __import__("os", None, None, ["environ"])
    gc = __import__("gc", None, None, ["isenabled"])
    seen = [hash("abc"), hash((1, "x")), sorted(sys.modules), sorted(os.environ.items()), repr(sys.flags), sys.path,
            sys.getrecursionlimit(), sorted(c.__qualname__ for c in object.__subclasses__()), gc.isenabled(), gc.get_threshold(),
            functools.WRAPPER_ASSIGNMENTS, math.pi, re.compile("a+b").pattern]
    return repr(seen)`;

const graders: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(graders.map((g) => g.close()));
});

it("a program sees the same interpreter in a runner started from the snapshot as in one started from scratch", async () => {
  const unit = { code: PROBE, entry: "f", calls: ['["t",[]]', '["t",[]]'], loadMs: 10_000, testMs: 10_000 };
  const fromSnapshot = await createNodeGrader();
  graders.push(fromSnapshot);
  process.env.CODE_A1_NO_SNAPSHOT = "1";
  let fromScratch;
  try {
    fromScratch = await createNodeGrader();
    graders.push(fromScratch);
  } finally {
    delete process.env.CODE_A1_NO_SNAPSHOT;
  }
  const a = await fromSnapshot.runUnit(unit);
  const b = await fromScratch.runUnit(unit);
  expect(a[1]?.[0], JSON.stringify(a)).toBe("ok");
  expect(a).toEqual(b);
}, 180_000);
