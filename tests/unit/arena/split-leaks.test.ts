/**
 * Clean splits (issue 26, part 1), over what ships: no held-out reference of arena-v1 or arena-v2,
 * nor a program equal to one up to integer constants, appears in training in any role: as a train
 * task's reference or buggy variant, as a mutant of a train task in the shipped benches, or as a
 * program of the shipped pretraining corpus (a Code completion, or the program a Test context shows).
 */
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { arenaV2, predicateClass } from "../../../src/core/arena/arena-v2.ts";
import { arenaV1 } from "../../../src/core/arena/task-suite.ts";
import { constantFree, HeldoutIndex, taskLeaks, withoutLeakingMutants } from "../../../src/core/arena/split-leaks.ts";
import { generateMutants } from "../../../src/core/arena/mutants.ts";
import { PREDICATES } from "../../../src/core/arena/task-space.ts";
import { splitProblems } from "../../../src/core/arena/task-check.ts";
import { decodeCode } from "../../../src/core/arena/tokenizer.ts";
import { arenaVocabulary } from "../../../src/core/duel/contexts.ts";
import { parseCorpusFile } from "../../../src/core/duel/pretrain.ts";
import { createNodeRunPython, mutateSource } from "../../../src/node/python-runner.ts";
import type { RunPython } from "../../../src/core/arena/plus.ts";

const v2 = arenaV2();
const v1 = arenaV1();

describe("constantFree", () => {
  it("forgets integer constants and their sign, not string constants or operators", () => {
    expect(constantFree("def f(xs):\n    return [v for v in xs if v > -3]")).toBe("def f(xs):\n    return [v for v in xs if v > N]");
    expect(constantFree("    if v % 2 == 0:")).toBe(constantFree("    if v % 3 == 1:"));
    expect(constantFree("    return i - 1")).toBe("    return i - N"); // a binary minus stays
    expect(constantFree("    return i - 1")).not.toBe(constantFree("    return i + 1"));
    expect(constantFree("    if c == '1':")).toBe("    if c == '1':"); // a digit inside a string is text
    expect(constantFree("    if c == 'a':")).not.toBe(constantFree("    if c == 'b':"));
    expect(constantFree("    if v >= 3:")).not.toBe(constantFree("    if v > 3:"));
  });

  it("an index finds a held-out reference written with other integers, and only for held-out tasks", () => {
    const ref = "def f(xs):\n    count = 0\n    for v in xs:\n        if v > 3:\n            count += 1\n    return count";
    const index = new HeldoutIndex([{ id: "held", split: "heldout_compositional", reference: ref }, { id: "trained", split: "train", reference: ref.replace("v > 3", "v < 3") }]);
    expect(index.find(ref.replace("v > 3", "v > -1"))).toEqual(["held"]);
    expect(index.has(ref.replace("v > 3", "v < 3"))).toBe(false);
    expect(index.has(ref.replace("count += 1", "count += v"))).toBe(false);
  });
});

describe("the shipped task sets", () => {
  it("arena-v2: no held-out reference is a train reference or buggy variant up to integer constants", () => {
    expect(taskLeaks(v2.tasks)).toEqual([]);
    expect(splitProblems(v2.tasks)).toEqual([]);
    // The held-out splits are still there to measure.
    expect(v2.tasks.filter((t) => t.split === "heldout_compositional").length).toBeGreaterThanOrEqual(50);
    expect(v2.tasks.filter((t) => t.split === "heldout_family").length).toBeGreaterThanOrEqual(50);
  });

  it("arena-v1: no held-out reference is a train reference or buggy variant up to integer constants", () => {
    expect(taskLeaks(v1.tasks)).toEqual([]);
  });

  it("the check finds the leak the issue found: a variant of a train task that is a held-out reference", () => {
    const held = v2.tasks.find((t) => t.split === "heldout_compositional")!;
    const train = structuredClone(v2.tasks.find((t) => t.split === "train")!);
    train.buggy_variants[0] = { code: held.reference.replace(/\d+/, (d) => String(Number(d) + 1)), bug: "x" };
    const leaks = taskLeaks([...v2.tasks.filter((t) => t.id !== train.id), train]);
    expect(leaks).toContainEqual({ heldout: held.id, where: `train task ${train.id}, buggy variant 1` });
    expect(splitProblems([...v2.tasks.filter((t) => t.id !== train.id), train]).join("\n")).toContain(`${held.id}: held out, but its reference`);
  });

  it("splits by predicate class: predicates equal up to constants share a split on each aggregation", () => {
    const classOf = new Map(PREDICATES.map((p) => [`${p.domain}|${p.family}`, predicateClass(p)]));
    const unitSplits = new Map<string, Set<string>>();
    for (const t of v2.tasks) {
      const [agg, family, type] = t.family!.split("/");
      const unit = `${type}|${agg}|${classOf.get(`${type}|${family}`)}`;
      unitSplits.set(unit, new Set([...(unitSplits.get(unit) ?? []), t.split]));
    }
    for (const [unit, splits] of unitSplits) expect([...splits], unit).toHaveLength(1);
    // positive is greater-than-0; even and odd are divisible-by-2.
    expect(classOf.get("list[int]|positive")).toBe(classOf.get("list[int]|gt"));
    expect(classOf.get("list[int]|even")).toBe(classOf.get("list[int]|divisible"));
  });
});

describe("mutants and the pretraining corpus", () => {
  let runPython: RunPython;
  beforeAll(() => {
    runPython = createNodeRunPython();
  });

  it("mutate.py turns train references into held-out ones; a bench keeps none of those mutants", async () => {
    const index = new HeldoutIndex(v2.tasks);
    // filter x `is negative` / `is not zero` is a held-out pair; filter x `is at most K` is trained.
    const train = v2.tasks.filter((t) => t.split === "train" && t.family!.startsWith("filter/") && t.params[0].type === "list[int]");
    const raw = await generateMutants(train, runPython, mutateSource());
    const leaking = [...raw.values()].flat().filter((m) => index.has(m.code));
    expect(leaking.length).toBeGreaterThan(0); // `v <= 5` -> `v < 5` is `is negative` (`v < 0`) up to constants
    const clean = withoutLeakingMutants(train, raw, index);
    expect([...clean.values()].flat().filter((m) => index.has(m.code))).toEqual([]);
    expect([...clean.values()].flat().length).toBe([...raw.values()].flat().length - leaking.length);
    // Held-out tasks keep their own mutants.
    const held = v2.tasks.filter((t) => t.split !== "train").slice(0, 2);
    const heldMutants = await generateMutants(held, runPython, mutateSource());
    expect(withoutLeakingMutants(held, heldMutants, index)).toEqual(heldMutants);
  }, 120_000);

  it("the shipped app benches hold no mutant of a train task that is a held-out reference", () => {
    for (const [name, file] of [["arena-v1", v1], ["arena-v2", v2]] as const) {
      const index = new HeldoutIndex(file.tasks);
      const split = new Map(file.tasks.map((t) => [t.id, t.split]));
      const bench = JSON.parse(readFileSync(`public/bench/${name}.json`, "utf8")) as { mutants: [string, { code: string }[]][] };
      const trainMutants = bench.mutants.filter(([id]) => split.get(id) === "train").flatMap(([, ms]) => ms);
      expect(trainMutants.length, name).toBeGreaterThan(0);
      expect(trainMutants.filter((m) => index.has(m.code)), name).toEqual([]);
    }
  });

  it("the shipped corpus: train tasks only, and no program in it is a held-out reference up to constants", () => {
    const corpus = parseCorpusFile(new Uint8Array(readFileSync("public/checkpoints/corpus.json.gz")));
    const vocab = arenaVocabulary();
    const train = new Set(v2.tasks.filter((t) => t.split === "train").map((t) => t.id));
    expect(corpus.tasks.length).toBe(train.size);
    for (const id of corpus.tasks) expect(train.has(id), id).toBe(true);
    const index = new HeldoutIndex([...v2.tasks, ...v1.tasks.map((t) => ({ ...t, id: `arena-v1:${t.id}` }))]);
    // Code sequences: context <sep> PROGRAM <eos>; Test sequences: context <sep> PROGRAM <sep> SUITE <eos>.
    const programs = [
      ...corpus.code.map((s) => s.tokens.slice(s.completionStart)),
      ...corpus.test.map((s) => {
        const head = s.tokens.slice(0, s.completionStart - 1); // drop the second <sep>
        return head.slice(head.indexOf(vocab.sep) + 1);
      }),
    ].map((tokens) => decodeCode(vocab, tokens));
    expect(programs.length).toBe(corpus.code.length + corpus.test.length);
    expect(programs.every((p) => p.startsWith("def f("))).toBe(true);
    const leaks = programs.flatMap((p) => index.find(p));
    expect(leaks).toEqual([]);
  });
});
