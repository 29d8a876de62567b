/**
 * A verl run of the reference implementation, back into the arena (`npm run import-verl`,
 * docs/SCALING.md "Back into the app"): its rollout dumps become a RunSnapshot, so the app's Duel and
 * Mistake Book views open it like any run (Runs > Import of the written `.a1run`).
 *
 * verl writes `trainer.rollout_data_dir/<step>.jsonl` (RayPPOTrainer._dump_generations: one JSON
 * object per sample, `input`, `output`, `score`, `step`, plus every reward_extra_infos_dict key with
 * one value per sample). The reference dumps two per step:
 *   codes   code_rollout/<experiment>/<host>/<step>.jsonl: per code, in task order, n per task;
 *           score = R_C (plus the sandbox's stdout, timeout, error)
 *   suites  test_rollout/<experiment>/<host>_phase2/<step>.jsonl: per (code, suite), code-major;
 *           score = R_T, reward_a, reward_b, reward_extra_info, is_selected (TopVar's choice)
 * and, with the Mistake Book, code_rollout/<experiment>/<host>/mistake_book_step_<step>.json.
 *
 * What maps: task = the task whose sentence and signature the Code prompt holds; code = the first
 * ```python block of the output (as the reference extracts it); status = is_generated_code_valid
 * (ok, else load-error); suite text = the assert lines of its output; R_C = mean reward_a over the
 * code's suites; R_T = reward_b; R_val = valid_reward; R_adv = final_attack_rate; executable lines
 * and verdicts = reward_extra_info.arena_lines (written by arena_reward.compute_dual_model_reward,
 * so a run needs README step 2); TopVar = population std of R_T per code, selected = is_selected;
 * the Mistake Book and each step's delta = the step files, diffed. Approximated: which executable
 * lines were wrong answers (counts are exact: a line whose corrected text the model did not write
 * verbatim is taken for one), the invalid lines (placeholders, one per invalid line counted).
 * Not in the dumps: per-code Mistake Book verdicts (only counts, already inside the rewards),
 * KL, entropy, losses, times (0 in the metrics), evaluation metrics (null), weights (no checkpoints).
 */
import { functionDeclaration } from "./verl-data.ts";
import type { Task, TaskFile } from "../arena/task.ts";
import type { RunSnapshot } from "../bundle.ts";
import type { Config } from "../config/index.ts";
import type { LineResult, Verdict } from "../grader/types.ts";
import { diffEntries, emptyMistakeBook, mistakeBookSize, taskEntries, withTaskEntries, compareEntries, type MistakeBook, type MistakeEntry } from "../loop/mistake-book.ts";
import { populationStd } from "../loop/topvar.ts";
import type { DuelCode, DuelRecord, StepMetrics } from "../loop/types.ts";
import { EVAL_METRIC_KEYS, STEP_METRIC_KEYS } from "../loop/types.ts";
import { ExportError } from "./verl-data.ts";

/** One line of a dump, as verl writes it. */
export interface DumpEntry {
  input: string;
  output: string;
  score: number;
  step: number;
  [extra: string]: unknown;
}

/** The reference's Mistake Book file: question id -> tests with frequencies (and the arena's fields with ArenaMistakeBook). */
export type ReferenceBook = Record<string, { attack_testcases: { testcase: string; frequency: number; first_step?: number; last_step?: number; failed_code?: string }[]; blacklisted?: boolean }>;

export interface VerlDump {
  /** step -> entries of the codes dump. */
  codes: Map<number, DumpEntry[]>;
  /** step -> entries of the suites dump. */
  suites: Map<number, DumpEntry[]>;
  /** step -> the Mistake Book after that step (absent without the Mistake Book). */
  books: Map<number, ReferenceBook>;
}

export class ImportError extends Error {
  override name = "ImportError";
}

/** One JSONL file -> entries, each checked to carry verl's four fields. */
export function parseDumpJsonl(text: string, where: string): DumpEntry[] {
  return text.split("\n").flatMap((line, i) => {
    if (line.trim() === "") return [];
    let e: unknown;
    try {
      e = JSON.parse(line);
    } catch {
      throw new ImportError(`${where}:${i + 1}: not JSON`);
    }
    const r = e as Record<string, unknown>;
    if (typeof r !== "object" || r === null || typeof r.input !== "string" || typeof r.output !== "string" || typeof r.score !== "number" || !Number.isInteger(r.step)) {
      throw new ImportError(`${where}:${i + 1}: a verl dump line needs input, output (strings), score (number) and step (integer)`);
    }
    return [r as DumpEntry];
  });
}

/** The program in a response, as the reference's extract_code_from_response takes it. */
export function extractCode(response: string): string {
  const py = response.split("```python");
  if (py.length > 1 && py[1].includes("```")) return py[1].split("```")[0].replace(/^\n+|\n+$/g, "");
  const any = response.split("```");
  if (any.length > 2) return any[1].replace(/^\n+|\n+$/g, "");
  return response.replace(/^\n+|\n+$/g, "");
}

/** The assert lines of a response's ```python blocks (the whole text without one). */
export function extractAsserts(response: string): string[] {
  const blocks = [...response.matchAll(/```python(.*?)```/gs)].map((m) => m[1]);
  const text = blocks.length > 0 ? blocks.join("\n") : response;
  return text.split("\n").map((l) => l.trim()).filter((l) => l.startsWith("assert"));
}

/** The task a prompt was built from: its sentence and its signature both in the text (longest sentence wins). */
export function taskOfPrompt(tasks: readonly Task[], input: string): Task | null {
  let best: Task | null = null;
  for (const t of tasks) {
    if (input.includes(t.prompt) && input.includes(functionDeclaration(t)) && (!best || t.prompt.length > best.prompt.length)) best = t;
  }
  return best;
}

interface ArenaLine {
  test: string;
  verdict: Verdict;
  reason: string;
}

const VERDICTS: readonly Verdict[] = ["pass", "fail", "error", "timeout", "skipped"];

function pairInfo(e: DumpEntry, where: string) {
  const info = e.reward_extra_info as Record<string, unknown> | undefined;
  const lines = info?.arena_lines;
  if (!info || !Array.isArray(lines)) {
    throw new ImportError(`${where}: reward_extra_info.arena_lines is missing: the run scored without arena_reward.compute_dual_model_reward (README step 2), so the dump has no per-line verdicts`);
  }
  for (const l of lines as ArenaLine[]) {
    if (typeof l?.test !== "string" || !VERDICTS.includes(l.verdict)) throw new ImportError(`${where}: reward_extra_info.arena_lines holds a malformed line`);
  }
  const num = (v: unknown, name: string) => {
    if (typeof v !== "number" || !Number.isFinite(v)) throw new ImportError(`${where}: ${name} must be a finite number`);
    return v;
  };
  const results = (info.generated_test_results ?? {}) as Record<string, unknown>;
  return {
    lines: lines as ArenaLine[],
    invalid: num(info.invalid_test_count, "reward_extra_info.invalid_test_count"),
    total: num(info.total_test_count, "reward_extra_info.total_test_count"),
    valid: info.is_generated_code_valid === true,
    rVal: num(info.valid_reward, "reward_extra_info.valid_reward"),
    rAdv: num(results.final_attack_rate, "reward_extra_info.generated_test_results.final_attack_rate"),
    rewardA: num(e.reward_a, "reward_a"),
    rewardB: num(e.reward_b, "reward_b"),
    selected: e.is_selected === true,
  };
}

/** A suite's line results from the pair's counts and arena_lines (module doc: what is approximated). */
function suiteLines(raw: readonly string[], p: ReturnType<typeof pairInfo>): LineResult[] {
  const unique = p.lines.length;
  const wrong = Math.max(0, Math.min(unique, p.invalid, unique + p.invalid - p.total));
  const rawSet = new Set(raw);
  const notVerbatim = p.lines.map((l, i) => (rawSet.has(l.test) ? -1 : i)).filter((i) => i >= 0);
  const wrongIdx = new Set([...new Set([...notVerbatim, ...p.lines.map((_, i) => i).reverse()])].slice(0, wrong));
  const out: LineResult[] = p.lines.map((l, i) => ({
    validity: wrongIdx.has(i) ? "wrong-answer" : "valid",
    reason: l.reason ?? "",
    verdict: l.verdict,
    corrected: l.test,
  }));
  for (let k = 0; k < p.invalid - wrong; k++) out.push({ validity: "invalid", reason: "invalid or a repeated call (the dump keeps the count only)", verdict: "skipped" });
  return out;
}

function arenaBook(ref: ReferenceBook | undefined, prev: MistakeBook, step: number): MistakeBook {
  let book = emptyMistakeBook();
  for (const [task, v] of Object.entries(ref ?? {})) {
    const before = new Map(taskEntries(prev, task).map((e) => [e.test, e]));
    const entries: MistakeEntry[] = (v.attack_testcases ?? []).map((tc) => {
      const old = before.get(tc.testcase);
      const rose = !old || tc.frequency > old.frequency;
      return {
        test: tc.testcase,
        frequency: tc.frequency,
        first_step: tc.first_step ?? old?.first_step ?? step,
        last_step: tc.last_step ?? (rose ? step : old!.last_step),
        failed_code: tc.failed_code ?? old?.failed_code ?? "",
      };
    });
    book = withTaskEntries(book, task, entries.sort(compareEntries));
  }
  return book;
}

export interface ImportOptions {
  file: TaskFile;
  config: Config;
  taskSetHash: string;
  runId: string;
  name: string;
  /** Epoch ms for created/updated. */
  now: number;
}

/** The dumps of a verl run as a RunSnapshot (no checkpoints). */
export function verlDumpToSnapshot(d: VerlDump, o: ImportOptions): RunSnapshot {
  const steps = [...d.codes.keys()].sort((a, b) => a - b);
  if (steps.length === 0) throw new ImportError("no code rollout dumps (<step>.jsonl) found");
  steps.forEach((s, i) => {
    if (s !== i + 1) throw new ImportError(`code rollout dumps must cover steps 1..${steps.length} without gaps; step ${i + 1} is missing`);
    if (!d.suites.has(s)) throw new ImportError(`step ${s}: the suites dump (<host>_phase2/${s}.jsonl) is missing`);
  });
  let book = emptyMistakeBook();
  const duels: RunSnapshot["duels"] = [];
  const metrics: StepMetrics[] = [];
  for (const step of steps) {
    const codes = d.codes.get(step)!;
    const pairs = d.suites.get(step)!;
    if (codes.length === 0 || pairs.length % codes.length !== 0) throw new ImportError(`step ${step}: ${pairs.length} suites for ${codes.length} codes (not a whole number of suites per code)`);
    const perCode = pairs.length / codes.length;
    // Codes grouped by task, in order.
    const groups: { task: Task; codes: number[] }[] = [];
    codes.forEach((c, i) => {
      const task = taskOfPrompt(o.file.tasks, c.input);
      if (!task) throw new ImportError(`step ${step}, code ${i}: its prompt matches no task of ${o.file.name} (import with the task set that was exported)`);
      if (groups.at(-1)?.task.id === task.id) groups.at(-1)!.codes.push(i);
      else groups.push({ task, codes: [i] });
    });
    const before = book;
    book = d.books.size > 0 ? arenaBook(d.books.get(step), before, step) : before;
    const records: DuelRecord[] = groups.map(({ task, codes: idx }) => {
      const duelCodes: DuelCode[] = idx.map((ci) => {
        const infos = Array.from({ length: perCode }, (_, j) => {
          const e = pairs[ci * perCode + j];
          return { e, p: pairInfo(e, `step ${step}, suite ${ci * perCode + j}`) };
        });
        return {
          text: extractCode(codes[ci].output),
          status: infos[0].p.valid ? "ok" : "load-error",
          reward: infos.reduce((a, x) => a + x.p.rewardA, 0) / infos.length,
          mistake_book_lines: [],
          suites: infos.map(({ e, p }) => {
            const raw = extractAsserts(e.output).slice(0, o.config.tests_per_suite);
            return { text: raw.join("\n"), lines: suiteLines(raw, p), r_val: p.rVal, r_adv: p.rAdv, reward: p.rewardB };
          }),
        };
      });
      const std = duelCodes.map((c) => populationStd(c.suites.map((s) => s.reward)));
      const selected = idx.map((ci, k) => ({ k, sel: pairInfo(pairs[ci * perCode], "").selected })).filter((x) => x.sel).map((x) => x.k).sort((a, b) => std[b] - std[a] || a - b);
      return {
        step,
        task: task.id,
        codes: duelCodes,
        mistake_book_tests: [],
        topvar: { std, selected },
        mistake_book: diffEntries(task.id, step, taskEntries(before, task.id), taskEntries(book, task.id)),
      };
    });
    duels.push({ step, records });
    metrics.push(stepMetrics(step, records, before, book));
  }
  return {
    run: { id: o.runId, name: o.name, status: "done", created: o.now, updated: o.now, step: steps.length, rng_state: null, task_set_hash: o.taskSetHash, loop_state: null },
    config: o.config,
    metrics,
    mistake_book: book,
    checkpoints: [],
    duels,
  };
}

function stepMetrics(step: number, records: readonly DuelRecord[], before: MistakeBook, after: MistakeBook): StepMetrics {
  const mean = (xs: number[]) => (xs.length > 0 ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const codes = records.flatMap((r) => r.codes);
  const suites = codes.flatMap((c) => c.suites);
  const lines = suites.flatMap((s) => s.lines);
  const m = Object.fromEntries([...STEP_METRIC_KEYS.map((k) => [k, 0]), ...EVAL_METRIC_KEYS.map((k) => [k, null])]) as unknown as StepMetrics;
  m.step = step;
  m.code_reward = mean(codes.map((c) => c.reward));
  m.test_reward = mean(suites.map((s) => s.reward));
  m.r_val = mean(suites.map((s) => s.r_val ?? 0));
  m.r_adv = mean(suites.map((s) => s.r_adv ?? 0));
  m.test_validity = lines.length > 0 ? lines.filter((l) => l.validity === "valid").length / lines.length : 0;
  m.code_loads = mean(codes.map((c) => (c.status === "ok" ? 1 : 0)));
  m.rollout_fail_rate = mean(codes.filter((c) => c.status === "ok").flatMap((c) => c.suites.map((s) => (s.lines.some((l) => l.validity !== "invalid" && l.verdict !== "pass") ? 1 : 0))));
  // Not recomputed from the dumps: N of gen_fail is the run's, not the bundle's.
  m.gen_fail = null;
  m.fresh_fail_rate = null;
  m.mistake_book_size = mistakeBookSize(after);
  m.mistake_book_added = records.reduce((a, r) => a + r.mistake_book.added.length, 0);
  m.mistake_book_removed = records.reduce((a, r) => a + r.mistake_book.removed.length, 0);
  m.mistake_book_replays = records.filter((r) => taskEntries(before, r.task).length > 0).length;
  return m;
}

export { ExportError };
