/**
 * Issue 14: imports become real arena tasks. Real Pyodide (normalising in Python's ast, running the
 * references) and the real Node grader (meaning check, mutant kills), on a fixture of 12 typical
 * MBPP-format tasks and on records that must be refused.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { bugText, importArenaTasks, type AreniseDeps, type AreniseResult } from "../../../../src/core/arena/importers/arenise.ts";
import { ImportError } from "../../../../src/core/arena/importers/import.ts";
import { checkTasks } from "../../../../src/core/arena/task-check.ts";
import { createRoundTrip } from "../../../../src/core/arena/task-round-trip.ts";
import { PARAM_POOL, validateTaskFile } from "../../../../src/core/arena/task.ts";
import { areniseSource, createNodeRunPython, mutateSource } from "../../../../src/node/python-runner.ts";
import { sharedNodeGrader } from "../../node-grader.ts";

const FIXTURE = new URL("../../../fixtures/mbpp-typical-12.jsonl", import.meta.url);
const jsonl = (...recs: unknown[]) => recs.map((r) => JSON.stringify(r)).join("\n") + "\n";

describe("importArenaTasks", () => {
  const grader = sharedNodeGrader();
  const deps = (): AreniseDeps => ({
    grader,
    runPython: createNodeRunPython(),
    roundTrip: createRoundTrip(),
    arenisePy: areniseSource(),
    mutatePy: mutateSource(),
  });
  let typical: AreniseResult;
  beforeAll(async () => {
    typical = await importArenaTasks(readFileSync(FIXTURE, "utf8"), "mbpp", deps());
  }, 300_000);

  it("makes at least 10 of 12 typical MBPP tasks trainable, each with buggy variants", () => {
    const trainable = typical.report.filter((r) => r.status === "trainable");
    expect(typical.report).toHaveLength(12);
    expect(trainable.length).toBeGreaterThanOrEqual(10);
    // The file passes the built-in suite's strict rules: what `npm run train --tasks` loads.
    const file = validateTaskFile(typical.file, { strict: true });
    expect(file.tasks).toHaveLength(trainable.length);
    for (const t of file.tasks) {
      expect(t.entry_point).toBe("f");
      expect(t.split).toBe("train");
      expect(t.params.every((p) => (PARAM_POOL as readonly string[]).includes(p.name)), t.id).toBe(true);
      expect(t.buggy_variants.length, t.id).toBeGreaterThanOrEqual(3);
      expect(t.golden_tests.every((g) => g.startsWith("assert f(")), t.id).toBe(true);
    }
    for (const r of trainable) expect(r.checkedInputs, r.id).toBeGreaterThanOrEqual(10);
  });

  it("renames by parsing: entry point, parameters by type, locals by role; tests rewritten the same way", () => {
    const byId = new Map(typical.file.tasks.map((t) => [t.id, t]));
    const gap = byId.get("mbpp-9001")!;
    expect(gap.reference).toBe("def f(xs):\n    return max(xs) - min(xs)");
    expect(gap.golden_tests).toEqual(["assert f([1, 9, 3]) == 8", "assert f([5, 5]) == 0", "assert f([-2, 4, 7, 1]) == 9"]);
    // Tabs, a counter named total_sum and a loop item num: total and v.
    expect(byId.get("mbpp-9004")!.reference).toBe("def f(xs):\n    total = 0\n    for v in xs:\n        if v % 2 == 0:\n            total += v\n    return total");
    // A docstring dropped; xs.sort() rewritten as an arena assignment.
    expect(byId.get("mbpp-9003")!.reference).toBe("def f(s):\n    return ' '.join(s.split()[::-1])");
    expect(byId.get("mbpp-9006")!.reference).toContain("= sorted(");
    const words = byId.get("mbpp-9008")!;
    expect(words.params).toEqual([{ name: "words", type: "list[str]" }, { name: "n", type: "int" }]);
    const rep = typical.report.find((r) => r.id === "mbpp-9012")!;
    expect(rep.renames).toEqual({ find_index: "f", arr: "xs", target: "n", index: "i" });
  });

  it("infers an input_spec within the literal bounds and preconditions where the reference raises", () => {
    const byId = new Map(typical.file.tasks.map((t) => [t.id, t]));
    expect(byId.get("mbpp-9001")!.input_spec).toEqual({ params: { xs: { min_len: 0, max_len: 8, min: -2, max: 9 } }, preconditions: ["len(xs) >= 1"] });
    expect(byId.get("mbpp-9006")!.input_spec!.preconditions).toEqual(["len(set(xs)) >= 2"]);
    expect(byId.get("mbpp-9011")!.input_spec!.preconditions).toEqual(["len(s) >= 1"]);
    expect(byId.get("mbpp-9002")!.input_spec!.params.s.alphabet).toBe(" AEIOPUehlnotxyz"); // the tests' characters
    const note = typical.report.find((r) => r.id === "mbpp-9001")!.preconditions![0];
    expect(note.example).toMatch(/^f\(\[\]\): ValueError/);
    expect(note.excludedRaising).toBe(note.excluded); // it excludes only inputs the reference raises on
  });

  it("passes every task invariant when checked by real execution", async () => {
    const report = await checkTasks(typical.file, { grader, runPython: createNodeRunPython(), roundTrip: createRoundTrip() }, { strict: false });
    expect(report.violations).toEqual([]);
    expect(report.weak_golden).toBe(typical.report.filter((r) => r.weakGolden).length);
    for (const t of typical.file.tasks) expect(report.plus.get(t.id)!.lines.length, t.id).toBeGreaterThanOrEqual(10);
  }, 300_000);

  it("refuses a task that cannot be an arena task naming construct, line and column; the rest still imports", async () => {
    const good = { task_id: 1, text: "Write a function to find the largest number in a list.", code: "def largest(nums):\n    return max(nums)", test_list: ["assert largest([1, 5, 2]) == 5", "assert largest([-3, -1]) == -1"] };
    const dict = { task_id: 2, text: "Write a function to count the most common character.", code: "def most_common(text):\n    freq = {}\n    for ch in text:\n        freq[ch] = freq.get(ch, 0) + 1\n    return max(freq.values())", test_list: ["assert most_common('aab') == 2", "assert most_common('abc') == 1"] };
    const ordCall = { task_id: 3, text: "Write a function to sum the character codes.", code: "def code_sum(s):\n    return sum(ord(c) for c in s)", test_list: ["assert code_sum('a') == 97", "assert code_sum('ab') == 195"] };
    const tuples = { task_id: 4, text: "Write a function to swap a pair.", code: "def swap(p):\n    return (p[1], p[0])", test_list: ["assert swap((1, 2)) == (2, 1)", "assert swap((3, 4)) == (4, 3)"] };
    const helper = { task_id: 5, text: "Write a function to double every item.", code: "import math\ndef double(x):\n    return x * 2\ndef double_all(xs):\n    return [double(v) for v in xs]", test_list: ["assert double_all([1, 2]) == [2, 4]", "assert double_all([]) == []"] };
    const loops = { task_id: 6, text: "Write a function to count the steps from low up to high.", code: "def steps_between(low, high):\n    steps = 0\n    while low != high:\n        low += 1\n        steps += 1\n    return steps", test_list: ["assert steps_between(2, 5) == 3", "assert steps_between(-1, 4) == 5"] };
    const r = await importArenaTasks(jsonl(good, dict, ordCall, tuples, helper, loops), "mbpp", deps());
    const reason = (id: string) => r.report.find((x) => x.id === id)!.reason;
    expect(r.report.map((x) => x.status)).toEqual(["trainable", "refused", "refused", "refused", "refused", "trainable"]);
    expect(reason("mbpp-2")).toBe("line 2, column 12: a dict display");
    expect(reason("mbpp-3")).toMatch(/^line 2, column 16: call of 'ord' \(arena builtins: /);
    expect(reason("mbpp-4")).toMatch(/^type: parameter 'p', the return value are not int, bool, str, list\[int\] or list\[str\]/);
    expect(reason("mbpp-5")).toBe("line 2, column 1: helper function 'double' called by double_all (arena programs are one function)");
    expect(r.file.tasks.map((t) => t.id)).toEqual(["mbpp-1", "mbpp-6"]);
    // A reference that loops on part of the drawn space (low above high) is step-limited, and excluded.
    const pre = r.report.find((x) => x.id === "mbpp-6")!.preconditions!;
    expect(pre.map((p) => p.expr)).toEqual(["n <= k"]);
    expect(pre[0].example).toMatch(/TimeoutError: over \d+ steps/);
    // Kept flagged for play and evaluation when asked.
    const kept = await importArenaTasks(jsonl(good, tuples), "mbpp", deps(), { keepOutside: true });
    expect(kept.file.tasks.map((t) => [t.id, t.outside_arena === undefined])).toEqual([["mbpp-1", true], ["mbpp-4", false]]);
  }, 300_000);

  it("refuses a malformed file as a whole, naming each bad line", async () => {
    const text = readFileSync(FIXTURE, "utf8").split("\n");
    text[2] = "{not json";
    text[5] = JSON.stringify({ task_id: 77, text: "x", code: "def g(a):\n    return a", test_list: [] });
    await expect(importArenaTasks(text.join("\n"), "mbpp", deps())).rejects.toThrow(ImportError);
    try {
      await importArenaTasks(text.join("\n"), "mbpp", deps());
    } catch (e) {
      expect((e as ImportError).problems.map((p) => p.split(":")[0])).toEqual(["line 3", "line 6"]);
      expect((e as ImportError).problems[1]).toBe("line 6: field test_list: missing or not a non-empty list of strings");
    }
  });
});

describe("bugText", () => {
  it("says what each operator breaks, in one line", () => {
    expect(bugText("compare:Lt->LtE", 3)).toBe("boundary or comparison: <= instead of < (line 3)");
    expect(bugText("builtin:max->min", 2)).toBe("wrong builtin: min instead of max (line 2)");
    expect(bugText("semantic:wrong-predicate:upper->lower", 4)).toBe("wrong predicate: lower instead of upper (line 4)");
    expect(bugText("zero-iteration-loop", 5)).toBe("loop body never runs (line 5)");
  });
});

describe("npm run tasks -- import (arena tasks)", () => {
  const tsx = (args: string[]) => {
    const r = spawnSync("npx", ["tsx", "scripts/tasks.ts", ...args], { encoding: "utf8" });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };

  it("imports the typical set: a summary line, a per-task report, a file train loads strictly", () => {
    const dir = mkdtempSync(join(tmpdir(), "arenise-"));
    const r = tsx(["import", "mbpp", FIXTURE.pathname, "--out", join(dir, "out.json"), "--report", join(dir, "report.json")]);
    expect(r.code, r.err).toBe(0);
    const summary = JSON.parse(r.out.trim()) as { records: number; trainable: number; refused: number };
    expect(summary.records).toBe(12);
    expect(summary.trainable).toBeGreaterThanOrEqual(10);
    expect(r.err).toMatch(/trainable mbpp-9001 \(line 1\): renamed largest_gap->f nums->xs; same outputs on \d+ inputs; \d buggy variants/);
    expect(validateTaskFile(JSON.parse(readFileSync(join(dir, "out.json"), "utf8"))).tasks).toHaveLength(summary.trainable);
    expect(JSON.parse(readFileSync(join(dir, "report.json"), "utf8"))).toHaveLength(12);
  }, 300_000);

  it("writes nothing for a malformed file and exits 1 naming each bad line", () => {
    const dir = mkdtempSync(join(tmpdir(), "arenise-"));
    const lines = readFileSync(FIXTURE, "utf8").split("\n");
    lines[0] = "[1, 2]";
    lines[3] = "{";
    writeFileSync(join(dir, "in.jsonl"), lines.join("\n"));
    const r = tsx(["import", "mbpp", join(dir, "in.jsonl"), "--out", join(dir, "out.json"), "--report", join(dir, "report.json")]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("line 1: field (record): must be a JSON object");
    expect(r.err).toContain("line 4: not valid JSON");
    expect(existsSync(join(dir, "out.json"))).toBe(false);
    expect(existsSync(join(dir, "report.json"))).toBe(false);
  }, 120_000);
});
