import { describe, expect, it } from "vitest";
import type { RunSnapshot } from "../../src/core/bundle.ts";
import { presetConfig, type Config } from "../../src/core/config/index.ts";
import { emptyMistakeBook } from "../../src/core/loop/mistake-book.ts";
import { Rng } from "../../src/core/rng.ts";
import { cliConfig, configFlagValues, parseArgs, withConfigFlags } from "../../src/node/cli.ts";
import { assertRealRun, NotARealRunError, realRunProblems, trainCommand } from "../../src/node/readme-run.ts";
import { bytes, duel, fakeMetrics } from "./storage/helpers.ts";

/** A finished 4-step run's shape: timed metrics, the base and a trained checkpoint, duel records. */
function run(edit: (s: RunSnapshot) => void = () => {}): RunSnapshot {
  const rng = new Rng(5);
  const metrics = [1, 2, 3, 4].map((s) => ({ ...fakeMetrics(s, rng), time_sample_ms: 900, time_grade_ms: 400, time_update_ms: 700 }));
  const checkpoint = (step: number) => ({ step, kept: true, policies: { code: new Uint8Array(bytes(64, step + 1)), test: new Uint8Array(bytes(64, step + 2)) }, mistake_book: emptyMistakeBook(), rng_state: null, loop_state: null });
  const s: RunSnapshot = {
    run: { id: "r", name: "code-a1 seed 3", status: "done", created: 1, updated: 2, step: 4, rng_state: null, task_set_hash: "h", loop_state: null },
    config: presetConfig("classroom", { seed: 3, steps: 4 }),
    metrics,
    mistake_book: emptyMistakeBook(),
    checkpoints: [checkpoint(0), checkpoint(4)],
    duels: [3, 4].map((step) => ({ step, records: [duel(step, "t1")] })),
  };
  edit(s);
  return s;
}

describe("realRunProblems: what the README's pictures may show", () => {
  it("accepts a trained run", () => {
    expect(realRunProblems(run())).toEqual([]);
    expect(() => assertRealRun(run(), "x.a1run")).not.toThrow();
  });
  it("refuses a run without checkpoints, metrics, timings or duels, naming each reason", () => {
    expect(realRunProblems(run((s) => (s.checkpoints = [])))).toEqual(["it has no checkpoints: a trained run saves the policies' weights"]);
    expect(realRunProblems(run((s) => (s.checkpoints = s.checkpoints.slice(0, 1))))).toEqual(["its only checkpoint is the base players' (step 0): no trained weights"]);
    expect(realRunProblems(run((s) => (s.checkpoints[1].policies = {})))).toEqual(["some of its checkpoints carry no weights"]);
    expect(realRunProblems(run((s) => (s.duels = [])))).toEqual(["it has no duel records: the Duel view would be empty"]);
    expect(realRunProblems(run((s) => (s.metrics[2].time_grade_ms = 0)))).toEqual([
      "1 of its 4 steps record no sampling or grading time (first: step 3), which a trained step always has",
    ]);
    const empty = run((s) => {
      s.run.step = 0;
      s.metrics = [];
      s.checkpoints = [];
      s.duels = [];
    });
    expect(realRunProblems(empty)).toHaveLength(3);
    expect(() => assertRealRun(empty, "fixture.a1run")).toThrow(NotARealRunError);
    expect(() => assertRealRun(empty, "fixture.a1run")).toThrow(/^fixture\.a1run is not a real run, refusing to picture it: it has no metrics: no step was trained; it has no checkpoints/);
  });
});

describe("trainCommand: the command line that made a run", () => {
  it("names the closest preset, the seed and each other field that differs", () => {
    expect(trainCommand(presetConfig("classroom", { seed: 11, eval_every: 0 }), "runs/s11.a1run").command).toBe(
      "npm run train -- --preset classroom --seed 11 --eval_every 0 --out runs/s11.a1run",
    );
    expect(trainCommand(presetConfig("paper-mini", { seed: 2, alpha: 0.25, learning_rate: 3e-7 }), "runs/p.a1run").command).toBe(
      "npm run train -- --preset paper-mini --seed 2 --alpha 0.25 --learning_rate 3e-7 --out runs/p.a1run",
    );
    expect(trainCommand(presetConfig("classroom", { mistake_book: false }), "runs/a.a1run")).toEqual({
      command: "npm run train -- --preset no-mistake-book --seed 1 --out runs/a.a1run",
      preset: "no-mistake-book",
    });
    expect(trainCommand(presetConfig("classroom"), "runs/t.a1run", "my-set.json").command).toBe("npm run train -- --preset classroom --seed 1 --tasks my-set.json --out runs/t.a1run");
  });
  it("reads back, through the train command's own flag parsing, as the same config", () => {
    const flags = withConfigFlags({ preset: { kind: "string", help: "" }, out: { kind: "string", help: "" } });
    const configs: Config[] = [
      presetConfig("classroom", { seed: 11, eval_every: 0 }),
      presetConfig("paper-mini", { seed: 7, mode: "golden-tests", lr_scheduler_type: "constant", learning_rate: 1e-5, topvar: false, backend: "wasm", task_set: "arena-v1" }),
      presetConfig("alpha-0.75", { seed: 4_000_000_000, steps: 3, temperature: 0.7 }),
    ];
    for (const config of configs) {
      const argv = trainCommand(config, "runs/x.a1run").command.split(" ").slice(4);
      const parsed = parseArgs(argv, flags, 0);
      expect(parsed.flags.out).toBe("runs/x.a1run");
      expect(cliConfig(parsed.flags.preset as string, {}, configFlagValues(parsed.flags))).toEqual(config);
    }
  });
});
