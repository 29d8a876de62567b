import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import type { GradeTask } from "../../../src/core/grader/types.ts";
import suite from "../../../src/core/arena/tasks/arena-v1.json" with { type: "json" };
import { PlayInputError, attackPrograms, attackReport, attackRequest, defendReport, defendRequest, parseUserTests } from "../../../src/ui/play-logic.ts";

const sumPositive = suite.tasks.find((t) => t.id === "sum-positive")!;
const task: GradeTask = { id: sumPositive.id, entry_point: sumPositive.entry_point, reference: sumPositive.reference };

const grader = sharedNodeGrader();

describe("play: the programs an attack grades", () => {
  it("grades each code once and numbers a repeated label, so each row names its own program", () => {
    const got = attackPrograms([
      { label: "buggy variant: off by one", code: "A" },
      { label: "buggy variant: off by one", code: "B" },
      { label: "duel step 1, code 1", code: "A" },
      { label: "buggy variant: off by one", code: "C" },
    ]);
    expect(got).toEqual([
      { label: "buggy variant: off by one", code: "A" },
      { label: "buggy variant: off by one (#2)", code: "B" },
      { label: "buggy variant: off by one (#3)", code: "C" },
    ]);
  });
});

describe("play: input checks", () => {
  it("accepts assert lines and rejects anything else with the line number", () => {
    expect(parseUserTests("assert f([1]) == 1\n\n  assert f([]) == 0  \n")).toEqual(["assert f([1]) == 1", "assert f([]) == 0"]);
    expect(() => parseUserTests("")).toThrow(PlayInputError);
    expect(() => parseUserTests("assert f([1]) == 1\nprint(1)")).toThrow('Line 2 is not a test: every line must start with "assert ", got "print(1)"');
    expect(() => parseUserTests("assert f(1) == 1\n".repeat(9))).toThrow(/At most 8/);
    expect(() => defendRequest(task, "def g(xs):\n    return 0", [])).toThrow("must define the entry point: def f(...)");
  });
});

describe("play with the real grader (Pyodide)", () => {
  it("defend: shows which attacking lines break a hand-written solution", async () => {
    const mine = "def f(xs):\n    return sum(xs)"; // forgets to drop the negatives
    const suites = [
      { source: "golden tests", text: sumPositive.golden_tests.join("\n") },
      { source: "my opponent", text: "assert f([]) == 0\nassert f([-1]) == 5\nassert f([2, 2]) == 4" },
    ];
    const report = defendReport(suites, await grader.grade(defendRequest(task, mine, suites)));
    expect(report.codeStatus.status).toBe("ok");
    expect(report.lines.map((l) => [l.source, l.test, l.line.validity, l.broke])).toEqual([
      ["golden tests", "assert f([1, -2, 3]) == 4", "valid", true],
      ["golden tests", "assert f([5, 6]) == 11", "valid", false],
      ["my opponent", "assert f([]) == 0", "valid", false],
      // expected 5 is wrong (reference gives 0): reference-corrected, and sum([-1]) = -1 still fails
      ["my opponent", "assert f([-1]) == 5", "wrong-answer", true],
      ["my opponent", "assert f([2, 2]) == 4", "valid", false],
    ]);
    expect(report.broken).toBe(2);
    expect(report.executable).toBe(5);
  });
  it("attack: shows which programs a hand-written suite catches", async () => {
    const programs = sumPositive.buggy_variants.map((v) => ({ label: v.bug, code: v.code }));
    programs.push({ label: "reference", code: sumPositive.reference });
    const tests = parseUserTests("assert f([1, -1]) == 1\nassert f([3]) == 4");
    const report = attackReport(programs, tests, await grader.grade(attackRequest(task, programs, tests)));
    expect(report.tests.map((t) => t.validity)).toEqual(["valid", "wrong-answer"]);
    // [1, -1]: sum(xs) = 0 (caught), negatives-only = -1 (caught), "> 1" drops the 1 -> 0 (caught);
    // the reference passes the valid line and the corrected second line.
    expect(report.programs.map((p) => p.caught)).toEqual([true, true, true, false]);
    expect(report.caught).toBe(3);
  });
});
