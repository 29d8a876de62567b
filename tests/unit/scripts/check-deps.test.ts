/**
 * The dependency rule (scripts/check-deps.ts, docs/ARCHITECTURE.md): the project's own tree keeps it,
 * and trees that break it, one way at a time, are refused with the file, line and rule named.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkDeps, edgesOf, importCycles, projectFiles } from "../../../scripts/check-deps.ts";

/**
 * A small tree that keeps the rule: ui -> browser -> core, a worker spawned by URL whose script only
 * starts what the browser's wiring serves, a port typed by the UI.
 */
const GOOD: Record<string, string> = {
  "src/core/policy/model.ts": `export const model = 1;\n`,
  "src/core/policy/sampler.ts": `import { model } from "./model.ts";\nexport const sample = model;\n`,
  "src/storage/db.ts": `import type { model } from "../core/policy/model.ts";\nexport type Db = typeof model;\n`,
  "src/browser/policy-worker.ts": `import { sample } from "../core/policy/sampler.ts";\nexport interface Msg { w: unknown }\nexport const serve = () => sample;\n`,
  "src/browser/policy-client.ts": [
    `import { sample } from "../core/policy/sampler.ts";`,
    `import type { Port } from "../ui/deps.ts";`,
    `import type { Msg } from "./policy-worker.ts";`,
    `export const start = (): Port & Msg => ({ w: new Worker(new URL("../../workers/policy.worker.ts", import.meta.url)), sample });`,
  ].join("\n"),
  "src/ui/deps.ts": `export interface Port { sample: number }\n`,
  "src/ui/main.ts": `import { start } from "../browser/policy-client.ts";\nimport("../storage/db.ts");\nstart();\n`,
  "workers/policy.worker.ts": `import { serve } from "../src/browser/policy-worker.ts";\nserve();\n`,
  "src/node/cli.ts": `import { readFileSync } from "node:fs";\nimport { sample } from "../core/policy/sampler.ts";\nreadFileSync(new URL("../core/policy/mutate.py", import.meta.url));\nvoid sample;\n`,
  "scripts/train.ts": `import "../src/node/cli.ts";\n`,
  "tests/unit/x.test.ts": `import "../../src/ui/main.ts";\nimport "../../scripts/train.ts";\n`,
};

const tree = (overrides: Record<string, string>) => new Map(Object.entries({ ...GOOD, ...overrides }));
const messages = (overrides: Record<string, string>) => checkDeps(tree(overrides)).map((v) => `${v.rule}: ${v.message}`);
/** The room violations alone (an import that goes up usually closes a cycle too). */
const roomMessages = (overrides: Record<string, string>) => messages(overrides).filter((m) => m.startsWith("room:"));

describe("check-deps", () => {
  it("the project's own tree keeps the rule", () => {
    const root = join(dirname(new URL(import.meta.url).pathname), "../../..");
    expect(checkDeps(projectFiles(root)).map((v) => v.message)).toEqual([]);
  });

  it("passes a tree that keeps the rule", () => {
    expect(messages({})).toEqual([]);
  });

  it("reads static, type, dynamic, re-export, glob and URL specifiers, not comments or packages", () => {
    const edges = edgesOf("src/ui/a.ts", [
      `import { x } from "./x.ts"; import type { T } from "./t.ts"; import { type U } from "./u.ts";`,
      `export * from "./r.ts"; const m = import("./d.ts"); type I = import("./i.ts").I;`,
      `const g = import.meta.glob("../../workers/w.worker.ts"); const u = new URL("./p.py?raw", import.meta.url);`,
      `// import { no } from "./comment.ts";`,
      `import * as tf from "@tensorflow/tfjs";`,
    ].join("\n"));
    expect(edges.map((e) => `${e.kind} ${e.to}`)).toEqual([
      "import src/ui/x.ts", "type src/ui/t.ts", "type src/ui/u.ts", "import src/ui/r.ts", "import src/ui/d.ts",
      "type src/ui/i.ts", "import workers/w.worker.ts", "url src/ui/p.py",
    ]);
  });

  it("refuses core importing the browser's wiring, the UI, storage, Node wiring or a worker", () => {
    for (const [target, room] of [["../../browser/policy-client.ts", "browser"], ["../../ui/deps.ts", "ui"], ["../../storage/db.ts", "storage"], ["../../node/cli.ts", "node"], ["../../../workers/policy.worker.ts", "workers"]]) {
      const found = roomMessages({ "src/core/policy/model.ts": `import type { X } from "${target}";\nexport const model = 1;\n` });
      expect(found).toHaveLength(1);
      expect(found[0]).toContain(`src/core/policy/model.ts:1 (core) imports types from`);
      expect(found[0]).toContain(`(${room}): core may import core`);
    }
  });

  it("refuses a worker importing the UI, storage or core, and core spawning a worker", () => {
    expect(roomMessages({ "workers/policy.worker.ts": `import "../src/ui/main.ts";\nexport interface Msg { w: unknown }\n` })).toEqual([
      "room: workers/policy.worker.ts:1 (workers) imports src/ui/main.ts (ui): workers may import workers, browser",
    ]);
    expect(roomMessages({ "workers/policy.worker.ts": `import "../src/storage/db.ts";\nexport interface Msg { w: unknown }\n` })[0]).toContain("(workers) imports src/storage/db.ts (storage)");
    expect(roomMessages({ "workers/policy.worker.ts": `import { sample } from "../src/core/policy/sampler.ts";\nvoid sample;\n` })[0]).toContain("(workers) imports src/core/policy/sampler.ts (core): workers may import workers, browser");
    expect(roomMessages({ "src/core/policy/model.ts": `export const model = new URL("../../../workers/policy.worker.ts", import.meta.url);\n` })[0]).toContain("(core) references workers/policy.worker.ts (workers)");
  });

  it("allows the wiring types only from the UI's ports, not values or other UI files", () => {
    expect(messages({ "src/browser/x.ts": `import { Port } from "../ui/deps.ts";\nvoid Port;\n` })[0]).toContain("(browser) imports src/ui/deps.ts (ui)");
    expect(messages({ "src/browser/x.ts": `import type { start } from "../ui/main.ts";\n` })[0]).toContain("(browser) imports types from src/ui/main.ts (ui)");
  });

  it("refuses import cycles, type imports included, and names one", () => {
    const found = messages({
      "src/core/policy/model.ts": `import type { sample } from "./sampler.ts";\nexport const model = 1 as unknown as typeof sample;\n`,
    });
    expect(found).toEqual(["cycle: import cycle: src/core/policy/model.ts -> src/core/policy/sampler.ts -> src/core/policy/model.ts"]);
    expect(importCycles(new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a", "d"]], ["d", []], ["e", ["e"]]]))).toEqual([["a", "b", "c"], ["e"]]);
  });

  it("refuses a file loose at src's top and an import of a missing file", () => {
    expect(messages({ "src/trainer-host.ts": `export const host = 1;\n` })).toEqual([
      "room: src/trainer-host.ts is loose at src's top: the browser's wiring belongs in src/browser/, the rest in its room",
    ]);
    expect(messages({ "src/ui/main.ts": `import "../trainer-host.ts";\n` })).toEqual(["missing: src/ui/main.ts:1 imports src/trainer-host.ts, which does not exist"]);
  });

  it("the command exits 1 and names the violation", () => {
    const root = mkdtempSync(join(tmpdir(), "check-deps-"));
    try {
      for (const [path, source] of Object.entries({ ...GOOD, "src/core/policy/model.ts": `import "../../ui/main.ts";\nexport const model = 1;\n` })) {
        mkdirSync(join(root, dirname(path)), { recursive: true });
        writeFileSync(join(root, path), source);
      }
      const script = join(dirname(new URL(import.meta.url).pathname), "../../../scripts/check-deps.ts");
      let out = "";
      let status = 0;
      try {
        execFileSync(process.execPath, ["--import", "tsx", script, "--root", root], { encoding: "utf8", stdio: "pipe" });
      } catch (e) {
        const err = e as { status: number; stderr: string; stdout: string };
        status = err.status;
        out = err.stderr + err.stdout;
      }
      expect(status).toBe(1);
      expect(out).toContain("src/core/policy/model.ts:1 (core) imports src/ui/main.ts (ui)");
      expect(out).toMatch(/check-deps: \d+ violation\(s\)/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
