/**
 * Round 8 of issue 27 (a stranger's attack). Truth is a clean Pyodide (the grader's CPython 3.14, hash
 * seed 0 as the runners): the program is exec'd into a namespace, then the line is exec'd in it, as
 * `hostile-round5.test.ts` does. These tests FAIL on the grader as it is: each shows the verdict the
 * grader gives next to the one CPython gives.
 *
 *   - Argument identity: CPython compiles a test line, so its arguments are the line's CONSTANTS:
 *     equal constants of one line are one object (the compiler merges them: `f(1000, 1000)`,
 *     `f((1, 2), (1, 2))`, `f('ab cd', 'ab cd')`), and a str constant made of name characters is
 *     interned (`'add'` in the line is the very object `'add'` in the program). The runners rebuild
 *     every argument from canonical JSON (harness `_from_canon`): fresh, unmerged, uninterned objects.
 *     A program (or a reference) that compares with `is` (a common slip: `if op is 'add'`) passes
 *     in CPython and fails in the grader; a reference that does so makes a true line `wrong-answer`
 *     and writes a corrected line that is false in CPython into the Mistake Book.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";

const grader = sharedNodeGrader();
const { holds } = cleanPython();


describe("argument identity: a line's arguments are its constants (merged, str interned)", () => {
  const OP_REF = "def f(op, a, b):\n    return a + b if op == 'add' else a - b";
  const OP_IS = "def f(op, a, b):\n    if op is 'add':\n        return a + b\n    return a - b";
  const SAME_REF = "def g(a, b):\n    return a == b";
  const SAME_IS = "def g(a, b):\n    return a is b";

  it("a program that compares arguments with `is` gets the verdicts CPython gives", async () => {
    const opLine = "assert f('add', 2, 3) == 5";
    const sameLines = ["assert g(1000, 1000) == True", "assert g((1, 2), (1, 2)) == True", "assert g('ab cd', 'ab cd') == True", "assert g(2.5, 2.5) == True"];
    const truth = [holds(OP_IS, opLine), ...sameLines.map((l) => holds(SAME_IS, l))];
    expect(truth).toEqual([true, true, true, true, true]); // CPython: every line passes
    const r = await grader.grade({
      tasks: [{ id: "op", entry_point: "f", reference: OP_REF }, { id: "same", entry_point: "g", reference: SAME_REF }],
      codes: [{ task: "op", code: OP_IS }, { task: "same", code: SAME_IS }],
      suites: [{ code: 0, text: opLine }, { code: 1, text: sameLines.join("\n") }],
      golden: [{ code: 0, text: opLine }, { code: 1, text: sameLines.join("\n") }],
      limits: { test_ms: 1000 },
    });
    const verdicts = (lines: { verdict: string }[][]) => lines.flat().map((l) => l.verdict === "pass");
    expect(verdicts(r.suites), JSON.stringify(r.suites)).toEqual(truth);
    expect(verdicts(r.golden), JSON.stringify(r.golden)).toEqual(truth);
  }, 300_000);

  it("a reference that compares with `is` judges a true line valid and writes no false corrected line", async () => {
    const line = "assert f('add', 2, 3) == 5";
    expect(holds(OP_IS, line)).toBe(true); // the line holds on the reference in CPython
    const r = await grader.grade({
      tasks: [{ id: "op", entry_point: "f", reference: OP_IS }],
      codes: [{ task: "op", code: OP_REF }],
      suites: [{ code: 0, text: line }],
      limits: { test_ms: 1000 },
    });
    const [judged] = r.suites[0];
    // Whatever the grader decides, the corrected line it stores must hold on the reference in CPython.
    expect(holds(OP_IS, judged.corrected!), `corrected line ${judged.corrected}`).toBe(true);
    expect(judged, JSON.stringify(judged)).toMatchObject({ validity: "valid", verdict: "pass" });
  }, 300_000);
});

/*
 *   - A reference that keeps state, within one suite (the rest of round 6's class): each suite's calls
 *     run in one reference unit, so a memoised reference (`lru_cache` takes -0.0 for 0.0) answers a
 *     suite's later line from the cache entry of an earlier line OF THE SAME SUITE. The Test policy
 *     writes the whole suite: `g(0.0)` first makes `assert g(-0.0) == -1.0` (true in CPython)
 *     `wrong-answer`, corrected to `assert g(-0.0) == 1.0`, which is false in a clean interpreter; a
 *     correct program fails it, so it enters the Mistake Book (and counts as R_adv for the suite), and
 *     every later correct program fails it on replay.
 */
describe("a reference that keeps state between the calls of one suite", () => {
  const SIGN = "import math\nfrom functools import lru_cache\n\n@lru_cache(maxsize=None)\ndef g(x):\n    return math.copysign(1.0, x)";
  const PLAIN = "import math\n\ndef g(x):\n    return math.copysign(1.0, x)";

  it("judges each line as it holds on the reference alone, and stores no false corrected line", async () => {
    const lines = ["assert g(0.0) == 1.0", "assert g(-0.0) == -1.0"];
    expect(lines.map((l) => holds(SIGN, l))).toEqual([true, true]); // each line holds on the reference
    const r = await grader.grade({
      tasks: [{ id: "sign", entry_point: "g", reference: SIGN }],
      codes: [{ task: "sign", code: PLAIN }],
      suites: [{ code: 0, text: lines.join("\n") }],
      limits: { test_ms: 1000 },
    });
    for (const judged of r.suites[0]) {
      expect(holds(SIGN, judged.corrected!), `corrected line ${judged.corrected} on the reference`).toBe(true);
    }
    expect(r.suites[0].map((l) => `${l.validity}/${l.verdict}`), JSON.stringify(r.suites[0])).toEqual(["valid/pass", "valid/pass"]);
  }, 300_000);
});

/*
 * The class, beyond the stranger's examples: every shape of argument identity a literal line can
 * make (negative numbers, items of tuples, lists and dicts, keys, the spellings CPython keeps apart),
 * and memos keyed by Python equality in other spellings (a dict: 1, 1.0 and True; a tuple holding
 * -0.0). Each line is checked against a clean CPython: as a candidate's line and as the reference's.
 */
describe("the class: identity and memo shapes, as candidate and as reference, against CPython", () => {
  const IDENT = "def g(a, b):\n    return a is b";
  const FIRST_IS = "def h(a, b):\n    x = next(iter(a)) if type(a) in (dict, set) else a[0]\n    return x is b";
  const SPACED = "def s(op):\n    return op is 'a b'";
  const cases: [string, string, string[]][] = [
    ["g", IDENT, ["assert g(-1000, -1000) == True", "assert g(1.0, 1) == False", "assert g(-0.0, 0.0) == False", "assert g(True, 1) == False", "assert g('x_1', 'x_1') == True", "assert g(\"é1\", \"é1\") == True", "assert g((1, [2]), (1, [2])) == False", "assert g([5000], [5000]) == False"]],
    ["h", FIRST_IS, ["assert h((1000,), 1000) == True", "assert h([1000, 2], 1000) == True", "assert h({'k_1': 0}, 'k_1') == True", "assert h({7000: 0}, 7000) == True", "assert h(((1, 2),), (1, 2)) == True", "assert h([[3000]], [3000]) == False", "assert h({2.5: 1}, 2.5) == True"]],
    ["s", SPACED, ["assert s('a b') == False"]],
  ];

  it("a program's identity checks see what CPython's do, in every shape", async () => {
    const tasks = cases.map(([entry, code]) => ({ id: entry, entry_point: entry, reference: code }));
    const truth = cases.map(([, code, lines]) => lines.map((l) => holds(code, l)));
    const r = await grader.grade({
      tasks,
      codes: cases.map(([entry, code]) => ({ task: entry, code })),
      suites: cases.map(([, , lines], i) => ({ code: i, text: lines.join("\n") })),
      limits: { test_ms: 1000 },
    });
    // As a candidate's lines: the verdicts CPython gives; as the reference's: valid exactly where the line holds on it.
    expect(r.suites.map((s) => s.map((l) => l.verdict === "pass")), JSON.stringify(r.suites)).toEqual(truth);
    expect(r.suites.map((s) => s.map((l) => l.validity === "valid"))).toEqual(truth);
    for (const [i, [, code]] of cases.entries()) for (const l of r.suites[i]) if (l.corrected) expect(holds(code, l.corrected), l.corrected).toBe(true);
  }, 300_000);

  it("memos keyed by Python equality answer each line as the reference alone would", async () => {
    const DICT_MEMO = "_memo = {}\ndef m(x):\n    if x not in _memo:\n        _memo[x] = repr(x)\n    return _memo[x]";
    const TUPLE_MEMO = "import math\nfrom functools import lru_cache\n@lru_cache(maxsize=None)\ndef t(p):\n    return [math.copysign(1.0, v) for v in p]";
    const PLAIN_T = "import math\ndef t(p):\n    return [math.copysign(1.0, v) for v in p]";
    const PLAIN_M = "def m(x):\n    return repr(x)";
    const mLines = ["assert m(1) == '1'", "assert m(1.0) == '1.0'", "assert m(True) == 'True'", "assert m(5) == '5'", "assert m(5.0) == '5.0'"];
    const tLines = ["assert t((0.0, 1.0)) == [1.0, 1.0]", "assert t((-0.0, 1)) == [-1.0, 1.0]", "assert t((0, True)) == [1.0, 1.0]"];
    expect(mLines.map((l) => holds(DICT_MEMO, l))).toEqual(mLines.map(() => true));
    expect(tLines.map((l) => holds(TUPLE_MEMO, l))).toEqual(tLines.map(() => true));
    const r = await grader.grade({
      tasks: [{ id: "m", entry_point: "m", reference: DICT_MEMO }, { id: "t", entry_point: "t", reference: TUPLE_MEMO }],
      codes: [{ task: "m", code: PLAIN_M }, { task: "t", code: PLAIN_T }],
      suites: [{ code: 0, text: mLines.join("\n") }, { code: 1, text: tLines.join("\n") }],
      limits: { test_ms: 1000 },
    });
    expect(r.suites.map((s) => s.map((l) => `${l.validity}/${l.verdict}`)), JSON.stringify(r.suites)).toEqual([mLines.map(() => "valid/pass"), tLines.map(() => "valid/pass")]);
  }, 300_000);
});
