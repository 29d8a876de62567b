/**
 * Round 9 of issue 27 (a stranger's attack). Truth is a clean Pyodide (the grader's CPython 3.14, hash
 * seed 0 as the runners): for each suite, the program is exec'd into a fresh namespace, then the
 * suite's lines are exec'd in it, one after another. These tests FAIL on the grader as it is.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();


/*
 * Candidate memo across suites (round 6/8's class on the candidate's side). A candidate's calls from
 * ALL its suites, its Mistake Book lines and its golden lines run in ONE sandbox unit (verdicts.ts
 * `candidateLines`: one Call map per candidate), in first-seen order. A correct program that keeps a
 * memo (`lru_cache` takes -0.0 for 0.0, a dict takes 1.0 for 1 and True) answers a later suite's
 * call from the cache entry an EARLIER suite's line made. In CPython each suite runs on the program
 * freshly exec'd, so every line passes. One Test rollout's suite (`g(0.0)`) makes a correct
 * program fail another suite's true line, its golden line and its Mistake Book lines.
 */
describe("a candidate's memo across its suites", () => {
  const PLAIN = "import math\n\ndef g(x):\n    return math.copysign(1.0, x)";
  const SIGN = "import math\nfrom functools import lru_cache\n\n@lru_cache(maxsize=None)\ndef g(x):\n    return math.copysign(1.0, x)";
  const DICT_MEMO = "_memo = {}\ndef m(x):\n    if x not in _memo:\n        _memo[x] = repr(x)\n    return _memo[x]";

  it("each suite (and the golden suite) is judged as CPython runs it on the freshly loaded program", async () => {
    const s0 = ["assert g(0.0) == 1.0"];
    const s1 = ["assert g(-0.0) == -1.0"];
    const gold = ["assert g(-0.0) == -1.0", "assert g(2.0) == 1.0"];
    const m0 = ["assert m(1) == '1'"];
    const m1 = ["assert m(True) == 'True'"];
    const mGold = ["assert m(1.0) == '1.0'", "assert m(2) == '2'"];
    const truth = [suiteTruth(SIGN, s0), suiteTruth(SIGN, s1), suiteTruth(DICT_MEMO, m0), suiteTruth(DICT_MEMO, m1)];
    const goldTruth = [suiteTruth(SIGN, gold), suiteTruth(DICT_MEMO, mGold)];
    expect(truth).toEqual([[true], [true], [true], [true]]);
    expect(goldTruth).toEqual([[true, true], [true, true]]);
    const r = await grader.grade({
      tasks: [{ id: "sign", entry_point: "g", reference: PLAIN }, { id: "m", entry_point: "m", reference: "def m(x):\n    return repr(x)" }],
      codes: [{ task: "sign", code: SIGN }, { task: "m", code: DICT_MEMO }],
      suites: [{ code: 0, text: s0.join("\n") }, { code: 0, text: s1.join("\n") }, { code: 1, text: m0.join("\n") }, { code: 1, text: m1.join("\n") }],
      golden: [{ code: 0, text: gold.join("\n") }, { code: 1, text: mGold.join("\n") }],
      limits: { test_ms: 1000 },
    });
    expect(r.suites.map((s) => s.map((l) => l.validity)), JSON.stringify(r.suites)).toEqual([["valid"], ["valid"], ["valid"], ["valid"]]);
    expect(r.suites.map((s) => s.map((l) => l.verdict === "pass")), JSON.stringify(r.suites)).toEqual(truth);
    expect(r.golden.map((s) => s.map((l) => l.verdict === "pass")), JSON.stringify(r.golden)).toEqual(goldTruth);
  }, 300_000);
  /*
   * The same shared unit, through time: a candidate's first timeout marks every later call of its unit
   * `timeout` without running it, and the unit spans all its suites, its Mistake Book lines and its
   * golden lines. One Test rollout's line that a correct but slower program cannot finish in time
   * (here a loop over a large n) turns another rollout's true lines, the golden lines and the Mistake
   * Book lines into `timeout` (failures that count for those suites' R_adv and keep book entries),
   * though in CPython each of those suites runs on the freshly loaded program and passes.
   */
  it("one suite's slow line does not time out another suite's, or the golden, lines", async () => {
    const SLOW = "def f(n):\n    s = 0\n    for i in range(n):\n        s += i\n    return s";
    const FAST = "def f(n):\n    return n * (n - 1) // 2";
    const s0 = ["assert f(1000000000) == 499999999500000000"];
    const s1 = ["assert f(10) == 45", "assert f(3) == 3"];
    const gold = ["assert f(4) == 6"];
    expect([suiteTruth(SLOW, s1), suiteTruth(SLOW, gold)]).toEqual([[true, true], [true]]);
    const r = await grader.grade({
      tasks: [{ id: "tri", entry_point: "f", reference: FAST }],
      codes: [{ task: "tri", code: SLOW }],
      suites: [{ code: 0, text: s0.join("\n") }, { code: 0, text: s1.join("\n") }],
      golden: [{ code: 0, text: gold.join("\n") }],
      limits: { test_ms: 1000 },
    });
    expect(r.suites[0][0], JSON.stringify(r.suites[0])).toMatchObject({ validity: "valid", verdict: "timeout" });
    expect.soft(r.suites[1].map((l) => l.verdict), JSON.stringify(r.suites[1])).toEqual(["pass", "pass"]);
    expect(r.golden[0].map((l) => l.verdict), JSON.stringify(r.golden[0])).toEqual(["pass"]);
  }, 300_000);
});

/*
 * A reference memo keyed more coarsely than Python's `==` (the rest of round 8's split). Reference
 * units are split only where `pythonEqualKey` (Python's ==) equates two calls, but a hand-written memo
 * is often keyed by a CONVERSION of the argument: `tuple(xs)` (a list is unhashable), `frozenset`,
 * `str`. `rev([1, 2])` and `rev((1, 2))` differ under ==, so they share a reference unit, and the
 * second is answered from the first's memo entry: the true line `assert rev((1, 2)) == (2, 1)` is
 * judged wrong-answer and corrected to `assert rev((1, 2)) == [2, 1]`, false on the reference alone
 * in CPython; a correct program fails it, so it enters the Mistake Book.
 */
describe("a reference memo keyed by a conversion of its argument", () => {
  const REV_MEMO = "_memo = {}\ndef rev(xs):\n    k = tuple(xs)\n    if k not in _memo:\n        _memo[k] = xs[::-1]\n    return _memo[k]";
  const REV = "def rev(xs):\n    return xs[::-1]";

  it("answers each line as the reference alone answers its call", async () => {
    const lines = ["assert rev([1, 2]) == [2, 1]", "assert rev((1, 2)) == (2, 1)"];
    // Each line holds on the reference alone (and on the plain program, even run in sequence).
    expect(lines.map((l) => suiteTruth(REV_MEMO, [l])[0])).toEqual([true, true]);
    expect(suiteTruth(REV, lines)).toEqual([true, true]);
    const r = await grader.grade({
      tasks: [{ id: "rev", entry_point: "rev", reference: REV_MEMO }],
      codes: [{ task: "rev", code: REV }],
      suites: [{ code: 0, text: lines.join("\n") }],
      limits: { test_ms: 1000 },
    });
    for (const judged of r.suites[0]) {
      expect.soft(suiteTruth(REV_MEMO, [judged.corrected!])[0], `corrected line ${judged.corrected} on the reference alone`).toBe(true);
    }
    expect(r.suites[0].map((l) => `${l.validity}/${l.verdict}`), JSON.stringify(r.suites[0])).toEqual(["valid/pass", "valid/pass"]);
  }, 300_000);
});

/*
 * The entry point is the function the load defined (harness `load` keeps `ns[entry]`), while CPython
 * looks the name up in the program's globals on every line. A program that rebinds its own name during
 * a call (a "replace myself after the first call" pattern) is judged on its first function only: here
 * every line after the first fails in CPython and passes in the grader. (Low impact: a wrong program in
 * CPython passing; the reverse, a program whose replacement is the correct one, fails in the grader.)
 */
describe("a program that rebinds its entry point", () => {
  it("later lines call what the name is bound to, as in CPython", async () => {
    const REBIND = "def f(x):\n    global f\n    f = lambda x: -1\n    return x * 2";
    const lines = ["assert f(1) == 2", "assert f(2) == 4"];
    const truth = suiteTruth(REBIND, lines);
    expect(truth).toEqual([true, false]);
    const r = await grader.grade({
      tasks: [{ id: "dbl", entry_point: "f", reference: "def f(x):\n    return x * 2" }],
      codes: [{ task: "dbl", code: REBIND }],
      suites: [{ code: 0, text: lines.join("\n") }],
      limits: { test_ms: 1000 },
    });
    expect(r.suites[0].map((l) => l.verdict === "pass"), JSON.stringify(r.suites[0])).toEqual(truth);
  }, 300_000);
});
