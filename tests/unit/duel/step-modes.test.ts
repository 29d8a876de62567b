/**
 * duelStep in every mode, with a fake grader (a JS oracle for one task) and fake players (scripted
 * programs and suites, no tfjs): what each mode samples, how it scores, what it trains. The rows of
 * MODE_TABLE (src/core/duel/modes.ts) are what these tests pin down.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { arenaV1, tasksOfSplit } from "../../../src/core/arena/task-suite.ts";
import { taskSignature } from "../../../src/core/arena/task.ts";
import { encodeCode, encodeSuite } from "../../../src/core/arena/tokenizer.ts";
import type { GrpoSample } from "../../../src/core/policy/batch.ts";
import type { ConstraintSpec } from "../../../src/core/policy/policy-service.ts";
import type { UpdateMetrics } from "../../../src/core/policy/policy.ts";
import type { Grader, GradeRequest, GradeResult, LineResult } from "../../../src/core/grader/types.ts";
import { presetConfig, type Config, type Mode } from "../../../src/core/config/index.ts";
import { taskVocabulary, codeContext } from "../../../src/core/duel/contexts.ts";
import { duelStep, type DuelState, type Player } from "../../../src/core/duel/step.ts";
import { scriptedRollout } from "./scripted-player.ts";
import { MODE_TABLE } from "../../../src/core/duel/modes.ts";
import { emptyMistakeBook } from "../../../src/core/loop/mistake-book.ts";
import { MODES } from "../../../src/core/config/fields.ts";
import { Rng } from "../../../src/core/rng.ts";

const file = arenaV1();
const vocab = taskVocabulary(file);
const task = tasksOfSplit(file, "train").find((t) => t.id === "sum-positive")!;
const sig = taskSignature(task);

// --- a JS oracle for "sum of the positive numbers in xs" -------------------------------------
const REF = task.reference;
const BUG_ALL = "def f(xs):\n    return sum(xs)";
const BUG_NEG = "def f(xs):\n    return sum(v for v in xs if v < 0)";
const RUN: Record<string, (xs: number[]) => number> = {
  [REF]: (xs) => xs.filter((v) => v > 0).reduce((a, b) => a + b, 0),
  [BUG_ALL]: (xs) => xs.reduce((a, b) => a + b, 0),
  [BUG_NEG]: (xs) => xs.filter((v) => v < 0).reduce((a, b) => a + b, 0),
};
/** Catches both bugs. */
const SUITE_GOOD = "assert f([1, -2]) == 1\nassert f([3]) == 3";
/** Catches only BUG_NEG. */
const SUITE_WEAK = "assert f([3]) == 3";
/** Its expected output is BUG_ALL's, not the reference's: a wrong test. */
const SUITE_WRONG = "assert f([1, -2]) == -1";

function parseLine(line: string): { args: number[]; answer: number } {
  const m = /^assert f\((\[.*\])\) == (-?\d+)$/.exec(line);
  if (!m) throw new Error(`fake grader: cannot read ${line}`);
  return { args: JSON.parse(m[1]) as number[], answer: Number(m[2]) };
}

/** The grader's semantics for this one task: suites reference-corrected, golden lines as written. */
function fakeGrader(): Grader & { requests: GradeRequest[] } {
  const requests: GradeRequest[] = [];
  const judge = (code: string, text: string, corrected: boolean): LineResult[] => {
    const seen = new Set<string>();
    return text.split("\n").filter((l) => l.trim()).map((line): LineResult => {
      const { args, answer } = parseLine(line);
      const call = JSON.stringify(args);
      if (seen.has(call)) return { validity: "invalid", reason: "repeat", verdict: "skipped" };
      seen.add(call);
      const ref = RUN[REF](args);
      const out = RUN[code](args);
      if (!corrected) return { validity: "valid", reason: "", verdict: out === answer ? "pass" : "fail" };
      return {
        validity: answer === ref ? "valid" : "wrong-answer",
        reason: "",
        verdict: out === ref ? "pass" : "fail",
        corrected: `assert f(${line.slice("assert f(".length, line.indexOf(") == "))}) == ${ref}`,
      };
    });
  };
  return {
    requests,
    async grade(r: GradeRequest): Promise<GradeResult> {
      requests.push(r);
      return {
        codes: r.codes.map(() => ({ status: "ok", reason: "" })),
        suites: (r.suites ?? []).map((s) => judge(r.codes[s.code].code, s.text, true)),
        golden: (r.golden ?? []).map((s) => judge(r.codes[s.code].code, s.text, false)),
      };
    },
    async close() {},
  };
}

// --- scripted players ---------------------------------------------------------------------------
interface FakePlayer extends Player {
  prompts: { kind: string; prompt: number[] }[];
  updates: GrpoSample[][];
}

/** Writes programs [REF, BUG_ALL, BUG_NEG] and suites [GOOD, WEAK, WRONG], cycling per group. */
function fakePlayer(): FakePlayer {
  const prompts: FakePlayer["prompts"] = [];
  const updates: GrpoSample[][] = [];
  return {
    prompts,
    updates,
    async sample(rows: number[][], specs: ConstraintSpec | ConstraintSpec[], opts) {
      const list = Array.isArray(specs) ? specs : rows.map(() => specs);
      const completions = rows.map((prompt, i) => {
        const kind = list[i].kind;
        prompts.push({ kind, prompt });
        return kind === "code"
          ? encodeCode(vocab, [REF, BUG_ALL, BUG_NEG][i % 3], sig)
          : encodeSuite(vocab, [SUITE_GOOD, SUITE_WEAK, SUITE_WRONG][i % 3], sig);
      });
      return { rollout: scriptedRollout(vocab, rows, completions, opts.temperature ?? 1), rngState: opts.rngState };
    },
    async update(samples: GrpoSample[], rngState) {
      updates.push(samples);
      const metrics: UpdateMetrics = { loss: 0, pgLoss: 0, clipFraction: 0.25, dualClipFraction: 0, kl: 0, entropy: 0, gradNorm: 0, lr: 0, steps: 2, tokens: 0 };
      return { metrics, rngState };
    },
  };
}

function config(mode: Mode, extra: Partial<Config> = {}): Config {
  return presetConfig("classroom", { mode, tasks_per_step: 1, num_generations: 3, suites_per_code: 3, tests_per_suite: 8, topvar_k: 1, seed: 3, ...extra });
}

async function runStep(mode: Mode, extra: Partial<Config> = {}) {
  const c = config(mode, extra);
  const shared = MODE_TABLE[mode].sharedPolicy;
  const code = fakePlayer();
  const test = shared ? code : fakePlayer();
  const grader = fakeGrader();
  const state: DuelState = { step: 0, book: emptyMistakeBook(), rng: new Rng(c.seed).state() };
  const out = await duelStep({ config: c, vocab, tasks: [task], code, test, grader }, state);
  return { out, code, test, grader, record: out.duels[0] };
}

const codeContextLength = codeContext(vocab, task).length;
const suitePrompts = (p: FakePlayer) => p.prompts.filter((x) => x.kind === "suite");
const whiteBoxPrompts = (p: FakePlayer) => suitePrompts(p).every((x) => x.prompt.length > codeContextLength + 1);

describe("duelStep, mode by mode (fake grader, fake players)", () => {
  it("code-a1: two policies, white-box suites, R_T = alpha R_val + (1 - alpha) R_adv, Mistake Book, TopVar top-1", async () => {
    const { out, code, test, record } = await runStep("code-a1");
    expect(code).not.toBe(test);
    expect(suitePrompts(test)).toHaveLength(9);
    expect(whiteBoxPrompts(test)).toBe(true);
    // BUG_ALL (code 1) against SUITE_GOOD: 2 valid lines, fails 1 -> R_val 2/8, R_adv 1/8, R_T 0.1875.
    expect(record.codes[1].suites[0]).toMatchObject({ r_val: 0.25, r_adv: 0.125, reward: 0.1875 });
    // REF passes everything it is tested on (reference-corrected): R_C 1.
    expect(record.codes[0].reward).toBe(1);
    // BUG_ALL: passes 1/2 of GOOD, 1/1 of WEAK, 0/1 of WRONG (corrected to the reference) -> R_C 0.5.
    expect(record.codes[1].reward).toBe(0.5);
    expect(out.deltas[0].added.length).toBeGreaterThan(0);
    expect(out.metrics.mistake_book_size).toBeGreaterThan(0);
    // TopVar top-1: the Test policy trains on the 3 suites of one code; the Code policy on all 3
    // programs, zero advantages included (the reference's default).
    expect(record.topvar.selected).toHaveLength(1);
    expect(code.updates).toHaveLength(1);
    expect(code.updates[0]).toHaveLength(3);
    expect(test.updates).toHaveLength(1);
    expect(test.updates[0]).toHaveLength(3);
    expect(out.metrics.clip_fraction_code).toBe(0.25);
    expect(out.metrics.clip_fraction_test).toBe(0.25);
    expect(out.metrics.optimizer_steps_code).toBe(2);
  });

  it("code-a1 with topvar off trains the tester on every code's suites; drop_zero_advantage removes A = 0 samples", async () => {
    const all = await runStep("code-a1", { topvar: false });
    expect(all.test.updates[0]).toHaveLength(9);
    expect(all.record.topvar.selected.slice().sort()).toEqual([0, 1, 2]);
    const dropped = await runStep("code-a1", { topvar: false, drop_zero_advantage: true });
    const kept = all.test.updates[0].filter((s) => s.advantage !== 0).length;
    expect(kept).toBeLessThan(9);
    expect(dropped.test.updates[0]).toHaveLength(kept);
  });

  it("black-box code-a1: the Test policy sees only the task", async () => {
    const { test } = await runStep("code-a1", { white_box: false });
    expect(suitePrompts(test).every((x) => x.prompt.length === codeContextLength + 1)).toBe(true);
  });

  it("golden-tests: no suites, R_C = golden pass rate, only the Code policy trains", async () => {
    const { out, test, code, record, grader } = await runStep("golden-tests");
    expect(suitePrompts(test)).toHaveLength(0);
    expect(grader.requests[0].suites).toHaveLength(0);
    // golden: f([1, -2, 3]) == 4, f([5, 6]) == 11; BUG_ALL passes 1 of 2, BUG_NEG none.
    expect(record.codes.map((c) => c.reward)).toEqual([1, 0.5, 0]);
    expect(code.updates).toHaveLength(1);
    expect(test.updates).toHaveLength(0);
    expect(out.metrics.mistake_book_size).toBe(0);
    expect(record.topvar.selected).toEqual([]);
  });

  it("self-play: one shared policy, white-box, one update with both roles' samples, Code-A1's rewards", async () => {
    const { out, code, test, record } = await runStep("self-play");
    expect(code).toBe(test);
    expect(whiteBoxPrompts(code)).toBe(true);
    expect(code.updates).toHaveLength(1);
    expect(code.updates[0]).toHaveLength(3 + 3); // 3 programs + the 3 suites of TopVar's code
    expect(record.codes[1].suites[0]).toMatchObject({ r_val: 0.25, r_adv: 0.125, reward: 0.1875 });
    expect(out.metrics.mistake_book_size).toBeGreaterThan(0);
  });

  it("self-play without Mistake Book and TopVar (the plain baseline)", async () => {
    const { out, code } = await runStep("self-play", { mistake_book: false, topvar: false });
    expect(out.metrics.mistake_book_size).toBe(0);
    expect(out.deltas).toHaveLength(0);
    expect(code.updates[0]).toHaveLength(3 + 9);
  });

  it("self-play-blackbox: shared policy, the tester sees only the task", async () => {
    const { code, test } = await runStep("self-play-blackbox");
    expect(code).toBe(test);
    expect(suitePrompts(code).every((x) => x.prompt.length === codeContextLength + 1)).toBe(true);
  });

  it("cure: tests judged by their OWN expected outputs on every program; records show CURE's reward only", async () => {
    const { out, code, record, grader } = await runStep("cure");
    // Each suite runs as written (golden list) on each of the 3 programs.
    const asWritten = grader.requests[0].golden!.filter((g) => g.text === SUITE_WRONG);
    expect(asWritten.length).toBe(3 * 3);
    // REF is correct (passes the golden tests); BUG_ALL and BUG_NEG are wrong.
    // SUITE_GOOD: REF passes both lines; f([1, -2]) == 1 fails both wrong programs (+1),
    // f([3]) == 3 fails only BUG_NEG (+1/2) -> mean 0.75.
    expect(record.codes[0].suites[0]).toEqual(expect.objectContaining({ r_val: null, r_adv: null, reward: 0.75 }));
    // SUITE_WEAK: REF passes; BUG_ALL passes, BUG_NEG fails -> +1/2.
    expect(record.codes[0].suites[1].reward).toBe(0.5);
    // SUITE_WRONG as written: REF fails it (1 != -1), BUG_ALL passes, BUG_NEG fails -> -(1/2).
    // Reference-corrected it would have scored +1: the model's own answer is what is judged.
    expect(record.codes[0].suites[2].reward).toBe(-0.5);
    // Programs: golden pass rate; no Mistake Book; the tester trains on every code's suites.
    expect(record.codes.map((c) => c.reward)).toEqual([1, 0.5, 0]);
    expect(out.metrics.mistake_book_size).toBe(0);
    expect(suitePrompts(code).every((x) => x.prompt.length === codeContextLength + 1)).toBe(true);
    expect(code.updates[0]).toHaveLength(3 + 9);
    expect(out.metrics.r_val).toBe(0);
    expect(out.metrics.test_reward).toBeCloseTo((0.75 + 0.5 - 0.5) / 3);
  });

  it("base: samples and scores, trains nothing", async () => {
    const { out, code, test } = await runStep("base");
    expect(code.updates).toHaveLength(0);
    expect(test.updates).toHaveLength(0);
    expect(out.metrics.loss_code).toBe(0);
    expect(out.metrics.optimizer_steps_code).toBe(0);
    expect(out.metrics.code_reward).toBeGreaterThan(0);
  });

  it("same config and seed, same step: rewards, records, update batches and the next state", async () => {
    const strip = (o: Awaited<ReturnType<typeof runStep>>) => ({
      metrics: Object.fromEntries(Object.entries(o.out.metrics).filter(([k]) => !k.startsWith("time_"))),
      duels: o.out.duels,
      state: o.out.state,
      updates: o.test.updates.map((u) => u.map((x) => x.advantage)),
    });
    for (const mode of MODES) expect(strip(await runStep(mode)), mode).toEqual(strip(await runStep(mode)));
  });

  it("every mode has a row and a test above; the step has no branch on a mode's name", () => {
    expect(Object.keys(MODE_TABLE).sort()).toEqual([...MODES].sort());
    const src = readFileSync(new URL("../../../src/core/duel/step.ts", import.meta.url), "utf8");
    // The mode is read once, as a row of the table; nothing compares it to a name.
    expect(src.match(/\.mode\b/g)).toEqual([".mode"]);
    expect(src).toContain("MODE_TABLE[c.mode]");
    expect(src).not.toMatch(/mode\s*[!=]==\s*"/);
  });
});
