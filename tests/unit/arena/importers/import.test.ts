/** Bring your own tasks: MBPP / HumanEval JSONL import, type inference, all-or-nothing errors, real runs. */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importJsonl, ImportError } from "../../../../src/core/arena/importers/import.ts";
import { checkTasks } from "../../../../src/core/arena/task-check.ts";
import { createRoundTrip } from "../../../../src/core/arena/task-round-trip.ts";
import { validateTaskFile } from "../../../../src/core/arena/task.ts";
import { sharedNodeGrader } from "../../node-grader.ts";
import { createNodeRunPython } from "../../../../src/node/python-runner.ts";

const jsonl = (...recs: unknown[]) => recs.map((r) => JSON.stringify(r)).join("\n") + "\n";

const mbppArena = {
  task_id: 901,
  text: "Write a function to count the negative numbers in a list.",
  code: "def f(xs):\n    return sum(1 for v in xs if v < 0)",
  test_list: ["assert f([-1, 2, -3]) == 2", "assert f([]) == 0", "assert f([4])==0"],
};
const mbppTuples = {
  task_id: 902,
  text: "Write a function to find the shared elements of two tuples.",
  code: "def similar_elements(test_tup1, test_tup2):\r\n  res = tuple(set(test_tup1) & set(test_tup2))\r\n  return (res) ",
  test_list: [
    "assert set(similar_elements((3, 4, 5, 6),(5, 7, 4, 10))) == set((4, 5))",
    "assert similar_elements((1, 2, 3, 4),(5, 4, 3, 7)) == (3, 4)",
  ],
};
const mbppWords = {
  task_id: 903,
  text: "Write a function to join words with spaces.",
  code: "def join_words(words):\n    return ' '.join(words)",
  test_list: ["assert join_words(['a', 'b']) == 'a b'", "assert join_words([]) == ''"],
};
const humanEval = {
  task_id: "HumanEval/900",
  prompt: 'def below_zero(operations):\n    """ Return True if the running balance ever goes below zero.\n\n    >>> below_zero([1, 2, -4])\n    True\n    """\n',
  canonical_solution: "    balance = 0\n    for op in operations:\n        balance += op\n        if balance < 0:\n            return True\n    return False\n",
  test: "\n\nMETADATA = {}\n\ndef check(candidate):\n    assert candidate([]) == False\n    assert candidate([1, 2, -4, 5]) == True\n    assert abs(candidate([1]) - 0) < 1e-6\n",
  entry_point: "below_zero",
};

describe("importJsonl", () => {
  it("imports MBPP records with inferred types and flags those outside arena-Python", () => {
    const { file, outside } = importJsonl(jsonl(mbppArena, mbppTuples, mbppWords), "mbpp", { roundTrip: createRoundTrip() });
    expect(file.tasks.map((t) => t.id)).toEqual(["mbpp-901", "mbpp-902", "mbpp-903"]);
    const [neg, tup, words] = file.tasks;
    expect(neg).toMatchObject({ entry_point: "f", params: [{ name: "xs", type: "list[int]" }], returns: "int", split: "heldout" });
    expect(neg.outside_arena).toBeUndefined(); // canonical arena-Python: usable by the Code policy as is
    expect(neg.golden_tests).toEqual(["assert f([-1, 2, -3]) == 2", "assert f([]) == 0", "assert f([4]) == 0"]);
    expect(tup.params).toEqual([{ name: "test_tup1", type: "other" }, { name: "test_tup2", type: "other" }]);
    expect(tup.reference).not.toContain("\r");
    expect(tup.golden_tests).toEqual(["assert similar_elements((1, 2, 3, 4), (5, 4, 3, 7)) == (3, 4)"]);
    expect(tup.tags).toContain("skipped-tests:1");
    expect(words.params).toEqual([{ name: "words", type: "list[str]" }]); // [] unified with ['a', 'b']
    expect(outside.map((o) => o.id)).toEqual(["mbpp-902", "mbpp-903"]);
    expect(outside[0].reason).toMatch(/types outside .*test_tup1, test_tup2, return value/);
    expect(outside[1].reason).toBe("entry point 'join_words' (arena programs define f)");
    expect(() => validateTaskFile(file, { strict: false })).not.toThrow();
  });

  it("imports HumanEval records: reference = prompt + solution, candidate asserts renamed, docstring as prompt", () => {
    const { file } = importJsonl(jsonl(humanEval), "humaneval", { split: "train" });
    const t = file.tasks[0];
    expect(t.id).toBe("humaneval-900");
    expect(t.prompt).toBe("Return True if the running balance ever goes below zero.");
    expect(t.reference.startsWith("def below_zero(operations):")).toBe(true);
    expect(t.golden_tests).toEqual(["assert below_zero([]) == False", "assert below_zero([1, 2, -4, 5]) == True"]);
    expect(t.params).toEqual([{ name: "operations", type: "list[int]" }]);
    expect(t.returns).toBe("bool");
    expect(t.split).toBe("train");
  });

  it("fails as a whole, naming line and field of every problem", () => {
    const bad = [
      JSON.stringify(mbppArena),
      "{not json",
      JSON.stringify({ ...mbppWords, code: "" }),
      JSON.stringify({ ...mbppWords, task_id: 904, test_list: ["assert join_words(['a'], 1) == 'a'"] }),
      JSON.stringify({ ...mbppArena }),
      JSON.stringify({ ...mbppWords, task_id: 905, test_list: ["assert join_words(x) == 'a'"] }),
    ].join("\n");
    try {
      importJsonl(bad, "mbpp");
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ImportError);
      const p = (e as ImportError).problems;
      expect(p[0]).toMatch(/^line 2: not valid JSON/);
      expect(p.slice(1)).toEqual([
        "line 3: field code: missing or not a non-empty string",
        "line 4: field test_list[0]: calls join_words with 2 arguments but it takes 1",
        "line 5: field task_id: duplicate of line 1 (id 'mbpp-901')",
        "line 6: field test_list: no test of the form 'assert join_words(LITERALS) == LITERAL' (e.g. float tolerances are not supported)",
      ]);
      expect((e as Error).message).toMatch(/^import failed, nothing imported: 5 problem\(s\)/);
    }
    expect(() => importJsonl("", "humaneval")).toThrow(/file: no records/);
    expect(() => importJsonl(jsonl({ ...humanEval, test: "def check(c):\n    pass" }), "humaneval")).toThrow(
      /line 1: field test: has no 'assert candidate\(\.\.\.\)' line/,
    );
  });

  it("refuses an entry_point that is not a Python identifier before any use: no regex error, no backtracking", () => {
    const problems = (text: string) => {
      try {
        importJsonl(text, "humaneval");
      } catch (e) {
        if (e instanceof ImportError) return e.problems;
        throw e; // a raw SyntaxError from a RegExp built of the input would land here
      }
      return expect.unreachable();
    };
    const hostile = [
      "below_zero(",                 // unbalanced: an invalid regular expression
      "(a+)+$",                      // catastrophic backtracking against a long reference
      "below_zero|x",                // alternation: would match other functions
      ".*",
      "$&",                          // special in String.replace's replacement
      "class",                       // a keyword, not a name
      "1st",
      "below zero",
      "x".repeat(65),                // too long
      "ａｂｃ",                      // non-ASCII
    ];
    const t0 = performance.now();
    hostile.forEach((entry, i) => {
      const p = problems(jsonl({ ...humanEval, prompt: humanEval.prompt + "a".repeat(5000), entry_point: entry }));
      expect(p, entry).toHaveLength(1);
      expect(p[0], entry).toMatch(/^line 1: field entry_point: must be a Python identifier \(ASCII letters, digits, _; not a keyword; at most 64 characters\), got "/);
      if (i === 0) expect(p[0]).toContain('got "below_zero("');
    });
    expect(performance.now() - t0).toBeLessThan(1000);
    // The line and the field are named in the message of the error itself.
    expect(() => importJsonl(jsonl(humanEval, { ...humanEval, task_id: "HumanEval/901", entry_point: "f(" }), "humaneval")).toThrow(/line 2: field entry_point: must be a Python identifier/);
    // Longest accepted: 64 characters; a name defined nowhere is still a clear error on the code.
    expect(problems(jsonl({ ...humanEval, entry_point: "x".repeat(64) }))).toEqual([`line 1: field code: does not define ${"x".repeat(64)}(...) (the function the tests call)`]);
    // Soft keywords are names.
    const match = { ...humanEval, prompt: humanEval.prompt.replace("below_zero", "match"), entry_point: "match" };
    expect(importJsonl(jsonl(match), "humaneval").file.tasks[0].golden_tests[0]).toBe("assert match([]) == False");
  });

  it("finds the MBPP entry point without building a regex from the code's function names", () => {
    // `f` is called only as part of `foo_f(`: not a call of f.
    const rec = { task_id: 906, text: "Twice.", code: "def f(x):\n    return 2 * x\ndef g(x):\n    return x", test_list: ["assert g(1) == 1"] };
    expect(importJsonl(jsonl(rec), "mbpp").file.tasks[0].entry_point).toBe("g");
    expect(() => importJsonl(jsonl({ ...rec, test_list: ["assert foo_f(1) == 2"] }), "mbpp")).toThrow(/line 1: field test_list: calls none of the functions defined in code \(f, g\)/);
    // Fields are read as own keys only: a record without "text" does not find an inherited one.
    expect(() => importJsonl(jsonl({ ...rec, text: undefined, constructor: "x" }), "mbpp")).toThrow(/line 1: field text: missing/);
  });
});

describe("npm run tasks -- import", () => {
  const tsx = (args: string[]) => {
    const r = spawnSync("npx", ["tsx", "scripts/tasks.ts", ...args], { encoding: "utf8" });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };

  it("writes a valid task file and prints one JSON summary line", () => {
    const dir = mkdtempSync(join(tmpdir(), "import-"));
    writeFileSync(join(dir, "in.jsonl"), jsonl(mbppArena, mbppTuples));
    const r = tsx(["import", "mbpp", join(dir, "in.jsonl"), "--out", join(dir, "out.json"), "--split", "train"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out.trim())).toMatchObject({ records: 2, trainable: 1, refused: 1, out: join(dir, "out.json") });
    expect(r.err).toMatch(/refused mbpp-902 \(line 2\): type: parameter 'test_tup1', parameter 'test_tup2', the return value are not/);
    const file = validateTaskFile(JSON.parse(readFileSync(join(dir, "out.json"), "utf8")));
    expect(file.tasks.map((t) => [t.id, t.split])).toEqual([["mbpp-901", "train"]]);
  }, 60_000);

  it("writes nothing for a bad file and exits 1 naming line and field", () => {
    const dir = mkdtempSync(join(tmpdir(), "import-"));
    writeFileSync(join(dir, "in.jsonl"), jsonl(mbppArena, { ...mbppTuples, text: 3 }));
    const r = tsx(["import", "mbpp", join(dir, "in.jsonl"), "--out", join(dir, "out.json")]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("line 2: field text: missing or not a non-empty string");
    expect(existsSync(join(dir, "out.json"))).toBe(false);
  }, 60_000);

  it("rejects an unknown flag with the usage and exit 2, writing nothing", () => {
    const dir = mkdtempSync(join(tmpdir(), "import-"));
    writeFileSync(join(dir, "in.jsonl"), jsonl(mbppArena));
    const r = tsx(["import", "mbpp", join(dir, "in.jsonl"), "--out", join(dir, "out.json"), "--splt", "train"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown flag --splt; known: --out, --split, --name, --seed, --keep-outside, --report");
    expect(r.err).toContain("usage: npm run tasks -- import");
    expect(existsSync(join(dir, "out.json"))).toBe(false);
  }, 60_000);
});

describe("imported tasks run for real (plus tests by mutation, Node grader)", () => {
  const grader = sharedNodeGrader();

  it("references pass their golden tests and their mutation-derived plus tests", async () => {
    const mbpp = importJsonl(jsonl(mbppArena, mbppTuples, mbppWords), "mbpp").file;
    const he = importJsonl(jsonl(humanEval), "humaneval").file;
    const file = { ...mbpp, tasks: [...mbpp.tasks, ...he.tasks] };
    const report = await checkTasks(file, { grader, runPython: createNodeRunPython() }, { strict: false });
    expect(report.violations).toEqual([]);
    for (const t of file.tasks) {
      const lines = report.plus.get(t.id)!.lines;
      expect(lines.length, t.id).toBeGreaterThanOrEqual(20);
      expect(lines.every((l) => l.startsWith(`assert ${t.entry_point}(`)), t.id).toBe(true);
    }
    // The tuple task's mutated inputs stay tuples (type-aware mutation).
    expect(report.plus.get("mbpp-902")!.lines.every((l) => l.startsWith("assert similar_elements(("))).toBe(true);
  }, 300_000);
});

describe("a file imported in the other format", () => {
  const mbpp = JSON.stringify({ task_id: 2, text: "Sum a list.", code: "def s(xs):\n    return sum(xs)", test_list: ["assert s([1, 2]) == 3"] });
  const humaneval = JSON.stringify({ task_id: "HumanEval/0", prompt: "def s(xs):\n    \"\"\"Sum.\"\"\"\n", canonical_solution: "    return sum(xs)\n", test: "def check(candidate):\n    assert candidate([1]) == 1\n", entry_point: "s" });
  const problemsOf = (text: string, format: "mbpp" | "humaneval") => {
    try {
      importJsonl(text, format);
    } catch (e) {
      if (e instanceof ImportError) return e.message;
      throw e;
    }
    return "";
  };
  it("says which format the records look like", () => {
    expect(problemsOf(mbpp, "humaneval")).toMatch(/line 1: field .*\(this record has MBPP's fields text, code, test_list: import it as MBPP\)/);
    expect(problemsOf(humaneval, "mbpp")).toMatch(/line 1: field .*\(this record has HumanEval's fields prompt, canonical_solution, entry_point: import it as HumanEval\)/);
    expect(problemsOf(JSON.stringify({ task_id: 1 }), "mbpp")).not.toMatch(/import it as/);
  });
});
