/** Mutants: mutate.py run in real Pyodide, screened (equivalence, hardness) through the real Node grader. */
import { describe, expect, it } from "vitest";
import { defaultLines, generateMutants, MUTANT_SCREEN, prepareBench, screenMutants } from "../../../src/core/arena/mutants.ts";
import { buildPlusTests, type PlusTests } from "../../../src/core/arena/plus.ts";
import { arenaV1 } from "../../../src/core/arena/task-suite.ts";
import type { Task } from "../../../src/core/arena/task.ts";
import { sharedNodeGrader } from "../node-grader.ts";
import { createNodeRunPython, mutateSource } from "../../../src/node/python-runner.ts";

const runPython = createNodeRunPython();
const byId = (id: string): Task => structuredClone(arenaV1().tasks.find((t) => t.id === id)!);

describe("mutate.py (Cosmic-Ray-style operators, in Pyodide)", () => {
  it("makes the expected first-order mutants of a small reference", async () => {
    const t = byId("sum-positive"); // return sum(v for v in xs if v > 0)
    const ms = (await generateMutants([t], runPython, mutateSource())).get(t.id)!;
    const byOp = new Map(ms.map((m) => [m.operator, m.code]));
    expect(byOp.get("compare:Gt->GtE")).toBe("def f(xs):\n    return sum((v for v in xs if v >= 0))");
    expect(byOp.get("number:+1")).toBe("def f(xs):\n    return sum((v for v in xs if v > 1))");
    expect(byOp.get("number:-1")).toBe("def f(xs):\n    return sum((v for v in xs if v > -1))");
    expect(ms.filter((m) => m.operator.startsWith("compare:")).length).toBe(5);
    expect(ms.every((m) => m.task === t.id && m.line === 2)).toBe(true);
    expect(new Set(ms.map((m) => m.code)).size).toBe(ms.length);
  });

  it("covers boolean, unary, slice, builtin-swap, loop and break operators", async () => {
    const t = byId("longest-run");
    const ops = (await generateMutants([byId("max-adjacent-gap"), t, byId("is-prime"), byId("middle-chars"), byId("pair-sums-to-zero")], runPython, mutateSource()))
      .values();
    const all = [...ops].flat().map((m) => m.operator);
    for (const op of ["boolean:And->Or", "builtin:max->min", "zero-iteration-loop", "slice:lower+1", "slice:upper-1", "bool:True->False", "binary:Sub->Add"]) {
      expect(all, op).toContain(op);
    }
    const neg = (await generateMutants([byId("first-index")], runPython, mutateSource())).get("first-index")!;
    expect(neg.map((m) => m.operator)).toContain("unary:remove-USub");
  });
});

describe("the screen: equivalent mutants dropped, hard ones marked (real grader)", () => {
  const grader = sharedNodeGrader();
  const screen = async (t: Task) => {
    const generated = await generateMutants([t], runPython, mutateSource());
    const plus = new Map<string, PlusTests>([[t.id, await buildPlusTests(t, runPython)]]);
    return { generated: generated.get(t.id)!, kept: (await screenMutants(grader, [t], generated, plus, await defaultLines([t], runPython))).get(t.id)! };
  };

  it("drops `v > 0` -> `v >= 0` in sum-positive (adding zero changes nothing) and keeps `v > 1`", async () => {
    const { generated, kept } = await screen(byId("sum-positive"));
    const ops = kept.map((m) => m.operator);
    expect(ops).not.toContain("compare:Gt->GtE");
    expect(ops).toContain("number:+1");
    expect(ops).toContain("compare:Gt->Lt");
    expect(kept.length).toBeLessThan(generated.length);
  });

  it("marks hard the mutants that the default input misses and most random inputs miss", async () => {
    // sum-positive, default input f([]) == 0: no mutant of the predicate changes an empty sum.
    const sum = (await screen(byId("sum-positive"))).kept;
    const op = (o: string) => sum.find((m) => m.operator === o)!;
    expect(sum.every((m) => m.default_kill === false)).toBe(true);
    // `v > 1` differs only on lists holding a 1: rare among random inputs, so hard.
    expect(op("number:+1").random_kill).toBeLessThanOrEqual(MUTANT_SCREEN.maxRandomKill);
    expect(op("number:+1").hard).toBe(true);
    // `v < 0` sums the negatives instead: nearly every non-empty input exposes it, so not hard.
    expect(op("compare:Gt->Lt").random_kill).toBeGreaterThan(MUTANT_SCREEN.maxRandomKill);
    expect(op("compare:Gt->Lt").hard).toBe(false);
    // first-index, default input f([], 0) == -1: `return -1` -> `return 0` is trivially killed.
    const first = (await screen(byId("first-index"))).kept;
    const trivial = first.filter((m) => m.code.includes("return 0") || m.code.includes("return -2"));
    expect(trivial.length).toBeGreaterThan(0);
    for (const m of trivial) expect([m.default_kill, m.hard], m.operator).toEqual([true, false]);
    for (const m of [...sum, ...first]) {
      expect(m.hard, m.operator).toBe(m.default_kill !== true && m.random_kill <= MUTANT_SCREEN.maxRandomKill);
      expect(m.random_kill * MUTANT_SCREEN.randomInputs, m.operator).toBeCloseTo(Math.round(m.random_kill * MUTANT_SCREEN.randomInputs), 10);
    }
  });

  it("the default-input test is the reference's answer on the emptiest input, none without an input spec", async () => {
    const lines = await defaultLines([byId("first-index"), byId("sum-positive"), { ...byId("sum-positive"), id: "no-spec", input_spec: undefined }], runPython);
    expect(lines.get("first-index")).toBe("assert f([], 0) == -1");
    expect(lines.get("sum-positive")).toBe("assert f([]) == 0");
    expect(lines.has("no-spec")).toBe(false);
  });

  it("prepareBench builds plus tests and killable mutants for each task", async () => {
    const tasks = [byId("reverse-string"), byId("to-binary")];
    const phases = new Set<string>();
    const bench = await prepareBench(grader, runPython, mutateSource(), tasks, { onProgress: (p) => phases.add(p.phase) });
    expect([...phases].sort()).toEqual(["mutants", "plus"]);
    for (const t of tasks) {
      expect(bench.plus.get(t.id)!.lines.length).toBeGreaterThanOrEqual(100);
    }
    // s[::-1]: -1 -> 1 (unary removal), -2, -0 (raises): three killable mutants.
    expect(bench.mutants.get("reverse-string")!.map((m) => m.code)).toEqual(
      expect.arrayContaining(["def f(s):\n    return s[::1]", "def f(s):\n    return s[::-2]"]),
    );
    expect(bench.mutants.get("to-binary")!.length).toBeGreaterThan(10);
    // to-binary with `r //= 2` -> `r *= 2` loops forever: killed by the 250 ms line limit, so kept.
    expect(bench.mutants.get("to-binary")!.map((m) => m.operator)).toContain("binary:FloorDiv->Mult");
    // Seeded and deterministic: the same tasks give the same mutants, screen included.
    expect((await prepareBench(grader, runPython, mutateSource(), tasks)).mutants).toEqual(bench.mutants);
  }, 300_000);
});
