/**
 * The task format and the real arena-v1 suite: schema errors name the field; the suite's
 * invariants hold by real execution through the Node grader (Pyodide) and the tokenizer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { taskProblems, validateTaskFile, TaskValidationError, type Task } from "../../../src/core/arena/task.ts";
import { arenaV1, tasksOfSplit } from "../../../src/core/arena/task-suite.ts";
import { checkTasks, SUITE_FLOORS, type CheckDetails } from "../../../src/core/arena/task-check.ts";
import { createRoundTrip } from "../../../src/core/arena/task-round-trip.ts";
import { taskSignature } from "../../../src/core/arena/task.ts";
import { createNodeGrader } from "../../../src/node/grader.ts";
import { createNodeRunPython } from "../../../src/node/python-runner.ts";
import type { Grader } from "../../../src/core/grader/types.ts";

const good = (): Task => structuredClone(arenaV1().tasks[0]);

describe("task schema", () => {
  it("accepts every task of the built-in suite", () => {
    for (const t of arenaV1().tasks) expect(taskProblems(t), t.id).toEqual([]);
  });

  it("names the field of each problem", () => {
    const t = good() as unknown as Record<string, unknown>;
    t.entry_point = "solve";
    t.golden_tests = ["assert f(1) == 1"];
    (t.params as { name: string }[])[0].name = "arr";
    (t.input_spec as { params: Record<string, unknown> }).params = { xs: { min_len: 0, max_len: 99, min: -9, max: 9 } };
    t.split = "test";
    t.colour = "red";
    const problems = taskProblems(t);
    expect(problems).toEqual(
      expect.arrayContaining([
        "colour: unknown field (known: id, title, prompt, entry_point, params, returns, reference, golden_tests, input_spec, buggy_variants, split, family, tags, outside_arena)",
        "entry_point: must be 'f' in the built-in suite (docs/ARENA-PYTHON.md)",
        "params[0].name: 'arr' is not in the parameter pool (xs ys s t n m k x a b words)",
        "golden_tests: must be a list of 2-4 assert lines",
        "split: must be one of train, heldout, heldout_compositional, heldout_family",
        "input_spec.params.xs: no such parameter",
        "input_spec.params.arr: missing (every parameter needs a spec; {} for bool)",
      ]),
    );
  });

  it("checks specs against the literal bounds and buggy variants for shape", () => {
    const t = good();
    t.input_spec!.params.xs = { min_len: 0, max_len: 9, min: 5, max: -5 };
    t.buggy_variants = [{ code: t.reference, bug: "none" }, { code: "def f(xs):\n    return 0", bug: "two\nlines" }];
    expect(taskProblems(t)).toEqual(
      expect.arrayContaining([
        "buggy_variants: must be a list of at least 3 of {code, bug}",
      ]),
    );
    t.buggy_variants.push({ code: "def f(xs):\n    return 1", bug: "x" });
    const p = taskProblems(t);
    expect(p).toContain("buggy_variants[0].code: identical to the reference");
    expect(p).toContain("buggy_variants[1].bug: must be a one-line description");
    expect(p).toContain("input_spec.params.xs: min (5) > max (-5)");
    expect(p).toContain("input_spec.params.xs: min_len..max_len must lie within 0..8 (literal bounds)");
  });

  it("validateTaskFile lists every problem with the task index and id, and catches duplicate ids", () => {
    const a = good();
    const b = good();
    b.prompt = "Two sentences. Here is the second.";
    try {
      validateTaskFile({ version: 1, name: "x", tasks: [a, b] });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(TaskValidationError);
      expect((e as TaskValidationError).problems).toEqual([
        `tasks[1] (${a.id}).prompt: must be one sentence`,
        `tasks[1] (${a.id}).id: duplicate id`,
      ]);
    }
    expect(() => validateTaskFile({ version: 2, name: "x", tasks: [] })).toThrow(/version: must be 1[\s\S]*tasks: must be a non-empty list/);
  });

  it("imported tasks are validated leniently (other entry points, 'other' types, no variants)", () => {
    const t = { ...good(), entry_point: "solve", params: [{ name: "arr", type: "other" }], buggy_variants: [], outside_arena: "why" };
    delete (t as Partial<Task>).input_spec;
    t.golden_tests = ["assert solve((1, 2)) == 3"];
    expect(taskProblems(t, { strict: false })).toEqual([]);
    expect(() => taskSignature(t as Task)).toThrow(/types outside the arena/);
  });

  it("names must be Python identifiers, bounded; input_spec is read by own keys (a parameter may be called __proto__)", () => {
    const rule = "must be a Python identifier (ASCII letters, digits, _; not a keyword; at most 64 characters)";
    for (const bad of ["class", "x".repeat(65), "f(", "é"]) {
      expect(taskProblems({ ...good(), entry_point: bad }, { strict: false }), bad).toContain(`entry_point: ${rule}`);
    }
    // From JSON, as a task file is read: "__proto__" is then an own key of input_spec.params.
    const t = JSON.parse(JSON.stringify({
      ...good(), params: [{ name: "__proto__", type: "int" }], golden_tests: ["assert f(1) == 1"], buggy_variants: [],
    })) as Record<string, unknown>;
    t.input_spec = JSON.parse('{"params": {"__proto__": {"min": 0, "max": 5}}, "preconditions": []}');
    expect(taskProblems(t, { strict: false })).toEqual([]);
    t.input_spec = JSON.parse('{"params": {}, "preconditions": []}');
    expect(taskProblems(t, { strict: false })).toEqual(["input_spec.params.__proto__: missing (every parameter needs a spec; {} for bool)"]);
  });
});

describe("arena-v1 suite", () => {
  const suite = arenaV1();

  it("has the size and split the issue asks for", () => {
    expect(suite.tasks.length).toBeGreaterThanOrEqual(SUITE_FLOORS.tasks);
    expect(tasksOfSplit(suite, "train").length).toBeGreaterThanOrEqual(SUITE_FLOORS.train);
    expect(tasksOfSplit(suite, "heldout").length).toBeGreaterThanOrEqual(SUITE_FLOORS.heldout);
    const types = new Set(suite.tasks.flatMap((t) => [...t.params.map((p) => p.type), t.returns]));
    expect([...types].sort()).toEqual(["bool", "int", "list[int]", "list[str]", "str"]);
  });

  it("writes short programs: mostly 1-6 body lines, none over 10", () => {
    const bodies = suite.tasks.map((t) => t.reference.split("\n").length - 1);
    for (const [i, b] of bodies.entries()) expect(b, suite.tasks[i].id).toBeLessThanOrEqual(10);
    expect(bodies.filter((b) => b <= 6).length / bodies.length).toBeGreaterThanOrEqual(0.9);
  });

  it("round-trips every reference and variant exactly through the arena tokenizer", () => {
    const roundTrip = createRoundTrip();
    const failures: string[] = [];
    for (const t of suite.tasks) {
      for (const code of [t.reference, ...t.buggy_variants.map((v) => v.code)]) {
        try {
          const back = roundTrip(code, taskSignature(t));
          if (back !== code) failures.push(`${t.id}: ${JSON.stringify(back)}`);
        } catch (e) {
          failures.push(`${t.id}: ${(e as Error).message}: ${JSON.stringify(code)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  describe("invariants by real execution (Node grader, Pyodide)", () => {
    let grader: Grader;
    let report: CheckDetails;
    beforeAll(async () => {
      grader = await createNodeGrader();
      report = await checkTasks(suite, { grader, runPython: createNodeRunPython() });
    }, 600_000);
    afterAll(async () => {
      await grader?.close();
    });

    it("every reference passes its golden tests and all plus tests; every variant fails a plus test", () => {
      expect(report.violations).toEqual([]);
    });

    it("has >= 100 random plus inputs per task plus boundary cases", () => {
      for (const t of suite.tasks) {
        const p = report.plus.get(t.id)!;
        expect(p.lines.length - p.boundary, t.id).toBeGreaterThanOrEqual(100);
        expect(p.boundary, t.id).toBeGreaterThan(0);
      }
    });

    it("has weak golden tests (a variant passes all of them) for at least a third of the tasks", () => {
      expect(report.weak_golden * 3).toBeGreaterThanOrEqual(suite.tasks.length);
      expect(report.weak_golden).toBe([...report.weakVariants.values()].filter((w) => w.length > 0).length);
      // A known weak task: the "forgets 15" FizzBuzz passes 3, 5 and 7.
      expect(report.weakVariants.get("fizzbuzz")).toContain(0);
      // And a strong one: no running-sum variant gets [1, 2, 3] and [] right.
      expect(report.weakVariants.get("running-sum")).toEqual([]);
    });
  });
});
