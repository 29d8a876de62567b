/**
 * A stored run for the app's end-to-end tests, built from real grading: the codes are a task's
 * reference and known buggy variants, the suites are drawn (seeded) from hand-written test lines,
 * everything is graded by the Node grader (Pyodide) and scored with the loop's own reward,
 * TopVar and Mistake Book functions. Only the metric curves are synthetic (seeded), since no
 * training runs in these UI tests; the training e2e comes with the orchestrator.
 */
import { presetConfig, type Config } from "../../src/core/config/index.ts";
import { arenaV1 } from "../../src/core/arena/task-suite.ts";
import type { Task } from "../../src/core/arena/task.ts";
import type { Grader, GradeRequest } from "../../src/core/grader/types.ts";
import { emptyMistakeBook, mistakeBookOutcome, topMistakes, updateMistakeBook, type MistakeBook } from "../../src/core/loop/mistake-book.ts";
import { codeReward, passCounts, scorePair } from "../../src/core/loop/rewards.ts";
import { topVar } from "../../src/core/loop/topvar.ts";
import { EVAL_METRIC_KEYS, STEP_METRIC_KEYS, type DuelRecord, type StepMetrics } from "../../src/core/loop/types.ts";
import { Rng } from "../../src/core/rng.ts";

/** Test lines per task to draw suites from: right answers, wrong answers, malformed lines. */
const LINES: Record<string, string[]> = {
  "sum-positive": [
    "assert f([1, -2, 3]) == 4", "assert f([]) == 0", "assert f([-1, -2]) == 0", "assert f([1, 1]) == 2",
    "assert f([5]) == 6", "assert f([1, -1]) == 1", "assert f([-3, 2]) == 2", "assert f(3) == 3", "assert f([9, 9]) == 18",
  ],
};

export interface FixtureRun {
  id: string;
  config: Config;
  metrics: StepMetrics[];
  duels: { step: number; records: DuelRecord[] }[];
  mistakeBook: MistakeBook;
}

function metricsCurve(rng: Rng, steps: number, evalEvery: number): StepMetrics[] {
  const out: StepMetrics[] = [];
  let book = 0;
  for (let step = 1; step <= steps; step++) {
    const t = step / steps;
    const noise = () => (rng.next() - 0.5) * 0.08;
    const m: Record<string, number | null> = { step };
    for (const k of STEP_METRIC_KEYS) m[k] = 0;
    const added = rng.int(5);
    const removed = Math.min(book, rng.int(3));
    book += added - removed;
    Object.assign(m, {
      code_reward: 0.15 + 0.5 * t + noise(), test_reward: 0.3 + 0.3 * t + noise(), r_val: 0.4 + 0.4 * t + noise(), r_adv: 0.2 + 0.25 * t + noise(),
      test_validity: 0.35 + 0.5 * t + noise(), code_loads: 0.6 + 0.35 * t, rollout_fail_rate: 0.4 - 0.3 * t + noise(), gen_fail: 0.3 - 0.2 * t + noise(), fresh_fail_rate: 0.35 - 0.2 * t + noise(),
      mistake_book_size: book, mistake_book_added: added, mistake_book_removed: removed,
      kl_code: 0.002 * step, kl_test: 0.003 * step, entropy_code: 1.6 - 0.6 * t, entropy_test: 1.8 - 0.5 * t, loss_code: noise(), loss_test: noise(),
      time_sample_ms: 900 + rng.int(200), time_grade_ms: 500 + rng.int(300), time_update_ms: 700 + rng.int(100),
    });
    for (const k of EVAL_METRIC_KEYS) m[k] = null;
    if (step % evalEvery === 0 || step === steps) {
      Object.assign(m, { plus_pass_train: 0.1 + 0.4 * t, plus_pass_heldout: 0.05 + 0.3 * t, golden_pass: 0.15 + 0.45 * t, test_pass_k: 0.3 + 0.4 * t, test_mut_k: 0.2 + 0.3 * t });
      m.mul = (m.test_pass_k as number) * (m.test_mut_k as number) * 100;
      Object.assign(m, { bug_detection_heldout: 0.5 + 0.2 * t, mut_suite: 0.4 + 0.2 * t });
      m.mul_suite = (m.test_pass_k as number) * (m.mut_suite as number) * 100;
    }
    out.push(m as StepMetrics);
  }
  return out;
}

/** One task's duel at one step, graded for real. */
async function duelStep(grader: Grader, task: Task, step: number, book: MistakeBook, config: Config, rng: Rng): Promise<{ record: DuelRecord; book: MistakeBook }> {
  const codes = [task.reference, ...task.buggy_variants.map((v) => v.code)].slice(0, config.num_generations);
  const pool = LINES[task.id];
  const suites = codes.flatMap((_, i) => Array.from({ length: config.suites_per_code }, () => ({ code: i, text: Array.from({ length: 3 + rng.int(3) }, () => pool[rng.int(pool.length)]).join("\n") })));
  const bookTests = topMistakes(book, task.id, config.mistake_book_top_k).map((e) => e.test);
  const bookSuites = bookTests.length ? codes.map((_, i) => ({ code: i, text: bookTests.join("\n") })) : [];
  const request: GradeRequest = {
    tasks: [{ id: task.id, entry_point: task.entry_point, reference: task.reference }],
    codes: codes.map((code) => ({ task: task.id, code })),
    suites: [...suites, ...bookSuites],
    limits: { max_lines: config.tests_per_suite },
  };
  const result = await grader.grade(request);
  // Until the grader fills LineResult.corrected (contract of commit e4a82bc), a valid line is its
  // own corrected form; a wrong-answer line without it cannot enter the book and is dropped there.
  result.suites.forEach((lines, j) => {
    const texts = request.suites![j].text.split("\n");
    lines.forEach((l, k) => {
      if (l.corrected === undefined && l.validity === "valid") l.corrected = texts[k];
    });
  });
  const duelCodes = codes.map((text, i) => {
    const status = result.codes[i].status;
    const mbLines = bookSuites.length ? result.suites[suites.length + i] : [];
    const mine = suites.map((s, j) => ({ s, lines: result.suites[j] })).filter((x) => x.s.code === i);
    const scored = mine.map(({ s, lines }) => ({ text: s.text, lines, ...scorePair({ suite: lines, mistakeBook: mbLines, codeStatus: status, alpha: config.alpha, n: config.tests_per_suite }) }));
    return {
      text, status, mistake_book_lines: mbLines,
      reward: codeReward({ codeStatus: status, suites: scored.map((x) => x.counts), mistakeBook: passCounts(mbLines) }),
      suites: scored.map(({ text: t, lines, r_val, r_adv, reward }) => ({ text: t, lines, r_val, r_adv, reward })),
    };
  });
  const outcome = mistakeBookOutcome(bookTests, duelCodes.map((c) => ({
    code: c.text, loaded: c.status === "ok", bookLines: c.mistake_book_lines,
    suites: c.suites.map((x) => x.lines.filter((l) => l.validity === "invalid" || l.corrected !== undefined)),
  })));
  const updated = updateMistakeBook(book, task.id, step, outcome);
  const record: DuelRecord = {
    step, task: task.id, codes: duelCodes, mistake_book_tests: bookTests,
    topvar: topVar(duelCodes.map((c) => c.suites.map((s) => s.reward)), config.topvar_k),
    mistake_book: updated.delta,
  };
  return { record, book: updated.book };
}

export async function buildFixtureRun(grader: Grader, id = "fixture-run", seed = 7): Promise<FixtureRun> {
  const config = presetConfig("classroom", { steps: 12, seed, eval_every: 3 });
  const rng = new Rng(seed);
  const task = arenaV1().tasks.find((t) => t.id === "sum-positive")!;
  let book = emptyMistakeBook();
  const duels: FixtureRun["duels"] = [];
  for (let step = 10; step <= 12; step++) {
    const r = await duelStep(grader, task, step, book, config, rng);
    book = r.book;
    duels.push({ step, records: [r.record] });
  }
  return { id, config, metrics: metricsCurve(rng, 12, 3), duels, mistakeBook: book };
}
