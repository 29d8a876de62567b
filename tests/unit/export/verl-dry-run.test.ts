/**
 * A dry run of the reference's data path without GPUs: an export written to disk, its Parquet read
 * by DuckDB (an independent reader), its YAML loaded as main_a1.py loads it (OmegaConf), its rows
 * taken as verl's RLHFDataset takes them, and two steps of a fixture rollout dump scored by
 * `arena_reward.py` through the reference's calls (ACGRewardManager's per-pair loop, the Mistake
 * Book's retrieval and update, the README's patch lines run as written) in Debian's CPython
 * (tests/unit/export/dry_run.py). The sandbox's answers come from the arena's own grader on the same
 * lines, and the rewards and the book must equal the TypeScript core's.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { strFromU8 } from "fflate";
import { afterAll, describe, expect, it } from "vitest";
import { arenaV1 } from "../../../src/core/arena/task-suite.ts";
import { presetConfig } from "../../../src/core/config/index.ts";
import type { GradeRequest, LineResult } from "../../../src/core/grader/types.ts";
import { emptyMistakeBook, topMistakes, updateMistakeBook, type MistakeBook } from "../../../src/core/loop/mistake-book.ts";
import { scoreTask } from "../../../src/core/loop/score-task.ts";
import { buildVerlExport, VERL_CONFIG_FILE } from "../../../src/core/export/verl.ts";
import { sharedNodeGrader } from "../node-grader.ts";
import { duckRows } from "./duckdb.ts";

const PY = "/usr/bin/python3";
const EXPORT_DIR = fileURLToPath(new URL("../../../src/core/export/", import.meta.url));
const DRIVER = fileURLToPath(new URL("./dry_run.py", import.meta.url));
const hasOmegaConf = spawnSync(PY, ["-c", "import omegaconf"]).status === 0;
if (!hasOmegaConf) {
  const why = `${PY} has no omegaconf (apt-get install python3-omegaconf python3-yaml; .ci/run installs them)`;
  // In CI the packages are installed by .ci/run: missing there is a broken setup, not a reason to skip.
  if (process.env.CI) throw new Error(`verl dry run: ${why}`);
  console.warn(`SKIPPED verl dry run: ${why}`);
}

/** The lines between `cat >> "$PREFIX/code/rl/FILE" <<'EOF'` and `EOF` in the README. */
function patchLines(readme: string, file: string): string {
  const m = new RegExp(`cat >> "\\$PREFIX/code/rl/${file}" <<'EOF'\\n([\\s\\S]*?)\\nEOF`).exec(readme);
  if (!m) throw new Error(`README has no patch for ${file}`);
  return m[1];
}

describe.skipIf(!hasOmegaConf)("verl export: the reference's data path, dry", () => {
  const grader = sharedNodeGrader();
  const file = arenaV1();
  const config = presetConfig("classroom"); // 4 tasks x 4 codes x 4 suites, N 8, Mistake Book top-8, TopVar top-1
  const e = buildVerlExport({ file, config, preset: "classroom", rewardModule: readFileSync(join(EXPORT_DIR, "arena_reward.py"), "utf8"), experiment: "dry" });
  const root = mkdtempSync(join(tmpdir(), "verl-dry-"));
  const prefix = join(root, "Code-A1");
  const out = join(root, "runs", "dry");
  mkdirSync(join(prefix, "arena"), { recursive: true });
  for (const [name, bytes] of Object.entries(e.files)) writeFileSync(join(prefix, "arena", name), bytes);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("loads the YAML, reads the rows, scores two steps through the reference's calls: the arena's rewards and Mistake Book", async () => {
    const train = await duckRows(join(prefix, "arena", "train.parquet"));
    const val = await duckRows(join(prefix, "arena", "val.parquet"));
    expect([train.length, val.length]).toEqual([e.train, e.val]);

    // The fixture rollout dump: one batch (the first 4 rows), each task's 4 codes and 4 suites per code, as LLM text.
    const rows = [0, 1, 2, 3];
    const tasks = rows.map((i) => file.tasks.find((t) => t.id === (train[i].extra_info as { question_id: string }).question_id)!);
    const codesOf = (t: (typeof tasks)[number]) => [
      t.reference,
      `def ${t.entry_point}(*args):\n    return None`,
      `def ${t.entry_point}(:\n    pass`,
      `def ${t.entry_point}(*args):\n    raise ValueError("no")`,
    ];
    const suitesOf = (t: (typeof tasks)[number]) => {
      const g = t.golden_tests;
      const wrong = g[0].replace(/==.*$/, "== 'not the answer'");
      return [g.join("\n"), [wrong, ...g.slice().reverse()].join("\n"), ["assert True", "print(1)", g[0], g[0]].join("\n"), "I cannot write tests for this."];
    };
    const codes = tasks.flatMap(codesOf);
    const aResponses = codes.map((c, i) => (i % 2 ? `Here is the function:\n\`\`\`python\n${c}\n\`\`\`\nIt handles every case.` : `\`\`\`python\n${c}\n\`\`\``));
    const suiteTexts = tasks.flatMap((t) => codesOf(t).flatMap(() => suitesOf(t)));

    let book: MistakeBook = emptyMistakeBook();
    const steps: { step: number; rows: number[]; a_responses: string[]; sandbox: unknown }[] = [];
    const expected: { shown: string[][]; rewardA: number[]; rewardB: number[] }[] = [];
    for (const step of [1, 2]) {
      // The arena's grader on the same lines: codes, each code's suites, and the Mistake Book tests it is shown.
      const shown = tasks.map((t) => topMistakes(book, t.id, config.mistake_book_top_k).map((m) => m.test));
      const request: GradeRequest = {
        tasks: tasks.map((t) => ({ id: t.id, entry_point: t.entry_point, reference: t.reference })),
        codes: codes.map((code, i) => ({ task: tasks[Math.floor(i / 4)].id, code })),
        suites: suiteTexts.map((text, j) => ({ code: Math.floor(j / 4), text })),
        golden: codes.flatMap((_c, i) => (shown[Math.floor(i / 4)].length ? [{ code: i, text: shown[Math.floor(i / 4)].join("\n") }] : [])),
      };
      const graded = await grader.grade(request);
      let goldenAt = 0;
      const bookLines = codes.map((_c, i) => (shown[Math.floor(i / 4)].length ? graded.golden[goldenAt++] : []));
      const rewardA: number[] = [];
      const rewardB: number[] = [];
      tasks.forEach((t, q) => {
        const idx = [0, 1, 2, 3].map((k) => 4 * q + k);
        const scores = scoreTask(
          {
            task: t.id,
            codes: idx.map((i) => ({ text: codes[i], status: graded.codes[i].status })),
            suites: idx.map((i) => [0, 1, 2, 3].map((s) => ({ text: suiteTexts[4 * i + s], lines: graded.suites[4 * i + s] }))),
            bookTests: shown[q],
            bookLines: idx.map((i) => bookLines[i]),
          },
          { alpha: config.alpha, n: config.tests_per_suite, topvarK: e.plan.updateN },
        );
        rewardA.push(...scores.codeRewards);
        rewardB.push(...scores.testRewards.flat());
        book = updateMistakeBook(book, t.id, step, scores.outcome).book;
      });
      expected.push({ shown, rewardA, rewardB });
      // What the reference's sandbox would hand its reward manager, from the same verdicts.
      const executable = (lines: LineResult[]) => lines.filter((l) => l.validity !== "invalid");
      steps.push({
        step,
        rows,
        a_responses: aResponses,
        sandbox: {
          code_valid: graded.codes.map((c) => c.status === "ok"),
          attack_total: codes.map((_c, i) => shown[Math.floor(i / 4)].length),
          attack_passed: bookLines.map((lines, i) => lines.flatMap((l, k) => (l.verdict === "pass" ? [shown[Math.floor(i / 4)][k]] : []))),
          suites: graded.suites.map((lines) => ({
            valid_tests: executable(lines).map((l) => l.corrected!),
            invalid: lines.filter((l) => l.validity !== "valid").length,
            total: lines.length,
            passed: executable(lines).filter((l) => l.verdict === "pass").length,
            failed_msgs: executable(lines).map((l) => (l.verdict === "pass" ? "" : l.verdict)),
            failed_tests: executable(lines).filter((l) => l.verdict !== "pass").map((l) => l.corrected!),
          })),
        },
      });
    }

    const readme = strFromU8(e.files["README.md"]);
    const payload = {
      module_dir: join(prefix, "arena"), // arena_reward.py as the README copies it
      yaml: join(prefix, "arena", VERL_CONFIG_FILE),
      prefix,
      out,
      patch_reward: patchLines(readme, "reward.py"),
      patch_trainer: patchLines(readme, "trainer_a1.py"),
      train_rows: train,
      val_rows: val,
      steps,
    };
    const res = spawnSync(PY, [DRIVER], { input: JSON.stringify(payload), encoding: "utf8", maxBuffer: 1 << 26 });
    expect(res.stderr).toBe("");
    const report = JSON.parse(res.stdout) as {
      train_files: string; val_files: string; rollout_dir: string; b_rollout_dir: string; checkpoints: string[];
      n_a: number; n_b: number; update_n: number; gpus: number[]; val_n: number; book_class: string; book_top_k: number; val_passed: number;
      steps: { codes: string[]; question_ids: string[]; shown: string[][]; reward_a: number[]; reward_b: number[]; book: Record<string, { attack_testcases: { testcase: string; frequency: number; first_step: number; last_step: number; failed_code: string }[] }> }[];
    };

    // main_a1.py's view of the YAML: data from the prefix, every output under $ARENA_OUT.
    expect([report.train_files, report.val_files]).toEqual([join(prefix, "arena", "train.parquet"), join(prefix, "arena", "val.parquet")]);
    expect(report.rollout_dir).toBe(join(out, "logs", "code_rollout", "dry"));
    expect(report.b_rollout_dir).toBe(join(out, "logs", "test_rollout", "dry"));
    expect(report.checkpoints).toEqual([join(out, "checkpoints", "code", "dry"), join(out, "checkpoints", "test", "dry")]);
    expect([report.n_a, report.n_b, report.update_n, report.val_n]).toEqual([config.num_generations, config.suites_per_code, e.plan.updateN, 32]);
    expect(report.gpus).toEqual([e.plan.world, e.plan.world]);
    // The README's patch took: the trainer built the arena's book with the YAML's top-k.
    expect([report.book_class, report.book_top_k]).toEqual(["ArenaMistakeBook", config.mistake_book_top_k]);
    expect(report.val_passed).toBe(val.length);

    report.steps.forEach((s, k) => {
      expect(s.codes).toEqual(codes); // the first ```python block of each response
      expect(s.question_ids).toEqual(tasks.map((t) => t.id));
      expect(s.shown).toEqual(expected[k].shown);
      expect(s.reward_a).toHaveLength(expected[k].rewardA.length);
      s.reward_a.forEach((r, i) => expect(r).toBeCloseTo(expected[k].rewardA[i], 9));
      s.reward_b.forEach((r, i) => expect(r).toBeCloseTo(expected[k].rewardB[i], 9));
    });
    expect(expected[1].shown.some((s) => s.length > 0)).toBe(true); // step 2 replayed the book
    expect(new Set(expected[0].rewardA).size).toBeGreaterThan(1); // the fixture tells codes apart
    // The book on disk, in the reference's file format, equals the core's, failing programs included.
    const saved = report.steps[1].book;
    const asCore = Object.fromEntries(Object.entries(saved).map(([q, v]) => [q, v.attack_testcases.map((tc) => ({ test: tc.testcase, frequency: tc.frequency, first_step: tc.first_step, last_step: tc.last_step, failed_code: tc.failed_code }))]));
    expect(asCore).toEqual(book.tasks);
    expect(Object.values(book.tasks).flat().every((m) => m.failed_code !== "" && codes.includes(m.failed_code))).toBe(true);
  }, 180_000);
});
