import { describe, expect, it } from "vitest";
import { updateMistakeBook, emptyMistakeBook, type MistakeBook } from "../../../src/core/loop/mistake-book.ts";
import { applyMistakeBookDelta, filterMistakes, mistakeRows, mistakeTasks } from "../../../src/ui/mistake-filter.ts";

const book: MistakeBook = {
  tasks: {
    "sum-pos": [
      { test: "assert f([1, -2]) == 1", frequency: 3, first_step: 2, last_step: 9, failed_code: "def f(xs):\n    return sum(xs)" },
      { test: "assert f([]) == 0", frequency: 1, first_step: 5, last_step: 5, failed_code: "def f(xs):\n    return xs[0]" },
    ],
    "rev-words": [{ test: "assert f('a b') == 'b a'", frequency: 2, first_step: 1, last_step: 4, failed_code: "def f(s):\n    return s" }],
  },
};

describe("Mistake Book browser", () => {
  it("lists tasks by entry count and rows by frequency", () => {
    expect(mistakeTasks(book)).toEqual([{ task: "sum-pos", count: 2 }, { task: "rev-words", count: 1 }]);
    expect(filterMistakes(mistakeRows(book)).map((r) => r.frequency)).toEqual([3, 2, 1]);
  });
  it("filters by task, minimum frequency and a search over test, program and task", () => {
    const rows = mistakeRows(book);
    expect(filterMistakes(rows, { task: "rev-words" }).map((r) => r.task)).toEqual(["rev-words"]);
    expect(filterMistakes(rows, { minFrequency: 2 })).toHaveLength(2);
    expect(filterMistakes(rows, { query: "XS[0]" }).map((r) => r.test)).toEqual(["assert f([]) == 0"]);
    expect(filterMistakes(rows, { query: "rev" })).toHaveLength(1);
    expect(filterMistakes(rows, { sort: "first_step" }).map((r) => r.first_step)).toEqual([1, 2, 5]);
    expect(filterMistakes(rows, { sort: "last_step" }).map((r) => r.last_step)).toEqual([9, 5, 4]);
  });
  it("applying updateMistakeBook's deltas rebuilds the same book (the live view follows deltas)", () => {
    let truth = emptyMistakeBook();
    let live = emptyMistakeBook();
    const steps = [
      { failed: [{ test: "A", code: "c1" }, { test: "B", code: "c1" }, { test: "A", code: "c2" }], passed: [] },
      { failed: [{ test: "C", code: "c3" }], passed: ["B", "A"] },
      { failed: [], passed: ["A", "C"] },
    ];
    steps.forEach((outcome, i) => {
      const r = updateMistakeBook(truth, "t", i + 1, outcome);
      truth = r.book;
      live = applyMistakeBookDelta(live, r.delta);
      expect(live).toEqual(truth);
    });
    expect(live.tasks).toEqual({});
  });
});
