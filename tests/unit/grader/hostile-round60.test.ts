/**
 * Round 60 (issue 27, stranger, on the worktree's tip 1f50aeb "Round 59 A"): round 59 A's fix (a
 * candidate's first kill ends only its own suite; its later suites run on the replacing runner
 * without "the call in flight at the kill", known by its arguments: supervisor.ts `run` step 3,
 * `identity`, `killer`), and the kill's extra event-loop turn and the unit's restore timer. Truth is a
 * clean Pyodide (clean-python.ts: the program exec'd, then ONE suite's lines in its namespace, as
 * CPython runs each suite in a process of its own).
 *
 * Class A (found; fixed, with B: the killer is the step as sent, `callText`): a kill in a line's COMPILE is charged to the call's ARGUMENTS. The runner
 * compiles each line in the program's interpreter inside the call's step (harness.py `_call`,
 * `_compile_line`), where a SyntaxWarning runs the program's warning hooks, as CPython's compile does.
 * A program whose `warnings.showwarning` loops inside one C call (`sum(range(10 ** 15))`) is killed
 * while compiling `assert f('\d') == 2` (an invalid escape: a SyntaxWarning in 3.12+), before f is
 * called. The supervisor records the killer as `identity` = [argv, sets] = [["\\d"], 0], and in every
 * later suite skips the line `assert f('\\d') == 2` (the same argument, no warning) and the rest of
 * its suite as `timeout` (not run), where CPython, compiling that line with no warning, calls f and
 * passes it and every line after it. The rewards count those lines as failed (round 59 A's effect).
 * Root cause: supervisor.ts `run` (`identity`: the call's argv and set count only, not the line's
 * text, though the step that was killed compiles the line's text first) takes a call that never ran
 * as the one that hung.
 * Fix (suggested): identify the killer by the whole step as sent (`callText(call)`: the line's text,
 * its argv and sets), which compiles and calls alike in any suite (short of state, the open class);
 * or have the harness report a "compiled" mark before the call so that a kill in the compile is
 * charged to the text and one in the call to the arguments. Either stays within two kills.
 *
 * Class B (found; fixed): a first kill in a line the candidate only COMPILES (a refused line of
 * literals, ["C", text]: verdicts.ts `compileOnly`) still ends the candidate, round 59 A's class
 * unfixed on that path. `assert '\d' != 0` (refused: it calls nothing) is compiled in its place; the
 * program's showwarning loops in C; the kill's in-flight step has `identity` null, so `inFlight` is
 * null and `run.ended` is the kill's `timeout`: every later suite of the program (another rollout's,
 * each Mistake Book replay, the golden suite) is `timeout` (not run), where CPython passes them, and
 * rewards.ts/mistake-book.ts count them as bugs found.
 * Root cause: supervisor.ts `run` (`inFlight = ... identity(pending[...])`, null for a compile-only
 * step, read as "a load, a crash or a second kill").
 * Fix (suggested): with the killer known by its text (class A's fix), a compile-only step is a
 * killer like any other (`["C", text]`): later suites skip a line of that text only.
 *
 * What held (kept as passing tests below, "held"): an honest candidate after each hostile one gets
 * CPython's verdicts with no runner start of its own; each hostile candidate costs at most one start
 * here. By reading (not kept, for time): the in-flight index (`steps.length - 2`) is the killed call;
 * a restore-timer kill (`end(null, true)`) is `retired`, not `stopped`, and ends the candidate; a crash
 * after the unit's last step with an interrupted `timeout` last is taken as a first kill on that call
 * (a call that did time out: no verdict moves, still two starts at most); a load killed in a later suite
 * ends the candidate (two starts); the `expire` turn only delays a kill by one timer turn (a step
 * arriving in it is read, and the next arm() resets the timer to the next step's own limit).
 * Not reached: the rewards' arithmetic on these verdicts with a real grader (by reading the same as
 * round 59 A: `timeout` counted as failed), the warm spare beside a kill.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { UNWARN } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();

const REF = "def f(s):\n    return len(s)";
const PRELUDE = "import collections\n_w = collections._sys.modules['warnings']\n_w.simplefilter('always')\nseen = []\n";
/** Its showwarning loops inside one C call: the runner cannot interrupt it, the supervisor kills it. */
const HANG = PRELUDE + "def _hook(*a, **k):\n    sum(range(10 ** 15))\n_w.showwarning = _hook\ndef f(s):\n    return len(s)";
/** The same program with a hook that only records (for CPython's truth: where the hook runs). */
const WATCH = PRELUDE + "_w.showwarning = lambda *a, **k: seen.append(1)\ndef f(s):\n    return len(s) + 100 * len(seen)";

async function grade(code: string, suites: string[][], golden: string[][] = []) {
  const r = await grader.grade({
    tasks: [{ id: "t", entry_point: "f", reference: REF }],
    codes: [{ task: "t", code }, { task: "t", code: REF }],
    suites: [...suites.map((l) => ({ code: 0, text: l.join("\n") })), ...suites.map((l) => ({ code: 1, text: l.join("\n") }))],
    golden: [...golden.map((l) => ({ code: 0, text: l.join("\n") })), ...golden.map((l) => ({ code: 1, text: l.join("\n") }))],
    limits: { test_ms: 300, max_lines: 8 },
  });
  const v = (rows: typeof r.suites) => rows.map((s) => s.map((l) => `${l.validity}/${l.verdict}`));
  const n = suites.length;
  const m = golden.length;
  return { mine: v(r.suites.slice(0, n)), honest: v(r.suites.slice(n)), goldenMine: v(r.golden.slice(0, m)), goldenHonest: v(r.golden.slice(m)) };
}

describe("A: a kill in a line's compile (the program's warning hook) is charged to the call's arguments", () => {
  // Suite 1 writes '\d' (an invalid escape: SyntaxWarning at compile); suite 2 writes '\\d': the same argument, no warning.
  const S1 = ["assert f('a') == 1", "assert f('\\d') == 2"];
  const S2 = ["assert f('b') == 1", "assert f('\\\\d') == 2", "assert f('cd') == 2"];

  it("A1: a later suite's line with the same arguments and no warning is graded as CPython (it was timeout, not run)", async () => {
    // CPython: the hook runs while suite 1's second line compiles, before f is called (WATCH: f sees it),
    expect(suiteTruth(WATCH, [...S1, UNWARN]).slice(0, 2)).toEqual([true, false]);
    // and never in suite 2 (no warning): the hanging program passes every line of it.
    expect(suiteTruth(WATCH, [...S2, UNWARN]).slice(0, 3)).toEqual([true, true, true]);
    expect(suiteTruth(HANG, [...S2, UNWARN]).slice(0, 3)).toEqual([true, true, true]);
    const spawns = grader.spawns;
    const g = await grade(HANG, [S1, S2]);
    // Held: the kill stays in its program, one runner start.
    expect(g.honest).toEqual([["valid/pass", "valid/pass"], ["valid/pass", "valid/pass", "valid/pass"]]);
    expect(grader.spawns - spawns).toBeLessThanOrEqual(1);
    expect(g.mine[0]).toEqual(["valid/pass", "valid/timeout"]); // CPython hangs there too: right
    // App: ["valid/pass", "valid/timeout", "valid/timeout"] (f('\\d') taken as the killer, never called).
    expect(g.mine[1]).toEqual(["valid/pass", "valid/pass", "valid/pass"]);
  }, 60_000);
});

describe("B: a first kill in a line the candidate only compiles still ends the candidate", () => {
  const S1 = ["assert f('a') == 1", "assert '\\d' != 0", "assert f('bc') == 2"];
  const S2 = ["assert f('b') == 1", "assert f('cd') == 2"];
  const GOLDEN = [["assert f('xyz') == 3"]];

  it("B1: later suites and the golden suite are graded as CPython (they were timeout, not run)", async () => {
    // CPython: suite 1's refused line of literals warns at compile (the hook runs: WATCH's f sees it);
    expect(suiteTruth(WATCH, [...S1, UNWARN]).slice(0, 3)).toEqual([true, true, false]);
    // suite 2 and the golden suite, each a process of its own, never warn.
    expect(suiteTruth(HANG, [...S2, UNWARN]).slice(0, 2)).toEqual([true, true]);
    expect(suiteTruth(HANG, [...GOLDEN[0], UNWARN]).slice(0, 1)).toEqual([true]);
    const spawns = grader.spawns;
    const g = await grade(HANG, [S1, S2], GOLDEN);
    // Held: the honest program is untouched; one runner start.
    expect(g.honest[0][0]).toBe("valid/pass");
    expect(g.honest[0][1]).toMatch(/^invalid\//); // a line of literals: refused, compiled in its place
    expect(g.honest.map((row) => row.filter((x) => !x.startsWith("invalid")))).toEqual([["valid/pass", "valid/pass"], ["valid/pass", "valid/pass"]]);
    expect(g.goldenHonest).toEqual([["valid/pass"]]);
    expect(grader.spawns - spawns).toBeLessThanOrEqual(1);
    expect(g.mine[0][0]).toBe("valid/pass");
    expect(g.mine[0][2]).toBe("valid/timeout"); // after the hang: right
    // App: suite 2 ["valid/timeout", "valid/timeout"], golden ["valid/timeout"] (not run).
    expect({ s2: g.mine[1], golden: g.goldenMine }).toEqual({ s2: ["valid/pass", "valid/pass"], golden: [["valid/pass"]] });
  }, 60_000);
});
