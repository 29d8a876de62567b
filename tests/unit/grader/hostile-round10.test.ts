/**
 * Round 10 of issue 27 (a stranger's attack on round 9's reloads and continuation units). Each test
 * FAILS on the grader as it is. Truth, where a verdict is at stake, is a clean Pyodide (the grader's
 * CPython 3.14, hash seed 0 as the runners): for each suite, the program exec'd into a fresh
 * namespace of a fresh interpreter, then the suite's lines exec'd in it, one after another.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { freshTruth } from "./clean-python.ts";

const grader = sharedNodeGrader();


/*
 * Runner restarts multiplied by the continuation units. A unit whose heap grew more than 64 MiB past
 * the snapshot is retired after it (runner.js `fitness`): a fresh Pyodide start, which is on no
 * step's clock. Before round 9 a candidate was one unit (at most one such restart each, SECURITY.md
 * rule 3: "one restart per such candidate, within the bound of rule 4"). Round 9's continuation loop
 * (supervisor.ts: after an interrupted timeout, the next suite runs in a NEW unit) makes a candidate
 * as many units as it has suites (generated, Mistake Book, golden), and each can end unfit: grow the
 * heap, then loop until interrupted. One candidate then costs one runner start per suite; the calls it
 * made took test_ms each, the starts seconds each on no one's budget.
 */
describe("a candidate that grows the heap and times out in every suite", () => {
  it("costs at most one sandbox restart (one kill or retirement per candidate)", async () => {
    const GROW = "def f(x):\n    keep = [bytearray(2 ** 20) for _ in range(100)]\n    while True:\n        pass";
    const SUITES = 5;
    const spawns = grader.spawns;
    const t0 = performance.now();
    const r = await grader.grade({
      tasks: [{ id: "dbl", entry_point: "f", reference: "def f(x):\n    return x * 2" }],
      codes: [{ task: "dbl", code: GROW }],
      suites: Array.from({ length: SUITES }, (_, s) => ({ code: 0, text: `assert f(${s}) == ${2 * s}\nassert f(${s + 100}) == ${2 * (s + 100)}` })),
      limits: { test_ms: 1000 },
    });
    const ms = performance.now() - t0;
    expect(r.suites.map((s) => s.map((l) => l.verdict).join(" "))).toEqual(Array(SUITES).fill("timeout timeout"));
    // Each suite: its first call interrupted at 1 s (no kill), the unit retired (heap), the next
    // suite in a new unit on a NEW runner. Seen here: 5 suites, 5 sandbox starts, ~30 s (calls: 5 s).
    expect(grader.spawns - spawns, `${grader.spawns - spawns} sandbox starts, ${Math.round(ms)} ms`).toBeLessThanOrEqual(1);
  }, 300_000);
});

/*
 * The same on the judge, by test lines alone (the Test policy). A reference is trusted, its arguments
 * are not: a bottom-up DP table (`stairs`) on a large n allocates 80 MB at once and then takes
 * longer than half of test_ms. Each such line is an interrupted reference call, so the suite's later calls
 * go on in a new unit (supervisor.ts, the reference loop), and the unit that grew the heap retires the
 * judge: one judge start per LINE. SECURITY.md rule 4: "No line shape restarts the judge", "a suite of
 * test lines that make the reference loop ... costs at most one kill".
 */
describe("test lines that make the reference grow the heap and time out, line after line", () => {
  it("cost at most one judge restart per suite", async () => {
    // Ways to climb n stairs by 1, 2 or 3 steps, modulo 10**9 + 7: a bottom-up table, as written
    // by hand. n = 20,000,000: an 80 MB table at once, then a loop far longer than 500 ms.
    const STAIRS = [
      "def stairs(n):",
      "    dp = [0] * (n + 1)",
      "    dp[0] = 1",
      "    for i in range(1, n + 1):",
      "        dp[i] = (dp[i - 1] + (dp[i - 2] if i >= 2 else 0) + (dp[i - 3] if i >= 3 else 0)) % 1000000007",
      "    return dp[n]",
    ].join("\n");
    const lines = Array.from({ length: 8 }, (_, k) => `assert stairs(${20_000_000 + k}) == 0`);
    const judges = grader.judgeSpawns;
    const t0 = performance.now();
    const r = await grader.grade({
      tasks: [{ id: "stairs", entry_point: "stairs", reference: STAIRS }],
      codes: [{ task: "stairs", code: "def stairs(n):\n    return 0" }],
      suites: [{ code: 0, text: lines.join("\n") }],
      limits: { test_ms: 1000 },
    });
    const ms = performance.now() - t0;
    expect(r.suites[0].map((l) => l.validity)).toEqual(Array(8).fill("invalid"));
    // Each line: the reference interrupted at 500 ms (no kill), the unit retired (heap), the next
    // line in a new unit on a NEW judge. Seen here: 6 lines, 6 judge starts, ~28 s (calls: 3 s).
    expect(grader.judgeSpawns - judges, `${grader.judgeSpawns - judges} judge starts, ${Math.round(ms)} ms`).toBeLessThanOrEqual(1);
  }, 300_000);
});

/*
 * The line's ANSWER is compiled too. CPython compiles a whole test line before it runs it, so every
 * str of name characters in the line is interned first, the answer's included (round 8 made the
 * grader intern the arguments' strs, not the answer's). A program that compiles at run time (`eval`:
 * a task that reads a Python literal) builds a folded set display of strs in another iteration
 * order when an equal str was interned before (codeobject.c `intern_constants` rebuilds the
 * frozenset). So on the reference alone this line holds in CPython (its answer's strs are interned
 * before the call), and the grader, whose reference call sees them not interned, judges it
 * `wrong-answer` and stores a corrected line that is false on the reference itself in CPython:
 * a Mistake Book test no correct program can pass.
 */
describe("strs of name characters in a line's answer", () => {
  const aloneTruth = async (code: string, line: string): Promise<boolean> => (await freshTruth(code, [line]))[0];
  it("are interned before the call, as CPython compiles the line", async () => {
    const ELEMENTS = "def elements(text):\n    return list(eval(text))";
    const line = "assert elements(\"{'zebra', 'quokka', 'platypus'}\") == ['zebra', 'quokka', 'platypus']";
    expect(await aloneTruth(ELEMENTS, line)).toBe(true);
    // Since round 11 a reference that compiles code at run time is refused (its lines would run in
    // the judge); a candidate may still: its golden line (expected value written, no reference) is
    // judged as CPython runs it, the answer's strs interned before the call.
    const r = await grader.grade({
      tasks: [{ id: "lit", entry_point: "elements", reference: "def elements(text):\n    return []" }],
      codes: [{ task: "lit", code: ELEMENTS }],
      golden: [{ code: 0, text: line }],
      limits: { test_ms: 1000 },
    });
    expect(r.golden[0][0], JSON.stringify(r.golden[0][0])).toMatchObject({ validity: "valid", verdict: "pass" });
    const refused = await grader.grade({
      tasks: [{ id: "lit", entry_point: "elements", reference: ELEMENTS }],
      codes: [{ task: "lit", code: ELEMENTS }],
      suites: [{ code: 0, text: line }],
      limits: { test_ms: 1000 },
    });
    expect(refused.suites[0][0]).toMatchObject({ validity: "invalid", reason: expect.stringMatching(/the reference calls eval: .*may not compile code at run time/) });
    expect(refused.suites[0][0].corrected).toBeUndefined();
  }, 300_000);
});
