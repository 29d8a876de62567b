/**
 * Round 15 (issue 27): new classes, each test FAILING on the grader of 1588b52 and passing only if
 * the grader gave a clean CPython's verdict. Truth is a clean Pyodide (clean-python.ts): the program
 * exec'd, then the suite's lines in order in its namespace. Six are fixed (golden lines' refused
 * calls, reversed comparisons, a module's private names, refused calls only where the reference
 * returned). Of the eight left open, round 17 closed four by refusal (a line with a call candidates
 * do not make, or that reads a name, is opaque: the lines after it are refused, never graded on other
 * state), round 18 a fifth (a returned object's methods: the rest of the suite is `error`) and round
 * 20 a sixth (the line compiled in the program's interpreter interns its strs); two are open, marked
 * `it.fails` with the gap they show (docs/SECURITY.md).
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne, show } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();

/** A program that keeps state: its third call answers wrong. */
const COUNTING = "calls = [0]\ndef nxt(x):\n    calls[0] += 1\n    return x + 1 if calls[0] != 3 else 0";
const NXT = "def nxt(x):\n    return x + 1";
const FMT = "def fmt(x):\n    return str(x)";
const MEMO_FMT = "from functools import lru_cache\n@lru_cache(None)\ndef fmt(x):\n    return str(x)";

// Class: round 14's "refused lines still call the program" was fixed for generated suites only.
// `candidateLines` (verdicts.ts) calls `sideCall` for an invalid line of a generated suite, but the
// golden branch maps an invalid line to `{ validity: "invalid" }` and makes no call. A golden suite
// (the Mistake Book's replay) that repeats a call (two spellings `f('ab')`/`f("ab")`, round 7's case)
// or holds an assert with a message runs that call in CPython; a program that keeps state (a memo
// keyed by `==`, a counter) then answers a later golden line differently. The grader grades the
// later line on a program that never saw the call: a wrong program passes.
describe("refused golden lines still call the program in CPython", () => {
  it("makes a repeated golden line's call, so a counting program sees CPython's count", async () => {
    const lines = ["assert nxt(1) == 2", "assert nxt(1) == 2", "assert nxt(5) == 6"];
    expect(suiteTruth(COUNTING, lines)).toEqual([true, true, false]);
    const got = await gradeGolden(grader, "nxt", NXT, lines, COUNTING);
    expect(got[1]).toMatch(/^invalid\//);
    expect(got[2], got.join(" | ")).toBe("valid/fail");
  }, 300_000);

  it("makes a golden assert-with-a-message's call, so an lru_cache answers the next line as in CPython", async () => {
    const lines = ["assert fmt(0.0) == '0.0', 'zero'", "assert fmt(-0.0) == '-0.0'"];
    expect(suiteTruth(MEMO_FMT, lines)).toEqual([true, false]);
    const got = await gradeGolden(grader, "fmt", FMT, lines, MEMO_FMT);
    expect(got[0]).toMatch(/^invalid\//);
    expect(got[1], got.join(" | ")).toBe("valid/fail");
  }, 300_000);
});

// Class: an invalid line's OTHER calls of the entry point. Round 14 makes only the call the assert
// starts with (`_call_of(cmp.left)`), but CPython evaluates the whole test: the right side of `==`
// when it is a call too (`assert nxt(1) == nxt(1)`, "answer is not a literal"), every operand of a
// chained comparison that is reached, the message when the assert fails (`assert nxt(1) == 3, nxt(2)`),
// and a call on the right of a reversed ("yoda") comparison (`assert 2 == nxt(1)`, a common way to
// write a test; refused as "left side is not a call", no call made). A program that keeps state
// sees fewer calls in the grader than in CPython, so a later valid line is graded on other state.
describe("every call of an invalid line is made, as CPython makes it", () => {
  // Closed (round 17) by refusal: a line with a call candidates do not make is opaque (harness
  // `_opaque`), and the lines after it are refused, not graded on a program that missed a call.
  it("refuses the lines after `assert nxt(1) == nxt(1)` (its second call is not made)", async () => {
    const lines = ["assert nxt(1) == nxt(1)", "assert nxt(5) == 6"];
    expect(suiteTruth(COUNTING, lines)).toEqual([true, false]);
    const got = await gradeOne(grader, "nxt", NXT, lines, COUNTING);
    expect(got[0]).toMatch(/^invalid\//);
    expect(got[1], got.join(" | ")).toMatch(/^invalid\/skipped: after line 1, /);
  }, 300_000);

  it("refuses the lines after a failing `assert nxt(1) == 3, nxt(2)` (its message's call is not made)", async () => {
    const lines = ["assert nxt(1) == 3, nxt(2)", "assert nxt(5) == 6"];
    expect(suiteTruth(COUNTING, lines)).toEqual([false, false]);
    const got = await gradeOne(grader, "nxt", NXT, lines, COUNTING);
    expect(got[0]).toMatch(/^invalid\//);
    expect(got[1], got.join(" | ")).toMatch(/^invalid\/skipped: after line 1, /);
  }, 300_000);

  it("makes the calls of reversed comparisons `assert 2 == nxt(1)`", async () => {
    const lines = ["assert 2 == nxt(1)", "assert 7 == nxt(6)", "assert nxt(5) == 6"];
    expect(suiteTruth(COUNTING, lines)).toEqual([true, true, false]);
    const got = await gradeOne(grader, "nxt", NXT, lines, COUNTING);
    expect(got[2], got.join(" | ")).toBe("valid/fail");
  }, 300_000);
});

// Class: `import M` hands out a copy of M holding its public names only (harness setup: names that
// start with `_` are dropped unless `__all__` lists them), so an attribute CPython's module has is
// missing. `heapq._heapify_max` / `_heappop_max` (the max-heap idiom of competitive Python, still in
// 3.14 beside the new public names) raise AttributeError in the grader: a correct program, equal to a
// clean CPython's answers on every line, fails every line (round 14 fixed the star import's names;
// the plain import's attributes are the same copy).
describe("an allowed module's attributes are CPython's module's", () => {
  it("passes a max-heap program that uses heapq._heapify_max", async () => {
    const ref = "def kth_largest(xs, k):\n    return sorted(xs, reverse=True)[k - 1]";
    const code = [
      "import heapq",
      "def kth_largest(xs, k):",
      "    h = list(xs)",
      "    heapq._heapify_max(h)",
      "    for _ in range(k - 1):",
      "        heapq._heappop_max(h)",
      "    return h[0]",
    ].join("\n");
    const lines = ["assert kth_largest([3, 1, 4, 1, 5], 2) == 4", "assert kth_largest([7], 1) == 7"];
    expect(suiteTruth(code, lines)).toEqual([true, true]);
    expect(suiteTruth(ref, lines)).toEqual([true, true]);
    expect(await gradeOne(grader, "kth_largest", ref, lines, code)).toEqual(["valid/pass", "valid/pass"]);
  }, 300_000);
});

// Class: CPython runs the program's own comparison. `assert f(x) == ANSWER` calls the returned
// object's `__eq__` (and the result's `__bool__`); the grader only canonicalises the value (exact
// types, never a program method), so a value that is not a builtin one is `fail` without its
// `__eq__` running. Whatever that method does to the program's state (a counter, a mode, a memo) is
// done in CPython before the next line and never in the grader: a later valid line is graded on
// other state. Here a wrong program (CPython: both lines fail) passes the second line.
describe("a returned object's __eq__ runs as in CPython", () => {
  // Closed (round 18) by refusal: a call that returns a program's object marks its step, and the rest
  // of the suite is `error` for that candidate (CPython would have run the object's methods).
  it("refuses to grade the line after a comparison that changed the program's state", async () => {
    const ref = "def double(x):\n    return 2 * x";
    const code = [
      "state = [0]",
      "class Probe:",
      "    def __eq__(self, other):",
      "        state[0] += 1",
      "        return False",
      "def double(x):",
      "    if x == 0:",
      "        return Probe()",
      "    return 2 * x + state[0]",
    ].join("\n");
    const lines = ["assert double(0) == 0", "assert double(3) == 6"];
    expect(suiteTruth(ref, lines)).toEqual([true, true]);
    expect(suiteTruth(code, lines)).toEqual([false, false]);
    const got = await gradeOne(grader, "double", ref, lines, code);
    expect(got[0]).toBe("valid/fail");
    expect(got[1], got.join(" | ")).toBe("valid/error");
  }, 300_000);
});

// Class: the names an INVALID line makes CPython intern. CPython compiles every line it runs, and
// its parser interns each identifier of the line IMMORTAL (3.14: `_PyUnicode_InternImmortal`; a
// constant's str is interned mortal and dies with the line, which is why round 10's answer strs only
// matter during their own call). A program that compiles at run time (`eval` of a set display, which
// candidates may do) then builds its folded set in another iteration order (round 5/10's mechanism:
// codeobject.c `intern_constants` rebuilds the frozenset). The grader's sandbox never compiles a
// line, so the identifiers of a refused line (a message `..., (zebra, quokka)`, a keyword argument's
// name, a line that is no call) are never interned there, and a later valid line is graded on
// another intern table. Here the reference (a set built at run time, no folding) answers
// [8, 5, 6]; the program that `eval`s answers [5, 6, 8] in CPython after line 1 and [8, 5, 6] in the
// grader: a wrong program passes.
describe("strs an invalid line interns in CPython", () => {
  // The reference reads the set display by hand (the judge refuses `eval`, and `ast` is not importable).
  const ref = "def lens(text):\n    words = {w.strip().strip(\"'\") for w in text.strip('{}').split(',')}\n    return [len(w) for w in words]";
  const code = "def lens(text):\n    return [len(x) for x in eval(text)]";
  // Closed (round 17) by refusal: a line that reads a name is opaque; the lines after it are refused.
  it("refuses the lines after an assert-with-a-message that names identifiers", async () => {
    const lines = ["assert lens('[]') == [], (zebra, quokka, platypus)", "assert lens(\"{'zebra', 'quokka', 'platypus'}\") == [8, 5, 6]"];
    // The line is valid in CPython (the reference, then the line alone)...
    expect(suiteTruth(ref, [lines[1]])).toEqual([true]);
    // ...and the program fails it after line 1, as CPython runs the suite. (Fresh interpreters: the
    // intern table is the interpreter's history.)
    const { freshTruth } = await import("./clean-python.ts");
    expect(await freshTruth(code, lines)).toEqual([true, false]);
    expect(await freshTruth(code, [lines[1]])).toEqual([true]);
    const got = await gradeOne(grader, "lens", ref, lines, code);
    expect(got[0]).toMatch(/^invalid\//);
    expect(got[1], got.join(" | ")).toMatch(/^invalid\/skipped: after line 1, /);
  }, 300_000);

  it("refuses the lines after a line that is no call and names identifiers (golden suite)", async () => {
    const lines = ["assert zebra != quokka != platypus", "assert lens(\"{'zebra', 'quokka', 'platypus'}\") == [8, 5, 6]"];
    const { freshTruth } = await import("./clean-python.ts");
    expect(await freshTruth(code, lines)).toEqual([false, false]);
    const got = await gradeGolden(grader, "lens", ref, lines, code);
    expect(got[0]).toMatch(/^invalid\//);
    expect(got[1], got.join(" | ")).toMatch(/^invalid\/skipped: after line 1, /);
  }, 300_000);
});

// Class (round 9's, closed since round 52): state a candidate keeps outside its own module crossed its
// suites. Each suite ran on the program freshly loaded (a new module namespace), but within ONE
// sandbox unit: an attribute the program set on an object its reload did not rebuild (the real
// builtins module, `len.__self__`; a class of an allowed module, `collections.Counter`) survived into
// the next suite. In CPython each suite runs after the program exec'd (clean-python.ts), so suite B's
// line holds. Since round 52 each suite is a unit of its own, from the memory snapshot.
describe("a candidate's suites do not see each other's state", () => {
  it("grades suite B as CPython does after suite A set a class attribute", async () => {
    const ref = "def tick(x):\n    return x";
    const code = [
      "import collections",
      "def tick(x):",
      "    seen = getattr(collections.Counter, 'seen', 0)",
      "    collections.Counter.seen = seen + 1",
      "    return x + seen",
    ].join("\n");
    const a = ["assert tick(1) == 1"];
    const b = ["assert tick(5) == 5"];
    expect(suiteTruth(code, a)).toEqual([true]);
    const { freshTruth } = await import("./clean-python.ts");
    expect(await freshTruth(code, b)).toEqual([true]);
    const r = await grader.grade({
      tasks: [{ id: "t", entry_point: "tick", reference: ref }],
      codes: [{ task: "t", code }],
      suites: [{ code: 0, text: a.join("\n") }, { code: 0, text: b.join("\n") }],
      limits: { test_ms: 1000, max_lines: 8 },
    });
    expect(r.suites[0].map(show)).toEqual(["valid/pass"]);
    expect(r.suites[1].map(show)).toEqual(["valid/pass"]);
  }, 300_000);
});

// Class: round 14's side calls bypass the reference headroom (rule 4). A refused line's call is made by
// candidates when the reference's own call of it returned ok, OR RAISED (`sideCall`: "error"/"fail"),
// under the full test_ms. A reference that raises answers in no time, whatever the argument (a
// recursive reference's RecursionError after 1,000 frames; an input check), so the headroom that
// protects valid lines ("a program as fast as the reference always has twice the reference's
// time") says nothing: the Test policy picks an argument on which the reference raises at once and a
// correct iterative program takes longer than test_ms. The candidate times out on that refused line
// and every later line of its suite is `timeout`; in CPython the call finishes and the later lines
// hold. (Before round 14 a refused line cost candidates nothing.)
describe("a refused line's call cannot time a candidate out where the reference raised at once", () => {
  it("grades the lines after a line whose reference hit RecursionError", async () => {
    const ref = "def total(n):\n    return 0 if n == 0 else n + total(n - 1)";
    const code = "def total(n):\n    t = 0\n    for i in range(n + 1):\n        t += i\n    return t";
    const lines = ["assert total(3) == 6", "assert total(30000000) == 450000015000000", "assert total(4) == 10"];
    expect(suiteTruth(code, lines)).toEqual([true, true, true]);
    const got = await gradeOne(grader, "total", ref, lines, code);
    expect(got[1]).toMatch(/^invalid\/.*reference raised RecursionError/);
    expect(got[2], got.join(" | ")).toBe("valid/pass");
  }, 300_000);

  it("does not let one suite's refused line end the candidate's other suites (a C loop, killed)", async () => {
    // The same line with a correct program that sums in C (`sum(range(n + 1))`, uninterruptible): the
    // runner is killed, the kill ends the candidate, and another suite (another Test rollout's, or the
    // Mistake Book's) is `timeout` too, where CPython runs it on the program alone and it holds.
    const ref = "def total(n):\n    return 0 if n == 0 else n + total(n - 1)";
    const code = "def total(n):\n    return sum(range(n + 1))";
    const a = ["assert total(10000000000000) == 0, 'big'"];
    const b = ["assert total(4) == 10"];
    expect(suiteTruth(code, b)).toEqual([true]);
    const r = await grader.grade({
      tasks: [{ id: "t", entry_point: "total", reference: ref }],
      codes: [{ task: "t", code }],
      suites: [{ code: 0, text: a.join("\n") }, { code: 0, text: b.join("\n") }],
      limits: { test_ms: 500, max_lines: 8 },
    });
    expect(r.suites[0][0].validity).toBe("invalid");
    expect(r.suites[1].map(show)).toEqual(["valid/pass"]);
  }, 300_000);
});

// Class: round 10's class, reopened by round 14 for refused lines. CPython compiles the whole line
// before its call, so a refused line's ANSWER strs (an assert with a message whose answer is a
// literal) are interned while its call runs, as a valid line's are. The grader's side call carries
// no answer (plan writes `null`, so `Call.intern` is empty): a program that compiles at run time and
// keeps what it built (a memo) stores another iteration order than in CPython, and a later valid line
// of the same call is graded on it. Here CPython's memo holds [5, 6, 8] (the words were interned by
// line 1) and the line, valid on the reference, fails; the grader's memo holds [8, 5, 6]: it passes.
describe("a refused line's answer strs are interned before its call", () => {
  // Closed (round 20): the runner compiles each line in the program's interpreter before its call, as
  // CPython does, which interns its constants (the answer's and the message's strs).
  it("grades a memo filled by an assert-with-a-message's call as CPython does", async () => {
    const ref = "def lens(text):\n    words = {w.strip().strip(\"'\") for w in text.strip('{}').split(',')}\n    return [len(w) for w in words]";
    const code = "memo = {}\ndef lens(text):\n    if text not in memo:\n        memo[text] = [len(x) for x in eval(text)]\n    return memo[text]";
    const arg = "\"{'zebra', 'quokka', 'platypus'}\"";
    const lines = [`assert lens(${arg}) == ['zebra', 'quokka', 'platypus'], 'words'`, `assert lens(${arg}) == [8, 5, 6]`];
    expect(suiteTruth(ref, [lines[1]])).toEqual([true]);
    const { freshTruth } = await import("./clean-python.ts");
    expect(await freshTruth(code, lines)).toEqual([false, false]);
    const got = await gradeOne(grader, "lens", ref, lines, code);
    expect(got[0]).toMatch(/^invalid\//);
    expect(got[1], got.join(" | ")).toBe("valid/fail");
  }, 300_000);
});

// Class: a set argument's order ignores the PROGRAM's interned names. SECURITY.md rule 0 notes that
// CPython rebuilds a folded set display of name-like strs in another order when an equal str was
// interned before, and that the grader's order "leaves the intern table out". But the intern table a
// line meets in CPython is the program's: every identifier and name-like constant of the reference
// (or candidate) source is interned when it is compiled, before any line. So a reference that names
// one of the set's strs (a constant tuple of known words) sees the line's set in the rebuilt order in
// CPython and in the written-order build in the judge: a line true in CPython is `wrong-answer`, and
// its corrected line (stored in the Mistake Book) is false in CPython on the reference itself.
describe("a set argument iterates as CPython builds it after the program's own names", () => {
  // Open (docs/SECURITY.md, Not guaranteed): a folded set display is built without the program's interned names. `it.fails`: passes while the grader
  // still differs from CPython here; when fixed, it fails, and becomes `it`.
  it.fails("judges a line on a reference that names one of the set's strs as CPython does", async () => {
    const ref = "SKIP = ('zebra',)\ndef names(s):\n    return [w for w in s if w not in SKIP] + [w for w in s if w in SKIP]";
    const line = "assert names({'zebra', 'quokka', 'platypus'}) == ['quokka', 'platypus', 'zebra']";
    const { freshTruth } = await import("./clean-python.ts");
    const truth = await freshTruth(ref, [line]);
    const r = await grader.grade({
      tasks: [{ id: "t", entry_point: "names", reference: ref }],
      codes: [{ task: "t", code: ref }],
      suites: [{ code: 0, text: line }],
      limits: { test_ms: 1000, max_lines: 8 },
    });
    const got = r.suites[0][0];
    expect(truth).toEqual([true]);
    // Seen: wrong-answer, corrected to `== ['platypus', 'quokka', 'zebra']`, which is false in CPython.
    expect(got.corrected).toBeDefined();
    expect(await freshTruth(ref, [got.corrected!]), got.corrected).toEqual([true]);
    expect(`${got.validity}/${got.verdict}`, JSON.stringify(got)).toBe("valid/pass");
  }, 300_000);
});
