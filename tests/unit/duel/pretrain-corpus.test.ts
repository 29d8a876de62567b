/**
 * The pretraining corpus on the real arena-v1 suite, with the references really run in Pyodide:
 * train split only, the configured shares, grammar-valid programs and suites inside their token
 * budgets, answers that are the reference's (except the counted wrong ones), and determinism.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { arenaV1, tasksOfSplit } from "../../../src/core/arena/task-suite.ts";
import { arenaV2 } from "../../../src/core/arena/arena-v2.ts";
import { taskSignature, type Task } from "../../../src/core/arena/task.ts";
import { decodeCode, decodeSuite, encodeCode, encodeSuite } from "../../../src/core/arena/tokenizer.ts";
import { codeConstraint } from "../../../src/core/arena/code-grammar.ts";
import { suiteConstraint } from "../../../src/core/arena/suite-grammar.ts";
import { CODE_MAX_TOKENS, SUITE_MAX_TOKENS, codeContext, taskVocabulary, testContext } from "../../../src/core/duel/contexts.ts";
import {
  buildCorpus, corpusHash, corpusOptions, corpusStats, CorpusError, vocabHash, type PretrainCorpus,
} from "../../../src/core/duel/pretrain-corpus.ts";
import type { RunPython } from "../../../src/core/arena/plus.ts";
import { fitsConstraint } from "../../../src/core/decoding.ts";
import { createNodeRunPython } from "../../../src/node/python-runner.ts";

const file = arenaV1();
const vocab = taskVocabulary(file);
const byId = new Map(file.tasks.map((t) => [t.id, t]));
// Small enough for seconds, large enough to exercise every branch (4 refs, 1 noise, 7 buggy per task).
const SMALL = { seed: 7, codesPerTask: 12, referenceShare: 0.34, noiseShare: 0.1, suitesPerTask: 4, inputsPerTask: 12, wrongAnswerShare: 0.3 };

let runPython: RunPython;
let corpus: PretrainCorpus;
beforeAll(async () => {
  runPython = createNodeRunPython();
  corpus = await buildCorpus(vocab, file, runPython, SMALL);
});

/** How many lines of a suite fail on the task's reference, counted by really running them. */
async function failingLines(task: Task, lines: string[]): Promise<number> {
  const program = [
    "__ns = {}",
    `exec(${JSON.stringify(task.reference)}, __ns)`,
    "__bad = 0",
    ...lines.map((l) => `try:\n    exec(${JSON.stringify(l)}, dict(__ns))\nexcept AssertionError:\n    __bad += 1`),
    "str(__bad)",
  ].join("\n");
  return Number(await runPython(program));
}

describe("pretraining corpus", () => {
  it("uses the train split only: no held-out task, prompt or context appears", () => {
    const train = tasksOfSplit(file, "train").map((t) => t.id);
    const heldout = tasksOfSplit(file, "heldout");
    expect(heldout.length).toBeGreaterThan(0);
    expect(corpus.tasks).toEqual(train);
    const seqs = [...corpus.code, ...corpus.test];
    expect(seqs.every((s) => byId.get(s.task)!.split === "train")).toBe(true);
    const heldoutContexts = heldout.map((t) => codeContext(vocab, t).join(","));
    for (const s of seqs) {
      const head = s.tokens.slice(0, codeContext(vocab, byId.get(s.task)!).length).join(",");
      expect(heldoutContexts).not.toContain(head);
    }
  });

  it("holds the configured shares of references, buggy variants and noise per task", () => {
    const stats = corpusStats(corpus);
    const n = corpus.tasks.length;
    expect(stats.code).toEqual({ reference: 4 * n, noise: 1 * n, buggy: 7 * n });
    for (const id of corpus.tasks) {
      const task = byId.get(id)!;
      const sig = taskSignature(task);
      const seqs = corpus.code.filter((s) => s.task === id);
      expect(seqs).toHaveLength(12);
      const variants = task.buggy_variants.map((v) => v.code);
      for (const s of seqs) {
        expect(s.tokens.slice(0, s.completionStart)).toEqual(codeContext(vocab, task));
        const src = decodeCode(vocab, s.tokens.slice(s.completionStart));
        if (s.kind === "reference") expect(src).toBe(task.reference);
        if (s.kind === "buggy") expect(variants).toContain(src);
        // Every program, noise included, is a complete sample of the code grammar within its budget.
        expect(fitsConstraint(codeConstraint(vocab, sig, { maxTokens: CODE_MAX_TOKENS }), s.tokens.slice(s.completionStart))).toBe(true);
        expect(encodeCode(vocab, src, sig)).toEqual(s.tokens.slice(s.completionStart));
      }
    }
  });

  it("writes suites that round-trip, fit the suite grammar budget and follow a corpus program", () => {
    expect(corpus.test).toHaveLength(4 * corpus.tasks.length);
    for (const s of corpus.test) {
      const task = byId.get(s.task)!;
      const sig = taskSignature(task);
      const suite = s.tokens.slice(s.completionStart);
      const text = decodeSuite(vocab, suite);
      expect(encodeSuite(vocab, text, sig, { maxLines: corpus.options.maxLines })).toEqual(suite);
      expect(suite.length).toBeLessThanOrEqual(SUITE_MAX_TOKENS);
      expect(fitsConstraint(suiteConstraint(vocab, sig, { maxLines: corpus.options.maxLines, maxTokens: SUITE_MAX_TOKENS }), suite)).toBe(true);
      expect(text.split("\n")).toHaveLength(s.lines);
      expect(s.lines).toBeGreaterThanOrEqual(1);
      const programs = corpus.code.filter((c) => c.task === s.task).map((c) => testContext(vocab, task, c.tokens.slice(c.completionStart)).join(","));
      expect(programs).toContain(s.tokens.slice(0, s.completionStart).join(","));
      expect(s.tokens.length).toBeLessThanOrEqual(257); // the models' context (256) + 1
    }
  });

  it("answers with the reference's real output, except exactly the lines counted wrong", async () => {
    const stats = corpusStats(corpus);
    expect(stats.wrongLines).toBeGreaterThan(0);
    expect(stats.wrongLines).toBeLessThan(stats.testLines);
    // Every suite of 12 tasks, run against the reference in Pyodide.
    for (const s of corpus.test.filter((x) => corpus.tasks.indexOf(x.task) % 4 === 0)) {
      const lines = decodeSuite(vocab, s.tokens.slice(s.completionStart)).split("\n");
      expect(await failingLines(byId.get(s.task)!, lines)).toBe(s.wrong);
    }
  });

  it("with no wrong-answer share, every line holds on the reference", async () => {
    const clean = await buildCorpus(vocab, { ...file, tasks: file.tasks.filter((t) => t.split === "heldout" || t.id === "clamp" || t.id === "is-sorted") }, runPython, { ...SMALL, wrongAnswerShare: 0 });
    expect(clean.tasks).toEqual(["clamp", "is-sorted"]);
    for (const s of clean.test) {
      expect(s.wrong).toBe(0);
      expect(await failingLines(byId.get(s.task)!, decodeSuite(vocab, s.tokens.slice(s.completionStart)).split("\n"))).toBe(0);
    }
  });

  it("pairs each buggy program with lines that separate it from the reference, checked by running the program shown", async () => {
    const subset = { ...file, tasks: file.tasks.filter((t) => ["count-vowels", "second-largest", "clamp", "sum-positive"].includes(t.id)) };
    const clean = await buildCorpus(vocab, subset, runPython, { ...SMALL, wrongAnswerShare: 0, suitesPerTask: 10, separatingLines: 2 });
    const buggy = clean.test.filter((s) => s.program === "buggy");
    expect(buggy.length).toBeGreaterThan(5);
    for (const s of buggy) {
      const task = byId.get(s.task)!;
      const shown = task.buggy_variants.find((v) => testContext(vocab, task, encodeCode(vocab, v.code, taskSignature(task))).join() === s.tokens.slice(0, s.completionStart).join());
      expect(shown, `suite of ${s.task} shows one of its variants`).toBeDefined();
      const lines = decodeSuite(vocab, s.tokens.slice(s.completionStart)).split("\n");
      // Every line is right (no wrong answers asked), so a line fails on the shown program exactly when it separates it.
      const failing = await failingLines({ ...task, reference: shown!.code }, lines);
      expect(failing, `${s.task}: ${lines.join(" | ")}`).toBe(s.separating);
      expect(s.separating).toBeGreaterThanOrEqual(1);
    }
    expect(clean.test.every((s) => s.lines >= clean.options.minLines && s.lines <= clean.options.maxLines)).toBe(true);
  });

  it("keeps each task's inputsPerTask shortest answered calls", async () => {
    const subset = { ...file, tasks: file.tasks.filter((t) => ["count-vowels", "second-largest", "clamp", "longest-word"].includes(t.id)) };
    const calls = (c: PretrainCorpus, task: string) => {
      const out = new Set<string>();
      for (const s of c.test.filter((q) => q.task === task)) {
        for (const line of decodeSuite(vocab, s.tokens.slice(s.completionStart)).split("\n")) if (line) out.add(line.slice(0, line.lastIndexOf(" == ")));
      }
      return [...out];
    };
    const meanLength = (xs: string[]) => xs.reduce((a, x) => a + x.length, 0) / xs.length;
    const two = await buildCorpus(vocab, subset, runPython, { ...SMALL, inputsPerTask: 2, suitesPerTask: 12, separatingLines: 0 });
    for (const task of subset.tasks) {
      const kept = calls(two, task.id);
      const wide = calls(corpus, task.id);
      expect(kept.length).toBeGreaterThan(0);
      expect(kept.length).toBeLessThanOrEqual(2);
      // The two drawn from the smaller candidate set are still shorter than a 12-input pool on average.
      expect(meanLength(kept)).toBeLessThan(meanLength(wide));
    }
  });

  it("is deterministic in its seed", async () => {
    const subset = { ...file, tasks: file.tasks.filter((t) => ["sum-positive", "count-char", "fizzbuzz"].includes(t.id)) };
    const a = await buildCorpus(vocab, subset, runPython, SMALL);
    const b = await buildCorpus(vocab, subset, runPython, SMALL);
    const c = await buildCorpus(vocab, subset, runPython, { ...SMALL, seed: 8 });
    expect(await corpusHash(a)).toBe(await corpusHash(b));
    expect(a).toEqual(b);
    expect(await corpusHash(c)).not.toBe(await corpusHash(a));
    expect(await vocabHash(vocab)).toMatch(/^[0-9a-f]{64}$/);
    // Tuning the code shares leaves the Test policy's corpus (and so its checkpoint) unchanged.
    const d = await buildCorpus(vocab, subset, runPython, { ...SMALL, referenceShare: 0.6 });
    expect(d.test).toEqual(a.test);
    expect(d.code).not.toEqual(a.code);
  });

  it("Test-role levers: fresh inputs give every suite calls of its own; nothing-qualifies answers stay a capped minority", async () => {
    // count-equal-6: most random lists hold no 6, so most answers are 0 (the commonest answer).
    const v2 = arenaV2();
    const subset = { ...v2, tasks: v2.tasks.filter((t) => t.id === "count-equal-6-ints" || t.id === "count-equal-m3-ints") };
    const v2vocab = taskVocabulary(v2);
    const lever = { seed: 3, suitesPerTask: 8, wrongAnswerShare: 0, separatingLines: 0 };
    const share = (c: PretrainCorpus) => {
      const answers = c.test.flatMap((s) => decodeSuite(v2vocab, s.tokens.slice(s.completionStart)).split("\n").filter(Boolean).map((l) => l.split(" == ")[1]));
      return answers.filter((a) => a === "0").length / answers.length;
    };
    const plain = await buildCorpus(v2vocab, subset, runPython, lever);
    const capped = await buildCorpus(v2vocab, subset, runPython, { ...lever, freshInputs: true, maxDefaultShare: 0.34 });
    expect(share(plain)).toBeGreaterThan(0.5);
    expect(share(capped)).toBeLessThanOrEqual(0.34);
    for (const c of [plain, capped]) expect(c.test.every((s) => s.lines >= 1)).toBe(true);
    // Fresh: no call appears in two suites of a task; the plain pool repeats its 16 lines across suites.
    // (With the cap, the few lines where something qualifies are reused once the fresh ones run out.)
    const repeats = (c: PretrainCorpus) => {
      let n = 0;
      for (const id of c.tasks) {
        const seen = new Set<string>();
        for (const s of c.test.filter((x) => x.task === id)) {
          const calls = decodeSuite(v2vocab, s.tokens.slice(s.completionStart)).split("\n").filter(Boolean).map((l) => l.split(" == ")[0]);
          for (const call of new Set(calls)) {
            if (seen.has(call)) n++;
            else seen.add(call);
          }
        }
      }
      return n;
    };
    const fresh = repeats(await buildCorpus(v2vocab, subset, runPython, { ...lever, freshInputs: true }));
    expect(repeats(plain)).toBeGreaterThan(40);
    // Used lines come last, not never: a suite whose token budget only fits a short line may reuse one.
    expect(fresh).toBeLessThanOrEqual(repeats(plain) / 20);
  });

  it("draws no noise program equal to a held-out reference, and the default corpus does not move without one", async () => {
    const subset = { ...file, tasks: file.tasks.filter((t) => ["sum-positive", "count-char"].includes(t.id)) };
    const a = await buildCorpus(vocab, subset, runPython, { ...SMALL, noiseShare: 0.5 });
    const noise = a.code.filter((s) => s.kind === "noise").map((s) => decodeCode(vocab, s.tokens.slice(s.completionStart)));
    expect(noise.length).toBeGreaterThan(0);
    // Declare the first noise program a held-out task's reference: the corpus now draws another in its place.
    const bait: Task = { ...byId.get("sum-positive")!, id: "bait", split: "heldout", reference: noise[0] };
    const b = await buildCorpus(vocab, { ...subset, tasks: [...subset.tasks, bait] }, runPython, { ...SMALL, noiseShare: 0.5 });
    const noiseB = b.code.filter((s) => s.kind === "noise").map((s) => decodeCode(vocab, s.tokens.slice(s.completionStart)));
    expect(noiseB).not.toContain(noise[0]);
    expect(noiseB.length).toBe(noise.length);
  });

  it("rejects bad options by name", async () => {
    expect(() => corpusOptions({ seed: 1, referenceShare: 1.5 })).toThrow(/referenceShare must be in \[0, 1\]/);
    expect(() => corpusOptions({ seed: 1, referenceShare: 0.8, noiseShare: 0.3 })).toThrow(/referenceShare \+ noiseShare/);
    expect(() => corpusOptions({ seed: 1, minLines: 5, maxLines: 3 })).toThrow(/minLines \(5\) > maxLines \(3\)/);
    expect(() => corpusOptions({ seed: 1, refShare: 0.3 } as never)).toThrow(CorpusError);
    expect(() => corpusOptions({ seed: 1, maxDefaultShare: 2 })).toThrow(/maxDefaultShare must be in \[0, 1\]/);
    expect(() => corpusOptions({ seed: 1, freshInputs: "yes" } as never)).toThrow(/freshInputs must be true or false/);
    const onlyHeldout = { ...file, tasks: tasksOfSplit(file, "heldout") };
    await expect(buildCorpus(vocab, onlyHeldout, runPython, { seed: 1 })).rejects.toThrow(/no train tasks/);
  });
});
