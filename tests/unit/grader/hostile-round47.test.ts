/**
 * Round 47 (issue 27, a stranger agent, 30 minutes, on da0dba2, pointed at what consumes verdicts:
 * src/core/loop/ (rewards, score-task, mistake-book, topvar) and the duel step, the canonical
 * comparison, and the program's own side of the wall).
 *
 * Found, one class: **a stored Mistake Book test that is not exactly one line misaligns the book's
 * verdicts with its tests.** The duel step replays each stored test as a golden suite of its own
 * (round 44) and then FLATTENS the suites' verdicts (`bookLines: a.book.flatMap(goldenOf)`, step.ts),
 * pairing the i-th verdict with the i-th stored test (`mistakeBookOutcome`, `bookCounts`). That holds
 * only while every stored test is read as exactly one line. The app itself only stores corrected
 * lines (one line each), but a Mistake Book also comes from an `.a1run` file (mistake-book.json and
 * every checkpoint's `mistake_book`), whose entries are checked only for type and length
 * (`validateMistakeBook`, `checkMistakeEntry`: a `test` of at most lineChars characters, any text),
 * and an imported run is stored paused; nothing found refuses resuming it (its book is then the next
 * step's `state.book`; these tests hand `duelStep` that book directly, after the bundle's own checks).
 * SECURITY.md promises that what an import stores "is only what the app itself could have written"
 * and names "a later training session" as a target. Two shapes:
 *   A. one entry holding a line break (`assert f([1]) == 1\nassert f([2]) == 2`: two lines to
 *      `suiteLines` and the harness) gives one verdict too many: `mistakeBookOutcome` throws
 *      "3 Mistake Book verdicts for 2 Mistake Book tests" and the whole step is lost, at every
 *      resume of the run (every task of the step, every program's reward: one entry costs them all).
 *   B. the same entry plus a blank one (`"   "`, no line at all) balances the count, so nothing
 *      throws, and every later test gets its neighbour's verdict: an honest stored test the program
 *      FAILS in CPython (`assert f([-1]) == 0` for `sum(xs)`) is counted as PASSED by both programs
 *      and leaves the book (frequency 2 -> 0, deleted), and R_C's Pass_hist counts it as a pass.
 * Root cause: the step pairs verdicts with tests by position in a flattened list, and nothing
 * between the bundle check and the replay says a stored test is one line (a fix: refuse such an
 * entry on import, `checkMistakeEntry`; and/or treat a stored test whose suite does not come back as
 * exactly one verdict as refused, one `LineResult` per stored test, never `flatMap`).
 *
 * Tried, held (nothing to report):
 * - rewards.ts: `suiteCounts` counts `wrong-answer` as executable and not valid (R_val's invalid, as
 *   the spec says), `skipped` only on invalid lines or unloaded codes (R_adv 0 there); a repeated
 *   call is `invalid` so no line counts twice in one suite; `failed_first_n` cannot exceed N (a
 *   generated suite is cut to N lines). `bookCounts` drops `invalid` replays; `codeReward` and
 *   `rAdv` agree with reward.py's three cases. Counted as failures by design (documented): the
 *   `error` lines after a marked step and the `timeout` lines after a timeout.
 * - mistake-book.ts: passes only from loaded codes, refusals from any code's replay, deletion at
 *   <= 0 before insertion, the same corrected text from two suites counted twice (one per failure,
 *   as the reference does); the corrected text is one line (argument texts are cut from one line,
 *   the answer is `_lit`, whose reprs escape every line break `suiteLines` and the harness split on).
 * - topvar.ts: ties to the lower index, population std, k larger than G.
 * - canonical.ts `sameValue` against harness.py's text: -0.0 outside `ordered` is written `0.0`
 *   (equal in CPython too), dict pairs are sorted by key text (keys unique in a dict, so both sides
 *   line up), set elements and keys exact as in CPython's hashing, NaN never in an expected value
 *   (no literal form), huge ints as exact hex; the remaining differences are rule 5's documented
 *   ones (types kept inside containers, float tolerance).
 * - exceptions: `_exc_reason` reads `args` only for builtin classes (a custom `__str__`/`__repr__`
 *   never runs), clips the text to 160 characters, prints no int over 10**40; exception groups are
 *   builtin classes with two args (name only).
 *
 * Fixed, in two layers: a bundle's Mistake Book (validateMistakeBook) and its records' entries
 * (checkMistakeEntry) refuse a stored test that is not one test line (a line break, \r too, or blank:
 * `isOneTestLine`); and the step gives each stored test exactly one verdict, its replay suite's one
 * line, or a refusal when the grader reads none or several (step.ts `oneStoredTest`), so a book that
 * reached the step some other way loses that test, never its neighbours' verdicts. V asserts the
 * refusals; A and B hand such a book to `duelStep` past the checks.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { arenaV1, tasksOfSplit } from "../../../src/core/arena/task-suite.ts";
import { taskSignature, type Task } from "../../../src/core/arena/task.ts";
import { presetConfig } from "../../../src/core/config/index.ts";
import { taskVocabulary } from "../../../src/core/duel/contexts.ts";
import { duelStep } from "../../../src/core/duel/step.ts";
import { Rng } from "../../../src/core/rng.ts";
import { validateMistakeBook, type MistakeBook } from "../../../src/core/loop/mistake-book.ts";
import { checkMistakeEntry } from "../../../src/core/loop/record-schema.ts";
import { bundleBounds, recordLimits } from "../../../src/core/bundle-bounds.ts";
import { scriptedPlayer } from "../duel/scripted-player.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();

const file = arenaV1();
const task: Task = tasksOfSplit(file, "train").find((t) => t.id === "sum-positive")!;
/** sum-positive's bug: negatives counted. */
const BUG = "def f(xs):\n    return sum(xs)";
const vocab = taskVocabulary(file);
const player = scriptedPlayer(vocab, taskSignature(task), BUG, "assert f([3]) == 3");
const config = presetConfig("classroom", { mode: "code-a1", tasks_per_step: 1, num_generations: 2, suites_per_code: 1, tests_per_suite: 2, seed: 5, mistake_book_top_k: 8, eval_every: 0 });
const entry = (test: string, frequency: number) => ({ test, frequency, first_step: 1, last_step: 1, failed_code: BUG });

/** Two lines in one stored test, which BUG passes; an honest stored test BUG fails; a blank one. */
const TWO = "assert f([1]) == 1\nassert f([2]) == 2";
const HONEST = "assert f([-1]) == 0";
const BLANK = "   ";
/** A book as it reaches the step when nothing checked it. */
const unchecked = (entries: ReturnType<typeof entry>[]): MistakeBook => ({ tasks: { [task.id]: entries } });

describe("V. a bundle's book and records refuse a stored test that is not one test line", () => {
  for (const [what, test] of [["two lines", TWO], ["two lines by \\r", TWO.replace("\n", "\r")], ["blank", BLANK]] as const) {
    it(`${what}: refused by the book's check and by the records' entry check, naming the field`, () => {
      // Before the fix: both accepted it.
      expect(() => validateMistakeBook(unchecked([entry(test, 3), entry(HONEST, 2)]))).toThrow(/\.test: must be one test line/);
      const lim = recordLimits(bundleBounds(config, 1), 1);
      expect(() => checkMistakeEntry(entry(test, 3), "added[0]", lim)).toThrow(/added\[0\]\.test must be one test line/);
      expect(() => checkMistakeEntry(entry(HONEST, 2), "added[1]", lim)).not.toThrow();
    });
  }
});

describe("A. a stored test holding a line break no longer loses the whole step", () => {
  it("the step runs, the two-line test leaves the book, and the honest stored test BUG fails stays", async () => {
    // CPython: BUG passes both lines of TWO and fails HONEST.
    expect(suiteTruth(BUG, TWO.split("\n"))).toEqual([true, true]);
    expect(suiteTruth(BUG, [HONEST])).toEqual([false]);
    // Before the fix: rejects with "3 Mistake Book verdicts for 2 Mistake Book tests" (mistakeBookOutcome).
    const out = await duelStep({ config, vocab, tasks: [task], code: player, test: player, grader }, { step: 1, book: unchecked([entry(TWO, 3), entry(HONEST, 2)]), rng: new Rng(5).state() });
    const kept = Object.fromEntries((out.state.book.tasks[task.id] ?? []).map((e) => [e.test, e.frequency]));
    expect(kept[HONEST]).toBe(2);
    expect(kept[TWO]).toBeUndefined();
  }, 300_000);
});

describe("B. with a blank stored test beside it, no verdict shifts onto another test", () => {
  it("an honest stored test BUG fails is not counted as passed, nor deleted from the book", async () => {
    expect(suiteTruth(BUG, [HONEST])).toEqual([false]);
    const out = await duelStep({ config, vocab, tasks: [task], code: player, test: player, grader }, { step: 1, book: unchecked([entry(TWO, 3), entry(HONEST, 2), entry(BLANK, 1)]), rng: new Rng(5).state() });
    const rec = out.duels[0];
    expect(rec.mistake_book_tests).toEqual([TWO, HONEST, BLANK]);
    const honestAt = rec.mistake_book_tests.indexOf(HONEST);
    // It stays in the book at frequency 2. Before the fix: both programs "passed" it (TWO's second line's verdict), 2 - 2 = 0, deleted.
    const kept = Object.fromEntries((out.state.book.tasks[task.id] ?? []).map((e) => [e.test, e.frequency]));
    expect(kept[HONEST]).toBe(2);
    expect(rec.codes.map((c) => c.mistake_book_lines[honestAt]?.verdict)).toEqual(["fail", "fail"]);
    // The two refused stored tests: one verdict each, invalid, and out of the book.
    expect(rec.codes.map((c) => c.mistake_book_lines.map((l) => l.validity))).toEqual([["invalid", "valid", "invalid"], ["invalid", "valid", "invalid"]]);
    expect(kept[TWO]).toBeUndefined();
    expect(kept[BLANK]).toBeUndefined();
  }, 300_000);
});
