/**
 * Round 44: a stranger agent on attack44, ~35 minutes, pointed at the reference side (how a
 * generated line is corrected from the reference's output), suite splitting and counting, the export
 * reward, and the order and identity of calls. Each test asserts a clean CPython's truth first (a
 * clean Pyodide, `clean-python.ts`), then that the grader's verdicts are that truth. The tests FAIL
 * on the current code (that is the proof).
 *
 * A. The grader writes reference-corrected lines that it then refuses to read, OPAQUELY, and that
 *    refusal wipes the Mistake Book. `judgeLine` (verdicts.ts) builds the corrected line as
 *    `assert ${callSrc} == ${out[2]}`, out[2] being `_lit` of the reference's output (harness.py)
 *    with no bound on its length or depth beyond the canonical ones (200,000 characters, depth 101).
 *    The judge reads a line only within MAX_LINE_CHARS (2,000) and MAX_NESTING (100): a reference
 *    output nested 101 lists deep (`def f(n): x = 0; for _ in range(n): x = [x]; return x`,
 *    `assert f(101) == 0`: a 220-character corrected line) or longer than the line limit
 *    (`list(range(600))`) gives a corrected line that a clean CPython runs and calls TRUE for the
 *    reference, and that the grader, replaying it from the Mistake Book (a golden suite), refuses
 *    "nested too deeply" / "line too long". Round 7 made such a refused stored test "no test" that
 *    leaves the book; but since round 17 a line refused UNREAD is OPAQUE (`_opaque`: "refused unread,
 *    though CPython would run it"), so `cutAfterOpaque` refuses EVERY LATER book test of that replay
 *    ("after line 1, which the grader does not run as CPython would"), and `mistakeBookOutcome`
 *    counts each of those as refused, so `updateMistakeBook` DELETES them. The book is shown
 *    frequency first, and a Test policy line whose correction is deep or long enters it with the
 *    frequency of every candidate that failed it (most do: it is a wrong-answer line with a
 *    reference-only output), so one such line of the Test policy's, replayed first, erases the other
 *    stored tests of its task (other suites', earlier steps'), true lines that a wrong program
 *    FAILS in CPython: truth for `def f(n): return 0` on the book
 *    [deep corrected, `assert f(1) == [0]`, `assert f(2) == [[0]]`] is [False, False, False]; the
 *    grader's verdicts are `invalid/skipped` x 3, and the two honest entries leave the book (the
 *    program never passed them). Costs: R_adv/Pass_hist of every candidate of that step, and the
 *    book's content for later steps (state carried from one step's Test policy line to the rewards
 *    of other lines and programs).
 *    Root cause (a guess): the corrected line's text is never checked against the limits the judge
 *    reads lines with. A fix: a generated line whose corrected text the judge would refuse
 *    (`_parse_line` on it: too long, too deep) is `invalid` (its call still made where the
 *    reference returned: round 41) and never a test; or the book refuses to store a test its own
 *    replay cannot read; and/or a stored test refused UNREAD on replay should not be opaque for the
 *    book's later lines (each book line is already a separate, reference-checked test).
 *
 * What held (tried, nothing got through in the time): BOM, form feed, tab, lone surrogates and
 * null bytes in a line (the BOM is a syntax error in 3.14's `compile(str)`, a surrogate is an
 * unmarked compile error on both sides, cuts use byte offsets from the same text); lines that span
 * physical lines (backslash continuations, a lone `\`: the whole-suite parse falls back per line,
 * CPython agrees line by line); JavaScript's and Python's line breaks and whitespace (`suiteLines`
 * and the harness split on \n, \r\n, \r alone and strip `str.isspace`'s set, the supervisor's
 * `max_lines` slice and the harness's agree; \v, \f, \x1c-\x1f, \x85, \u2028 inside a string literal
 * stay in one line on both sides; `_lit` escapes each in an answer); `_lit` on -0.0, huge ints
 * (hex), infinities, sets, empty sets under dicts; the corrected call's NFKC name and
 * parenthesised arguments; the export's `canonical`/`literal`/`grade_suite` against verdicts.ts
 * on the shapes its parity test draws; repeats and side calls by `callKey` across plan parts
 * (`markRepeats`), golden against generated groups (each reloads), the reference's per-suite dedup
 * (each call on a fresh load).
 *
 * Fixed, both halves of the class: (1) the grader writes no corrected line it would not read back:
 *    the harness refuses a reference literal past the line limit or nested past MAX_NESTING, and
 *    `judgeLine` a corrected line past MAX_LINE_CHARS (code points): such a generated line is
 *    `invalid` ("reference output has no literal form: ..."; its call still made where the reference
 *    returned, round 41), never a test, never in the book. (2) The step replays each stored test as a
 *    golden suite of its own (step.ts): a stored test the judge refuses (a book from before the fix,
 *    an imported one) leaves the book alone; no other stored test is cut. The tests below were
 *    rewritten for the fix: A the corrected line, B the book through `duelStep` with the real grader.
 *
 * Noted, not tested for lack of time: arena_reward.py `grade_suite` has no side calls (an invalid
 * line's call CPython still makes), so a side call whose step is MARKED (a program's object
 * returned on a repeat or an assert with a message) cuts the later lines to `error` in verdicts.ts
 * (`judgeCandidate` reads every line's step) but not in the export; its parity test draws no side
 * calls. The export mirrors a simpler model than the grader there.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { arenaV1, tasksOfSplit } from "../../../src/core/arena/task-suite.ts";
import { taskSignature } from "../../../src/core/arena/task.ts";
import { presetConfig } from "../../../src/core/config/index.ts";
import { taskVocabulary } from "../../../src/core/duel/contexts.ts";
import { duelStep } from "../../../src/core/duel/step.ts";
import { scriptedPlayer } from "../duel/scripted-player.ts";
import { Rng } from "../../../src/core/rng.ts";
import { MAX_LINE_CHARS } from "../../../src/core/grader/verdicts.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();

/** Its output for n is 0 wrapped in n lists: 101 deep is still a value the grader writes down (canonical depth). */
const NEST = "def f(n):\n    x = 0\n    for _ in range(n):\n        x = [x]\n    return x";
const RANGE = "def f(n):\n    return [0] * (n - 1) if n > 100 else [0] * n";
const WRONG = "def f(n):\n    return 0";

describe("A. a generated line whose corrected line the judge could not read back is no test", () => {
  for (const [name, reference, line, why] of [
    ["an output nested 101 deep", NEST, "assert f(101) == 0", /levels of nesting/],
    ["an output past the line limit", RANGE, "assert f(700) == 0", /characters/],
  ] as const) {
    it(`${name}: invalid (the reference has no literal that fits a line), not a wrong answer a book would store`, async () => {
      // CPython: the line is false for the reference (its output is no 0).
      expect(suiteTruth(reference, [line])).toEqual([false]);
      const r = await grader.grade({
        tasks: [{ id: "t", entry_point: "f", reference }],
        codes: [{ task: "t", code: WRONG }],
        suites: [{ code: 0, text: `${line}\nassert f(1) == 7` }],
        limits: { test_ms: 1000, max_lines: 8 },
      });
      const [first, second] = r.suites[0];
      // Before the fix: wrong-answer/fail, corrected to a 220-character line 101 levels deep (or 2,114 characters).
      expect(first.validity, first.reason).toBe("invalid");
      expect(first.reason).toMatch(/^reference output has no literal form: /);
      expect(first.reason).toMatch(why);
      expect(first.corrected).toBeUndefined();
      // The line after it is judged as usual (nothing opaque about a line the judge read).
      expect(second.validity).toBe("wrong-answer");
      expect(second.corrected).toBe(reference === NEST ? "assert f(1) == [0]" : "assert f(1) == [0]");
    }, 120_000);
  }

  it("a corrected line within the limits is still written (the bound is the judge's own)", async () => {
    const harness = readFileSync(new URL("../../../src/core/grader/harness.py", import.meta.url), "utf8");
    expect(/^MAX_LINE_CHARS = (\d+)/m.exec(harness)?.[1]).toBe(String(MAX_LINE_CHARS));
    const r = await grader.grade({
      tasks: [{ id: "t", entry_point: "f", reference: RANGE }],
      codes: [{ task: "t", code: WRONG }],
      suites: [{ code: 0, text: "assert f(600) == 0" }],
      limits: { test_ms: 1000, max_lines: 8 },
    });
    const corrected = r.suites[0][0].corrected!;
    expect(r.suites[0][0].validity).toBe("wrong-answer");
    expect(corrected.length).toBeLessThanOrEqual(MAX_LINE_CHARS);
    expect(suiteTruth(RANGE, [corrected])).toEqual([true]);
    const replay = await grader.grade({
      tasks: [{ id: "t", entry_point: "f", reference: RANGE }],
      codes: [{ task: "t", code: RANGE }],
      golden: [{ code: 0, text: corrected }],
      limits: { test_ms: 1000, max_lines: 8 },
    });
    expect(replay.golden[0].map((l) => `${l.validity}/${l.verdict}`)).toEqual(["valid/pass"]);
  }, 120_000);
});

describe("B. a stored test the judge refuses on replay leaves the book alone (duelStep, the real grader)", () => {
  const file = arenaV1();
  const vocab = taskVocabulary(file);
  const task = tasksOfSplit(file, "train").find((t) => t.id === "sum-positive")!;
  const sig = taskSignature(task);
  const BUG_ALL = "def f(xs):\n    return sum(xs)";
  // A stored test from before the fix (or an imported book): past the line limit, shown first.
  const LONG = `assert f([${Array.from({ length: 700 }, () => "1").join(", ")}]) == 700`;
  const HONEST = ["assert f([1, -2]) == 1", "assert f([5, -5]) == 5"];
  const player = scriptedPlayer(vocab, sig, BUG_ALL, "assert f([3]) == 3");

  it("the long stored test is dropped; the honest ones the program fails stay, as often as before", async () => {
    expect(LONG.length).toBeGreaterThan(MAX_LINE_CHARS);
    // CPython: BUG_ALL passes the long stored test (700 ones sum to 700) and fails the honest two.
    expect(suiteTruth(BUG_ALL, [LONG, ...HONEST])).toEqual([true, false, false]);
    const entry = (test: string, frequency: number) => ({ test, frequency, first_step: 1, last_step: 1, failed_code: BUG_ALL });
    const book = { tasks: { [task.id]: [entry(LONG, 9), entry(HONEST[0], 2), entry(HONEST[1], 1)] } };
    const config = presetConfig("classroom", { mode: "code-a1", tasks_per_step: 1, num_generations: 2, suites_per_code: 1, tests_per_suite: 2, seed: 5, mistake_book_top_k: 8, eval_every: 0 });
    const out = await duelStep({ config, vocab, tasks: [task], code: player, test: player, grader }, { step: 1, book, rng: new Rng(5).state() });
    const kept = Object.fromEntries((out.state.book.tasks[task.id] ?? []).map((e) => [e.test, e.frequency]));
    // Before the fix (one replay suite): the long line refused unread cut both honest tests, and the book dropped all three.
    expect(kept[LONG]).toBeUndefined();
    expect(kept[HONEST[0]]).toBe(2);
    expect(kept[HONEST[1]]).toBe(1);
  }, 300_000);
});
