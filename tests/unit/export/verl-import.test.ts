/**
 * `npm run import-verl`: a generated verl dump, in the format verl's `_dump_generations` writes and
 * with the values the reference's reward manager computes through arena_reward.py (run in Pyodide),
 * made from the duel records of a real arena run, imported back: the same tasks, programs, suites,
 * line verdicts, rewards, TopVar choice and Mistake Book as the run recorded, a bundle the app
 * accepts, and the same through the command line. Bad dumps are refused by name.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadPyodide } from "pyodide";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arenaV1 } from "../../../src/core/arena/task-suite.ts";
import type { TaskFile } from "../../../src/core/arena/task.ts";
import { exportBundle, importBundle, taskSetHash, type RunSnapshot } from "../../../src/core/bundle.ts";
import { presetConfig } from "../../../src/core/config/index.ts";
import { buildVerlExport } from "../../../src/core/export/verl.ts";
import { codeMessages, testMessages, CODE_PLACEHOLDER } from "../../../src/core/export/verl-data.ts";
import { ImportError, parseDumpJsonl, verlDumpToSnapshot, type DumpEntry, type ReferenceBook, type VerlDump } from "../../../src/core/export/verl-import.ts";
import { applyMistakeBookDelta, emptyMistakeBook, type MistakeBook } from "../../../src/core/loop/mistake-book.ts";
import { readRunFile } from "../../../src/node/run-files.ts";
import { trainRun } from "../../../src/node/train-run.ts";
import { useNodeBackend } from "../../../src/node/tf-backend.ts";
import { sharedNodeGrader } from "../node-grader.ts";

const MODULE = readFileSync(new URL("../../../src/core/export/arena_reward.py", import.meta.url), "utf8");
const DRIVER = readFileSync(new URL("./parity_driver.py", import.meta.url), "utf8");
const TOL = 1e-9;
const config = presetConfig("classroom", { steps: 3, tasks_per_step: 2, num_generations: 3, suites_per_code: 2, tests_per_suite: 4, eval_every: 0, checkpoint_every: 3, seed: 4, mistake_book_top_k: 3 });

/** A chat as a tokenizer's template renders it and verl decodes it (special tokens skipped). */
const render = (messages: { role: string; content: string }[]) => messages.map((m) => `${m.role}\n${m.content}`).join("\n") + "\nassistant\n";
const MESSAGES = { pass: "", fail: "__GEN_FAIL__0_0:AssertionError()", error: "__GEN_FAIL__0_0:IndexError('list index out of range')", timeout: "Generated Test 1: No result found", skipped: "Generated Test 1: No result found" };

/** The reference's Mistake Book file after each step, from the run's deltas (ArenaMistakeBook's fields, or the reference's own two). */
function bookFiles(s: RunSnapshot, arenaFields: boolean): Map<number, ReferenceBook> {
  let book: MistakeBook = emptyMistakeBook();
  const out = new Map<number, ReferenceBook>();
  for (const d of s.duels.slice().sort((a, b) => a.step - b.step)) {
    for (const r of d.records) book = applyMistakeBookDelta(book, r.mistake_book);
    out.set(d.step, Object.fromEntries(Object.entries(book.tasks).map(([task, es]) => [task, {
      attack_testcases: es.map((e) => (arenaFields ? { testcase: e.test, frequency: e.frequency, first_step: e.first_step, last_step: e.last_step, failed_code: e.failed_code } : { testcase: e.test, frequency: e.frequency })),
      blacklisted: false,
    }])));
  }
  return out;
}

describe("verl rollout dumps back into the arena", () => {
  const grader = sharedNodeGrader();
  let file: TaskFile;
  let run: RunSnapshot;
  let dump: VerlDump;
  let dir: string;

  beforeAll(async () => {
    useNodeBackend("wasm");
    const v1 = arenaV1();
    file = { version: 1, name: "arena-v1", tasks: v1.tasks };
    const small: TaskFile = { version: 1, name: "import", tasks: [...v1.tasks.filter((t) => t.split === "train").slice(2, 4), v1.tasks.find((t) => t.split === "heldout")!] };
    run = (await trainRun({ config, file: small, grader, out: null, runId: "import", evaluation: null })).snapshot;
    // The reference's reward manager inputs for every (code, suite) pair, scored by arena_reward.py.
    const py = await loadPyodide();
    py.FS.writeFile("/home/pyodide/arena_reward.py", MODULE);
    py.runPython(DRIVER);
    const codes = new Map<number, DumpEntry[]>();
    const suites = new Map<number, DumpEntry[]>();
    for (const d of run.duels) {
      const kwargs: unknown[] = [];
      const codeEntries: DumpEntry[] = [];
      const suiteEntries: { input: string; output: string; step: number; is_selected: boolean }[] = [];
      for (const r of d.records) {
        const task = small.tasks.find((t) => t.id === r.task)!;
        r.codes.forEach((c, ci) => {
          codeEntries.push({ input: render(codeMessages(task)), output: `Here it is.\n\`\`\`python\n${c.text}\n\`\`\``, score: c.reward, step: d.step, stdout: "", timeout: false, error: "" });
          for (const s of c.suites) {
            const exec = s.lines.filter((l) => l.validity !== "invalid");
            kwargs.push({
              is_code_valid: c.status === "ok", gt_passed: -1, gt_total: -1, gt_failed_msgs: [],
              valid_generated_tests: exec.map((l) => l.corrected), invalid_count: s.lines.filter((l) => l.validity !== "valid").length,
              total_generated_count: s.lines.length, gen_passed: exec.filter((l) => l.verdict === "pass").length,
              gen_failed_msgs: exec.map((l) => MESSAGES[l.verdict]),
              attack_gen_total: c.mistake_book_lines.length, attack_gen_passed: c.mistake_book_lines.filter((l) => l.verdict === "pass").length,
              alpha: config.alpha, tests_per_suite: config.tests_per_suite,
            });
            const prompt = render(testMessages(task, config.tests_per_suite)).replace(CODE_PLACEHOLDER, c.text);
            suiteEntries.push({ input: prompt, output: `\`\`\`python\n${s.text}\n\`\`\``, step: d.step, is_selected: r.topvar.selected.includes(ci) });
          }
        });
      }
      const rewards = JSON.parse((py.globals.get("dump_rewards") as (s: string) => string)(JSON.stringify(kwargs))) as { reward_a: number; reward_b: number; reward_extra_info: unknown }[];
      codes.set(d.step, codeEntries);
      suites.set(d.step, suiteEntries.map((e, i): DumpEntry => ({ ...e, score: rewards[i].reward_b, reward_a: rewards[i].reward_a, reward_b: rewards[i].reward_b, reward_extra_info: rewards[i].reward_extra_info })));
    }
    dump = { codes, suites, books: bookFiles(run, true) };
    // The same dump on disk, in the reference's layout, for the command line.
    dir = mkdtempSync(join(tmpdir(), "verl-import-"));
    const exported = buildVerlExport({ file, config, preset: "classroom", rewardModule: MODULE, experiment: "exp1" });
    mkdirSync(join(dir, "arena"));
    for (const [name, bytes] of Object.entries(exported.files)) writeFileSync(join(dir, "arena", name), bytes);
    const codeDir = join(dir, "logs/code_rollout/exp1/node-7");
    const suiteDir = join(dir, "logs/test_rollout/exp1/node-7_phase2");
    mkdirSync(codeDir, { recursive: true });
    mkdirSync(suiteDir, { recursive: true });
    const jsonl = (es: DumpEntry[]) => es.map((e) => JSON.stringify(e)).join("\n") + "\n";
    for (const [step, es] of codes) writeFileSync(join(codeDir, `${step}.jsonl`), jsonl(es));
    for (const [step, es] of suites) writeFileSync(join(suiteDir, `${step}.jsonl`), jsonl(es));
    for (const [step, b] of dump.books) writeFileSync(join(codeDir, `mistake_book_step_${step}.json`), JSON.stringify(b, null, 2));
  }, 900_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const options = async () => ({ file, config, taskSetHash: await taskSetHash(file.tasks), runId: "verl-run", name: "verl: exp1", now: 1_700_000_000_000 });

  function expectSameRun(got: RunSnapshot): void {
    const want = run.duels.slice().sort((a, b) => a.step - b.step);
    expect(got.duels.map((d) => d.step)).toEqual(want.map((d) => d.step));
    let exercised = { wrong: 0, invalid: 0, book: 0, fails: 0 };
    want.forEach((d, di) => {
      const g = got.duels[di];
      expect(g.records.map((r) => r.task)).toEqual(d.records.map((r) => r.task));
      d.records.forEach((r, ri) => {
        const gr = g.records[ri];
        expect(gr.topvar.selected).toEqual(r.topvar.selected);
        gr.topvar.std.forEach((s, k) => expect(Math.abs(s - r.topvar.std[k])).toBeLessThanOrEqual(TOL));
        expect(gr.mistake_book).toEqual(r.mistake_book);
        exercised.book += r.mistake_book.added.length;
        r.codes.forEach((c, ci) => {
          const gc = gr.codes[ci];
          expect(gc.text).toBe(c.text.replace(/^\n+|\n+$/g, ""));
          expect(gc.status === "ok").toBe(c.status === "ok");
          expect(Math.abs(gc.reward - c.reward)).toBeLessThanOrEqual(TOL);
          c.suites.forEach((s, si) => {
            const gs = gc.suites[si];
            for (const k of ["reward", "r_val", "r_adv"] as const) expect([k, Math.abs(gs[k]! - s[k]!) <= TOL]).toEqual([k, true]);
            const exec = (ls: typeof s.lines) => ls.filter((l) => l.validity !== "invalid").map((l) => [l.corrected, l.verdict === "skipped" ? "timeout" : l.verdict]);
            if (c.status === "ok") expect(exec(gs.lines)).toEqual(exec(s.lines));
            const count = (ls: typeof s.lines, v: string) => ls.filter((l) => l.validity === v).length;
            for (const v of ["valid", "wrong-answer", "invalid"]) expect([v, count(gs.lines, v)]).toEqual([v, count(s.lines, v)]);
            exercised = { ...exercised, wrong: exercised.wrong + count(s.lines, "wrong-answer"), invalid: exercised.invalid + count(s.lines, "invalid"), fails: exercised.fails + s.lines.filter((l) => l.verdict === "fail").length };
          });
        });
      });
    });
    expect(got.mistake_book).toEqual(run.mistake_book);
    expect(exercised.book).toBeGreaterThan(0);
    expect(exercised.fails).toBeGreaterThan(0);
    expect(exercised.wrong + exercised.invalid).toBeGreaterThan(0);
    // Step metrics the dumps determine: the run's own.
    got.metrics.forEach((m, i) => {
      for (const k of ["code_reward", "test_reward", "r_val", "r_adv", "code_loads", "mistake_book_size", "mistake_book_added", "mistake_book_removed", "mistake_book_replays"] as const) {
        expect([i, k, Math.abs(m[k] - run.metrics[i][k]) <= TOL]).toEqual([i, k, true]);
      }
    });
  }

  it("the dumps become the run the arena recorded: tasks, programs, suites, verdicts, rewards, TopVar, Mistake Book", async () => {
    const got = verlDumpToSnapshot(dump, await options());
    expectSameRun(got);
    // The app's importer accepts it (Runs > Import): a valid bundle for the task set.
    const back = await importBundle(await exportBundle(got), { expectTaskSetHash: await taskSetHash(file.tasks) });
    expect(back.duels).toEqual(got.duels);
    expect(back.checkpoints).toEqual([]);
  });

  it("the reference's own Mistake Book files (test and frequency only) give the same tests and frequencies", async () => {
    const got = verlDumpToSnapshot({ ...dump, books: bookFiles(run, false) }, await options());
    const strip = (b: MistakeBook) => Object.fromEntries(Object.entries(b.tasks).map(([t, es]) => [t, es.map((e) => [e.test, e.frequency]).sort()]));
    expect(strip(got.mistake_book)).toEqual(strip(run.mistake_book));
  });

  it("npm run import-verl writes the same run as a bundle", () => {
    const out = join(dir, "x.a1run");
    const r = spawnSync("npx", ["tsx", "scripts/import-verl.ts", join(dir, "logs"), "--export", join(dir, "arena"), "--out", out], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain(`${config.steps} steps, ${config.steps * config.tasks_per_step} task duels`);
    return readRunFile(out).then((s) => {
      expectSameRun(s);
      expect(s.run.name).toBe("verl: exp1");
    });
  }, 120_000);

  it("refuses what it cannot read, naming it", async () => {
    const o = await options();
    expect(() => parseDumpJsonl('{"input": "x"}\n', "1.jsonl")).toThrow(/1\.jsonl:1: a verl dump line needs input, output/);
    expect(() => parseDumpJsonl("not json\n", "2.jsonl")).toThrow(/2\.jsonl:1: not JSON/);
    const noStep2 = new Map([...dump.codes].filter(([s]) => s !== 2));
    expect(() => verlDumpToSnapshot({ ...dump, codes: noStep2 }, o)).toThrow(/step 2 is missing/);
    const stock = new Map([...dump.suites].map(([s, es]) => [s, es.map((e) => ({ ...e, reward_extra_info: { ...(e.reward_extra_info as object), arena_lines: undefined } }))]));
    expect(() => verlDumpToSnapshot({ ...dump, suites: stock }, o)).toThrow(ImportError);
    expect(() => verlDumpToSnapshot({ ...dump, suites: stock }, o)).toThrow(/arena_lines is missing/);
    const other = { ...o, file: { ...file, tasks: file.tasks.filter((t) => !run.duels[0].records.some((r) => r.task === t.id)) } };
    expect(() => verlDumpToSnapshot(dump, other)).toThrow(/matches no task/);
  });
});
