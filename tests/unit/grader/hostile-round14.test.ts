/**
 * Round 14 (issue 27): new classes, each test FAILING on the grader of d122467 and passing only if
 * the grader gave a clean CPython's verdict. Truth is a clean Pyodide (clean-python.ts).
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeOne } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();

// Class: the nesting guard reads a line's characters, not its tokens. `_too_deep`/`_nesting` and
// `_LONG_RUN` (harness.py) count brackets and prefix operators inside string literals, so an honest
// line whose str argument holds 101 `(` (a parenthesis-depth task's natural deep case) or a run of
// 101 `-`/`+` (a dash-counting or +/- evaluation task) is `invalid` ("nested too deeply") while
// CPython's parser reads it as one flat string constant and the assert holds. The Test policy's true
// lines are refused; a golden line of that shape is never run.
const DEPTH = [
  "def max_depth(s):",
  "    d = best = 0",
  "    for ch in s:",
  "        if ch == '(':",
  "            d += 1",
  "            best = max(best, d)",
  "        elif ch == ')':",
  "            d -= 1",
  "    return best",
].join("\n");

describe("brackets and signs inside string literals are not nesting", () => {
  it("judges a line whose str holds 101 open parentheses as CPython does", async () => {
    const lines = [
      `assert max_depth('${"(".repeat(101)}${")".repeat(101)}') == 101`,
      `assert max_depth('${"(".repeat(120)}') == 120`,
      `assert max_depth('${"[{(".repeat(40)}') == 40`,
    ];
    expect(suiteTruth(DEPTH, lines)).toEqual([true, true, true]);
    expect(await gradeOne(grader, "max_depth", DEPTH, lines)).toEqual(["valid/pass", "valid/pass", "valid/pass"]);
  }, 300_000);

  it("judges a line whose str holds a long run of '-' or '+' as CPython does", async () => {
    const ref = "def count_signs(s):\n    return s.count('-') - s.count('+')";
    const lines = [
      `assert count_signs('${"-".repeat(101)}') == 101`,
      `assert count_signs('${"+ ".repeat(110)}') == -110`,
      `assert count_signs("${"~-".repeat(60)}") == 60`,
      // Not even a string: a comment ruler after a plain line.
      `assert count_signs('-+') == 0  # ${"-".repeat(101)}`,
    ];
    expect(suiteTruth(ref, lines)).toEqual([true, true, true, true]);
    expect(await gradeOne(grader, "count_signs", ref, lines)).toEqual(["valid/pass", "valid/pass", "valid/pass", "valid/pass"]);
  }, 300_000);

  it("accepts on replay the reference-corrected line it wrote itself (a str output of 101 parentheses)", async () => {
    // The judge corrects `assert opens(101) == ''` to a line holding the output as a str literal; the
    // Mistake Book replays that line, and the grader refuses it: a stored test no program can pass.
    const ref = "def opens(n):\n    return '(' * n";
    const r = await grader.grade({
      tasks: [{ id: "t", entry_point: "opens", reference: ref }],
      codes: [{ task: "t", code: ref }],
      suites: [{ code: 0, text: "assert opens(101) == ''" }],
      limits: { test_ms: 1000, max_lines: 8 },
    });
    const corrected = r.suites[0][0].corrected!;
    expect(corrected).toBe(`assert opens(101) == '${"(".repeat(101)}'`);
    expect(suiteTruth(ref, [corrected])).toEqual([true]);
    expect(await gradeOne(grader, "opens", ref, [corrected])).toEqual(["valid/pass"]);
  }, 300_000);
});

// Class: `from M import *` reads the grader's copy of the module, not the module. The restricted
// import hands out a fresh module holding every public name of M's dict (harness setup: names not
// starting with `_`), and leaves `__all__` out, so a star import binds what CPython's does not:
// names M itself imported (`functools` holds `namedtuple`, `RLock`, `MappingProxyType`,
// `GenericAlias`...; `re` holds `enum` and `functools`). A program that uses such a name without
// importing it raises NameError in CPython (every line fails) and passes in the grader: a wrong
// program passing. (And a program's own global of such a name, bound before the star import,
// survives in CPython but is overwritten in the grader.)
describe("a star import binds what CPython's binds", () => {
  it("fails a program that uses namedtuple after `from functools import *` (NameError in CPython)", async () => {
    const ref = "def swap(a, b):\n    return (b, a)";
    const wrong = "from functools import *\nPair = namedtuple('Pair', 'first second')\ndef swap(a, b):\n    return tuple(Pair(b, a))";
    const lines = ["assert swap(1, 2) == (2, 1)", "assert swap('a', 'b') == ('b', 'a')"];
    expect(suiteTruth(ref, lines)).toEqual([true, true]);
    // In CPython the program itself raises NameError when exec'd: no line of it can hold.
    expect(() => suiteTruth(wrong, lines)).toThrow(/NameError: name 'namedtuple' is not defined/);
    const got = await gradeOne(grader, "swap", ref, lines, wrong);
    expect(got.some((v) => v.endsWith("/pass")), got.join(" ")).toBe(false);
  }, 300_000);

  it("keeps a program's own global that a star import's __all__ does not name", async () => {
    // CPython: re.__all__ has no `functools`, so the program's own `functools = 3` stays 3.
    const ref = "def scale(x):\n    return 3 * x";
    const code = "functools = 3\nfrom re import *\ndef scale(x):\n    return functools * x";
    const lines = ["assert scale(2) == 6", "assert scale(5) == 15"];
    expect(suiteTruth(code, lines)).toEqual([true, true]);
    expect(await gradeOne(grader, "scale", ref, lines, code)).toEqual(["valid/pass", "valid/pass"]);
  }, 300_000);

  it("fails a program that uses itemgetter after `from functools import *` without importing it from operator", async () => {
    // functools' own `itemgetter` (it imports it from operator) is not in functools.__all__.
    const ref = "def by_second(pairs):\n    return sorted(pairs, key=lambda p: p[1])";
    const wrong = "from functools import *\ndef by_second(pairs):\n    return sorted(pairs, key=itemgetter(1))";
    const lines = ["assert by_second([(1, 'b'), (2, 'a')]) == [(2, 'a'), (1, 'b')]", "assert by_second([]) == []"];
    expect(suiteTruth(ref, lines)).toEqual([true, true]);
    // NameError: name 'itemgetter' is not defined, on every call.
    expect(suiteTruth(wrong, lines)).toEqual([false, false]);
    const got = await gradeOne(grader, "by_second", ref, lines, wrong);
    expect(got.some((v) => v.endsWith("/pass")), got.join(" ")).toBe(false);
  }, 300_000);
});

// Class: a line the grader refuses still runs in CPython. A candidate's suite is run "as CPython runs
// a suite after the program", but only its valid lines' calls are made: a line that is invalid for
// its shape (an assert with a message, a keyword argument, a second statement) or for the reference
// still calls the program in CPython, and a memo keyed by `==` (`lru_cache`, the round 8/9 class)
// answers a later valid line from that call. The Test policy writes the whole suite, so it can put
// such a line first: in CPython the program fails the later line; the grader passes it.
describe("lines refused by the grader still call the program in CPython", () => {
  it("grades a memoised program's later line after the refused line's call", async () => {
    const ref = "def fmt(x):\n    return str(x)";
    const memo = "from functools import lru_cache\n@lru_cache(None)\ndef fmt(x):\n    return str(x)";
    const lines = ["assert fmt(0.0) == '0.0', 'zero'", "assert fmt(-0.0) == '-0.0'"];
    // CPython: the first line's call caches '0.0' under the key (0.0,) == (-0.0,); the second line gets it.
    expect(suiteTruth(memo, lines)).toEqual([true, false]);
    const got = await gradeOne(grader, "fmt", ref, lines, memo);
    expect(got[0]).toMatch(/^invalid\//);
    expect(got[1]).toBe("valid/fail");
  }, 300_000);
});

// The defence's own edges (not the attacker's): every call CPython makes is made, in order, repeats
// included; but a refused line the reference itself cannot answer in time costs no candidate anything.
describe("refused lines' calls, as the grader now makes them", () => {
  it("makes a repeated line's call again, so a program counting its calls sees CPython's count", async () => {
    const ref = "def nxt(x):\n    return x + 1";
    const counting = "calls = [0]\ndef nxt(x):\n    calls[0] += 1\n    return x + 1 if calls[0] != 3 else 0";
    const lines = ["assert nxt(1) == 2", "assert nxt(1) == 2", "assert nxt(5) == 6"];
    expect(suiteTruth(counting, lines)).toEqual([true, true, false]);
    const got = await gradeOne(grader, "nxt", ref, lines, counting);
    expect(got[0]).toBe("valid/pass");
    expect(got[1]).toMatch(/^invalid\/.*repeats the call of line 1/);
    expect(got[2]).toBe("valid/fail");
  }, 300_000);

  it("does not make a refused line's call that the reference itself timed out on", async () => {
    const ref = "def slow(n):\n    while n > 1000000:\n        pass\n    return n";
    const lines = ["assert slow(10000000) == 1, 'never returns'", "assert slow(3) == 3"];
    const got = await gradeOne(grader, "slow", ref, lines);
    expect(got[0]).toMatch(/^invalid\//);
    expect(got[1]).toBe("valid/pass");
  }, 300_000);
});
