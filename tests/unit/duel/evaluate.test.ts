/**
 * Evaluation of players on real Pyodide grading and real tfjs sampling: tiny fresh policies for
 * determinism, and scripted players (that always write the reference, a buggy variant, or the golden
 * tests) for numbers known in advance, including the test-time-scaling choice.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bench } from "../../../src/core/arena/metrics-evaluate.ts";
import { prepareBench } from "../../../src/core/arena/mutants.ts";
import { taskSignature, type Task } from "../../../src/core/arena/task.ts";
import { encodeCode, encodeSuite } from "../../../src/core/arena/tokenizer.ts";
import type { Vocabulary } from "../../../src/core/arena/vocab.ts";
import { arenaConstraints, codeContext, taskVocabulary } from "../../../src/core/duel/contexts.ts";
import { evaluatePlayers, samplePrograms, type Sampler } from "../../../src/core/duel/evaluate.ts";
import { argmaxFirst } from "../../../src/core/duel/rank.ts";
import { EVAL_METRIC_KEYS, LATER_EVAL_METRIC_KEYS } from "../../../src/core/loop/types.ts";
import { PolicyService } from "../../../src/core/policy/policy-service.ts";
import { createNodeGrader } from "../../../src/node/grader.ts";
import { createNodeRunPython, mutateSource } from "../../../src/node/python-runner.ts";
import { loadTaskFile } from "../../../src/node/run-files.ts";
import { useNodeBackend } from "../../../src/node/tf-backend.ts";
import type { SupervisedGrader } from "../../../src/core/grader/supervisor.ts";

const file = loadTaskFile();
const vocab: Vocabulary = taskVocabulary(file);
// One train task and one held-out task, each with buggy variants (small: grading dominates the time).
const tasks: Task[] = [
  ...file.tasks.filter((t) => t.split === "train" && t.buggy_variants.length > 0).slice(0, 1),
  ...file.tasks.filter((t) => t.split === "heldout" && t.buggy_variants.length > 0).slice(0, 1),
];

let grader: SupervisedGrader;
let bench: Bench;
let code: PolicyService;
let test: PolicyService;

beforeAll(async () => {
  await useNodeBackend("wasm");
  grader = await createNodeGrader();
  bench = await prepareBench(grader, createNodeRunPython(), mutateSource(), tasks, { count: 20 });
  code = new PolicyService(arenaConstraints(vocab));
  test = new PolicyService(arenaConstraints(vocab));
  await code.init(["wasm", "cpu"]);
  await test.init(["wasm", "cpu"]);
  await code.create({ size: "tiny", vocab: vocab.size, seed: "eval-code" });
  await test.create({ size: "tiny", vocab: vocab.size, seed: "eval-test" });
}, 180_000);

afterAll(async () => {
  code?.dispose();
  test?.dispose();
  await grader?.close();
});

/** A scripted player: row r of every call gets `write(task of row r, index of the row within its task)`. */
function scripted(write: (t: Task, i: number) => number[]): Sampler {
  return {
    async sample(prompts, constraint, opts) {
      expect(Array.isArray(constraint) ? constraint.length : 1).toBe(Array.isArray(constraint) ? prompts.length : 1);
      const seen = new Map<string, number>();
      // The task of a row is the one whose code context (prompt and signature) starts the row's context.
      const taskOf = (ctx: number[]) => tasks.find((x) => codeContext(vocab, x).every((tok, i) => ctx[i] === tok))!;
      const completions = prompts.map((ctx) => {
        const t = taskOf(ctx);
        const i = seen.get(t.id) ?? 0;
        seen.set(t.id, i + 1);
        return [...write(t, i), vocab.eos];
      });
      return {
        rollout: {
          prompts,
          completions,
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
const writeReference = (t: Task) => encodeCode(vocab, t.reference, taskSignature(t)).filter((x) => x !== vocab.eos);
const writeGolden = (t: Task) => encodeSuite(vocab, t.golden_tests.join("\n"), taskSignature(t)).filter((x) => x !== vocab.eos);

describe("evaluatePlayers", () => {
  it("is deterministic for a given checkpoint and seed, and returns every evaluation metric as a fraction", async () => {
    const opts = { vocab, grader, samples: 2, seed: 7, k: 2, ttsSuitesPerCode: 1 };
    const a = await evaluatePlayers(code, test, bench, tasks, opts);
    const b = await evaluatePlayers(code, test, bench, tasks, opts);
    expect(b.programs).toEqual(a.programs);
    expect(b.testSuites).toEqual(a.testSuites);
    expect(b.metrics).toEqual(a.metrics);
    // arena-v1 has no compositional / family split: those two are not measured (NaN; evaluate-splits.test.ts measures them).
    expect([a.metrics.plus_pass_heldout_compositional, a.metrics.plus_pass_heldout_family]).toEqual([NaN, NaN]);
    for (const key of [...EVAL_METRIC_KEYS.filter((k) => !(LATER_EVAL_METRIC_KEYS as readonly string[]).includes(k)), "golden_pass_train", "test_validity", "bug_detection", "tts_plus_pass", "plain_plus_pass"] as const) {
      const v = a.metrics[key];
      expect(Number.isFinite(v), key).toBe(true);
      if (key !== "mul") expect(v >= 0 && v <= 1, `${key} = ${v}`).toBe(true);
    }
    expect(a.metrics.mul).toBeCloseTo(a.metrics.test_pass_k * a.metrics.test_mut_k * 100, 10);
    // The new figures are the suite evaluation's, as fractions: held-out bug detection per suite, union@k, Mul on hard mutants.
    expect(a.metrics.bug_detection_heldout).toBe(a.suites!.bugDetection.heldout / 100);
    expect(a.metrics.bug_k_heldout).toBe(a.suites!.bugK.heldout / 100);
    expect(a.metrics.mul_suite).toEqual(a.suites!.mulSuite.all);
    expect(a.metrics.mut_hard_k).toEqual(a.suites!.mutHardK.all / 100);
    expect(Object.keys(a.programs)).toEqual(tasks.map((t) => t.id));
    expect(a.programs[tasks[0].id]).toHaveLength(2);
    // Another seed samples other programs (sampling only: the grading path is the same).
    const c = await samplePrograms(code, tasks, { ...opts, seed: 8 });
    expect(c.texts).not.toEqual(a.programs);
    expect((await samplePrograms(code, tasks, opts)).texts).toEqual(a.programs);
  });

  it("scores a player that writes the reference and one that writes the golden tests as perfect where they must be", async () => {
    // k = n = 3 (k = 5 with 3 samples is now refused instead of silently computing pass@3).
    const ev = await evaluatePlayers(scripted(writeReference), scripted(writeGolden), bench, tasks, { vocab, grader, samples: 3, seed: 1, k: 3 });
    expect(ev.metrics).toMatchObject({ samples: 3, k: 3, plus_share_train: 1, plus_share_heldout: 1 });
    expect(ev.metrics.plus_pass_train).toBe(1);
    expect(ev.metrics.plus_pass_heldout).toBe(1);
    expect(ev.metrics.golden_pass_train).toBe(1);
    // Golden tests are valid on the reference: every line valid, every suite passes, pass@k 1.
    expect(ev.metrics.test_validity).toBe(1);
    expect(ev.metrics.test_pass_k).toBe(1);
    // Mut@k and bug detection: exactly what the golden tests catch, computed here from the graded kills.
    const killShare = ev.suites!.perTask.map((p) => p.kills[0].filter(Boolean).length / p.kills[0].length);
    expect(ev.metrics.test_mut_k).toBeCloseTo(killShare.reduce((x, y) => x + y, 0) / killShare.length, 10);
    expect(ev.metrics.mul).toBeCloseTo(100 * ev.metrics.test_mut_k, 10);
  });

  it("test-time scaling keeps the program that passes the generated tests, ignoring the others", async () => {
    // Programs alternate buggy variant / reference; the Test policy writes the golden tests.
    const writeMixed = (t: Task, i: number) =>
      i % 2 === 0 ? encodeCode(vocab, t.buggy_variants[0].code, taskSignature(t)).filter((x) => x !== vocab.eos) : writeReference(t);
    const ev = await evaluatePlayers(scripted(writeMixed), scripted(writeGolden), bench, tasks, { vocab, grader, samples: 2, k: 2, seed: 1, ttsSuitesPerCode: 1 });
    const tts = ev.tts!;
    for (const p of tts.perTask) {
      // The reference passes every golden line; the buggy variant fails one at least (or ties).
      expect(p.passRates[1]).toBe(1);
      expect(p.choice).toBe(argmaxFirst(p.passRates));
      expect(p.chosenPlusPass).toBe(true);
      // Dual agreement: two programs, two different pass vectors (sets of one): the one passing more lines.
      expect(p.dualChoice).toBe(1);
      expect(p.dualPlusPass).toBe(true);
    }
    expect(ev.metrics.tts_plus_pass).toBe(1);
    expect(ev.metrics.tts_dual_plus_pass).toBe(1);
    // Plain sampling: the reference half always passes plus, the buggy half passes only if no plus test catches it.
    expect(ev.metrics.plain_plus_pass).toBeLessThan(1);
    // Partial credit: the buggy half still passes part of the plus tests, so the share of plus tests
    // passed lies between plus-pass@1 (all-or-nothing) and 1.
    const share = (ev.metrics.plus_share_train + ev.metrics.plus_share_heldout) / 2;
    const pass1 = (ev.metrics.plus_pass_train + ev.metrics.plus_pass_heldout) / 2;
    expect(share).toBeGreaterThan(pass1);
    expect(share).toBeLessThan(1);
    for (const p of ev.codes.perTask) for (const [i, x] of p.plusShare.entries()) expect(x === 1).toBe(p.plusPass[i]);
  });

  it("rejects tasks outside the bench and bad sample counts", async () => {
    const other = file.tasks.find((t) => !tasks.includes(t))!;
    await expect(evaluatePlayers(code, test, bench, [other], { vocab, grader, samples: 1, seed: 1 })).rejects.toThrow(/not in the evaluation bench/);
    await expect(evaluatePlayers(code, test, bench, tasks, { vocab, grader, samples: 0, seed: 1 })).rejects.toThrow(/samples must be a positive integer/);
    await expect(evaluatePlayers(code, test, bench, tasks, { vocab, grader, samples: 3, seed: 1, k: 5 })).rejects.toThrow(/pass@5 and mut@5 need at least 5 suites per task, got samples = 3/);
  });
});

describe("argmaxFirst", () => {
  it("keeps the first of equal maxima", () => {
    expect(argmaxFirst([0.5, 1, 1, 0])).toBe(1);
    expect(argmaxFirst([])).toBe(-1);
  });
});
