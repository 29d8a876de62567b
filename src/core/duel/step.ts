/**
 * One training step of Code-A1 (../shared/spec/code-a1.md), and of the baselines that share its
 * shape. Numbered as the method:
 *
 *   1. take the step's `tasks_per_step` train tasks (task-order.ts: epochs of a seeded permutation);
 *   2. the Code policy writes G = num_generations programs per task;
 *   3. the Test policy writes S = suites_per_code suites per program, reading it (white-box) or not;
 *   4. the grader runs every (program, suite) pair reference-corrected, plus the task's Mistake Book
 *      tests (top-k, the same list for every program of the task) and the golden tests (and, for a
 *      mode that judges suites as written, every suite on every program of its task);
 *   5. rewards: R_T per pair, R_C per program (loop/score-task.ts, by the mode's rules);
 *   6. the Mistake Book takes the failed reference-corrected tests and forgets passed ones;
 *   7. TopVar picks the program(s) whose suites train the Test policy (or every program, or none);
 *   8. GRPO: group-relative advantages; the policies the mode trains are updated concurrently (a
 *      shared policy once, on both roles' samples).
 *
 * What differs between modes is data (modes.ts: shared policy? who trains? white-box? Mistake
 * Book? how programs and suites are scored? whose suites train the tester?); this file has no
 * branch on the mode's name.
 */
import type { Config } from "../config/index.ts";
import type { Task } from "../arena/task.ts";
import type { Vocabulary } from "../arena/vocab.ts";
import { decodeCode, decodeSuite } from "../arena/tokenizer.ts";
import type { Grader, GradeRequest, LineResult } from "../grader/types.ts";
import { Rng, type RngState } from "../rng.ts";
import { groupAdvantages } from "../policy/grpo.ts";
import { rolloutSamples, type GrpoSample } from "../policy/batch.ts";
import type { Rollout } from "../policy/sampler.ts";
import type { UpdateMetrics } from "../policy/policy.ts";
import type { ConstraintSpec, PolicyService, ServiceSampleOptions } from "../policy/policy-service.ts";
import { mistakeBookSize, topMistakes, updateMistakeBook, type MistakeBook, type MistakeBookDelta } from "../loop/mistake-book.ts";
import { duelRecord, rolloutMetrics, scoreTask, type TaskGrading, type TaskScores } from "../loop/score-task.ts";
import type { DuelRecord, StepMetricKey } from "../loop/types.ts";
import { isWhiteBox, MODE_TABLE, testerCodesPerTask, usesMistakeBook } from "./modes.ts";
import { stepTasks } from "./task-order.ts";
import { anonymiseProgram, codeContext, codeSpec, completionBudgets, suiteSpec, testContext } from "./contexts.ts";

/** What a step needs from a policy: the async half of PolicyService (in-thread, or a comlink proxy of a worker's). */
export type Player = Pick<PolicyService, "sample" | "update">;

export interface DuelContext {
  config: Readonly<Config>;
  vocab: Vocabulary;
  /** Train tasks the step draws from. */
  tasks: readonly Task[];
  code: Player;
  /** The Test policy; the same object as `code` in the shared-policy modes. */
  test: Player;
  grader: Grader;
  /** Reports the phase the step is in (sample / grade / update). */
  onPhase?: (phase: "sample" | "grade" | "update", text: string) => void;
}

/** Everything a run carries from one step to the next; plain data, persisted with each step. */
export interface DuelState {
  /** Steps completed so far. */
  step: number;
  book: MistakeBook;
  rng: RngState;
}

export type StepMetricsOnly = { [K in StepMetricKey]: number };

export interface StepOutcome {
  state: DuelState;
  metrics: StepMetricsOnly;
  duels: DuelRecord[];
  deltas: MistakeBookDelta[];
}

// The mode table's helpers, re-exported for the callers that know the step.
export { isWhiteBox, usesSharedPolicy } from "./modes.ts";

/**
 * Sample every group in ONE batched call (rows of different tasks decode together, each under its own
 * grammar), then split the rollout back into one per group.
 */
async function sampleGroups(
  player: Player,
  groups: { prompts: number[][]; spec: ConstraintSpec }[],
  opts: Omit<ServiceSampleOptions, "rngState">,
  rng: Rng,
): Promise<Rollout[]> {
  const prompts = groups.flatMap((g) => g.prompts);
  const specs = groups.flatMap((g) => g.prompts.map(() => g.spec));
  const { rollout } = await player.sample(prompts, specs, { ...opts, rngState: rng.state() });
  let at = 0;
  return groups.map((g) => {
    const rows = (xs: readonly unknown[]) => xs.slice(at, at + g.prompts.length);
    const part: Rollout = {
      ...rollout,
      prompts: rows(rollout.prompts) as number[][],
      completions: rows(rollout.completions) as number[][],
      logProbs: rows(rollout.logProbs) as Float32Array[],
      masks: rows(rollout.masks) as Uint8Array[],
      done: rows(rollout.done) as boolean[],
    };
    at += g.prompts.length;
    return part;
  });
}

/**
 * Which samples enter the GRPO update. Empty completions carry no token to score. Zero-advantage
 * sequences are kept by default, as verl does (core_algos.py: the token-mean denominator and the
 * KL term cover every sequence of the batch); `drop_zero_advantage` removes them.
 */
export function updateSamples(samples: readonly GrpoSample[], c: Pick<Config, "drop_zero_advantage">): GrpoSample[] {
  return samples.filter((s) => s.completion.length > 0 && !(c.drop_zero_advantage && s.advantage === 0));
}

/**
 * A stored test's one verdict: its replay suite's one line. A stored test the grader reads as no line
 * or several (a book from a file: the loop writes one line each) is refused, and leaves the book,
 * rather than giving its neighbours' tests its verdicts (round 47).
 */
function oneStoredTest(lines: LineResult[]): LineResult {
  if (lines.length === 1) return lines[0];
  return { validity: "invalid", reason: `a stored test is one test line; the grader read ${lines.length} in this one`, verdict: "skipped" };
}

/** Run one step; returns the next state, the step's metrics, duel records and Mistake Book deltas. */
export async function duelStep(ctx: DuelContext, state: DuelState): Promise<StepOutcome> {
  const c = ctx.config;
  const { vocab } = ctx;
  const mode = MODE_TABLE[c.mode];
  const step = state.step + 1;
  const rng = Rng.fromState(state.rng);
  rng.nextU32(); // every step's streams are forks of a state that advances once per step
  const G = c.num_generations;
  const S = mode.writesSuites ? c.suites_per_code : 0;
  const N = c.tests_per_suite;
  const useBook = usesMistakeBook(c);
  const whiteBox = isWhiteBox(c);
  const asWritten = mode.suiteScore === "cure";
  const sampling = { temperature: c.temperature, topP: c.top_p };
  const budget = completionBudgets(c.max_completion_length);
  const t0 = now();

  // 1-2. Tasks and programs.
  const tasks = stepTasks(ctx.tasks, c, step);
  ctx.onPhase?.("sample", `writing ${tasks.length * G} programs`);
  const codeRollouts = await sampleGroups(
    ctx.code,
    tasks.map((t) => ({ prompts: Array.from({ length: G }, () => codeContext(vocab, t)), spec: codeSpec(t, budget.code) })),
    { maxNewTokens: budget.code, ...sampling },
    rng.fork(`code-${step}`),
  );
  const programs = codeRollouts.map((r) => r.completions.map((toks) => decodeCode(vocab, toks)));

  // 3. Suites, S per program (none when the mode writes no suites).
  let suiteRollouts: Rollout[][] = tasks.map(() => []);
  if (S > 0) {
    ctx.onPhase?.("sample", `writing ${tasks.length * G * S} test suites`);
    const groups = tasks.flatMap((t, ti) =>
      codeRollouts[ti].completions.map((prog) => ({
        prompts: Array.from({ length: S }, () => testContext(vocab, t, !whiteBox ? null : c.anonymise_code ? anonymiseProgram(vocab, prog) : prog)),
        spec: suiteSpec(t, N, budget.suite),
      })),
    );
    const flat = await sampleGroups(ctx.test, groups, { maxNewTokens: budget.suite, ...sampling }, rng.fork(`test-${step}`));
    suiteRollouts = tasks.map((_, ti) => flat.slice(ti * G, (ti + 1) * G));
  }
  const suites = tasks.map((_, ti) => programs[ti].map((__, g) => (suiteRollouts[ti][g]?.completions ?? []).map((toks) => decodeSuite(vocab, toks))));
  const t1 = now();

  // 4. One grader batch for the whole step. Mistake Book tests already carry the reference's
  // output, so they run as written (golden), like the task's golden tests, each stored test a suite
  // of its own: its verdict is its own and the program's, whatever another stored test is (a line
  // the judge refuses unread would cut the lines after it in one suite: round 44); so do the suites a
  // mode judges by their own expected outputs (CURE), on every program of their task.
  ctx.onPhase?.("grade", `grading ${tasks.length * G} programs x ${S} suites`);
  const bookTests = tasks.map((t) => (useBook ? topMistakes(state.book, t.id, c.mistake_book_top_k).map((e) => e.test) : []));
  const request: GradeRequest = {
    tasks: tasks.map((t) => ({ id: t.id, entry_point: t.entry_point, reference: t.reference })),
    codes: tasks.flatMap((t, ti) => programs[ti].map((code) => ({ task: t.id, code }))),
    suites: [],
    golden: [],
    limits: { max_lines: N }, // a generated suite's N lines; golden suites (the task's, each stored test, CURE's as written) are read whole
  };
  const push = (list: GradeRequest["suites"], code: number, text: string) => list!.push({ code, text }) - 1;
  // Where each piece landed in the request: [task][code] -> index (suites: [task][code][suite]).
  const at = tasks.map((t, ti) =>
    programs[ti].map((_, g) => {
      const code = ti * G + g;
      return {
        suites: suites[ti][g].map((text) => push(request.suites, code, text)),
        book: bookTests[ti].map((test) => push(request.golden, code, test)),
        golden: push(request.golden, code, t.golden_tests.join("\n")),
        asWritten: asWritten ? suites[ti][g].map((text) => programs[ti].map((__, judged) => push(request.golden, ti * G + judged, text))) : [],
      };
    }),
  );
  const graded = await ctx.grader.grade(request);
  const goldenOf = (i: number) => graded.golden![i];
  const t2 = now();

  // 5-7. Rewards, Mistake Book, TopVar.
  let book = state.book;
  const deltas: MistakeBookDelta[] = [];
  const duels: DuelRecord[] = [];
  const scored: { grading: TaskGrading; scores: TaskScores }[] = [];
  const testSamples: GrpoSample[] = [];
  const codeRewards: number[] = [];
  tasks.forEach((t, ti) => {
    const grading: TaskGrading = {
      task: t.id,
      codes: programs[ti].map((text, g) => ({ text, status: graded.codes[ti * G + g].status })),
      suites: at[ti].map((a, g) => a.suites.map((i, s) => ({ text: suites[ti][g][s], lines: graded.suites![i] }))),
      bookTests: bookTests[ti],
      bookLines: at[ti].map((a) => a.book.map((i) => oneStoredTest(goldenOf(i)))),
      golden: at[ti].map((a) => goldenOf(a.golden)),
      asWritten: at[ti].map((a) => a.asWritten.map((judged) => judged.map(goldenOf))),
    };
    const scores = scoreTask(grading, { alpha: c.alpha, n: N, topvarK: testerCodesPerTask(c), programScore: mode.programScore, suiteScore: mode.suiteScore });
    codeRewards.push(...scores.codeRewards);

    let delta: MistakeBookDelta = { task: t.id, step, added: [], removed: [], changed: [] };
    if (useBook) {
      const next = updateMistakeBook(book, t.id, step, scores.outcome);
      book = next.book;
      delta = next.delta;
      deltas.push(delta);
    }
    // 7. The codes TopVar chose (or every code, or none: modes.ts testerTrainsOn).
    for (const g of scores.topvar.selected) testSamples.push(...rolloutSamples(suiteRollouts[ti][g], groupAdvantages(scores.testRewards[g], S)));
    scored.push({ grading, scores });
    duels.push(duelRecord(step, grading, scores, delta));
  });

  // 8. GRPO on the policies the mode trains; one shared policy takes both roles' samples in one update.
  ctx.onPhase?.("update", "updating the policies");
  const codeSamples = mode.trains.code
    ? updateSamples(codeRollouts.flatMap((r, ti) => rolloutSamples(r, groupAdvantages(codeRewards.slice(ti * G, (ti + 1) * G), G))), c)
    : [];
  const testerSamples = mode.trains.test ? updateSamples(testSamples, c) : [];
  let codeUpdate: UpdateMetrics | null = null;
  let testUpdate: UpdateMetrics | null = null;
  const updRng = rng.fork(`update-${step}`);
  if (mode.sharedPolicy) {
    const both = [...codeSamples, ...testerSamples];
    if (both.length) codeUpdate = testUpdate = (await ctx.code.update(both, updRng.state())).metrics;
  } else {
    const [cu, tu] = await Promise.all([
      codeSamples.length ? ctx.code.update(codeSamples, updRng.fork("code").state()) : null,
      testerSamples.length ? ctx.test.update(testerSamples, updRng.fork("test").state()) : null,
    ]);
    codeUpdate = cu?.metrics ?? null;
    testUpdate = tu?.metrics ?? null;
  }
  const t3 = now();

  const metrics: StepMetricsOnly = {
    ...rolloutMetrics(scored, N),
    mistake_book_size: mistakeBookSize(book),
    mistake_book_added: deltas.reduce((a, d) => a + d.added.length, 0),
    mistake_book_removed: deltas.reduce((a, d) => a + d.removed.length, 0),
    mistake_book_replays: bookTests.filter((b) => b.length > 0).length,
    kl_code: codeUpdate?.kl ?? 0,
    kl_test: testUpdate?.kl ?? 0,
    entropy_code: codeUpdate?.entropy ?? 0,
    entropy_test: testUpdate?.entropy ?? 0,
    loss_code: codeUpdate?.loss ?? 0,
    loss_test: testUpdate?.loss ?? 0,
    clip_fraction_code: codeUpdate?.clipFraction ?? 0,
    clip_fraction_test: testUpdate?.clipFraction ?? 0,
    optimizer_steps_code: codeUpdate?.steps ?? 0,
    optimizer_steps_test: testUpdate?.steps ?? 0,
    time_sample_ms: t1 - t0,
    time_grade_ms: t2 - t1,
    time_update_ms: t3 - t2,
  };
  return { state: { step, book, rng: rng.state() }, metrics, duels, deltas };
}

function now(): number {
  return globalThis.performance?.now() ?? Date.now();
}
