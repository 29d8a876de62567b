/**
 * arena-v2, the generated task space: deterministic, >= 1,000 distinct tasks, splits that measure
 * transfer, prompts read in the shipped vocabulary, programs in canonical arena-Python within the
 * code budget; and (on a deterministic sample) every invariant by real execution in Pyodide.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arenaV2, combinations, generateArenaV2, HELDOUT_FAMILY } from "../../../src/core/arena/arena-v2.ts";
import { DOMAINS, PREDICATES, sameOutcome } from "../../../src/core/arena/task-space.ts";
import { AGGREGATIONS } from "../../../src/core/arena/task-aggregations.ts";
import { checkSummary, checkTasks, GENERATED_FLOORS, sampleTasks, splitProblems, type CheckDetails } from "../../../src/core/arena/task-check.ts";
import { builtinTaskSet } from "../../../src/core/arena/task-suite.ts";
import { taskSignature, type Task } from "../../../src/core/arena/task.ts";
import { createRoundTrip } from "../../../src/core/arena/task-round-trip.ts";
import { encodeCode, encodePrompt } from "../../../src/core/arena/tokenizer.ts";
import { arenaVocabulary, CODE_MAX_TOKENS, codeContext } from "../../../src/core/duel/contexts.ts";
import { arenaV1 } from "../../../src/core/arena/task-suite.ts";
import { createNodeGrader } from "../../../src/node/grader.ts";
import { createNodeRunPython } from "../../../src/node/python-runner.ts";
import type { Grader } from "../../../src/core/grader/types.ts";

const suite = arenaV2();
const bySplit = (s: Task["split"]) => suite.tasks.filter((t) => t.split === s);

describe("arena-v2 generation", () => {
  it("is deterministic: the same seed gives the same bytes, another seed another set", () => {
    const again = JSON.stringify(generateArenaV2());
    expect(again).toBe(JSON.stringify(suite));
    expect(JSON.stringify(generateArenaV2(12))).not.toBe(again);
    // The shipped set's fingerprint: when the generator changes on purpose, update it here and
    // rebuild what depends on the set (benches in runs/, public/bench, base models trained on it).
    expect(createHash("sha256").update(again).digest("hex").slice(0, 16)).toBe("c10987ff546b4dd6");
  });

  it("is reachable by name, as command lines take it", () => {
    expect(builtinTaskSet("arena-v2")).toBe(suite);
    expect(builtinTaskSet("arena-v1")).toBe(arenaV1());
    expect(builtinTaskSet("runs/mine.json")).toBeNull();
  });

  it("has >= 1,000 distinct tasks over every primitive, with the split floors", () => {
    expect(suite.tasks.length).toBeGreaterThanOrEqual(GENERATED_FLOORS.tasks);
    expect(new Set(suite.tasks.map((t) => t.id)).size).toBe(suite.tasks.length);
    expect(new Set(suite.tasks.map((t) => t.reference)).size).toBe(suite.tasks.length);
    expect(new Set(suite.tasks.map((t) => t.prompt)).size).toBe(suite.tasks.length);
    expect(bySplit("train").length).toBeGreaterThanOrEqual(GENERATED_FLOORS.train);
    expect(bySplit("heldout_compositional").length).toBeGreaterThanOrEqual(GENERATED_FLOORS.heldout_compositional);
    expect(bySplit("heldout_family").length).toBeGreaterThanOrEqual(GENERATED_FLOORS.heldout_family);
    expect(bySplit("heldout")).toEqual([]);
    const families = new Set(suite.tasks.map((t) => t.family));
    for (const a of AGGREGATIONS) expect([...families].some((f) => f!.startsWith(`${a.name}/`)), a.name).toBe(true);
    for (const p of PREDICATES) expect([...families].some((f) => f!.includes(`/${p.family}/`)), p.family).toBe(true);
    for (const d of Object.values(DOMAINS)) expect(suite.tasks.some((t) => t.params[0].type === d.name), d.name).toBe(true);
    // Dropped combinations (fewer than 3 variants that differ) stay rare.
    expect(suite.tasks.length / combinations().length).toBeGreaterThan(0.95);
  });

  it("splits measure transfer: unseen combinations of seen primitives, and primitives never seen", () => {
    expect(splitProblems(suite.tasks)).toEqual([]);
    const train = bySplit("train");
    for (const f of HELDOUT_FAMILY.predicateFamilies) expect(train.some((t) => t.family!.split("/")[1] === f)).toBe(false);
    for (const a of HELDOUT_FAMILY.aggregations) expect(train.some((t) => t.family!.split("/")[0] === a)).toBe(false);
    // Held-out combinations on every input type.
    const types = new Set(bySplit("heldout_compositional").map((t) => t.params[0].type));
    expect([...types].sort()).toEqual(["list[int]", "list[str]", "str"]);
  });

  it("splitProblems reports a combination that leaks into train, and a held-out primitive that does", () => {
    const comp = structuredClone(bySplit("heldout_compositional")[0]);
    const leak = { ...structuredClone(bySplit("train")[0]), id: "leak", family: comp.family };
    expect(splitProblems([...suite.tasks, leak]).join("\n")).toContain(`${comp.id}: heldout_compositional, but its combination ${comp.family} occurs in train`);
    const fam = bySplit("heldout_family").find((t) => t.family!.includes("/divisible/") && !t.family!.startsWith("last-index/"))!;
    const leak2 = { ...structuredClone(fam), id: "leak2", split: "train" as const };
    expect(splitProblems([...suite.tasks, leak2]).join("\n")).toContain(`${fam.id}: heldout_family, but both its aggregation`);
  });

  it("words each aggregation in several paraphrases, all in the shipped vocabulary and context budget", () => {
    const vocab = arenaVocabulary();
    for (const a of AGGREGATIONS) {
      const prompts = suite.tasks.filter((t) => t.family!.startsWith(`${a.name}/`)).map((t) => t.prompt.split(/[0-9'-]/)[0].split(" ").slice(0, 4).join(" "));
      expect(new Set(prompts).size, a.name).toBeGreaterThanOrEqual(2);
    }
    // Predicate families with paraphrases appear in both phrasings (each task draws one).
    const withAlts = PREDICATES.filter((x) => x.alts);
    const uses = (p: (typeof PREDICATES)[number], phrase: { vs: string; vp: string }) => suite.tasks
      .filter((t) => t.params[0].type === p.domain && t.id.includes(`-${p.slug}-`))
      .some((t) => t.prompt.includes(` ${phrase.vs}`) || t.prompt.includes(` ${phrase.vp}`));
    expect(new Set(withAlts.map((p) => p.family)).size).toBeGreaterThanOrEqual(12);
    for (const family of new Set(withAlts.map((p) => p.family))) {
      const preds = withAlts.filter((p) => p.family === family);
      expect(preds.some((p) => uses(p, p)), `${family}: main phrasing`).toBe(true);
      expect(preds.some((p) => p.alts!.some((a) => uses(p, a))), `${family}: paraphrase`).toBe(true);
    }
    const v1Max = Math.max(...arenaV1().tasks.map((t) => codeContext(vocab, t).length));
    for (const t of suite.tasks) {
      expect(encodePrompt(vocab, t.prompt, taskSignature(t)), t.prompt).not.toContain(vocab.unk);
      expect(codeContext(vocab, t).length, t.prompt).toBeLessThanOrEqual(Math.max(v1Max, 44));
    }
  });

  it("writes every reference and variant in canonical arena-Python within the code budget", () => {
    const roundTrip = createRoundTrip();
    const vocab = arenaVocabulary();
    const failures: string[] = [];
    for (const t of suite.tasks) {
      for (const code of [t.reference, ...t.buggy_variants.map((v) => v.code)]) {
        try {
          if (roundTrip(code, taskSignature(t)) !== code) failures.push(`${t.id}: not canonical: ${JSON.stringify(code)}`);
          if (encodeCode(vocab, code, taskSignature(t)).length > CODE_MAX_TOKENS) failures.push(`${t.id}: over ${CODE_MAX_TOKENS} tokens`);
        } catch (e) {
          failures.push(`${t.id}: ${(e as Error).message}: ${JSON.stringify(code)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it("gives each task 2-4 golden tests and 3-4 variants from distinct code, mostly distinct operators", () => {
    for (const t of suite.tasks) {
      expect(t.golden_tests.length, t.id).toBeGreaterThanOrEqual(2);
      expect(t.golden_tests.length, t.id).toBeLessThanOrEqual(4);
      expect(t.buggy_variants.length, t.id).toBeGreaterThanOrEqual(3);
      expect(new Set([t.reference, ...t.buggy_variants.map((v) => v.code)]).size, t.id).toBe(t.buggy_variants.length + 1);
    }
    const ops = new Set(suite.tasks.flatMap((t) => t.buggy_variants.map((v) => v.bug.split(":")[0])));
    expect([...ops].sort()).toEqual(["boundary", "first-last", "index-off-by-one", "missing-empty", "negated-predicate", "skip-first", "wrong-init", "wrong-predicate"]);
  });

  it("models Python's floor modulo and first-of-ties, as the references run", () => {
    const odd = PREDICATES.find((p) => p.slug === "odd")!;
    expect([-3, -2, 3].map(odd.test)).toEqual([true, false, true]); // -3 % 2 == 1 in Python
    const longest = AGGREGATIONS.find((a) => a.name === "max")!;
    expect(longest.run(DOMAINS["list[str]"], ["ab", "cd", "e"], () => true, "", {})).toBe("ab");
    expect(sameOutcome([1, 2], [1, 2])).toBe(true);
    expect(sameOutcome(1, true)).toBe(false);
  });
});

describe("arena-v2 invariants by real execution (a deterministic sample; the full set: npm run tasks -- check --tasks arena-v2)", () => {
  let grader: Grader;
  let report: CheckDetails;
  const SAMPLE = 48;
  beforeAll(async () => {
    grader = await createNodeGrader();
    report = await checkTasks(suite, { grader, runPython: createNodeRunPython(), roundTrip: createRoundTrip() }, { sample: SAMPLE });
  }, 600_000);
  afterAll(async () => {
    await grader?.close();
  });

  it("references pass golden and plus tests, every variant fails a plus test, golden tests are weak often enough", () => {
    expect(report.violations).toEqual([]);
    expect(3 * report.weak_golden).toBeGreaterThanOrEqual(SAMPLE);
    const summary = checkSummary(report);
    expect(Object.keys(summary)).toEqual(["tasks", "train", "heldout_compositional", "heldout_family", "weak_golden", "violations"]);
    expect(summary.tasks).toBe(suite.tasks.length);
  });

  it("the sample spans every input type and split", () => {
    const sample = sampleTasks(suite.tasks, SAMPLE);
    expect(new Set(sample.map((t) => t.params[0].type)).size).toBe(3);
    expect(new Set(sample.map((t) => t.split)).size).toBe(3);
    expect(new Set(sample.map((t) => t.id)).size).toBe(SAMPLE);
  });

  it("catches a generated golden answer the Python disagrees with", async () => {
    const t = structuredClone(suite.tasks[0]);
    t.golden_tests[0] = t.golden_tests[0].replace(/== (.*)$/, (_, a: string) => `== ${a === "0" ? "1" : "0"}`);
    const bad = await checkTasks({ ...suite, tasks: [t] }, { grader, runPython: createNodeRunPython() }, { strict: false });
    expect(bad.violations.join("\n")).toContain(`${t.id}: reference fails golden_tests[0]`);
  }, 120_000);
});
