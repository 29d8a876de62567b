/**
 * Round 17 (issue 27): two classes the earlier rounds left open, closed by giving no verdict a clean
 * CPython would contradict (a refusal or an `error`) where the grader cannot give CPython's own.
 *
 * 1. A refused line that may do, in CPython, what candidates do not do in its place: bind a name
 *    (an assignment, a walrus, an import, `del`), make a call other than the one candidates make for
 *    it, run a program's method (an attribute, an operator, a format), or run at all in another shape.
 *    Such a line is OPAQUE (harness `_opaque`) and every later line of its suite is refused
 *    (`cutAfterOpaque`). Lines that do nothing in CPython beyond that one call (a comment, a syntax
 *    error, a literal message, a repeat, another comparison with a literal) cut nothing.
 * 2. A test line's `set()` calls the NAME `set` in the program's namespace. Where the program binds
 *    it (a global, its builtins, the builtins module; before its call or during it), a line that
 *    writes set() is `error`, never graded on the builtin empty set (harness `_set_rebound`).
 */
import { describe, expect, it } from "vitest";
import type { GradeRequest } from "../../../src/core/grader/types.ts";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { show } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();

const NXT = "def nxt(x):\n    return x + 1";
const NEXT_LINE = "assert nxt(5) == 6";

/** Each suite of `suites` as a generated suite of `codes[i]` (one task), graded in one request. */
async function gradeMany(entry: string, reference: string, codes: string[], suites: { code: number; lines: string[] }[]): Promise<string[][]> {
  const request: GradeRequest = {
    tasks: [{ id: "t", entry_point: entry, reference }],
    codes: codes.map((code) => ({ task: "t", code })),
    suites: suites.map((s) => ({ code: s.code, text: s.lines.join("\n") })),
    limits: { test_ms: 1000, max_lines: 8 },
  };
  const r = await grader.grade(request);
  return r.suites.map((lines) => lines.map(show));
}

describe("a refused line that may change what later lines call refuses them", () => {
  const opaque = [
    "nxt = lambda x: 0",
    "assert (nxt := lambda x: 0) or 1",
    "import math as nxt",
    "del nxt",
    "nxt(1)",
    "assert nxt(1) == 2 and nxt(2) == 3",
    "assert nxt.__globals__ is not None",
    "assert nxt(1) + 1 == 3",
    "for _ in range(2): nxt(1)",
    "assert nxt(1) == 2; nxt = None",
    "assert f'{nxt(1)}' == '2'",
    "assert nxt(1) == x",
    "assert not nxt", // a name read (a program's object): opaque, though this one does nothing
    "assert nxt(1) == 2" + " or 0".repeat(500), // over the 2,000-character bound: refused unread
  ];

  it("refuses every line after an opaque one, and CPython shows why for the bindings", async () => {
    // In CPython the bindings change the next line's truth for a correct program; the rest may.
    for (const line of [opaque[0], opaque[1], opaque[2], opaque[3], opaque[9]]) {
      expect(suiteTruth(NXT, [line, NEXT_LINE])[1], line).toBe(false);
    }
    const got = await gradeMany("nxt", NXT, [NXT], opaque.map((line) => ({ code: 0, lines: [line, NEXT_LINE, "assert nxt(7) == 8"] })));
    got.forEach((lines, i) => {
      expect(lines[0], opaque[i]).toMatch(/^invalid\//);
      for (const later of lines.slice(1)) expect(later, `${opaque[i]} | ${lines.join(" | ")}`).toMatch(/^invalid\/skipped: after line 1, /);
    });
  }, 300_000);

  it("cuts nothing after a line that does nothing in CPython beyond the call candidates make", async () => {
    const inert = [
      "# a comment",
      "pass",
      "assert nxt(1) = 2",
      "assert nxt(1) == 2, 'a message'",
      "assert nxt(1) != 3",
      "assert 2 == nxt(1)",
      "assert nxt(1) in [2, 3]",
      "assert 1 == 1",
      "assert nxt(1) == 2 == 2",
    ];
    for (const line of inert) expect(suiteTruth(NXT, [line, NEXT_LINE])[1], line).toBe(true);
    const suites = inert.map((line) => ({ code: 0, lines: [line, NEXT_LINE] }));
    suites.push({ code: 0, lines: ["assert nxt(1) == 2", "assert nxt(1) == 2", NEXT_LINE] }); // a repeat
    const got = await gradeMany("nxt", NXT, [NXT], suites);
    got.forEach((lines, i) => expect(lines[lines.length - 1], `${suites[i].lines[0]} | ${lines.join(" | ")}`).toBe("valid/pass"));
    expect(got[got.length - 1][1]).toMatch(/^invalid\/skipped: repeats the call of line 1/);
  }, 300_000);

  it("cuts a golden suite too, and the cut holds across a suite the judge parses in parts", async () => {
    // 40 long valid lines push the suite past one judge request (planTask's parts); the opaque line
    // comes first, so every later line, in every part, is refused.
    const long = Array.from({ length: 40 }, (_, i) => `assert nxt(${i}) == ${i + 1}  # ${"x".repeat(1900)}`);
    const r = await grader.grade({
      tasks: [{ id: "t", entry_point: "nxt", reference: NXT }],
      codes: [{ task: "t", code: NXT }],
      suites: [{ code: 0, text: ["nxt = lambda x: 0", ...long].join("\n") }],
      golden: [{ code: 0, text: ["nxt = lambda x: 0", NEXT_LINE].join("\n") }],
      limits: { test_ms: 1000, max_lines: 64 },
    });
    expect(r.suites[0]).toHaveLength(41);
    for (const line of r.suites[0].slice(1)) expect(show(line)).toMatch(/^invalid\/skipped: after line 1, /);
    expect(show(r.golden[0][1])).toMatch(/^invalid\/skipped: after line 1, /);
  }, 300_000);
});

describe("a line's set() is not the builtin set for a program that binds `set`", () => {
  const LEN = "def f(x):\n    return len(x)";
  const rebinders = [
    "set = lambda *a: 'abc'\ndef f(x):\n    return 3 if x == set() else len(x)",
    "def set(*a):\n    return 'abc'\ndef f(x):\n    return 3 if x == set() else len(x)",
    "__builtins__['set'] = lambda *a: 'abc'\ndef f(x):\n    return 3 if x == 'abc' else len(x)",
    "setattr(len.__self__, 'set', lambda *a: 'abc')\ndef f(x):\n    return 3 if x == 'abc' else len(x)",
  ];

  it("is error, before the call, for a program that binds set at load (a global, its builtins, the builtins module)", async () => {
    for (const code of rebinders.slice(0, 3)) expect(suiteTruth(code, ["assert f(set()) == 0"]), code).toEqual([false]);
    const got = await gradeMany("f", LEN, rebinders, rebinders.map((_, code) => ({ code, lines: ["assert f(set()) == 0", "assert f([1]) == 1"] })));
    // The line's own call is not made, so the rest of the suite is error too (round 18).
    got.forEach((lines, i) => expect(lines, rebinders[i]).toEqual(["valid/error", "valid/error"]));
  }, 300_000);

  it("is error, after the call, for a program that binds set while it runs", async () => {
    const ref = "def f(x):\n    return set()";
    const code = "def f(x):\n    global set\n    set = lambda *a: 7\n    return 7";
    // CPython passes this wrong program: its call rebinds the set() the line's answer calls.
    expect(suiteTruth(code, ["assert f(0) == set()"])).toEqual([true]);
    expect(await gradeMany("f", ref, [code, ref], [{ code: 0, lines: ["assert f(0) == set()"] }, { code: 1, lines: ["assert f(0) == set()"] }]))
      .toEqual([["valid/error"], ["valid/pass"]]);
  }, 300_000);

  it("grades as before a program that binds set to the builtin, or a line that writes no set()", async () => {
    const same = "set = set\ndef f(x):\n    return len(x)";
    const other = "set = lambda *a: 1\ndef f(x):\n    return len(x)";
    const got = await gradeMany("f", LEN, [same, other], [{ code: 0, lines: ["assert f(set()) == 0"] }, { code: 1, lines: ["assert f([1, 2]) == 2"] }]);
    expect(got).toEqual([["valid/pass"], ["valid/pass"]]);
  }, 300_000);

  it("makes the line invalid where the reference binds set", async () => {
    const ref = "set = lambda *a: []\ndef f(x):\n    return len(x)";
    const got = await gradeMany("f", ref, [LEN], [{ code: 0, lines: ["assert f(set()) == 0", "assert f([1]) == 1"] }]);
    expect(got[0][0]).toMatch(/^invalid\/skipped: reference .*binds set/);
    expect(got[0][1]).toBe("valid/pass");
  }, 300_000);
});
