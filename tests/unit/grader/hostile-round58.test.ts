/**
 * Round 58 (stranger, on 526c7a8: round 55/57's restore before `done` timed as the unit's own, a
 * retired unit's later suites `error` (not run); and test lines as the Test policy writes them).
 * Truth is a clean Pyodide (clean-python.ts): the program exec'd, then ONE suite's lines in its
 * namespace, each line exec'd on its own.
 *
 * No class found (35 minutes). Every test here holds on 526c7a8 and is a regression corpus.
 *
 * What held (passing tests):
 * - 46 odd lines, each a generated and a golden suite of its own on the reference: form feeds before
 *   and after, underscored hex/bin/oct/float literals, -0.0, 1e999/-1e999, dicts with 1/1.0/True and
 *   0/0.0/-0.0 keys, {1, 1.0, True}, {-0.0, 0}, a full-width entry point, (f), trailing `;` and
 *   comments, U+2028/U+2029/U+0085 inside string literals (not line ends: str.splitlines would
 *   split them, the grader does not), implicit concatenation, raw strings, \N{} escapes, non-BMP
 *   characters against \U escapes, surrogate pairs written as escapes (not the emoji), a 62-digit
 *   hex int, trailing-comma and parenthesised arguments, set(), a BOM or NBSP in the line
 *   (CPython's syntax errors), a trailing backslash, messages, chained comparisons, `is`, 1j. Each
 *   verdict is CPython's or a refusal; the corrected lines read back.
 * - A suite with \r, \r\n, \n, and blank lines of \x1c, U+2028, U+3000, U+0085: each verdict lands
 *   on its own line (verdicts.ts `suiteLines` and harness `plan` split and filter alike; all 29 code
 *   points Python's str.strip() drops match PYTHON_BLANK, checked over all of Unicode in scratch).
 * - A backslash continuation (`pass; \` then an indented ` assert f(2) == 0`): the judge's
 *   one-compile parse (harness `_parse_suite`) reads two statements on lines 1 and 2 and takes line 2
 *   as valid, where CPython's exec of either line alone is a SyntaxError; the line's own compile in
 *   the program's interpreter (harness `_call`) refuses it (`invalid`: the reference's compile
 *   fails; golden: `error`), so no verdict is graded on the joint reading. By reading: a joint parse
 *   can only differ from the per-line one by continuation (indentation after it) and a line's BOM,
 *   and only in what compiles, never in a constant's value; the recompile checks compiling and names.
 * - By scratch measurement: 3,000 random 3-30-element int set displays (colliding hashes, wrap-
 *   around near the table's end) iterate in CPython as `_build_set` builds them.
 * - By reading only (round 55/57): no honest program found that retires a sandbox before its last
 *   unit (fitness with `more` checks only intrinsics, the file system, libraries, the function
 *   table); the restore budget (test_ms + max(200, test_ms)) covers a touched heap's fill.
 * Not re-reported (documented, rule 5): types kept (`assert f(True) == 1` holds in CPython, the
 * grader says wrong-answer / golden `fail`) and the 1e-9 float tolerance.
 * Not reached: an honest program whose allocation reserves pages untouched (the restore's first
 * touch, ~5 s/GiB) under a small test_ms; `\N{}` decoding after a program replaced
 * `sys.modules['unicodedata']`; the judge's restore timer with a reference that grows the heap
 * untouched from literal arguments.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { OK_FAIL, OK_PASS, show } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();
/** The reference (and the candidate): its argument, or its arguments as a tuple. */
const REF = "def f(*a):\n    return a[0] if len(a) == 1 else a";
/** One odd but legal (or illegal) line each: Unicode, numeric forms, containers, syntax. Each is a suite of its own. */
const LINES = [
  "\x0cassert f(1) == 1",
  "assert f(1) == 1\x0c",
  "assert f(0x_1F) == 31",
  "assert f(0b1_0) == 2",
  "assert f(0o17) == 15",
  "assert f(1_000.000_1) == 1000.0001",
  "assert f(-0.0) == 0.0",
  "assert f(1e999) == 1e999",
  "assert f(-1e999) == -1e999",
  "assert f({1: 'a', 1.0: 'b', True: 'c'}) == {1: 'c'}",
  "assert f({1, 1.0, True}) == {1}",
  "assert ｆ(1) == 1",
  "assert f(1) == 1 # 注释",
  "assert f('\u2028') == '\u2028'",
  "assert f('\x85') == '\x85'",
  "assert f('\u2029x') == '\u2029' 'x'",
  "assert f(((1, 2), (3,))) == ((1, 2), (3,))",
  "assert (f)(1) == 1",
  "assert f(1) == 1;",
  "assert f(1) == 1 ;  # c",
  'assert f("""a""") == \'a\'',
  "\ufeffassert f(1) == 1",
  "assert f(1) == 1\u00a0",
  "assert f(1)==1\\",
  "assert f(1) == 1, 'm'",
  "assert (f(1) == 1)",
  "assert f(1) == 1 == 1",
  "assert f('a' 'b') == 'ab'",
  "assert f(r'\\d') == '\\\\d'",
  "assert f('\\N{BULLET}') == '•'",
  "assert f('😀') == '\\U0001F600'",
  "assert f('\\ud83d\\ude00') == '😀'",
  "assert f(1, 2) == (1, 2)",
  "assert f(1,) == 1",
  "assert f((1)) == (1)",
  "assert f([]) == []",
  "assert f({}) == {}",
  "assert f(set()) == set()",
  "assert f({0: 1, 0.0: 2, -0.0: 3}) == {0: 3}",
  "assert f({-0.0, 0}) == {0.0}",
  "assert f(0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF) == 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF",
  "assert f(1) == 1\t# tab",
  "assert f(1) is 1",
  "assert f(-1) == -1 != 0",
  "assert f('ﬁ') == 'fi'",
  "assert f(1j) == 1j",
];

/** A generated line CPython calls false may also be `wrong-answer` (the grader says the line is wrong). */
const OK_FALSE_GENERATED = new RegExp(`${OK_FAIL.source}|^wrong-answer/`);
const WRONG = "def f(*a):\n    v = a[0] if len(a) == 1 else a\n    return 0 if v == 2 else v";

describe("held: odd test lines are read as CPython reads them (regression corpus)", () => {
  it("each line, a suite of its own, generated and golden, on the reference", async () => {
    const r = await grader.grade({
      tasks: [{ id: "t", entry_point: "f", reference: REF }],
      codes: [{ task: "t", code: REF }],
      suites: LINES.map((text) => ({ code: 0, text })),
      golden: LINES.map((text) => ({ code: 0, text })),
      limits: { test_ms: 1000, max_lines: 8 },
    });
    LINES.forEach((line, i) => {
      const truth = suiteTruth(REF, [line])[0];
      const [gen, gold] = [r.suites[i], r.golden[i]].map((s) => s.map(show));
      expect(gen.length, JSON.stringify(line)).toBe(1);
      expect(gen[0], `${JSON.stringify(line)}: CPython ${truth}`).toMatch(truth ? OK_PASS : OK_FALSE_GENERATED);
      expect(gold[0], `${JSON.stringify(line)}: CPython ${truth}`).toMatch(truth ? OK_PASS : OK_FAIL);
    });
  }, 120_000);

  it("Python's line breaks and blank lines: each verdict lands on its own line", async () => {
    // \r, \r\n and \n end a line; \x1c, \x85, \u2028, \u3000 alone make a blank line (str.strip());
    // \f and \x0b inside a line do not end it.
    const text = "assert f(1) == 1\r\n\x1c\n\u2028\nassert f(2) == 2\rassert f(3) == 3\n\u3000\x85\n\x0cassert f(4) == 4\nassert f(2, 1) == (2, 1)";
    const lines = ["assert f(1) == 1", "assert f(2) == 2", "assert f(3) == 3", "\x0cassert f(4) == 4", "assert f(2, 1) == (2, 1)"];
    const truth = suiteTruth(WRONG, lines);
    expect(truth).toEqual([true, false, true, true, true]);
    const r = await grader.grade({
      tasks: [{ id: "t", entry_point: "f", reference: REF }],
      codes: [{ task: "t", code: WRONG }],
      suites: [{ code: 0, text }],
      golden: [{ code: 0, text }],
      limits: { test_ms: 1000, max_lines: 8 },
    });
    for (const got of [r.suites[0].map(show), r.golden[0].map(show)]) {
      expect(got, got.join(" | ")).toEqual(["valid/pass", "valid/fail", "valid/pass", "valid/pass", "valid/pass"]);
    }
  }, 120_000);

  it("a backslash continuation makes the judge's one-compile parse read an indented next line (its own compile refuses it)", async () => {
    // Joined, "pass; \\" and " assert f(2) == 0" are two statements on lines 1 and 2 (harness
    // `_parse_suite` accepts them); alone, each is a SyntaxError. The line's compile in the program's
    // interpreter (harness `_call`) is what keeps the plan's reading from being graded.
    const lines = ["pass; \\", " assert f(2) == 0", "assert f(3) == 3"];
    expect(suiteTruth(WRONG, lines)).toEqual([false, false, true]);
    const r = await grader.grade({
      tasks: [{ id: "t", entry_point: "f", reference: REF }],
      codes: [{ task: "t", code: WRONG }],
      suites: [{ code: 0, text: lines.join("\n") }],
      golden: [{ code: 0, text: lines.join("\n") }],
      limits: { test_ms: 1000, max_lines: 8 },
    });
    for (const got of [r.suites[0].map(show), r.golden[0].map(show)]) {
      expect(got[1], got.join(" | ")).toMatch(OK_FAIL);
      expect(got[1], got.join(" | ")).not.toMatch(/^valid\/pass/);
      expect(got[2], got.join(" | ")).toBe("valid/pass");
    }
  }, 120_000);
});
