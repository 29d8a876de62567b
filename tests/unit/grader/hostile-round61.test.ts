/**
 * Round 61 (issue 27, stranger, on the worktree's tip): the judge's side of a generated line, what a
 * program learns in its step, and Mistake Book replays. Truth is a clean Pyodide (clean-python.ts: the
 * program exec'd, then ONE suite's lines in its namespace, as CPython runs each suite in a process of
 * its own); a wrong-answer line's truth is its corrected line (types.ts `LineResult.corrected`: "the
 * line as the candidate was judged on it", which the Mistake Book stores and replays).
 *
 * Class A (found; fixed: a wrong answer's step sends its corrected line, verdicts.ts `candidateLines`): a WRONG-ANSWER line is graded on the program's interpreter after compiling
 * the Test policy's ORIGINAL text (its wrong answer), not the corrected line it is judged on. The
 * runner compiles each line's text in the program's interpreter inside the call's step (harness.py
 * `_call`, `_compile_line`: a SyntaxWarning runs the program's warning hooks; name-like str constants
 * are interned), and verdicts.ts `candidateLines` sends it `texts[n]`, the suite's line as written. For
 * `assert f('a') == '\d'` (reference: len, so corrected to `assert f('a') == 1`) the program's hook
 * runs (an invalid escape in the WRONG answer: a SyntaxWarning) where CPython, running the corrected
 * line, compiles no warning; for `assert f('a') == 'zqxw'` the str 'zqxw' is interned where CPython's
 * corrected line never writes it. A program that looks (its warning hook, `sys.intern(t) is t`)
 * passes the line where CPython fails it (A1, A3) and fails it where CPython passes (A2), and the
 * grader contradicts itself: the Mistake Book replay of that very corrected line (a golden suite of its
 * own) gets CPython's verdict, the generated suite the other. The program learns that the Test policy
 * wrote a wrong answer (and what it wrote) before the call it is graded on: R_adv, the Mistake Book
 * (a "failed" test a replay passes) and R_C follow the grader's verdict.
 * Root cause: verdicts.ts `candidateLines` (`add(group, line, texts[n])`: the Call's `src` is the
 * original line for a wrong-answer line too) with harness.py `_call` (compiles `src` in the program's
 * interpreter before the call, as CPython would compile the line it runs).
 * Fix (suggested): for a wrong-answer line, send the runners the line CPython would run, the original
 * text with its answer's span replaced by the reference's literal (the judge knows the answer node's
 * offsets; `sets` then counts the reference literal's `set()`s), or simply the corrected line
 * (`judgeLine`'s `corrected`) with the call's span kept as written; a valid line keeps its own text.
 *
 * What held (kept below as passing tests, "held"): a VALID line with the same warning in its answer is
 * graded as CPython runs it (the hook runs in both); an honest program beside the hostile ones gets
 * CPython's verdicts; the reference's per-call reload answers the wrong-answer line as alone. By reading
 * (not kept): the corrected line always reads back (callSrc is cut from a one-line statement; `_lit`
 * escapes every line break), `markRepeats` re-validates only lines with an answer (no refused line
 * carries one), a Mistake Book test is one line (`isOneTestLine`), a reference unit's failed load
 * cannot come from a line's arguments (the load runs first, on the snapshot), the judge's stderr is
 * discarded (a warning flood blocks nothing).
 * Not reached: the judge's restore timer with hostile literal arguments; the warm spare.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython, freshTruth } from "./clean-python.ts";
import { UNWARN } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();

const REF = "def f(s):\n    return len(s)";
const PRELUDE = "import collections\n_w = collections._sys.modules['warnings']\n_w.simplefilter('always')\nseen = []\n_w.showwarning = lambda *a, **k: seen.append(1)\n";
/** Right only where a warning ran (the wrong answer's compile): CPython's corrected line fails it. */
const SEES = PRELUDE + "def f(s):\n    return len(s) if seen else 0";
/** Right only where no warning ran: CPython's corrected line passes it. */
const BLIND = PRELUDE + "def f(s):\n    return 0 if seen else len(s)";
/** Right only where the str 'zqxw' was interned before the call (no warning involved). */
const INTERN = "import collections\n_sys = collections._sys\ndef f(s):\n    t = ''.join(['zq', 'xw'])\n    return len(s) if _sys.intern(t) is not t else 0";

async function grade(codes: string[], suites: string[][], golden: string[][] = []) {
  const r = await grader.grade({
    tasks: [{ id: "t", entry_point: "f", reference: REF }],
    codes: codes.map((code) => ({ task: "t", code })),
    suites: codes.flatMap((_, c) => suites.map((l) => ({ code: c, text: l.join("\n") }))),
    golden: codes.flatMap((_, c) => golden.map((l) => ({ code: c, text: l.join("\n") }))),
    limits: { test_ms: 1000, max_lines: 8 },
  });
  const n = suites.length;
  const m = golden.length;
  return codes.map((_, c) => ({
    suites: r.suites.slice(c * n, (c + 1) * n).map((s) => s.map((l) => `${l.validity}/${l.verdict}`)),
    corrected: r.suites.slice(c * n, (c + 1) * n).map((s) => s.map((l) => l.corrected ?? null)),
    golden: r.golden.slice(c * m, (c + 1) * m).map((s) => s.map((l) => `${l.validity}/${l.verdict}`)),
  }));
}

describe("A: a wrong-answer line is compiled as the Test policy wrote it, not as it is judged (corrected)", () => {
  // The Test policy's answer '\d' is wrong (len('a') is 1) and warns at compile (invalid escape).
  const WRONG = ["assert f('a') == '\\d'"];
  const CORRECTED = "assert f('a') == 1";

  it("A1-A2: a program that watches its warning hook passes (fails) the line where CPython's corrected line fails (passes)", async () => {
    // CPython, running the corrected line: no warning, so SEES returns 0 (fails), BLIND returns 1 (holds).
    expect(suiteTruth(SEES, [CORRECTED, UNWARN])[0]).toBe(false);
    expect(suiteTruth(BLIND, [CORRECTED, UNWARN])[0]).toBe(true);
    // (Control: the Test policy's own text does warn in CPython, so the hook is what tells them apart.)
    expect(suiteTruth(SEES, [...WRONG, UNWARN])[0]).toBe(false); // 1 != '\\d' either way
    const [sees, blind, honest] = await grade([SEES, BLIND, REF], [WRONG], [[CORRECTED]]);
    // Held: the line is wrong-answer, corrected to the reference's output; the honest program passes it.
    expect(sees.corrected).toEqual([[CORRECTED]]);
    expect(honest.suites).toEqual([["wrong-answer/pass"]]);
    // Held: the Mistake Book replay of the corrected line (a golden suite of its own) is CPython's.
    expect({ sees: sees.golden, blind: blind.golden }).toEqual({ sees: [["valid/fail"]], blind: [["valid/pass"]] });
    // App: sees wrong-answer/pass (it saw the Test policy's wrong answer compile), blind wrong-answer/fail.
    expect({ sees: sees.suites, blind: blind.suites }).toEqual({ sees: [["wrong-answer/fail"]], blind: [["wrong-answer/pass"]] });
  }, 60_000);

  it("A3: without any warning, the wrong answer's interned str tells the program (sys.intern)", async () => {
    const wrong = ["assert f('a') == 'zqxw'"];
    // CPython (a fresh interpreter: its intern table has no 'zqxw'): the corrected line fails INTERN.
    expect((await freshTruth(INTERN, [CORRECTED]))[0]).toBe(false);
    const [mine, honest] = await grade([INTERN, REF], [wrong], [[CORRECTED]]);
    expect(honest.suites).toEqual([["wrong-answer/pass"]]);
    expect(mine.corrected).toEqual([[CORRECTED]]);
    expect(mine.golden).toEqual([["valid/fail"]]); // held: the replay is CPython's
    // App: wrong-answer/pass ('zqxw', the Test policy's wrong answer, interned by the line's compile).
    expect(mine.suites).toEqual([["wrong-answer/fail"]]);
  }, 60_000);
});

describe("held: a valid line's own text is what CPython runs", () => {
  it("H1: a valid line whose answer warns runs the hook in both", async () => {
    // `'\d'` in the call's own arguments: the line is true as written (len('\\d') == 2).
    const line = "assert f('\\d') == 2";
    expect(suiteTruth(SEES, [line, UNWARN])[0]).toBe(true);
    expect(suiteTruth(BLIND, [line, UNWARN])[0]).toBe(false);
    const [sees, blind, honest] = await grade([SEES, BLIND, REF], [[line]]);
    expect(honest.suites).toEqual([["valid/pass"]]);
    expect({ sees: sees.suites, blind: blind.suites }).toEqual({ sees: [["valid/pass"]], blind: [["valid/fail"]] });
  }, 60_000);
});
