/**
 * Round 3 of issue 27: what a stranger's attack on the redesigned grader found, each as a class,
 * graded by the real Node grader (real Pyodide, runner processes). docs/SECURITY.md, "How it was
 * attacked", lists what was tried and what held.
 *   - a candidate that hands JavaScript a Python object (a forged harness result): contained to its
 *     own lines, and later candidates are judged as a clean interpreter judges them (the late
 *     release itself is forced and checked in restore.test.ts, where the collector can be driven);
 *   - test lines whose plan outgrew a runner's event line (the judge was killed and the batch
 *     parsed line by line), and a suite longer than one judge request;
 *   - test lines whose reference takes just under the limit (a correct program then timed out by
 *     noise, and lost every later line);
 *   - a candidate that grows the heap by hundreds of MiB (every later restore paid to zero it).
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { SYS } from "../../hostile-python.ts";
import { referenceMs } from "../../../src/core/grader/supervisor.ts";
import type { GradeRequest } from "../../../src/core/grader/types.ts";

const grader = sharedNodeGrader();

const DOUBLE = { id: "double", entry_point: "f", reference: "def f(x):\n    return x * 2" };
const HONEST = "def f(x):\n    return x * 2";
const WRONG = "def f(x):\n    return x * 2 + (x == 3)";
const EIGHT = Array.from({ length: 8 }, (_, i) => `assert f(${i}) == ${2 * i}`).join("\n");

/** A candidate that rebinds the harness's `call` so that every step returns `what` (a Python object). */
const handsJavaScript = (what: string) =>
  `def f(x):\n    return x * 2\ndef _rebind():\n${SYS}    call = sys._getframe(2).f_globals['call']\n` +
  `    call.__code__ = (lambda args_text, literal: ${what}).__code__\n_rebind()`;

describe("Python objects handed to JavaScript", () => {
  it("cost only their own lines; honest and wrong candidates after them are judged as usual, in this batch and the next", async () => {
    const attacks = ["_state", "_state['builtins']", "[1, 2, 3]", "(lambda: 0)", "_state['ns']"];
    const codes: GradeRequest["codes"] = [];
    for (const what of attacks) codes.push({ task: "double", code: handsJavaScript(what) }, { task: "double", code: HONEST }, { task: "double", code: WRONG });
    const request: GradeRequest = { tasks: [DOUBLE], codes, suites: codes.map((_, code) => ({ code, text: EIGHT })), limits: { test_ms: 1000 } };
    for (let batch = 0; batch < 2; batch++) {
      const r = await grader.grade(request);
      codes.forEach((_, c) => {
        const verdicts = r.suites[c].map((l) => l.verdict);
        if (c % 3 === 0) {
          expect(verdicts).toEqual(Array(8).fill("error"));
          expect(r.suites[c][0].reason).toContain("not text");
        } else if (c % 3 === 1) expect(verdicts, JSON.stringify(r.suites[c])).toEqual(Array(8).fill("pass"));
        else expect(verdicts, JSON.stringify(r.suites[c])).toEqual(["pass", "pass", "pass", "fail", "pass", "pass", "pass", "pass"]);
      });
    }
  }, 300_000);
});

describe("plans that outgrow a runner's event line", () => {
  /** A 2,000-character line whose argument is a list of about 990 zeros (16 characters of plan each). */
  const longLine = (tag: number) => {
    const head = `assert f([${tag}`;
    const tail = "]) == 0";
    return head + ",0".repeat((2000 - head.length - tail.length) >> 1) + tail;
  };
  const ZERO = { id: "zero", entry_point: "f", reference: "def f(xs):\n    return 0" };

  it("16 suites of 8 literal-heavy 2,000-character lines: every line valid, no judge restart", async () => {
    const codes = Array.from({ length: 16 }, () => ({ task: "zero", code: "def f(xs):\n    return len(xs) * 0" }));
    const suites = codes.map((_, code) => ({ code, text: Array.from({ length: 8 }, (_, j) => longLine(code * 10 + j)).join("\n") }));
    expect(suites[0].text.split("\n").every((l) => l.length === 2000)).toBe(true);
    const judges = grader.judgeSpawns;
    const r = await grader.grade({ tasks: [ZERO], codes, suites });
    expect(r.suites.flat().map((l) => `${l.validity}/${l.verdict}`)).toEqual(Array(128).fill("valid/pass"));
    expect(grader.judgeSpawns - judges).toBe(0);
  }, 300_000);

  it("the costliest characters (astral, 36 characters of plan each) still make valid lines, 8 suites of them in one batch", async () => {
    const emoji = (n: number) => `assert f(['${"\u{1F600}".repeat(1975)}', ${n}]) == 0`;
    expect([...emoji(0)].length).toBeLessThanOrEqual(2000);
    const codes = Array.from({ length: 8 }, () => ({ task: "zero", code: "def f(xs):\n    return 0" }));
    const judges = grader.judgeSpawns;
    const r = await grader.grade({ tasks: [ZERO], codes, suites: codes.map((_, code) => ({ code, text: Array.from({ length: 8 }, (_, j) => emoji(code * 10 + j)).join("\n") })) });
    expect(r.suites.flat().map((l) => `${l.validity}/${l.verdict}`)).toEqual(Array(64).fill("valid/pass"));
    expect(grader.judgeSpawns - judges).toBe(0);
  }, 300_000);

  it("a suite longer than one judge request is parsed in parts: repeats across parts are still repeats", async () => {
    // 120 lines (max_lines 120): line 100 repeats line 3's call, line 110 repeats line 100's (itself a repeat).
    const lines = Array.from({ length: 120 }, (_, i) => longLine(i));
    lines[99] = lines[2];
    lines[109] = lines[2];
    const judges = grader.judgeSpawns;
    const r = await grader.grade({
      tasks: [ZERO],
      codes: [{ task: "zero", code: "def f(xs):\n    return 0" }],
      suites: [{ code: 0, text: lines.join("\n") }],
      limits: { max_lines: 120 },
    });
    const got = r.suites[0];
    expect(got).toHaveLength(120);
    expect(got.filter((l) => l.validity === "invalid").map((l) => l.reason)).toEqual(["repeats the call of line 3", "repeats the call of line 3"]);
    expect([got[99].validity, got[109].validity]).toEqual(["invalid", "invalid"]);
    expect(got.filter((l) => l.verdict === "pass")).toHaveLength(118);
    expect(grader.judgeSpawns - judges).toBe(0);
  }, 300_000);
});

describe("arguments that take the reference just under the limit", () => {
  it("a line whose reference needs more than half of test_ms is invalid: a valid line leaves a program as fast as the reference twice its time", async () => {
    // The reference waits (on the wall clock) as many ms as its argument says: 700 of 1000 ms used
    // to be a valid line that a correct program failed whenever the machine was 1.4x slower.
    const ref = `def f(ms):\n${SYS}    clock = sys.modules['time'].perf_counter\n    t = clock()\n    while clock() - t < ms / 1000:\n        pass\n    return 0`;
    const task = { id: "wait", entry_point: "f", reference: ref };
    const testMs = 1000;
    const r = await grader.grade({
      tasks: [task],
      codes: [{ task: "wait", code: ref }],
      suites: [{ code: 0, text: "assert f(20) == 0\nassert f(700) == 0" }],
      limits: { test_ms: testMs },
    });
    expect(r.suites[0].map((l) => `${l.validity}/${l.verdict}`)).toEqual(["valid/pass", "invalid/skipped"]);
    expect(r.suites[0][1].reason).toMatch(new RegExp(`^reference timed out: exceeded ${referenceMs(testMs)} ms`));
  }, 120_000);
});

describe("a heap grown past the snapshot by more than 64 MiB", () => {
  it("retires its sandbox after its unit; the next candidates are judged as usual", async () => {
    const grow = "def f(x):\n    big = bytearray(100 * 2 ** 20)\n    return x * 2 + len(big) * 0";
    const spawns = grader.spawns;
    const r = await grader.grade({
      tasks: [DOUBLE],
      codes: [grow, HONEST, WRONG].map((code) => ({ task: "double", code })),
      suites: [0, 1, 2].map((code) => ({ code, text: EIGHT })),
      limits: { test_ms: 3000 },
    });
    expect(r.suites.map((s) => s.map((l) => l.verdict).join(" "))).toEqual([
      Array(8).fill("pass").join(" "), Array(8).fill("pass").join(" "), "pass pass pass fail pass pass pass pass"]);
    expect(grader.spawns - spawns).toBe(1);
  }, 120_000);
});

describe("odd line shapes a stranger tries (no hints): read as CPython parses them, nothing evaluated", () => {
  // [line, validity]: valid lines are `assert ENTRY(literals) == literal` after Python's own parse.
  const SHAPES: [string, "valid" | "invalid"][] = [
    ["assert \uff46(1) == 2", "valid"], // full-width f: NFKC folds it to f
    ["assert \ud835\udc1f(2) == 4", "valid"], // mathematical bold f
    ["assert f(3) == 6 # a comment", "valid"],
    ["assert f(4) == 8; assert f(5) == 10", "invalid"],
    ["assert (y := f(6)) == 12", "invalid"],
    ["assert f.__call__(7) == 14", "invalid"],
    ["assert f(f(8)) == 32", "invalid"],
    ["assert f([i for i in range(3)]) == 0", "invalid"],
    ["assert f(lambda: 0) == 0", "invalid"],
    ["assert f(f\"{9}\") == '99'", "invalid"],
    ["assert f(10) == 20, 'message'", "invalid"],
    ["assert f(11) is 22", "invalid"],
    ["assert 24 == f(12)", "invalid"],
    ["assert f(13) == 26 == 26", "invalid"],
    ["assert f(14) == 28 or True", "invalid"],
    ["assert f(15) == 30 and f(16) == 32", "invalid"],
    ["assert not f(17) != 34", "invalid"],
    ["assert f(0x12) == 36", "valid"],
    ["assert f(1_9) == 38", "valid"],
    ["assert f(-20) == -40", "valid"],
    ["assert f(+21) == 42", "valid"],
    ["assert f(--22) == 44", "invalid"],
    ["assert (f)(23) == (46)", "valid"],
    ["assert f(24,) == 48", "valid"],
    ["assert f(*[25]) == 50", "invalid"],
    ["assert f(x=26) == 52", "invalid"],
    ["assert f(27) == 54 if True else 0", "invalid"],
    ["assert f(b'a') == b'aa'", "invalid"],
    ["assert f(1j) == 2j", "invalid"],
    ["assert f(...) == 0", "invalid"],
    ["assert f(28)==56", "valid"],
    ["assert\tf(29) == 58", "valid"],
    ["  assert f(30) == 60", "invalid"],
    ["assert f(\ufb01) == 0", "invalid"], // a name (NFKC "fi") as an argument
    ["assert f('\\N{LATIN SMALL LIGATURE FFI}') == '\ufb03\ufb03'", "valid"],
    ["assert f(u'31') == '3131'", "valid"],
    ["assert f(1.5) == 3.0", "valid"],
    ["assert f(True) == 2", "valid"],
    ["assert f(32) == \\", "invalid"],
    ["assert f(33) == 66 \\", "invalid"],
    ["from __future__ import annotations", "invalid"],
    ["assert f(34) == 68 # \"\"\"", "valid"],
    ["assert f('''35''') == '3535'", "valid"],
    ["assert f(1e999) == 1e999", "valid"],
    [`assert f(${"(".repeat(120)}36${")".repeat(120)}) == 72`, "invalid"],
  ];

  // One suite per shape (a refused line that may bind a name or call refuses the lines after it in
  // its suite, round 17), all in one batch.
  it("each shape gets CPython's reading, a suite each in one batch, with no judge restart", async () => {
    const judges = grader.judgeSpawns;
    const r = await grader.grade({
      tasks: [DOUBLE],
      codes: [{ task: "double", code: HONEST }],
      suites: SHAPES.map(([line]) => ({ code: 0, text: line })),
    });
    const lines = r.suites.map((s) => s[0]);
    expect(lines.map((l, i) => `${SHAPES[i][0]} -> ${l.validity === "invalid" ? "invalid" : "valid"}`)).toEqual(SHAPES.map(([line, v]) => `${line} -> ${v}`));
    expect(lines.filter((l) => l.validity !== "invalid").every((l) => l.verdict === "pass")).toBe(true);
    expect(grader.judgeSpawns - judges).toBe(0);
  }, 120_000);
});

describe("a second round on the fixed grader (nothing got through)", () => {
  // Also tried, and contained, but each costs its candidate one runner start (seconds), so they are
  // not repeated here: a step text that is not JSON (a protocol break), an exception out of the
  // harness (its traceback looks up files: the file system changed), a wasm stack overflow in C
  // (hash of a 300,000-deep tuple). The hostile corpus has a crash and a protocol break of its own.
  /** Module-level code run at load in a candidate that otherwise doubles its argument. */
  const withLoad = (body: string) => `def f(x):\n    return x * 2\ndef _attack():\n${SYS}${body}\n_attack()`;
  const ATTACKS: { name: string; code: string; verdicts: string }[] = [
    { name: "rebind the harness's load for the next candidate", code: withLoad("    load = sys._getframe(2).f_globals['load']\n    load.__code__ = (lambda source, entry_point: '[\"ok\",\"\"]').__code__"), verdicts: "pass" },
    { name: "every step returns a forged canonical NaN", code: withLoad("    call = sys._getframe(2).f_globals['call']\n    call.__code__ = (lambda a, l: '[\"ok\",[\"f\",\"nan\"],\"\"]').__code__"), verdicts: "fail" },
    { name: "every step returns an int", code: withLoad("    call = sys._getframe(2).f_globals['call']\n    call.__code__ = (lambda a, l: 7).__code__"), verdicts: "error" },
    // Its release runs under the step's clock (the runner destroys it before the step ends).
    { name: "an object handed over whose __del__ loops", code: withLoad("    call = sys._getframe(2).f_globals['call']\n    call.__code__ = (lambda a, l: type('D', (), {'__del__': lambda s: [0 for _ in iter(int, 1)]})()).__code__"), verdicts: "timeout" },
  ];

  it("each attack costs only its own lines; honest and wrong candidates after each are judged as usual, in this batch and the next", async () => {
    const codes: GradeRequest["codes"] = [];
    for (const a of ATTACKS) codes.push({ task: "double", code: a.code }, { task: "double", code: HONEST }, { task: "double", code: WRONG });
    const request: GradeRequest = { tasks: [DOUBLE], codes, suites: codes.map((_, code) => ({ code, text: EIGHT })), limits: { test_ms: 1000 } };
    for (let batch = 0; batch < 2; batch++) {
      const r = await grader.grade(request);
      ATTACKS.forEach((a, i) => {
        const own = r.suites[3 * i].map((l) => l.verdict);
        // The first line tells the attack's class; whatever it cost its later lines, it is its own.
        expect(own[0], `${a.name}: ${JSON.stringify(r.suites[3 * i])}`).toBe(a.verdicts);
        expect(r.codes[3 * i + 1], a.name).toEqual({ status: "ok", reason: "" });
        expect(r.suites[3 * i + 1].map((l) => l.verdict), a.name).toEqual(Array(8).fill("pass"));
        expect(r.suites[3 * i + 2].map((l) => l.verdict), a.name).toEqual(["pass", "pass", "pass", "fail", "pass", "pass", "pass", "pass"]);
      });
    }
  }, 300_000);
});
