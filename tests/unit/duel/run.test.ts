import { beforeAll, describe, expect, it } from "vitest";
import { arenaV1, tasksOfSplit } from "../../../src/core/arena/task-suite.ts";
import { arenaConstraints, taskVocabulary } from "../../../src/core/duel/contexts.ts";
import { RunLoop, type RunCommit } from "../../../src/core/duel/run.ts";
import type { DuelState } from "../../../src/core/duel/step.ts";
import { PolicyService } from "../../../src/core/policy/policy-service.ts";
import { presetConfig, type Config } from "../../../src/core/config/index.ts";
import { emptyMistakeBook } from "../../../src/core/loop/mistake-book.ts";
import { STEP_METRIC_KEYS, type StepMetrics } from "../../../src/core/loop/types.ts";
import { Rng } from "../../../src/core/rng.ts";
import { useNodeBackend } from "../../../src/node/tf-backend.ts";
import { sharedNodeGrader } from "../node-grader.ts";

const file = arenaV1();
const vocab = taskVocabulary(file);
const train = tasksOfSplit(file, "train");
const grader = sharedNodeGrader();
beforeAll(() => useNodeBackend("wasm"));

// A duel small enough for a unit test: 2 tasks x 2 programs x 2 suites of at most 3 lines.
const config: Config = presetConfig("classroom", {
  steps: 3, tasks_per_step: 2, num_generations: 2, suites_per_code: 2, tests_per_suite: 3,
  mistake_book_top_k: 3, eval_every: 0, checkpoint_every: 10, learning_rate: 1e-3, seed: 7,
});

async function players(checkpoints?: Record<string, ArrayBuffer>) {
  const make = async (name: "code" | "test", seed: number) => {
    const s = new PolicyService(arenaConstraints(vocab));
    await s.init(["wasm"]);
    if (checkpoints) await s.load(checkpoints[name]);
    else await s.create({ size: "tiny", vocab: vocab.size, seed, reference: true, train: { lr: config.learning_rate } });
    return s;
  };
  return { code: await make("code", 1), test: await make("test", 2) };
}

function memoryStore() {
  const commits: RunCommit[] = [];
  return { commits, store: { commitStep: async (c: RunCommit) => void commits.push(c) } };
}

const start = (): DuelState => ({ step: 0, book: emptyMistakeBook(), rng: new Rng(config.seed).state() });
const withoutTimes = (m: StepMetrics) => Object.fromEntries(STEP_METRIC_KEYS.filter((k) => !k.startsWith("time_")).map((k) => [k, m[k]]));

describe("RunLoop", () => {
  it("commits every step with a checkpoint, and a run resumed from step 2 reaches the same step-3 metrics", async () => {
    // Uninterrupted run.
    const a = memoryStore();
    const pa = await players();
    const events: string[] = [];
    await new RunLoop({ runId: "a", config, duel: { vocab, tasks: train, grader }, ...pa, store: a.store, emit: (e) => events.push(e.type) }, start()).run();
    expect(a.commits.map((c) => c.step)).toEqual([1, 2, 3]);
    expect(events).toContain("step");
    for (const c of a.commits) {
      expect(c.checkpoint?.policies.code.byteLength).toBeGreaterThan(1000);
      expect(c.duels).toHaveLength(2);
      expect(c.duels[0].codes).toHaveLength(2);
      expect(c.metrics.code_loads).toBe(1); // the grammar only writes programs that load
    }
    expect(a.commits[2].status).toBe("done");

    // Interrupted after step 2, "reloaded" from the step-2 commit: fresh services load the checkpoint.
    const b = memoryStore();
    const pb = await players();
    await new RunLoop({ runId: "b", config, duel: { vocab, tasks: train, grader }, ...pb, store: b.store }, start()).run(2);
    const saved = b.commits[1];
    expect(withoutTimes(saved.metrics)).toEqual(withoutTimes(a.commits[1].metrics));
    const pc = await players(saved.checkpoint!.policies);
    const resumed: DuelState = { step: saved.step, book: saved.checkpoint!.mistakeBook, rng: saved.rngState };
    const c = memoryStore();
    await new RunLoop({ runId: "b", config, duel: { vocab, tasks: train, grader }, ...pc, store: c.store }, resumed).run();
    expect(c.commits.map((x) => x.step)).toEqual([3]);
    expect(withoutTimes(c.commits[0].metrics)).toEqual(withoutTimes(a.commits[2].metrics));
    expect(c.commits[0].duels.map((d) => d.codes.map((x) => x.text))).toEqual(a.commits[2].duels.map((d) => d.codes.map((x) => x.text)));
  }, 600_000);
});
