/**
 * Round 18 (issue 27): a stranger agent (30 minutes) on round 17 (d2ea441). Three classes, each a
 * refused or errored line that runs program code in CPython which the grader did not run, so a later
 * valid line was graded on a program state CPython never has. Each test asserts CPython's verdict
 * (clean-python.ts truth) or a refusal (`invalid`, or `error` "not graded"), and each failed on d2ea441:
 * 1. a refused line's `set()` calls the program's own `set` (now: any call but the one candidates make
 *    for the line is opaque, set() included: the lines after it are refused);
 * 2. a refused line's comparison, `in`, `not` or bare test runs the methods of the object the program
 *    returned (now: a call that returns a program's object marks its step, and the rest of that suite
 *    is `error` for that candidate, verdicts.ts judgeCandidate);
 * 3. a line refused with `error` because the program binds `set` skipped a call CPython makes (now:
 *    the same mark, so the rest of the suite is `error`).
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();


const NXT = "def nxt(x):\n    return x + 1";
// A program that binds `set` to a counter and whose entry point answers from that counter's state.
const SET_COUNTER = "n = [0]\ndef set(*a):\n    n[0] += 1\n    return frozenset()\ndef nxt(x):\n    return x + 1 if n[0] else 0";

describe("a refused line's set() calls the program's `set` in CPython: opaque", () => {
  const inert = [
    "set()", // an expression statement: a literal to _opaque
    "assert set() != 5",
    "assert not set()",
    "assert nxt(1) != set()", // a side-call line: its set() is not in argv, answer null, so no usesSet
    "assert nxt(1) == 3, set()", // a message that is set(): evaluated when the assert fails
    "assert set() == nxt(1)", // reversed comparison: left literal set() evaluated first
  ];
  for (const line of inert) {
    it(`generated suite: \`${line}\` then a valid line`, async () => {
      const lines = [line, "assert nxt(5) == 6"];
      // CPython: the line calls the program's set(), so nxt(5) returns 6 and the valid line passes.
      expect(suiteTruth(SET_COUNTER, lines)[1]).toBe(true);
      const got = await gradeOne(grader, "nxt", NXT, lines, SET_COUNTER);
      expect(got[0]).toMatch(/^invalid\//);
      // CPython's verdict (pass), or a refusal; never "fail".
      expect(got[1], got.join(" | ")).toMatch(/^valid\/pass$|^invalid\/|^valid\/error/);
    }, 300_000);
  }

  it("golden suite: `set()` then a valid line (a wrong program passes)", async () => {
    // A program that breaks itself when its `set` is called: CPython fails it on line 2.
    const prog = "ok = [True]\ndef set(*a):\n    ok[0] = False\n    return 0\ndef nxt(x):\n    return x + 1 if ok[0] else 0";
    const lines = ["set()", "assert nxt(5) == 6"];
    expect(suiteTruth(prog, lines)).toEqual([true, false]);
    const got = await gradeGolden(grader, "nxt", NXT, lines, prog);
    expect(got[1], got.join(" | ")).toMatch(/^valid\/fail$|^invalid\/|^valid\/error/);
  }, 300_000);
});

describe("a refused line's comparison runs the returned object's methods in CPython: the rest of the suite is error", () => {
  // nxt(1) returns an object whose __ne__ / __eq__ / __hash__ / __bool__ / __lt__ flips a flag the entry point reads.
  const OBJ =
    "flag = [0]\nclass C:\n" +
    "    def __ne__(self, o):\n        flag[0] = 1\n        return True\n" +
    "    def __eq__(self, o):\n        flag[0] = 1\n        return False\n" +
    "    def __hash__(self):\n        flag[0] = 1\n        return 0\n" +
    "    def __lt__(self, o):\n        flag[0] = 1\n        return True\n" +
    "    def __bool__(self):\n        flag[0] = 1\n        return True\n" +
    "def nxt(x):\n    if x == 1:\n        return C()\n    return x + 1 if flag[0] else 0";
  const inert = [
    "assert nxt(1) != 3", // another comparison
    "assert nxt(1) == 2, 'message'", // an assert with a message: __eq__ runs
    "assert nxt(1) in [2, 3]", // __eq__ of each element
    "assert nxt(1) in {2, 3}", // __hash__
    "assert nxt(1) < 3",
    "assert 2 == nxt(1)", // reflected __eq__
    "assert nxt(1)", // __bool__: a side-call line with no comparison
  ];
  for (const line of inert) {
    it(`\`${line}\` then a valid line`, async () => {
      const lines = [line, "assert nxt(5) == 6"];
      expect(suiteTruth(OBJ, lines)[1], line).toBe(true);
      const got = await gradeOne(grader, "nxt", NXT, lines, OBJ);
      expect(got[0]).toMatch(/^invalid\//);
      expect(got[1], got.join(" | ")).toMatch(/^valid\/pass$|^invalid\/|^valid\/error/);
    }, 300_000);
  }
});


const LEN = "def f(x):\n    return len(x)";
// Binds set (to another empty-collection maker) and answers len(x) only from its second call on.
const PROG = "set = frozenset\ncalls = [0]\ndef f(x):\n    calls[0] += 1\n    return len(x) if calls[0] >= 2 else 99";
const OK = /^valid\/pass$|^invalid\/|^valid\/error/;

describe("a set() line refused with `error` before its call still is a call in CPython: the rest of the suite is error", () => {
  it("valid line `assert f(set()) == 0` (error) then `assert f([1]) == 1`: CPython passes line 2", async () => {
    const lines = ["assert f(set()) == 0", "assert f([1]) == 1"];
    expect(suiteTruth(PROG, lines)).toEqual([false, true]);
    const got = await gradeOne(grader, "f", LEN, lines, PROG);
    expect(got[0]).toMatch(/^valid\/error|^invalid\//);
    expect(got[1], got.join(" | ")).toMatch(OK);
  }, 300_000);

  it("a refused side-call line `assert f(set()) != 5` then `assert f([1]) == 1`", async () => {
    const lines = ["assert f(set()) != 5", "assert f([1]) == 1"];
    expect(suiteTruth(PROG, lines)[1]).toBe(true);
    const got = await gradeOne(grader, "f", LEN, lines, PROG);
    expect(got[1], got.join(" | ")).toMatch(OK);
  }, 300_000);

  it("golden: `assert f(set()) == 0` then `assert f([1]) == 1`", async () => {
    const lines = ["assert f(set()) == 0", "assert f([1]) == 1"];
    expect(suiteTruth(PROG, lines)).toEqual([false, true]);
    const got = await gradeGolden(grader, "f", LEN, lines, PROG);
    expect(got[1], got.join(" | ")).toMatch(OK);
  }, 300_000);

  it("the reverse: a wrong program passes line 2 because line 1's call was skipped", async () => {
    // Breaks itself on its first call: CPython fails line 2, the grader (no first call) passes it.
    const wrong = "set = frozenset\ncalls = [0]\ndef f(x):\n    calls[0] += 1\n    return len(x) if calls[0] < 2 else 99";
    const lines = ["assert f(set()) == 0", "assert f([1]) == 1"];
    expect(suiteTruth(wrong, lines)).toEqual([true, false]);
    const got = await gradeOne(grader, "f", LEN, lines, wrong);
    expect(got[1], got.join(" | ")).toMatch(/^valid\/fail$|^invalid\/|^valid\/error/);
  }, 300_000);
});

describe("how each is refused", () => {
  it("a refused line with set() refuses the lines after it; a program's object makes the rest of the suite error", async () => {
    const obj = "class C:\n    pass\ndef nxt(x):\n    return C() if x == 1 else x + 1";
    const r = await grader.grade({
      tasks: [{ id: "t", entry_point: "nxt", reference: NXT }],
      codes: [{ task: "t", code: NXT }, { task: "t", code: obj }],
      suites: [
        { code: 0, text: "assert nxt(1) != set()\nassert nxt(5) == 6" },
        { code: 1, text: "assert nxt(1) != 3\nassert nxt(5) == 6" }, // refused, its call returns C()
        { code: 1, text: "assert nxt(1) == 2\nassert nxt(5) == 6" }, // valid, fail, then error
      ],
      golden: [{ code: 1, text: "assert nxt(1) == 2\nassert nxt(5) == 6" }],
      limits: { test_ms: 1000, max_lines: 8 },
    });
    const shown = r.suites.map((lines) => lines.map((l) => `${l.validity}/${l.verdict}: ${l.reason}`));
    expect(shown[0][1]).toMatch(/^invalid\/skipped: after line 1, /);
    expect(shown[1][0]).toMatch(/^invalid\/skipped/);
    expect(shown[1][1]).toMatch(/^valid\/error: not graded: line 1 left the program in a state CPython would not \(returned a non-builtin value: C is not a builtin value\)/);
    expect(shown[2].map((l) => l.split(":")[0])).toEqual(["valid/fail", "valid/error"]);
    expect(r.golden[0].map((l) => l.verdict)).toEqual(["fail", "error"]);
    // The honest program's own suites are graded as before.
    expect(r.codes.map((c) => c.status)).toEqual(["ok", "ok"]);
  }, 300_000);
});
