import { describe, expect, it } from "vitest";
import type { LineResult } from "../../../src/core/grader/types.ts";
import {
  applyMistakeBookDelta,
  emptyMistakeBook,
  mistakeBookOutcome,
  mistakeBookSize,
  topMistakes,
  updateMistakeBook,
  validateMistakeBook,
  type MistakeBook,
} from "../../../src/core/loop/mistake-book.ts";
import { bookCounts } from "../../../src/core/loop/rewards.ts";

const T = (i: number) => `assert f(${i}) == ${i * 2}`;

describe("Mistake Book updates", () => {
  it("inserts on fail, increments per failure, decrements per pass, deletes at 0", () => {
    let { book, delta } = updateMistakeBook(emptyMistakeBook(), "t1", 1, {
      failed: [{ test: T(1), code: "c1" }, { test: T(1), code: "c2" }, { test: T(2), code: "c1" }],
      passed: [],
    });
    expect(book.tasks.t1).toEqual([
      { test: T(1), frequency: 2, first_step: 1, last_step: 1, failed_code: "c2" },
      { test: T(2), frequency: 1, first_step: 1, last_step: 1, failed_code: "c1" },
    ]);
    expect(delta.added.map((e) => e.test)).toEqual([T(1), T(2)]);

    ({ book, delta } = updateMistakeBook(book, "t1", 2, { failed: [{ test: T(3), code: "c9" }], passed: [T(1), T(2), T(2)] }));
    expect(book.tasks.t1).toEqual([
      { test: T(1), frequency: 1, first_step: 1, last_step: 1, failed_code: "c2" },
      { test: T(3), frequency: 1, first_step: 2, last_step: 2, failed_code: "c9" },
    ]);
    expect(delta).toEqual({
      task: "t1",
      step: 2,
      added: [{ test: T(3), frequency: 1, first_step: 2, last_step: 2, failed_code: "c9" }],
      removed: [T(2)],
      changed: [{ test: T(1), frequency: 1, first_step: 1, last_step: 1, failed_code: "c2" }],
    });

    ({ book, delta } = updateMistakeBook(book, "t1", 3, { failed: [], passed: [T(1), T(3)] }));
    expect(book.tasks.t1).toBeUndefined();
    expect(mistakeBookSize(book)).toBe(0);
    expect(delta.removed.sort()).toEqual([T(1), T(3)]);
  });

  it("decrements before increments, as the reference does", () => {
    const start = updateMistakeBook(emptyMistakeBook(), "t", 1, { failed: [{ test: T(1), code: "a" }], passed: [] }).book;
    // passed then failed again in the same step: deleted, then re-inserted as new at step 2
    const { book } = updateMistakeBook(start, "t", 2, { failed: [{ test: T(1), code: "b" }], passed: [T(1)] });
    expect(book.tasks.t).toEqual([{ test: T(1), frequency: 1, first_step: 2, last_step: 2, failed_code: "b" }]);
  });

  it("does not modify its input", () => {
    const start = updateMistakeBook(emptyMistakeBook(), "t", 1, { failed: [{ test: T(1), code: "a" }], passed: [] }).book;
    const copy = structuredClone(start);
    updateMistakeBook(start, "t", 2, { failed: [{ test: T(1), code: "b" }], passed: [] });
    expect(start).toEqual(copy);
  });

  it("top-k: frequency desc, then older, then text; the same list for every candidate", () => {
    const book: MistakeBook = {
      tasks: {
        t: [
          { test: "b", frequency: 2, first_step: 3, last_step: 3, failed_code: "" },
          { test: "a", frequency: 2, first_step: 3, last_step: 3, failed_code: "" },
          { test: "c", frequency: 5, first_step: 4, last_step: 4, failed_code: "" },
          { test: "d", frequency: 2, first_step: 1, last_step: 1, failed_code: "" },
          { test: "e", frequency: 1, first_step: 0, last_step: 0, failed_code: "" },
        ],
      },
    };
    expect(topMistakes(book, "t", 4).map((e) => e.test)).toEqual(["c", "d", "a", "b"]);
    expect(topMistakes(book, "t", 8).length).toBe(5);
    expect(topMistakes(book, "other", 8)).toEqual([]);
  });

  it("applying the deltas replays the book exactly (what a reload does)", () => {
    let book = emptyMistakeBook();
    let replayed = emptyMistakeBook();
    const outcomes = [
      { failed: [{ test: T(1), code: "a" }, { test: T(2), code: "a" }], passed: [] },
      { failed: [{ test: T(2), code: "b" }, { test: T(3), code: "b" }], passed: [T(1)] },
      { failed: [{ test: T(1), code: "c" }], passed: [T(2), T(3)] },
      { failed: [], passed: [T(1), T(2)] },
    ];
    outcomes.forEach((o, i) => {
      const r = updateMistakeBook(book, "t", i + 1, o);
      book = r.book;
      replayed = applyMistakeBookDelta(replayed, JSON.parse(JSON.stringify(r.delta)));
      expect(replayed).toEqual(book);
    });
    expect(validateMistakeBook(JSON.parse(JSON.stringify(book)))).toEqual(book);
  });

  it("adapter: only loaded codes, only executable lines, corrected text is the key", () => {
    const l = (validity: LineResult["validity"], verdict: LineResult["verdict"], corrected?: string): LineResult => ({ validity, verdict, reason: "", corrected });
    const outcome = mistakeBookOutcome(
      [T(7), T(8)],
      [
        {
          code: "c1",
          loaded: true,
          suites: [
            [l("valid", "fail", T(1)), l("wrong-answer", "timeout", T(2)), l("invalid", "skipped")],
            [l("valid", "pass", T(4)), l("valid", "error", T(1))],
          ],
          bookLines: [l("valid", "pass"), l("valid", "fail")],
        },
        { code: "c2", loaded: false, suites: [[l("valid", "skipped", T(5))]], bookLines: [l("valid", "skipped"), l("valid", "skipped")] },
        { code: "c3", loaded: true, suites: [], bookLines: [l("valid", "pass"), l("valid", "pass")] },
      ],
    );
    expect(outcome).toEqual({
      failed: [{ test: T(1), code: "c1" }, { test: T(2), code: "c1" }, { test: T(1), code: "c1" }],
      passed: [T(7), T(7), T(8)],
      refused: [],
    });
    expect(() => mistakeBookOutcome([], [{ code: "c", loaded: true, suites: [[l("valid", "fail")]], bookLines: [] }])).toThrow(/corrected/);
    expect(() => mistakeBookOutcome([T(1)], [{ code: "c", loaded: true, suites: [], bookLines: [] }])).toThrow(/0 Mistake Book verdicts for 1/);
  });

  it("a stored test the grader refuses on replay leaves the book and does not count", () => {
    const l = (validity: LineResult["validity"], verdict: LineResult["verdict"]): LineResult => ({ validity, verdict, reason: "" });
    const book = updateMistakeBook(emptyMistakeBook(), "t", 1, { failed: [{ test: T(1), code: "c" }, { test: "assert f('ab') == 2", code: "c" }, { test: 'assert f("ab") == 2', code: "c" }], passed: [] }).book;
    const tests = topMistakes(book, "t", 3).map((e) => e.test);
    // The second spelling of one call is refused on replay ("repeats the call of line ..."), by every candidate.
    const refusedAt = tests.indexOf('assert f("ab") == 2');
    const lines = tests.map((_, i) => (i === refusedAt ? l("invalid", "skipped") : l("valid", "pass")));
    const outcome = mistakeBookOutcome(tests, [{ code: "c", loaded: true, suites: [], bookLines: lines }, { code: "d", loaded: false, suites: [], bookLines: lines.map(() => l("valid", "skipped")) }]);
    expect(outcome.refused).toEqual(['assert f("ab") == 2']);
    expect(bookCounts(lines)).toEqual({ total: 2, passed: 2 });
    const next = updateMistakeBook(book, "t", 2, outcome).book;
    expect(next.tasks.t).toBeUndefined(); // the two passes removed the others, the refusal its own: the task has none left
    expect(updateMistakeBook(book, "t", 2, { failed: [], passed: [], refused: [T(1)] }).book.tasks.t?.map((e) => e.test).sort()).toEqual(['assert f("ab") == 2', "assert f('ab') == 2"].sort());
  });

  it("validation names the bad field", () => {
    expect(() => validateMistakeBook({ tasks: { t: [{ test: "x", frequency: 0, first_step: 1, last_step: 1, failed_code: "" }] } })).toThrow(
      /tasks\["t"\]\[0\]\.frequency/,
    );
    expect(() => validateMistakeBook({ tasks: { t: [{ test: "x", frequency: 1, first_step: 1, last_step: 1, failed_code: "", extra: 1 }] } })).toThrow(
      /unexpected fields/,
    );
    expect(() => validateMistakeBook([])).toThrow(/expected \{tasks/);
  });
});
