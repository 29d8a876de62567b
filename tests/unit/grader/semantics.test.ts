/**
 * The grader's semantics (issue 2 section 2, spec "What a test is and how it is judged") with real
 * Pyodide in a worker thread: every validity, verdict and code status, the canonical-form equality
 * and the float rule. One grader for the whole file (a Pyodide start costs seconds).
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { GradeRequestError } from "../../../src/core/grader/request.ts";
import type { GradeProgress, GradeRequest, LineResult } from "../../../src/core/grader/types.ts";

const grader = sharedNodeGrader();

const MAX = { id: "max", entry_point: "f", reference: "def f(xs):\n    return max(xs)" };

/** Grade one code of the `max` task (or `task`) against one generated suite; return its lines. */
async function lines(code: string, suite: string, task = MAX, limits = { test_ms: 300 }): Promise<LineResult[]> {
  const r = await grader.grade({ tasks: [task], codes: [{ task: task.id, code }], suites: [{ code: 0, text: suite }], limits });
  return r.suites[0];
}
const GOOD = "def f(xs):\n    return sorted(xs)[-1]";
const v = (validity: string, verdict: string) => expect.objectContaining({ validity, verdict });

describe("validity of generated lines", () => {
  it("valid lines pass or fail on the candidate", async () => {
    const r = await lines("def f(xs):\n    return xs[0]", "assert f([3, 1]) == 3\nassert f([1, 3]) == 3");
    expect(r).toEqual([v("valid", "pass"), v("valid", "fail")]);
    expect(r[1].reason).toBe("expected 3, got 1");
  });

  it("a wrong answer is reference-corrected and still run", async () => {
    const r = await lines("def f(xs):\n    return xs[0]", "assert f([5, 1]) == 7\nassert f([1, 5]) == 9");
    expect(r).toEqual([v("wrong-answer", "pass"), v("wrong-answer", "fail")]);
    expect(r[0].reason).toBe("answer 7, reference output 5");
  });

  it.each([
    ["assert f([1]) = 1", "syntax error"],
    ["f([1]) == 1", "not a single assert statement"],
    ["assert f([1]) == 1, 'msg'", "assert with a message"],
    ["assert f([1]) != 1", "not of the form CALL == ANSWER"],
    ["assert 1 == f([1])", "left side is not a call of f"],
    ["assert g([1]) == 1", "left side is not a call of f"],
    ["assert f(xs=[1]) == 1", "keyword arguments are not allowed"],
    ["assert f(list(range(3))) == 2", "arguments are not literals"],
    ["assert f([1]) == 2 - 1", "answer is not a literal"],
    ["assert f([1]) == 1; import os", "not a single assert statement"],
    ["assert f(*[[1]]) == 1", "arguments are not literals"],
  ])("malformed line %j is invalid: %s", async (line, reason) => {
    const [r] = await lines(GOOD, line);
    expect(r).toEqual(v("invalid", "skipped"));
    expect(r.reason).toContain(reason);
  });

  it("a call that raises on the reference is invalid", async () => {
    const [r] = await lines(GOOD, "assert f([]) == 0");
    expect(r).toEqual(v("invalid", "skipped"));
    expect(r.reason).toMatch(/^reference raised ValueError: max\(\) /);
  });

  it("a repeated call is invalid, even with another answer", async () => {
    const r = await lines(GOOD, "assert f([1, 2]) == 2\nassert f([1, 2]) == 2\nassert f([1,2]) == 5");
    expect(r).toEqual([v("valid", "pass"), v("invalid", "skipped"), v("invalid", "skipped")]);
    expect(r[1].reason).toBe("repeats the call of line 1");
  });

  it("reads at most max_lines non-blank lines", async () => {
    const suite = Array.from({ length: 10 }, (_, i) => `assert f([${i}]) == ${i}`).join("\n\n");
    expect(await lines(GOOD, suite)).toHaveLength(8);
    const r = await grader.grade({ tasks: [MAX], codes: [{ task: "max", code: GOOD }], suites: [{ code: 0, text: suite }], limits: { max_lines: 3 } });
    expect(r.suites[0]).toHaveLength(3);
  });

  it("the reference's output is computed before the candidate mutates the arguments", async () => {
    const task = { id: "first", entry_point: "f", reference: "def f(xs):\n    return xs[0]" };
    const r = await lines("def f(xs):\n    xs[0] = 99\n    return xs[0]", "assert f([1]) == 1\nassert f([2]) == 2", task);
    expect(r).toEqual([v("valid", "fail"), v("valid", "fail")]);
    expect(r[1].reason).toBe("expected 2, got 99");
  });
});

describe("code status and verdicts", () => {
  it("syntax errors, load errors and load timeouts skip every line", async () => {
    const codes = ["def f(xs) return 1", "raise ValueError('boom')", "x = 1", "while True:\n    pass", "f = 3"];
    const r = await grader.grade({
      tasks: [MAX],
      codes: codes.map((code) => ({ task: "max", code })),
      suites: codes.map((_, i) => ({ code: i, text: "assert f([1]) == 1" })),
      limits: { test_ms: 200, load_ms: 300 },
    });
    expect(r.codes.map((c) => c.status)).toEqual(["syntax-error", "load-error", "load-error", "timeout", "load-error"]);
    expect(r.codes[1].reason).toBe("raised ValueError: boom");
    expect(r.codes[2].reason).toBe("does not define a function f");
    for (const s of r.suites) expect(s).toEqual([v("valid", "skipped")]);
  });

  it("error, timeout, and skipped for invalid lines; after a timeout the candidate's other lines are not run", async () => {
    const code = "def f(xs):\n    if xs[0] == 1:\n        raise KeyError(1)\n    if xs[0] == 2:\n        while True:\n            pass\n    return xs[0]";
    const r = await lines(code, "assert f([3]) == 3\nassert f([1]) == 1\nassert f([2]) == 2\nassert f([4]) == 4\nassert f([]) == 3");
    expect(r).toEqual([v("valid", "pass"), v("valid", "error"), v("valid", "timeout"), v("valid", "timeout"), v("invalid", "skipped")]);
    expect(r[1].reason).toBe("raised KeyError: 1");
    // The in-sandbox interrupt names the limit; on a loaded machine the supervisor's kill can land
    // first (same verdict, its own reason).
    expect(r[2].reason).toMatch(/^(exceeded 300 ms|killed after exceeding 300 ms)$/);
    expect(r[3].reason).toBe("not run: an earlier call exceeded 300 ms");
  });

  it("golden suites run as written, without reference correction", async () => {
    const r = await grader.grade({
      tasks: [MAX],
      codes: [{ task: "max", code: GOOD }],
      golden: [{ code: 0, text: "assert f([4, 1]) == 4\nassert f([1, 4]) == 5\nassert f([]) == 0\nassert f(1 + 1) == 2" }],
    });
    expect(r.suites).toEqual([]);
    expect(r.golden[0]).toEqual([v("valid", "pass"), v("valid", "fail"), v("valid", "error"), v("invalid", "skipped")]);
  });
});

describe("equality on canonical forms", () => {
  const ID = { id: "id", entry_point: "f", reference: "def f(x):\n    return x" };
  it.each([
    ["return 1.0", "assert f(1) == 1", "fail"], // int vs float: types kept
    ["return True", "assert f(1) == 1", "fail"], // bool vs int
    ["return [1, 2]", "assert f((1, 2)) == (1, 2)", "fail"], // list vs tuple
    ["return {'b': 2, 'a': 1}", "assert f({'a': 1, 'b': 2}) == {'a': 1, 'b': 2}", "pass"],
    ["return {3, 1, 2}", "assert f({1, 2, 3}) == {1, 2, 3}", "pass"],
    ["return set()", "assert f(set()) == set()", "pass"],
    ["return 0.1 + 0.2", "assert f(0.3) == 0.3", "pass"], // float rule: relative 1e-9
    ["return 0.3 + 1e-6", "assert f(0.3) == 0.3", "fail"],
    ["return float('nan')", "assert f(1.5) == 1.5", "fail"],
    ["return -0.0", "assert f(0.0) == 0.0", "pass"],
    ["return [1e-12]", "assert f([0.0]) == [0.0]", "pass"], // absolute 1e-9 near zero
    ["return None", "assert f(None) == None", "pass"],
    ["return 'a'", "assert f('a') == 'a'", "pass"],
    ["class L(list):\n        pass\n    return L(x)", "assert f([1]) == [1]", "fail"], // subclass: not builtin
  ])("candidate `%s` on %j -> %s", async (body, line, verdict) => {
    const [r] = await lines(`def f(x):\n    ${body}`, line, ID);
    expect(r.verdict).toBe(verdict);
  });

  it("a non-builtin result fails with a reason", async () => {
    const [r] = await lines("class A:\n    pass\ndef f(x):\n    return A()", "assert f(1) == 1", ID);
    expect(r).toEqual(v("valid", "fail"));
    expect(r.reason).toBe("returned a non-builtin value: A is not a builtin value");
  });
});

describe("edges: infinities, NaN, corrected lines, sizes", () => {
  const ID = { id: "id", entry_point: "f", reference: "def f(x):\n    return x" };
  it.each([
    ["return float('inf')", "assert f(1.5) == 1.5", "fail"], // an infinity equals only itself
    ["return 1e308", "assert f(1e999) == 1e999", "fail"],
    ["return float('inf')", "assert f(1e999) == 1e999", "pass"],
    ["return float('-inf')", "assert f(1e999) == 1e999", "fail"],
    ["return -1e999", "assert f(-1e999) == -1e999", "pass"],
    ["return [float('inf')]", "assert f([2.0]) == [2.0]", "fail"],
    ["return 10 ** 5000", "assert f(1) == 1", "fail"], // a huge int is an int, just not this one
    ["return {float('nan')}", "assert f({1.0}) == {1.0}", "fail"],
  ])("candidate `%s` on %j -> %s", async (body, line, verdict) => {
    const [r] = await lines(`def f(x):\n    ${body}`, line, ID);
    expect(r.verdict).toBe(verdict);
  });

  it("NaN equals NaN (documented rule), and a NaN reference output has no corrected line", async () => {
    const nan = { id: "nan", entry_point: "f", reference: "def f(x):\n    return float('nan')" };
    const [r] = await lines("def f(x):\n    return float('nan')", "assert f(1) == 1.0", nan);
    expect(r).toEqual(v("invalid", "skipped"));
    expect(r.reason).toContain("no literal form");
  });

  it("corrected lines are cut on characters, not bytes, and parse back to the reference output", async () => {
    const count = { id: "cnt", entry_point: "f", reference: "def f(s):\n    return len(s)" };
    const r = await lines("def f(s):\n    return 0", "assert f('ééééééé') == 0\nassert f('😀a') == 5\nassert f('\\u00e9\\n') == 2", count);
    expect(r.map((l) => l.corrected)).toEqual(["assert f('ééééééé') == 7", "assert f('😀a') == 2", "assert f('\\u00e9\\n') == 2"]);
    expect(r.map((l) => l.validity)).toEqual(["wrong-answer", "wrong-answer", "valid"]);
  });

  it("corrected lines of infinite and nested outputs parse back to the reference output", async () => {
    const task = { id: "nest", entry_point: "f", reference: "def f(n):\n    return [float('inf') * n, -float('inf'), {(1, 'a'): {2}}, set(), (n,), -0.0]" };
    const [r] = await lines("def f(n):\n    return 0", "assert f(1) == 0", task);
    expect(r.validity).toBe("wrong-answer");
    expect(r.corrected).toBe("assert f(1) == [1e999, -1e999, {(1, 'a'): {2}}, set(), (1,), -0.0]");
    // Fed back as a generated line, the corrected answer is the reference output: valid.
    const [again] = await lines("def f(n):\n    return 0", r.corrected!, task);
    expect(again.validity).toBe("valid");
  });

  it("an output whose literal does not fit a test line (an int of 5,000 digits) makes the line invalid: the grader writes no line it would refuse", async () => {
    const task = { id: "huge", entry_point: "f", reference: "def f(n):\n    return 7 ** 6000 * n" };
    const [r] = await lines("def f(n):\n    return 0", "assert f(1) == 0", task);
    expect(r).toEqual(v("invalid", "skipped"));
    expect(r.reason).toMatch(/^reference output has no literal form: it does not fit a test line/);
    // An int of 600 digits still does: its corrected line is read back as valid.
    const big = { id: "big", entry_point: "f", reference: "def f(n):\n    return 7 ** 700 * n" };
    const [b] = await lines("def f(n):\n    return 0", "assert f(1) == 0", big);
    expect(BigInt(b.corrected!.split(" == ")[1])).toBe(7n ** 700n);
    const [again] = await lines("def f(n):\n    return 0", b.corrected!, big);
    expect(again.validity).toBe("valid");
  });

  it("a reference output with no literal form (a frozenset) makes the line invalid", async () => {
    const task = { id: "fs", entry_point: "f", reference: "def f(n):\n    return frozenset([n])" };
    const [r] = await lines("def f(n):\n    return 0", "assert f(1) == 0", task);
    expect(r).toEqual(v("invalid", "skipped"));
    expect(r.reason).toContain("no literal form");
  });

  it("arguments are passed as the line wrote them: dict and set order, the sign of zero", async () => {
    const listed = { id: "list", entry_point: "f", reference: "def f(d):\n    return list(d)" };
    const r = await lines("def f(d):\n    return list(d)", "assert f({'b': 1, 'a': 2}) == ['b', 'a']\nassert f([3, 1]) == [3, 1]", listed);
    expect(r.map((l) => `${l.validity}/${l.verdict}`)).toEqual(["valid/pass", "valid/pass"]);
    const sign = { id: "sign", entry_point: "f", reference: "import math\ndef f(x):\n    return math.copysign(1, x)" };
    const [z] = await lines("import math\ndef f(x):\n    return math.copysign(1, x)", "assert f(-0.0) == -1.0", sign);
    expect([z.validity, z.verdict, z.corrected]).toEqual(["valid", "pass", "assert f(-0.0) == -1.0"]);
  });

  it("calls that differ only in dict order or the sign of zero are different calls, across candidates too", async () => {
    const listed = { id: "list", entry_point: "f", reference: "def f(d):\n    return list(d)" };
    const sign = { id: "sign", entry_point: "f", reference: "import math\ndef f(x):\n    return math.copysign(1.0, x)" };
    const honest = ["def f(d):\n    return list(d)", "import math\ndef f(x):\n    return math.copysign(1.0, x)"];
    const r = await grader.grade({
      tasks: [listed, sign],
      codes: [0, 0, 1, 1].map((i) => ({ task: i ? "sign" : "list", code: honest[i] })),
      suites: [
        { code: 0, text: "assert f({1: 0, 2: 0}) == [1, 2]\nassert f({2: 0, 1: 0}) == [2, 1]" },
        { code: 1, text: "assert f({2: 0, 1: 0}) == [2, 1]" },
        { code: 2, text: "assert f(0.0) == 1.0" },
        { code: 3, text: "assert f(-0.0) == -1.0" },
      ],
    });
    expect(r.suites.map((s) => s.map((l) => `${l.validity}/${l.verdict}`))).toEqual([["valid/pass", "valid/pass"], ["valid/pass"], ["valid/pass"], ["valid/pass"]]);
  });

  it("set arguments iterate in the order CPython builds the line's display", async () => {
    const listed = { id: "setlist", entry_point: "f", reference: "def f(s):\n    return list(s)" };
    const honest = "def f(s):\n    return list(s)";
    // What CPython (Pyodide's, hash seed 0) gives for list() of these displays.
    const [a, b] = await lines(honest, "assert f({-6, 7, -8, 1, 18, -25, -4, 17, -30}) == [1, -30, 7, -25, 17, 18, -8, -6, -4]\nassert f({5, -3}) == [-3, 5]", listed);
    expect([a.validity, a.verdict, b.validity, b.verdict]).toEqual(["valid", "pass", "valid", "pass"]);
  });

  it("a line blank to Python but not to JavaScript, in a batch large enough to split the judge's work", async () => {
    const echo = { id: "echo", entry_point: "f", reference: "def f(s):\n    return s" };
    const long = (n: number) => Array.from({ length: 8 }, (_, k) => `assert f('${"😀".repeat(900 - k - n)}') == ''`).join("\n");
    const suites = Array.from({ length: 20 }, (_, c) => ({ code: c, text: long(c) }));
    suites.push({ code: 20, text: "assert f('a') == 'a'\n\x1c\nassert f('b') == 'b'" });
    const r = await grader.grade({ tasks: [echo], codes: suites.map(() => ({ task: "echo", code: "def f(s):\n    return s" })), suites, limits: { test_ms: 5000 } });
    expect(r.suites[20].map((l) => `${l.validity}/${l.verdict}`)).toEqual(["valid/pass", "valid/pass"]);
    expect(r.suites[0].every((l) => l.validity === "wrong-answer" && l.verdict === "pass")).toBe(true);
  }, 120_000);

  it("a str of surrogate code points is not the character they would pair into", async () => {
    const length = { id: "len", entry_point: "f", reference: "def f(s):\n    return len(s)" };
    const [pair] = await lines("def f(s):\n    return len(s)", "assert f('\\ud83d\\ude00') == 2\nassert f('\\U0001F600') == 1", length);
    expect([pair.validity, pair.verdict]).toEqual(["valid", "pass"]);
    const r = await grader.grade({
      tasks: [length],
      codes: [{ task: "len", code: "def f(s):\n    return '\\ud83d\\ude00'" }, { task: "len", code: "def f(s):\n    return '\\U0001F600'" }],
      golden: [0, 1].map((code) => ({ code, text: "assert f('') == '\\U0001F600'" })),
    });
    expect(r.golden.map((s) => s[0].verdict)).toEqual(["fail", "pass"]);
  });

  it("set iteration order is the same for the reference and the candidate, before and after a kill", async () => {
    const task = { id: "uniq", entry_point: "f", reference: "def f(ws):\n    return list(set(ws))" };
    const same = "def f(ws):\n    return list(set(ws))";
    const suite = "assert f(['fig', 'apple', 'pear', 'kiwi', 'lime', 'plum']) == []";
    const r = await grader.grade({
      tasks: [task],
      codes: [same, "def f(ws):\n    return sum(range(10 ** 15))", same].map((code) => ({ task: "uniq", code })),
      suites: [0, 1, 2].map((code) => ({ code, text: suite })),
      limits: { test_ms: 300 },
    });
    expect(r.suites.map((s) => s[0].verdict)).toEqual(["pass", "timeout", "pass"]);
  });

  it("a suite whose lines make the reference loop in C costs one kill: its other lines are not run, other suites are", async () => {
    const task = { id: "sum", entry_point: "f", reference: "def f(n):\n    return sum(range(n))" };
    const slow = Array.from({ length: 4 }, (_, i) => `assert f(${10 ** 15 + i}) == 0`).join("\n");
    const r = await grader.grade({
      tasks: [task],
      codes: [0, 1].map(() => ({ task: "sum", code: "def f(n):\n    return n * (n - 1) // 2" })),
      suites: [{ code: 0, text: slow }, { code: 1, text: `assert f(10) == 45\n${slow.split("\n")[1]}` }],
      limits: { test_ms: 200 },
    });
    expect(r.suites[0].map((l) => l.validity)).toEqual(["invalid", "invalid", "invalid", "invalid"]);
    expect(r.suites[0][0].reason).toMatch(/^reference timed out/);
    expect(r.suites[0][2].reason).toContain("reference not run");
    // The other suite's own lines are judged on their own (its second line was never run for suite 0).
    expect(r.suites[1].map((l) => `${l.validity}/${l.verdict}`)).toEqual(["valid/pass", "invalid/skipped"]);
    expect(r.suites[1][1].reason).toMatch(/^reference timed out/);
  }, 60_000);

  it("every line of a suite gets its corrected line, and a carriage return ends a line as in Python", async () => {
    const r = await lines(GOOD, "assert f([1, 2]) == 2\rassert f([3]) == 4\r\nassert f([5, 6]) == 6");
    expect(r.map((l) => l.corrected)).toEqual(["assert f([1, 2]) == 2", "assert f([3]) == 3", "assert f([5, 6]) == 6"]);
    const [cut] = await lines(GOOD, "assert (\rf([1])) == 1");
    expect(cut.validity).toBe("invalid");
  });

  it("an oversized line or literal is invalid, never a failed batch", async () => {
    const long = `assert f([${"1, ".repeat(1500)}1]) == 1`;
    const digits = `assert f(${"9".repeat(4400)}) == 1`;
    const r = await grader.grade({
      tasks: [MAX],
      codes: [{ task: "max", code: GOOD }],
      // The valid line first: a line refused unread refuses the lines after it (round 17).
      suites: [{ code: 0, text: ["assert f([1, 2]) == 2", long, digits].join("\n") }, { code: 0, text: digits }],
    });
    expect(r.suites[0].map((l) => `${l.validity}/${l.verdict}`)).toEqual(["valid/pass", "invalid/skipped", "invalid/skipped"]);
    expect(r.suites[0][1].reason).toContain("line too long");
    expect(r.suites[1][0].reason).toContain("line too long");
  });

  it("a huge returned value is charged to its candidate, and the batch goes on", async () => {
    const codes = ["def f(xs):\n    return set(range(500 * 500))", "def f(xs):\n    return {str(i) * 50 for i in range(20000)}", GOOD];
    const r = await grader.grade({
      tasks: [MAX],
      codes: codes.map((code) => ({ task: "max", code })),
      suites: codes.map((_, code) => ({ code, text: "assert f([1, 5]) == 5\nassert f([2]) == 2" })),
      limits: { test_ms: 2000 },
    });
    // A value not read in full fails its line. Builtin through and through (walked up to 200,000
    // values), it is a plain wrong answer and the next line is graded (round 49); past that walk it
    // may hold a program's object, so the rest of its suite is refused (round 23): an error.
    expect(r.suites.map((s) => s.map((l) => l.verdict))).toEqual([["fail", "error"], ["fail", "fail"], ["pass", "pass"]]);
    expect(r.suites[0][0].reason).toContain("too large");
    expect(r.suites[0][1].reason).toMatch(/not graded: line 1 left the program in a state/);
    expect(r.suites[1][0].reason).toMatch(/^returned a value with no literal form: too large/);
  });
});

describe("progress", () => {
  it("reports typed progress events ending at done === total", async () => {
    const events: GradeProgress[] = [];
    await grader.grade(
      { tasks: [MAX], codes: [{ task: "max", code: GOOD }], suites: [{ code: 0, text: "assert f([1]) == 1\nassert f([2]) == 2" }] },
      (p) => events.push(p),
    );
    const last = events[events.length - 1];
    // steps: reference load, 2 reference calls, candidate load, 2 calls
    expect(last).toEqual({ phase: "grade", done: 6, total: 6, text: "graded" });
    for (const e of events) expect(e.done).toBeLessThanOrEqual(e.total);
  });
});

describe("bad requests", () => {
  it.each([
    [{ tasks: [], codes: [{ task: "nope", code: "" }] }, 'codes[0].task "nope" is not a task id'],
    [{ tasks: [MAX], codes: [], suites: [{ code: 0, text: "" }] }, "suites[0].code must index codes"],
    [{ tasks: [MAX, MAX], codes: [] }, 'tasks[1].id "max" is repeated'],
    [{ tasks: [{ ...MAX, entry_point: "f(x)" }], codes: [] }, "is not a Python identifier"],
    [{ tasks: [], codes: [], limits: { test_ms: 0 } }, "limits.test_ms must be an integer"],
    [{ tasks: [], codes: [], limits: { time: 5 } }, "limits.time is unknown"],
    [{ tasks: [], codes: [], limits: JSON.parse('{"__proto__": {"test_ms": 5}}') }, "limits.__proto__ is unknown"],
    [{ tasks: [], codes: [], limits: { constructor: 5 } }, "limits.constructor is unknown"],
    [{ tasks: [], codes: [], limits: { toString: 5 } }, "limits.toString is unknown"],
    [{ tasks: [{ ...MAX, entry_point: "a".repeat(65) }], codes: [] }, "is not a Python identifier"],
  ])("%j is refused", async (request, message) => {
    const err = await grader.grade(request as unknown as GradeRequest).catch((e: Error) => e);
    expect(err).toBeInstanceOf(GradeRequestError);
    expect((err as Error).message).toContain(message);
  });
});
