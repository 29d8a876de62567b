/** Plus tests: seeded draws from input_spec, boundary cases, preconditions and references run in real Pyodide. */
import { describe, expect, it } from "vitest";
import { Rng } from "../../../src/core/rng.ts";
import { boundaryInputs, buildPlusTests, defaultInput, drawInput, fitsSpec, mutatedInputs, mutateValue } from "../../../src/core/arena/plus.ts";
import { formatArgs, formatLiteral, parseAssert, int, list, str } from "../../../src/core/arena/task-literals.ts";
import { arenaV1 } from "../../../src/core/arena/task-suite.ts";
import type { Task } from "../../../src/core/arena/task.ts";
import { createNodeRunPython } from "../../../src/node/python-runner.ts";

const runPython = createNodeRunPython();
const byId = (id: string): Task => structuredClone(arenaV1().tasks.find((t) => t.id === id)!);

describe("drawing inputs from input_spec", () => {
  it("stays inside every spec of the suite", () => {
    const rng = new Rng(1);
    for (const t of arenaV1().tasks) {
      for (let n = 0; n < 50; n++) {
        const args = drawInput(t, rng);
        t.params.forEach((p, i) => expect(fitsSpec(p.type, t.input_spec!.params[p.name], args[i]), `${t.id} ${formatArgs(args)}`).toBe(true));
      }
      for (const args of boundaryInputs(t, rng)) {
        t.params.forEach((p, i) => expect(fitsSpec(p.type, t.input_spec!.params[p.name], args[i]), t.id).toBe(true));
      }
    }
  });

  it("includes the boundary cases: empty and full lists, all-equal items, range ends", () => {
    const t = byId("count-greater"); // xs: 0..8 items in -9..9, k in -9..9
    const calls = boundaryInputs(t, new Rng(3)).map(formatArgs);
    expect(calls.some((c) => c.startsWith("[], "))).toBe(true);
    expect(calls.some((c) => c.startsWith("[-9, -9, -9, -9, -9, -9, -9, -9], "))).toBe(true);
    expect(calls.some((c) => c.startsWith("[9, 9, 9, 9, 9, 9, 9, 9], "))).toBe(true);
    expect(calls.some((c) => c.endsWith(", -9"))).toBe(true);
    expect(calls.some((c) => c.endsWith(", 9"))).toBe(true);
  });
});

describe("the default input (mutant screen)", () => {
  it("puts every argument at its emptiest within its spec", () => {
    expect(formatArgs(defaultInput(byId("first-index")))).toBe("[], 0");
    // An int whose range excludes 0 takes the bound nearest it; a list with min_len 2 gets two such items.
    const t = byId("first-index");
    const spec = { ...t.input_spec!, params: { xs: { ...t.input_spec!.params.xs, min_len: 2, min: 3 }, k: { min: -9, max: -2 } } };
    expect(formatArgs(defaultInput({ ...t, input_spec: spec }))).toBe("[3, 3], -2");
    for (const task of arenaV1().tasks) {
      const args = defaultInput(task);
      task.params.forEach((p, i) => expect(fitsSpec(p.type, task.input_spec!.params[p.name], args[i]), `${task.id}.${p.name}`).toBe(true));
    }
  });
});

describe("buildPlusTests (real Pyodide)", () => {
  it("is deterministic for a seed, >= 100 random inputs plus boundary cases, expected values from the reference", async () => {
    const t = byId("second-largest");
    const a = await buildPlusTests(t, runPython, { seed: 7 });
    const b = await buildPlusTests(t, runPython, { seed: 7 });
    const c = await buildPlusTests(t, runPython, { seed: 8 });
    expect(a.lines).toEqual(b.lines);
    expect(a.lines).not.toEqual(c.lines);
    expect(a.lines.length - a.boundary).toBe(100);
    expect(new Set(a.lines).size).toBe(a.lines.length);
    expect(a.referenceErrors).toEqual([]);
    for (const line of a.lines) {
      const { args, expected } = parseAssert(line, "f");
      const xs = args[0].t === "list" ? args[0].items.map((i) => (i.t === "int" ? i.v : NaN)) : [];
      // Precondition len(set(xs)) >= 2 was enforced, and the answer is the second largest distinct value.
      const distinct = [...new Set(xs)].sort((p, q) => p - q);
      expect(distinct.length).toBeGreaterThanOrEqual(2);
      expect(formatLiteral(expected)).toBe(String(distinct[distinct.length - 2]));
    }
  });

  it("reports a reference that raises on an input its spec allows", async () => {
    const t = byId("second-largest");
    t.input_spec!.preconditions = [];
    const p = await buildPlusTests(t, runPython, { count: 20 });
    expect(p.referenceErrors.length).toBeGreaterThan(0);
    expect(p.referenceErrors[0]).toMatch(/^f\(\[.*\]\): IndexError: list index out of range$/);
  });
});

describe("type-aware mutation (tasks without input_spec)", () => {
  it("mutates each type into a value of the same kind", () => {
    const rng = new Rng(5);
    for (let n = 0; n < 200; n++) {
      expect(mutateValue(int(4), rng, "ab").t).toBe("int");
      const s = mutateValue(str("abc"), rng, "xy");
      expect(s.t === "str" && /^[abcxyABCXY]*$/.test(s.v)).toBe(true);
      const l = mutateValue(list([int(1), int(2)]), rng, "ab");
      expect(l.t === "list" && l.items.every((i) => i.t === "int")).toBe(true);
    }
  });

  it("derives up to 100 distinct plus tests from the golden inputs", async () => {
    const t = byId("sum-positive");
    delete t.input_spec;
    const seeds = mutatedInputs(t, new Rng(0), 50);
    expect(seeds.every((a) => a.length === 1 && a[0].t === "list")).toBe(true);
    const p = await buildPlusTests(t, runPython, { seed: 2 });
    expect(p.boundary).toBe(0);
    expect(p.lines.length).toBeGreaterThanOrEqual(60); // duplicates of small mutations are dropped
    expect(p.lines.length).toBeLessThanOrEqual(100);
    expect(p.lines).toContain("assert f([]) == 0");
  });
});
