/**
 * The command lines' argument errors: parsed in-process, and end to end through the real scripts
 * (which fail before starting the grader or a policy, so each spawn takes a couple of seconds).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CliError, cliConfig, configFlagValues, formatDuration, parseArgs, usage, withConfigFlags, type FlagSpec } from "../../../src/node/cli.ts";
import { applyMistakeBookDeltas, runTaskFile } from "../../../src/node/run-files.ts";
import { arenaV1 } from "../../../src/core/arena/task-suite.ts";
import { optimizerStepsPerStep } from "../../../src/core/config/policy-train.ts";
import { configFromQuery, presetConfig } from "../../../src/core/config/index.ts";

const SPECS: Record<string, FlagSpec> = {
  out: { kind: "string", help: "bundle" },
  steps: { kind: "int", min: 1, help: "steps" },
  temperature: { kind: "number", min: 0.01, help: "temperature" },
  json: { kind: "bool", help: "json" },
};

describe("parseArgs", () => {
  it("reads --flag value, --flag=value, bare booleans and positionals", () => {
    const a = parseArgs(["run.a1run", "--steps", "3", "--temperature=0.5", "--json", "--out", "x.a1run"], SPECS, 1);
    expect(a).toEqual({ flags: { steps: 3, temperature: 0.5, json: true, out: "x.a1run" }, positional: ["run.a1run"] });
  });

  it.each([
    [["--stepz", "3"], /unknown flag --stepz; known: --out, --steps/],
    [["--steps"], /--steps needs a value/],
    [["--steps", "--json"], /--steps needs a value/],
    [["--steps", "2.5"], /--steps must be an integer, got "2.5"/],
    [["--steps", "0"], /--steps must be >= 1, got 0/],
    [["--temperature", "hot"], /--temperature must be a number, got "hot"/],
    [["--json=yes"], /--json takes no value/],
    [["--steps", "1", "--steps", "2"], /--steps given twice/],
    [["a", "b"], /unexpected argument "b"/],
  ])("rejects %j", (argv, message) => {
    expect(() => parseArgs(argv, SPECS, 1)).toThrow(message);
    expect(() => parseArgs(argv, SPECS, 1)).toThrow(CliError);
  });
});

describe("cliConfig", () => {
  it("applies seed, steps and mode on a preset", () => {
    const c = cliConfig("classroom", { seed: 3, steps: 2, mode: "self-play" });
    expect(c).toEqual({ ...presetConfig("classroom"), seed: 3, steps: 2, mode: "self-play" });
  });
  it("names unknown presets and modes", () => {
    expect(() => cliConfig("clasroom", {})).toThrow(/unknown preset "clasroom"; known: classroom, paper-mini/);
    expect(() => cliConfig("classroom", { mode: "coda-a1" })).toThrow(/--mode must be one of code-a1, golden-tests/);
  });
});

describe("config fields as flags", () => {
  const specs = withConfigFlags({ out: { kind: "string", help: "bundle" } });
  it("reads any field by its name with the URL's parser", () => {
    const { flags } = parseArgs(["--alpha", "0.25", "--topvar", "false", "--mini_batches=1", "--mode", "self-play", "--out", "x.a1run"], specs, 0);
    const c = cliConfig("classroom", {}, configFlagValues(flags));
    expect(c).toMatchObject({ alpha: 0.25, topvar: false, mini_batches: 1, mode: "self-play" });
    expect(c).toEqual(configFromQuery("preset=classroom&alpha=0.25&topvar=false&mini_batches=1&mode=self-play").config);
  });
  it("names the flag and the field on bad values; lists the command's own flags on unknown ones", () => {
    expect(() => configFlagValues(parseArgs(["--alpha", "2"], specs, 0).flags)).toThrow(/--alpha: config\.alpha: expected a value in \[0, 1\], got 2/);
    expect(() => configFlagValues(parseArgs(["--topvar", "yes"], specs, 0).flags)).toThrow(/--topvar: config\.topvar: expected true or false/);
    expect(() => parseArgs(["--alpah", "1"], specs, 0)).toThrow(/unknown flag --alpah; known: --out or any config field/);
    expect(usage("train", "[flags]", specs).split("\n")).toHaveLength(3);
  });
});

describe("helpers", () => {
  it("formats durations", () => {
    expect([formatDuration(12.4), formatDuration(185), formatDuration(3725)]).toEqual(["12s", "3m05s", "1h02m"]);
  });
  it("counts each policy's optimiser steps from its own batch", () => {
    // classroom: Code 4 tasks x 4 codes = 16 sequences, Test (TopVar top-1) 4 x 1 x 4 = 16; both in
    // mini_batches = 2 -> 2 steps each (the paper's 2 mini-batches; was 1 when the count came from
    // a fixed mini-batch of 64).
    expect(optimizerStepsPerStep(presetConfig("classroom"), "code")).toBe(2);
    expect(optimizerStepsPerStep(presetConfig("classroom"), "test")).toBe(2);
    // 16 tasks x 8 codes = 128 Code sequences -> 2 mini-batches of 64, x 3 epochs; the Test policy's
    // own batch, 16 x 1 x 8 = 128, counts the same here, and 16 x 8 x 8 = 1024 without TopVar -> 16 x 3.
    expect(optimizerStepsPerStep(presetConfig("paper-mini", { tasks_per_step: 16, num_iterations: 3 }), "code")).toBe(6);
    expect(optimizerStepsPerStep(presetConfig("paper-mini", { tasks_per_step: 16, num_iterations: 3, topvar: false }), "test")).toBe(48);
    // golden-tests trains no Test policy; a shared policy counts both roles' samples in one update.
    expect(optimizerStepsPerStep(presetConfig("classroom", { mode: "golden-tests" }), "test")).toBe(0);
    expect(optimizerStepsPerStep(presetConfig("classroom", { mode: "self-play", mini_batches: 1 }), "code")).toBe(1);
    expect(optimizerStepsPerStep(presetConfig("classroom", { mode: "cure", mini_batches: 1 }), "code")).toBe(2); // 16 + 64 sequences
  });
  it("runTaskFile: --tasks wins (a built-in name is recorded as task_set), else the config's task_set", () => {
    const c = presetConfig("classroom");
    expect(c.task_set).toBe("arena-v2");
    const own = runTaskFile(undefined, c);
    expect(own.file.name).toBe("arena-v2");
    expect(own.config).toBe(c);
    const v1 = runTaskFile("arena-v1", c);
    expect(v1.file.name).toBe("arena-v1");
    expect(v1.config.task_set).toBe("arena-v1");
    const dir = mkdtempSync(join(tmpdir(), "tasks-"));
    const path = join(dir, "mine.json");
    writeFileSync(path, JSON.stringify(arenaV1()));
    const file = runTaskFile(path, c);
    expect(file.file.tasks).toHaveLength(arenaV1().tasks.length);
    expect(file.config.task_set).toBe("arena-v2");
    expect(() => runTaskFile(join(dir, "missing.json"), c)).toThrow(/task file not found/);
  });

  it("applies Mistake Book deltas as storage does", () => {
    const e = (test: string, frequency: number) => ({ test, frequency, first_step: 1, last_step: 1, failed_code: "" });
    const book = { tasks: { a: [e("t1", 1), e("t2", 2)] } };
    const next = applyMistakeBookDeltas(book, [{ task: "a", step: 2, added: [e("t3", 1)], removed: ["t1"], changed: [e("t2", 3)] }]);
    expect(next.tasks.a.map((x) => [x.test, x.frequency])).toEqual([["t2", 3], ["t3", 1]]);
    expect(applyMistakeBookDeltas(next, [{ task: "a", step: 3, added: [], removed: ["t2", "t3"], changed: [] }]).tasks).toEqual({});
  });
});

describe("the scripts", () => {
  const run = (script: string, args: string[]) => spawnSync("npx", ["tsx", `scripts/${script}.ts`, ...args], { encoding: "utf8", timeout: 60_000 });

  it("train: --out is required, bad presets and task files are named, exit code 2", () => {
    let r = run("train", ["--preset", "classroom"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--out is required/);
    expect(r.stderr).toMatch(/usage: npm run train/);
    r = run("train", ["--preset", "nope", "--out", "runs/x.a1run"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown preset "nope"/);
    const dir = mkdtempSync(join(tmpdir(), "cli-"));
    writeFileSync(join(dir, "tasks.json"), "{ not json");
    r = run("train", ["--tasks", join(dir, "tasks.json"), "--out", join(dir, "x.a1run")]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/task file .*tasks\.json is not valid JSON/);
  });

  it("eval: a run file or --preset, a missing or corrupt bundle is a clear error", () => {
    let r = run("eval", []);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/give either a run file or --preset/);
    r = run("eval", ["runs/does-not-exist.a1run"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/run file not found: runs\/does-not-exist\.a1run/);
    const dir = mkdtempSync(join(tmpdir(), "cli-"));
    writeFileSync(join(dir, "bad.a1run"), "not a zip");
    r = run("eval", [join(dir, "bad.a1run"), "--json"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/Cannot open this \.a1run file: it is not a zip archive \(no end-of-archive record\)/);
    r = run("eval", ["--preset", "classroom", "--base", dir, "--size", "small"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--base .*: no base-small\.bin there \(npm run pretrain-base -- --out .* --size small\)/);
    r = run("eval", ["--preset", "classroom", "--size", "huge"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--size must be tiny or small, got "huge"/);
    r = run("eval", [join(dir, "bad.a1run"), "--base", dir]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--base and --size go with --preset/);
  });

  it("reproduce: a cache made from another base checkpoint, or holding runs with no record of one, is refused before anything runs", () => {
    const other = mkdtempSync(join(tmpdir(), "cache-"));
    writeFileSync(join(other, "base.sha256"), "0".repeat(64) + "\n");
    let r = run("reproduce", ["--out-dir", other, "--seeds", "1", "--steps", "1", "--results", join(other, "R.md")]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/holds runs started from another base checkpoint \(sha256 000000000000, shipped now [0-9a-f]{12}\)/);
    const unrecorded = mkdtempSync(join(tmpdir(), "cache-"));
    writeFileSync(join(unrecorded, "classroom-code-a1-s1-n1.eval.json"), "{}");
    r = run("reproduce", ["--out-dir", unrecorded, "--seeds", "1", "--steps", "1", "--results", join(unrecorded, "R.md")]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/holds runs but no record of their base checkpoint/);
    expect(existsSync(join(unrecorded, "R.md"))).toBe(false);
  });
});
