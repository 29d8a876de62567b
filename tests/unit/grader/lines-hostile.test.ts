/**
 * Hostile TEST LINES (issue 27; docs/SECURITY.md, the judge's rule): the Test policy writes them,
 * and a line the judge ran as code would own every verdict after it. Real Node grader, real Pyodide.
 *   - names that NFKC folds to the entry point (ligatures, full-width and bold letters) with
 *     payloads that would run if any text of the line were evaluated: read as data, and the
 *     verdicts of this batch and the next are the ones a clean interpreter gives;
 *   - line shapes that once restarted the judge per line (the parenthesised entry point on a set
 *     display), and a mixed sample of generated hostile lines: no judge restart, no batch lost.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { generateLine } from "../../../scripts/bench/line-fuzz.ts";
import { Rng } from "../../../src/core/rng.ts";
import type { GradeRequest } from "../../../src/core/grader/types.ts";

const grader = sharedNodeGrader();

// The judge's own functions, rebound by a payload to forge every reference output as 0.
const FORGE = `(_pack.__globals__.__setitem__('call', lambda a, l: '["ok",["i","0x0"],"0"]'), _state.__setitem__('fn', len))`;
/** Payload strings: harmless data to Python, code if a cut of the line were ever evaluated. */
const PAYLOADS = [`'''${FORGE}#'''`, `"""${FORGE}#"""`, `'''), ${FORGE}#'''`, `'__import__("os")._exit(0)#'`];
const SPELLINGS = ["ﬃx", "ﬀix", "ｆｆｉｘ", "𝐟𝐟𝐢𝐱", "(ﬃx)", "((ｆﬁx))", "ffix"];
const TASK = { id: "ffix", entry_point: "ffix", reference: "def ffix(s, t):\n    return len(s) + len(t)" };
const RIGHT = TASK.reference;
const WRONG = "def ffix(s, t):\n    return 0";

/** Honest lines of the task, and the verdicts a clean interpreter gives RIGHT and WRONG on them. */
const HONEST = "assert ffix('abc', {1, 2}) == 5\nassert ffix('', [1]) == 1";

describe("test lines are data: NFKC names and payloads", () => {
  it("every spelling of the entry point with every payload is one call on a string, and forges nothing", async () => {
    const lines = SPELLINGS.flatMap((name, n) => PAYLOADS.map((p, i) => `assert ${name}(${p}, {${i}, ${n + 10}, 'k'}) == 0`));
    const suites: GradeRequest["suites"] = [];
    const codes: GradeRequest["codes"] = [];
    for (let from = 0; from < lines.length; from += 8) {
      for (const code of [RIGHT, WRONG]) {
        suites.push({ code: codes.length, text: lines.slice(from, from + 8).join("\n") });
        suites.push({ code: codes.length, text: HONEST });
        codes.push({ task: "ffix", code });
      }
    }
    const judgesBefore = grader.judgeSpawns;
    const r = await grader.grade({ tasks: [TASK], codes, suites, limits: { test_ms: 2000 } });
    for (let s = 0; s < suites.length; s += 2) {
      const right = codes[suites[s].code].code === RIGHT;
      // Each hostile line: a valid call the reference answers with len(payload) + 3, so the answer 0
      // is corrected; the right program passes it, the wrong one (returns 0) fails it.
      for (const line of r.suites[s]) {
        expect(line.validity, JSON.stringify(line)).toBe("wrong-answer");
        expect(line.verdict, JSON.stringify(line)).toBe(right ? "pass" : "fail");
        expect(line.corrected).toMatch(/^assert ffix\(/);
      }
      expect(r.suites[s + 1].map((l) => `${l.validity}/${l.verdict}`)).toEqual(right ? ["valid/pass", "valid/pass"] : ["valid/fail", "valid/fail"]);
    }
    // The next batch: the same honest lines, judged as a clean interpreter would.
    const next = await grader.grade({ tasks: [TASK], codes: [{ task: "ffix", code: RIGHT }, { task: "ffix", code: WRONG }], suites: [{ code: 0, text: HONEST }, { code: 1, text: HONEST }] });
    expect(next.suites.map((s) => s.map((l) => l.verdict))).toEqual([["pass", "pass"], ["fail", "fail"]]);
    expect(grader.judgeSpawns - judgesBefore).toBe(0);
  }, 300_000);

  it("a name that only looks like the entry point (Cyrillic letters NFKC keeps) is not a call of it", async () => {
    const r = await grader.grade({ tasks: [TASK], codes: [{ task: "ffix", code: RIGHT }], suites: [{ code: 0, text: "assert ffix('a', []) == 1\nassert ff\u0456x('a', []) == 1" }] });
    expect(r.suites[0].map((l) => `${l.validity}/${l.verdict}`)).toEqual(["valid/pass", "invalid/skipped"]);
    expect(r.suites[0][1].reason).toContain("left side is not a call of ffix");
  });
});

describe("no line shape restarts the judge", () => {
  const SETS = { id: "sets", entry_point: "f", reference: "def f(s):\n    return sorted(s)" };

  it("4 codes x 8 lines calling the parenthesised entry point on set displays: all valid, all pass, no restart", async () => {
    const lines = Array.from({ length: 8 }, (_, i) => `assert (f)({${i}, ${i + 10}, ${i + 20}${i % 2 ? ", 'a'" : ""}}) == ${i % 2 ? "None" : `[${i}, ${i + 10}, ${i + 20}]`}`);
    const judges = grader.judgeSpawns;
    const sandboxes = grader.spawns;
    const r = await grader.grade({
      tasks: [SETS],
      codes: Array.from({ length: 4 }, () => ({ task: "sets", code: SETS.reference })),
      suites: Array.from({ length: 4 }, (_, code) => ({ code, text: lines.join("\n") })),
    });
    const seen = r.suites.map((s) => s.map((l) => `${l.validity}/${l.verdict}`));
    // Odd lines mix a str with ints: sorted() raises on the reference, so they are invalid.
    const expected = lines.map((_, i) => (i % 2 ? "invalid/skipped" : "valid/pass"));
    expect(seen).toEqual([expected, expected, expected, expected]);
    expect(r.suites[0][1].reason).toContain("reference raised TypeError");
    expect(grader.judgeSpawns - judges).toBe(0);
    expect(grader.spawns - sandboxes).toBe(0);
  }, 120_000);

  it("lines that nest deep in ways brackets do not count (not, +, attributes, lambdas, calls, awaits) and a future import are invalid, without a restart", async () => {
    const nasty = [
      `assert f(${"not ".repeat(490)}1) == 1`, `assert f(${"1+".repeat(990)}1) == 1`, `assert f(${"a.".repeat(990)}a) == 1`,
      `assert f(${"lambda:".repeat(280)}1) == 1`, `assert f(1)${"()".repeat(990)} == 1`, `assert f(${"await ".repeat(320)}1) == 1`,
      `assert f(${"*".repeat(990)}a) == 1`, `assert f(${"1**".repeat(600)}1) == 1`,
      "from __future__ import barry_as_FLUFL", "assert f(1) <> 2 == 1", "assert f({1, 2, 3}) == [1, 2, 3]",
    ];
    const judges = grader.judgeSpawns;
    const r = await grader.grade({ tasks: [SETS], codes: [{ task: "sets", code: SETS.reference }, { task: "sets", code: SETS.reference }], suites: [{ code: 0, text: nasty.slice(0, 8).join("\n") }, { code: 1, text: nasty.slice(8).join("\n") }] });
    // Every line refused; the last one because the future import before it may bind a name (round 17).
    expect(r.suites.flat().map((l) => `${l.validity}/${l.verdict}`)).toEqual(nasty.map(() => "invalid/skipped"));
    expect(r.suites[1][2].reason).toMatch(/^after line 1, /);
    expect(grader.judgeSpawns - judges).toBe(0);
  }, 120_000);

  it("400 generated hostile lines (the fuzzer's) cost no restart, and honest lines in the same suites are judged", async () => {
    const rng = new Rng(2027);
    const codes: GradeRequest["codes"] = [];
    const suites: GradeRequest["suites"] = [];
    for (let c = 0; c < 50; c++) {
      const hostile = Array.from({ length: 7 }, () => generateLine(rng, "f"));
      suites.push({ code: c, text: [`assert f({${c + 10}, -1, 3}) == [-1, 3, ${c + 10}]`, ...hostile].join("\n") });
      codes.push({ task: "sets", code: "def f(s):\n    return sorted(s) if type(s) is set else None" });
    }
    const judges = grader.judgeSpawns;
    const r = await grader.grade({ tasks: [SETS], codes, suites, limits: { test_ms: 1000 } });
    expect(grader.judgeSpawns - judges).toBe(0);
    expect(r.codes.every((c) => c.status === "ok")).toBe(true);
    // The honest first line of every suite is judged as usual, whatever follows it.
    expect(r.suites.map((s) => `${s[0].validity}/${s[0].verdict}`)).toEqual(suites.map(() => "valid/pass"));
  }, 300_000);
});
