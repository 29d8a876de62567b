/**
 * Evaluation by split on arena-v2: plus_pass_heldout_compositional and plus_pass_heldout_family
 * each over their own tasks, plus_pass_heldout over both (real Pyodide grading, scripted players
 * whose answers are known in advance), and `npm run eval -- --json` carrying the new keys.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arenaV2 } from "../../../src/core/arena/arena-v2.ts";
import type { Bench } from "../../../src/core/arena/metrics-evaluate.ts";
import { prepareBench } from "../../../src/core/arena/mutants.ts";
import { taskSignature, type Task } from "../../../src/core/arena/task.ts";
import { encodeCode, encodeSuite } from "../../../src/core/arena/tokenizer.ts";
import { arenaVocabulary, codeContext } from "../../../src/core/duel/contexts.ts";
import { evaluatePlayers, type Sampler } from "../../../src/core/duel/evaluate.ts";
import { createNodeGrader } from "../../../src/node/grader.ts";
import { createNodeRunPython, mutateSource } from "../../../src/node/python-runner.ts";
import { evalTasks, metricsJson } from "../../../src/node/evaluate-run.ts";
import { presetConfig } from "../../../src/core/config/index.ts";
import type { SupervisedGrader } from "../../../src/core/grader/supervisor.ts";

const vocab = arenaVocabulary();
const file = arenaV2();
// One task of each split; two of heldout_compositional so the split mean is over tasks.
const tasks: Task[] = [
  file.tasks.find((t) => t.split === "train")!,
  ...file.tasks.filter((t) => t.split === "heldout_compositional").slice(0, 2),
  file.tasks.find((t) => t.split === "heldout_family")!,
];

/** Every row of a task gets `write(task)`; the task is the one whose code context starts the row. */
function scripted(write: (t: Task) => number[]): Sampler {
  return {
    async sample(prompts, _constraint, opts) {
      const taskOf = (ctx: number[]) => tasks.find((x) => codeContext(vocab, x).every((tok, i) => ctx[i] === tok))!;
      const completions = prompts.map((ctx) => [...write(taskOf(ctx)), vocab.eos]);
      return {
        rollout: {
          prompts, completions,
          logProbs: completions.map((c) => new Float32Array(c.length)),
          masks: completions.map(() => new Uint8Array(0)),
          done: completions.map(() => true),
          temperature: 1,
          vocab: vocab.size,
        },
        rngState: opts.rngState,
      };
    },
  };
}
const tokens = (t: Task, code: string) => encodeCode(vocab, code, taskSignature(t)).filter((x) => x !== vocab.eos);
const golden = (t: Task) => encodeSuite(vocab, t.golden_tests.join("\n"), taskSignature(t)).filter((x) => x !== vocab.eos);

let grader: SupervisedGrader;
let bench: Bench;
beforeAll(async () => {
  grader = await createNodeGrader();
  bench = await prepareBench(grader, createNodeRunPython(), mutateSource(), tasks, { count: 20 });
}, 180_000);
afterAll(async () => {
  await grader?.close();
});

describe("evaluation by arena-v2 split", () => {
  it("reports plus-pass of unseen combinations and of unseen primitives separately, and both as held-out", async () => {
    // References everywhere except the heldout_family task, which gets a buggy variant (fails a plus test).
    const write = (t: Task) => tokens(t, t.split === "heldout_family" ? t.buggy_variants[0].code : t.reference);
    const ev = await evaluatePlayers(scripted(write), scripted(golden), bench, tasks, { vocab, grader, samples: 2, k: 2, seed: 1 });
    expect(ev.metrics.plus_pass_train).toBe(1);
    expect(ev.metrics.plus_pass_heldout_compositional).toBe(1);
    expect(ev.metrics.plus_pass_heldout_family).toBe(0);
    expect(ev.metrics.plus_pass_heldout).toBeCloseTo(2 / 3, 10); // mean over the 3 held-out tasks
    const json = JSON.parse(metricsJson(ev.metrics)) as Record<string, number | null>;
    expect(json).toMatchObject({ plus_pass_heldout: 0.666667, plus_pass_heldout_compositional: 1, plus_pass_heldout_family: 0 });
  }, 120_000);

  it("--task-limit takes the first N of train and of each held-out split", () => {
    const picked = evalTasks(file, presetConfig("classroom"), 0, "all", 2);
    expect(picked.map((t) => t.split)).toEqual(["train", "train", "heldout_compositional", "heldout_compositional", "heldout_family", "heldout_family"]);
  });
});
