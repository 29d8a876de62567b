/**
 * Round 20 (issue 27): a stranger agent (25 minutes) on round 19 (1f6880a). Each test asserts
 * CPython's verdict (or a refusal) and failed on 1f6880a. Fixed: the harness drops a call's arguments
 * before it reads the value (A), and compiles each line in the program's interpreter before its call,
 * as CPython does (B): a line that does not compile there is `error` (CPython's line does not hold),
 * one that compiles to other names than the judge read is a marked `error` (the rest of the suite is
 * not graded).
 * A. Argument lifetime: CPython's CALL releases the line's argument objects before `==` runs; the
 *    harness keeps `args` alive until `call` returns, after `canonical(value)`. A `__del__` of an
 *    object the program put into its argument runs before CPython's comparison and after the
 *    grader's.
 * B. Program state that changes how CPython compiles a LATER line: the grader parses every line in
 *    the judge's default state; CPython compiles each line in the program's interpreter.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();
const OK_PASS = /^valid\/pass$|^invalid\/|^valid\/error/;
const OK_FAIL = /^valid\/fail$|^invalid\/|^valid\/error/;

const REF = "def f(xs):\n    return [1]";
// Returns its global list; an object it leaves in the argument appends to that list when freed.
const DEL_PROG = (extra: number) =>
  `out = [1]\nclass D:\n    def __del__(self):\n        out.append(${extra})\ndef f(xs):\n    global out\n    out = [1]\n    xs.append(D())\n    return out`;

describe("A. __del__ of an argument's object: before CPython's comparison, after the grader's", () => {
  it("wrong program (value becomes [1, 99] before ==) passes in the grader, fails in CPython", async () => {
    const lines = ["assert f([]) == [1]"];
    expect(suiteTruth(DEL_PROG(99), lines)).toEqual([false]);
    const got = await gradeOne(grader, "f", REF, lines, DEL_PROG(99));
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("golden: the same", async () => {
    const lines = ["assert f([]) == [1]", "assert f([5]) == [1]"];
    expect(suiteTruth(DEL_PROG(99), lines)).toEqual([false, false]);
    const got = await gradeGolden(grader, "f", REF, lines, DEL_PROG(99));
    expect(got, got.join(" | ")).toEqual(expect.arrayContaining([expect.stringMatching(OK_FAIL)]));
    for (const g of got) expect(g, got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("a program right only once its object is freed ([1] -> [1, 2]) passes in CPython, fails in the grader", async () => {
    const ref = "def f(xs):\n    return [1, 2]";
    const lines = ["assert f([]) == [1, 2]"];
    expect(suiteTruth(DEL_PROG(2), lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", ref, lines, DEL_PROG(2));
    expect(got[0], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});

// The program reaches sys through an allowed module's own import (collections._sys).
const RESET = "import sys; sys.set_int_max_str_digits(0)"; // the truth interpreter is shared: put the limit back
const BIG = "7".repeat(700);
describe("B. program state that changes how CPython compiles a later line", () => {
  it("int digit limit lowered at load: a 700-digit literal does not compile in CPython; the grader passes the line", async () => {
    const prog = "import collections\ncollections._sys.set_int_max_str_digits(640)\ndef f(x):\n    return x % 10";
    const ref = "def f(x):\n    return x % 10";
    const lines = [`assert f(${BIG}) == 7`];
    expect(suiteTruth(prog, [...lines, RESET]).slice(0, 1)).toEqual([false]);
    expect(suiteTruth(ref, [...lines, RESET]).slice(0, 1)).toEqual([true]);
    const got = await gradeOne(grader, "f", ref, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("int digit limit lowered during line 1's call: line 2 does not compile in CPython", async () => {
    const prog = "import collections\ndef f(x):\n    collections._sys.set_int_max_str_digits(640)\n    return x % 10";
    const ref = "def f(x):\n    return x % 10";
    const lines = ["assert f(3) == 3", `assert f(${BIG}) == 7`];
    expect(suiteTruth(prog, [...lines, RESET]).slice(0, 2)).toEqual([true, false]);
    const got = await gradeGolden(grader, "f", ref, lines, prog);
    expect(got[1], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("warnings turned into errors: a line with an invalid escape is a SyntaxError in CPython; the grader passes it", async () => {
    const prog = "import collections\ncollections._sys.modules['warnings'].simplefilter('error')\ndef f(s):\n    return len(s)";
    const ref = "def f(s):\n    return len(s)";
    const lines = ["assert f('\\d') == 2"];
    expect(suiteTruth(prog, lines)).toEqual([false]);
    expect(suiteTruth(ref, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", ref, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
});

// CPython's parser normalises a non-ASCII identifier by calling `sys.modules['unicodedata'].normalize`
// (Parser/pegen.c init_normalization: an import, then a getattr): program code, run while CPython
// compiles the LINE. The grader's judge parses the line with its own unicodedata.
const FAKE_UCD =
  "import collections\n_sys = collections._sys\n" +
  "_m = type(collections)('unicodedata')\n_m.normalize = lambda form, s: 'g'\n_sys.modules['unicodedata'] = _m\n" +
  "hits = []\ndef f(x):\n    return x + 1\ndef g(x):\n    hits.append(x)\n    return 0";
const UNFAKE = "import sys; sys.modules.pop('unicodedata', None)"; // the truth interpreter is shared
describe("C. a program's unicodedata.normalize, called by CPython's parser on a line's NFKC name", () => {
  it("`assert ｆ(1) == 2` calls the program's g in CPython (fails); the grader calls f (passes)", async () => {
    const ref = "def f(x):\n    return x + 1";
    const lines = ["assert \uff46(1) == 2"];
    expect(suiteTruth(FAKE_UCD, [...lines, "assert hits == [1]", UNFAKE]).slice(0, 2)).toEqual([false, true]); // it called g(1)
    expect(suiteTruth(ref, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", ref, lines, FAKE_UCD);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("golden, with the fake installed during line 1's call", async () => {
    const prog =
      "import collections\n_sys = collections._sys\n" +
      "def g(x):\n    return 0\ndef f(x):\n    _m = type(collections)('unicodedata')\n    _m.normalize = lambda form, s: 'g'\n    _sys.modules['unicodedata'] = _m\n    return x + 1";
    const lines = ["assert f(0) == 1", "assert \uff46(1) == 2"];
    expect(suiteTruth(prog, [...lines, UNFAKE]).slice(0, 2)).toEqual([true, false]);
    const got = await gradeGolden(grader, "f", "def f(x):\n    return x + 1", lines, prog);
    expect(got[1], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
});
