/**
 * Round 16: each test FAILS on the grader of 1e9d273 and passes only if the grader gave a clean
 * CPython's verdict (clean-python.ts: the program exec'd, then the suite's lines in its namespace).
 * Two are fixed (a literal-first comparison's call, whatever the literal and however long the chain);
 * the four left open were closed in round 17, not with CPython's verdict but with no verdict CPython
 * would contradict: a program that binds `set` gets `error` on lines that write set(), and a refused
 * line that may bind a name refuses the lines after it. (Round 18 made `assert set() == f(1)` opaque too:
 * its set() calls the program's own `set` where it binds one.)
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();

const LEN = "def f(x):\n    return len(x)";
const COUNTING = "calls = [0]\ndef nxt(x):\n    calls[0] += 1\n    return x + 1 if calls[0] != 2 else 0";
const NXT = "def nxt(x):\n    return x + 1";

// Class: `set()` is the one literal that is a NAME lookup. The judge reads it as the empty set
// (`_literal`), but a test line runs in the candidate's module namespace, where a program may bind
// `set` (a module-level `set = ...`, `from x import y as set`, a `def set`). In CPython the line's
// `set()` then calls the program's object: the argument (or a golden answer) is whatever it returns.
describe("a test line's set() is the program's own `set` when the program binds it", () => {
  // Closed (round 17): a line that writes set() is `error` for a program that binds `set` (harness
  // `_set_rebound`), checked before its call and after it; never the builtin set's verdict.
  it("argument: a program that rebinds set does not pass `assert f(set()) == 0`, which CPython's line fails", async () => {
    // A wrong program (f(set()) is 3, not len(set()) == 0) that binds set: in CPython the line passes it 'abc'.
    const wrong = "set = lambda *a: 'abc'\ndef f(x):\n    return 3 if x == set() else len(x)";
    const lines = ["assert f(set()) == 0"];
    expect(suiteTruth(wrong, lines)).toEqual([false]); // CPython: f('abc') == 3 != 0
    const got = await gradeOne(grader, "f", LEN, lines, wrong);
    expect(got[0], got.join(" | ")).toBe("valid/error");
  }, 300_000);

  it("golden answer: `assert f(1) == set()` is not graded on the builtin set for a program that binds set", async () => {
    const prog = "set = lambda *a: [7]\ndef f(x):\n    return [7]";
    const lines = ["assert f(1) == set()"];
    expect(suiteTruth(prog, lines)).toEqual([true]);
    const got = await gradeGolden(grader, "f", "def f(x):\n    return set()", lines, prog);
    // CPython passes it (the program's set() is its answer); the grader refuses to grade it ("error"),
    // as for any line whose set() is the program's object: what CPython would compare is not a literal.
    expect(got[0], got.join(" | ")).toBe("valid/error");
  }, 300_000);
});

// Class: a reversed comparison whose literal is `set()` (a Call node): `_parse_line` swaps sides
// only when the left side is not a Call, so `assert set() == nxt(1)` is refused with no side call,
// while CPython (and the documented rule, "or compares a literal with one") makes nxt(1).
describe("a reversed comparison with set() on the left still calls the program", () => {
  // Since round 18 the line is opaque (its set() calls the program's `set` where it binds one): the
  // lines after it are refused, never graded on a program that missed a call.
  it("refuses the lines after `assert set() == nxt(1)`, where a counting program would see CPython's count", async () => {
    const lines = ["assert set() == nxt(1)", "assert nxt(5) == 6"];
    expect(suiteTruth(COUNTING, lines)).toEqual([false, false]);
    const got = await gradeOne(grader, "nxt", NXT, lines, COUNTING);
    expect(got[0]).toMatch(/^invalid\//);
    expect(got[1], got.join(" | ")).toMatch(/^invalid\/skipped: after line 1, /);
  }, 300_000);
});

// Same gap, another spelling: a chained comparison that starts with a literal (`assert 2 == nxt(1) == 2`)
// has two comparators, so the reversed-comparison swap does not apply and no call is made; CPython
// evaluates `2 == nxt(1)` first, so it makes the call (the first one of the line, not a second).
describe("a chained comparison that starts with a literal still calls the program", () => {
  it("makes nxt(1) of `assert 2 == nxt(1) == 2`", async () => {
    const lines = ["assert 2 == nxt(1) == 2", "assert nxt(5) == 6"];
    expect(suiteTruth(COUNTING, lines)).toEqual([true, false]);
    const got = await gradeOne(grader, "nxt", NXT, lines, COUNTING);
    expect(got[0]).toMatch(/^invalid\//);
    expect(got[1], got.join(" | ")).toBe("valid/fail");
  }, 300_000);
});

// Class: an invalid line that BINDS a name the suite's later lines read. A walrus in an assert
// (`assert (nxt := lambda x: 0)`) is refused ("not of the form CALL == ANSWER") and has no effect in
// the grader, but in CPython it rebinds the entry point (or `set`, finding above) in the program's
// namespace, and every later line calls the new object. (The documented walrus gap is a call the line
// makes; this is a binding the later valid lines see.)
describe("an invalid line's walrus rebinds what later lines call", () => {
  // Closed (round 17) by refusal: a refused line that may bind a name is opaque (harness `_opaque`);
  // the lines after it are refused.
  it("`assert (nxt := lambda x: 0)`, which makes a correct program fail the next line in CPython, refuses the lines after it", async () => {
    const lines = ["assert (nxt := lambda x: 0) or 1", "assert nxt(5) == 6"];
    expect(suiteTruth(NXT, lines)).toEqual([true, false]);
    const got = await gradeOne(grader, "nxt", NXT, lines, NXT);
    expect(got[0]).toMatch(/^invalid\//);
    expect(got[1], got.join(" | ")).toMatch(/^invalid\/skipped: after line 1, /);
  }, 300_000);

  it("a plain assignment line `set = lambda: [0]`, which changes a later line's `set()` in CPython, refuses the lines after it", async () => {
    const lines = ["set = lambda: [0]", "assert f(set()) == 0"];
    expect(suiteTruth(LEN, lines)).toEqual([true, false]);
    const got = await gradeOne(grader, "f", LEN, lines, LEN);
    expect(got[0]).toMatch(/^invalid\//);
    expect(got[1], got.join(" | ")).toMatch(/^invalid\/skipped: after line 1, /);
  }, 300_000);
});
