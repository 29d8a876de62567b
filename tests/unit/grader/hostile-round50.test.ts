/**
 * Round 50: a stranger agent on attack50, ~25 minutes, on ea1de7a. NO NEW CLASS FOUND: this file
 * holds no reproducer, the record of what was tried and held, and the probes as a regression corpus.
 *
 * Direction: the judge's reading of lines (harness.py `_parse_line`, `_literal`, `_opaque`,
 * `_call_of`), shapes the line fuzzer (scripts/bench/line-fuzz.ts) does not generate. Each probe was
 * graded through the real grader, as a generated suite and as a golden suite (`gradeOne`,
 * `gradeGolden`), with the reference `def f(*a): return a[0] if len(a) == 1 else list(a)` graded as
 * the candidate. The probe line came first and an honest line after it. The results were compared
 * with a clean Pyodide 3.14 (`suiteTruth`). No verdict contradicted CPython. Every divergence was a
 * refusal (`invalid/`), a documented one ("types are kept": `assert f(1) == True` is
 * `wrong-answer/pass` generated, `valid/fail` golden), or an opaque cut of the next line.
 *   - Number forms the fuzzer does not write: `0_0`, `0e0`, `1.e1_0`, `0x_F`, `-0` as an answer,
 *     `f(-0.0) == 0.0`: valid/pass, as in CPython.
 *   - String prefixes and forms: `U'x'` and `"""a"""` are valid/pass. `Rb'x'` (bytes), `f'x'`,
 *     `'x' f''` (a JoinedStr with no field) and 3.14's `t'x'` (TemplateStr) are refused, and the
 *     lines after them are cut as opaque. That is conservative; CPython runs nothing more there.
 *   - A leading BOM (`\ufeffassert ...`): both parsers call it a syntax error. The line is invalid,
 *     not opaque, and the next line passes, as in CPython.
 *   - Chained and other comparisons: `== 1 == 1.0`, `is 1`, `== 1 != 2 < 3`, `in (1, 2)`,
 *     `== 1 in {1: 2}`. Each is a side call, the next line graded. `not f(0)`, `and`, `or f(9)` and
 *     `if/else` are opaque.
 *   - Messages: `(yield)` and `(await 1)` (the parser takes both, the compiler refuses them; CPython
 *     runs nothing) are opaque, so conservative. `'a' 'b'`, `()`, `not 1`, `-1` and `{1: [2]}` are
 *     side calls. An unhashable message literal (`{[]: 1}`, `{1, []}`), which CPython builds only when
 *     the assert fails, is a side call, and the line after it is graded as in CPython.
 *   - Unhashable literals in chained comparisons (`f(1) == 1 != {[]: 1}`,
 *     `f(1) == 1 in {[1]: 2}`, `f(1) in {(1, [2])}`): side calls, CPython false, the next line
 *     graded, as CPython.
 *   - `-True` as an answer: refused, not opaque (no warning at run time, unlike `~`, which is
 *     opaque since round 25). `~0` is opaque. `(lambda: 0)` is opaque.
 *   - Dict or list displays with `**{}` or `*()` in arguments: refused and opaque.
 *   - A trailing `;`, a trailing comment, parentheses around the whole test, a trailing comma in the
 *     call: valid/pass.
 * Read, not probed to the end: `_parse_suite` against the per-line parse (blank-line filtering is
 * shared with verdicts.ts `suiteLines`, which round 47 checked; a statement spanning lines or a future
 * import falls back line by line). The corrected call's spans (AST offsets of literal nodes,
 * parenthesised tuples included). `_call`'s name-load check of the line compiled in the program's
 * interpreter. The module reload's cached code object (keyed by the source, restored between units).
 * Left for a later round: the warm spare's start path, and load-time state (signal handlers,
 * pending finalizers of a previous suite's namespace released during the next suite's load).
 *
 * The probes are kept as a regression corpus (the agent's probe file was not): each odd but valid
 * line, then an honest line, as a golden suite of the reference graded as a candidate; every verdict
 * must be CPython's or a refusal, never the contrary.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();

const REF = "def f(*a):\n    return a[0] if len(a) == 1 else list(a)";
const HONEST = "assert f(7) == 7";
const PROBES = [
  // Number forms and the sign of zero.
  "assert f(0_0) == 0", "assert f(0e0) == 0.0", "assert f(1.e1_0) == 1e10", "assert f(0x_F) == 15", "assert f(-0.0) == 0.0",
  // String prefixes and forms.
  "assert f(U'x') == 'x'", 'assert f("""a""") == \'a\'', "assert f(Rb'x') == b'x'", "assert f(f'x') == 'x'",
  // Comparisons of other shapes (refused; the call still made).
  "assert f(1) == 1 == 1.0", "assert f(1) == 1 != 2 < 3", "assert f(1) in (1, 2)", "assert f(1) == 1 in {1: 2}",
  // Messages, built only when the assert fails; one CPython cannot build.
  "assert f(1) == 1, {[]: 1}", "assert f(2) == 1, {[]: 1}", "assert f(1) == 1, 'a' 'b'",
  // Unhashable literals in a chained comparison.
  "assert f(1) == 1 != {[]: 1}", "assert f(1) in {(1, [2])}",
  // Punctuation: a trailing semicolon, a comment, brackets, a trailing comma.
  "assert f(1) == 1;", "assert f(1) == 1  # a comment", "assert (f(1) == 1)", "assert f(1,) == 1",
  // Signs and boolean operators.
  "assert f(-True) == -1", "assert not f(0)", "assert f(0) or f(9)",
];

describe("round 50: odd but valid lines get CPython's verdict or a refusal, and so does the line after them", () => {
  for (const probe of PROBES) {
    it(JSON.stringify(probe), async () => {
      const lines = [probe, HONEST];
      const truth = suiteTruth(REF, lines);
      expect(truth[1]).toBe(true);
      const got = await gradeGolden(grader, "f", REF, lines, REF);
      got.forEach((v, n) => expect(v, `line ${n + 1}: CPython ${truth[n]}; the grader ${got.join(" | ")}`).toMatch(truth[n] ? /^valid\/pass$|^invalid\// : /^valid\/fail$|^invalid\//));
    }, 120_000);
  }
});
