/** Task labels of the pickers: id, family and split; grouping by split in the order train, held-out splits. */
import { describe, expect, it } from "vitest";
import { arenaV2 } from "../../../src/core/arena/arena-v2.ts";
import { arenaV1 } from "../../../src/core/arena/task-suite.ts";
import { SPLIT_LABELS, taskLabel, taskLabelById, tasksBySplit } from "../../../src/ui/task-label.ts";

describe("task labels", () => {
  it("name the family and the split, and what is new in a held-out task", () => {
    expect(taskLabel({ id: "sum-positive", split: "train" })).toBe("sum-positive (train)");
    expect(taskLabel({ id: "x", split: "heldout" })).toBe("x (held-out)");
    expect(taskLabel({ id: "count-even-ints", family: "count/even/list[int]", split: "heldout_compositional" }))
      .toBe("count-even-ints (count/even/list[int], held-out: unseen combination)");
    expect(taskLabel({ id: "y", family: "last-index/gt/str", split: "heldout_family" })).toBe("y (last-index/gt/str, held-out: unseen primitive)");
  });

  it("fall back to the bare id for a task the app does not know", () => {
    expect(taskLabelById(arenaV1().tasks, "gone")).toBe("gone");
    expect(taskLabelById(arenaV1().tasks, "sum-positive")).toBe("sum-positive (train)");
  });

  it("group both built-in sets by split, train first, every task once", () => {
    const all = [...arenaV1().tasks, ...arenaV2().tasks];
    const groups = tasksBySplit(all);
    expect(groups.map((g) => g.label)).toEqual([SPLIT_LABELS.train, SPLIT_LABELS.heldout, SPLIT_LABELS.heldout_compositional, SPLIT_LABELS.heldout_family]);
    expect(groups.reduce((n, g) => n + g.tasks.length, 0)).toBe(all.length);
    expect(new Set(all.map((t) => t.id)).size).toBe(all.length); // one picker, so ids must not collide across sets
    expect(groups[0].tasks[0].id).toBe(arenaV1().tasks[0].id);
  });
});
