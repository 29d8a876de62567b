/**
 * Round 5 of issue 27 (a stranger's attack, 2026-12-06). Truth is a clean Pyodide (the grader's
 * CPython 3.14, hash seed 0 as the runners), never the grader.
 *   - Interning in the judge: parsing a line interns its identifiers for good, and CPython rebuilds a
 *     folded set of strings in another order when an equal string was interned before; the judge
 *     was never restored, so one suite's line (even an invalid one), or another task's reference,
 *     changed the order a reference's own set iterated in, in that batch and every later one. Now the
 *     judge restores its memory before every reference unit, as the sandbox does (runner.js).
 *   - Equal folded set displays in one line: CPython merges equal constants of a code object, so a
 *     later equal display is built from the first one's frozenset and iterates as it does; the grader
 *     built each from its own written order (harness.py `_folded`, `_const_key`).
 * Round 6 (the same day): a reference that keeps state between calls (a memo) answered one suite's
 * call from another suite's cache (`lru_cache` takes -0.0 for 0.0, a dict 1.0 for 1), since one unit
 * ran every suite's calls. Now each suite's calls run in a reference unit of their own.
 * Round 7: corrected lines that are true in CPython but that the grader refuses when the Mistake
 * Book replays them (two spellings of one call; an output so long the corrected line passes the line
 * limit) stayed in the book for good and lowered every correct program's R_C. Now a stored test
 * refused on replay does not count and leaves the book.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { loadPyodide, type PyodideInterface } from "pyodide";
import { sharedNodeGrader } from "../node-grader.ts";
import { RUNNER_ENV } from "../../../src/core/grader/runner.js";
import type { GradeRequest } from "../../../src/core/grader/types.ts";
import { mistakeBookOutcome, updateMistakeBook } from "../../../src/core/loop/mistake-book.ts";
import { bookCounts } from "../../../src/core/loop/rewards.ts";

const grader = sharedNodeGrader();
let py: PyodideInterface;
beforeAll(async () => {
  py = await loadPyodide({ env: { ...RUNNER_ENV } });
}, 120_000);

/**
 * The line `assert f(ARGS) == <what a clean interpreter returns>` for `code`. `interpreter`: a fresh
 * one where what was compiled before matters (strings interned by an earlier run change set orders).
 */
function trueLine(code: string, args: string, interpreter = py): string {
  const py = interpreter;
  // One compile of the program; the line then runs against that same function, as CPython runs it.
  py.runPython(`_ns = {}\nexec(${JSON.stringify(code)}, _ns)`);
  const answer = py.runPython(`repr(eval(${JSON.stringify(`f(${args})`)}, _ns))`) as string;
  const line = `assert f(${args}) == ${answer}`;
  expect(py.runPython(`exec(${JSON.stringify(line)}, _ns)\nTrue`)).toBe(true);
  return line;
}

const valid = (r: Awaited<ReturnType<typeof grader.grade>>) => [...r.suites.flat(), ...r.golden.flat()].map((l) => `${l.validity}/${l.verdict}`);

describe("interning in the judge", () => {
  const ZOO = "def f(k):\n    return list({'zebra', 'quokka', 'platypus'})[:k]";

  it("a line's identifiers (an invalid line of another suite) do not change a reference's set order, this batch or later", async () => {
    const truth = trueLine(ZOO, "3", await loadPyodide({ env: { ...RUNNER_ENV } }));
    const batch = (poison: boolean): GradeRequest => ({
      tasks: [{ id: "zoo", entry_point: "f", reference: ZOO }],
      codes: [{ task: "zoo", code: ZOO }, { task: "zoo", code: ZOO }],
      suites: [{ code: 0, text: poison ? "assert f(zebra, quokka, platypus) == 0" : "assert f(0) == []" }, { code: 1, text: truth }],
      golden: [{ code: 1, text: truth }],
      limits: { test_ms: 1000 },
    });
    for (const poison of [false, true, false]) {
      const r = await grader.grade(batch(poison));
      expect(r.suites[1][0], JSON.stringify(r.suites[1])).toMatchObject({ validity: "valid", verdict: "pass", corrected: truth });
      expect(r.golden[0][0].verdict).toBe("pass");
    }
  }, 300_000);

  it("another task's reference (its names interned first) does not change this task's reference either", async () => {
    const names = "def f(x):\n    zebra = quokka = platypus = x\n    return zebra + quokka + platypus";
    const truth = trueLine(ZOO, "3", await loadPyodide({ env: { ...RUNNER_ENV } }));
    const r = await grader.grade({
      tasks: [{ id: "names", entry_point: "f", reference: names }, { id: "zoo", entry_point: "f", reference: ZOO }],
      codes: [{ task: "names", code: names }, { task: "zoo", code: ZOO }],
      suites: [{ code: 0, text: "assert f(1) == 3" }, { code: 1, text: truth }],
      limits: { test_ms: 1000 },
    });
    expect(valid(r)).toEqual(["valid/pass", "valid/pass"]);
  }, 300_000);
});

describe("equal folded set displays in one line", () => {
  const LIST_B = "def f(a, b):\n    b = b[0] if type(b) is list else b\n    return list(b)";
  it("a later equal display iterates as the first (CPython merges the constants); unequal keys (1, 1.0, True) do not merge", async () => {
    const lines = [
      trueLine(LIST_B, "{1, 9, 17}, {17, 9, 1}"),
      trueLine(LIST_B, "[{1, 9, 17}], [{17, 9, 1}]"),
      trueLine(LIST_B, "{1, 9, 17}, {17.0, 9, 1}"),
      trueLine(LIST_B, "{True, 9, 17}, {17, 9, 1}"),
    ];
    const codes = lines.map(() => ({ task: "b", code: LIST_B }));
    const r = await grader.grade({
      tasks: [{ id: "b", entry_point: "f", reference: LIST_B }],
      codes,
      suites: lines.map((text, code) => ({ code, text })),
      golden: lines.map((text, code) => ({ code, text })),
      limits: { test_ms: 1000 },
    });
    expect(valid(r), JSON.stringify(r.suites)).toEqual(Array(8).fill("valid/pass"));
    r.suites.forEach((s, i) => expect(s[0].corrected).toBe(lines[i]));
  }, 300_000);
});

describe("a reference that keeps state between calls (round 6)", () => {
  const SIGN = "import math\nfrom functools import lru_cache\n\n@lru_cache(maxsize=None)\ndef g(x):\n    return math.copysign(1.0, x)";
  const FIB = "memo = {}\n\ndef f(n):\n    if n not in memo:\n        memo[n] = n if n < 2 else f(n - 1) + f(n - 2)\n    return memo[n]";

  it("judges each suite as it would be judged alone, whatever other suites share the batch", async () => {
    const tasks = [{ id: "fib", entry_point: "f", reference: FIB }, { id: "sign", entry_point: "g", reference: SIGN }];
    const codes = [{ task: "fib", code: "def f(n):\n    return 0" }, { task: "fib", code: FIB }, { task: "sign", code: "def g(x):\n    return 0.0" }, { task: "sign", code: "import math\n\ndef g(x):\n    return math.copysign(1.0, x)" }];
    // Suites 0 and 2 fill the references' caches with calls equal in Python to suites 1's and 3's.
    const suites = [
      { code: 0, text: "assert f(5) == 5" },
      { code: 1, text: "assert f(5.0) == 5.0" },
      { code: 2, text: "assert g(0.0) == 1.0" },
      { code: 3, text: "assert g(-0.0) == -1.0\nassert g(2.0) == 1.0" },
    ];
    const together = await grader.grade({ tasks, codes, suites, limits: { test_ms: 1000 } });
    for (const i of [1, 3]) {
      const alone = await grader.grade({ tasks, codes, suites: [suites[i]], limits: { test_ms: 1000 } });
      expect(together.suites[i], `suite ${i}`).toEqual(alone.suites[0]);
    }
    expect(together.suites[1][0]).toMatchObject({ validity: "valid", verdict: "pass", corrected: "assert f(5.0) == 5.0" });
    expect(together.suites[3].map((l) => `${l.validity}/${l.verdict}`)).toEqual(["valid/pass", "valid/pass"]);
    // The corrected line is true in a clean interpreter (the reference alone, then the line).
    const fresh = await loadPyodide({ env: { ...RUNNER_ENV } });
    expect(fresh.runPython(`_ns = {}\nexec(${JSON.stringify(SIGN)}, _ns)\nexec(${JSON.stringify(together.suites[3][0].corrected)}, _ns)\nTrue`)).toBe(true);
  }, 300_000);
});

describe("Mistake Book tests the grader refuses on replay (round 7)", () => {
  it("do not count against a correct program, and leave the book", async () => {
    const RANGE = "def f(n):\n    return list(range(n)) if type(n) is int else len(n)";
    const book = [
      "assert f('ab') == 2",
      'assert f("ab") == 2', // the same call, spelled otherwise: "repeats the call of line 1"
      `assert f(600) == [${Array.from({ length: 600 }, (_, i) => i).join(", ")}]`, // over the line limit
    ];
    const r = await grader.grade({ tasks: [{ id: "r", entry_point: "f", reference: RANGE }], codes: [{ task: "r", code: RANGE }], golden: [{ code: 0, text: book.join("\n") }], limits: { test_ms: 1000 } });
    const lines = r.golden[0];
    expect(lines.map((l) => l.validity)).toEqual(["valid", "invalid", "invalid"]);
    expect(bookCounts(lines)).toEqual({ total: 1, passed: 1 }); // the reference passes every test that counts
    const outcome = mistakeBookOutcome(book, [{ code: RANGE, loaded: true, suites: [], bookLines: lines }]);
    expect(outcome.refused).toEqual([book[1], book[2]]);
    const stored = updateMistakeBook({ tasks: {} }, "r", 1, { failed: book.map((test) => ({ test, code: "x" })), passed: [] }).book;
    expect(updateMistakeBook(stored, "r", 2, outcome).book.tasks.r).toBeUndefined(); // one pass, two refusals: none left
  }, 120_000);
});
