import { describe, expect, it } from "vitest";
import { arenaV1, builtinTaskSet, tasksOfSplit } from "../../../src/core/arena/task-suite.ts";
import { arenaV2 } from "../../../src/core/arena/arena-v2.ts";
import { PRESET_NAMES, presetConfig } from "../../../src/core/config/index.ts";
import { runTrainTasks, stepTasks, stepsPerEpoch, taskVisits, trainedTasks } from "../../../src/core/duel/task-order.ts";

const train = tasksOfSplit(arenaV1(), "train");

describe("task order", () => {
  it("epochs: every train task once per epoch, no task twice in a step, seeded", () => {
    const c = presetConfig("classroom", { seed: 5 });
    const spe = stepsPerEpoch(train.length, c);
    expect(spe).toBe(Math.ceil(train.length / 4));
    for (let e = 0; e < 3; e++) {
      const seen = Array.from({ length: spe }, (_, i) => stepTasks(train, c, e * spe + i + 1));
      for (const batch of seen) {
        expect(batch).toHaveLength(4);
        expect(new Set(batch.map((t) => t.id)).size).toBe(4);
      }
      expect(new Set(seen.flat().map((t) => t.id)).size).toBe(train.length);
    }
    expect(stepTasks(train, c, 7).map((t) => t.id)).toEqual(stepTasks(train, c, 7).map((t) => t.id));
    expect(stepTasks(train, { ...c, seed: 6 }, 1).map((t) => t.id)).not.toEqual(stepTasks(train, c, 1).map((t) => t.id));
  });

  it("curriculum: the first epoch runs shortest reference first", () => {
    const c = presetConfig("classroom", { curriculum: true });
    const first = stepTasks(train, c, 1);
    const last = stepTasks(train, c, stepsPerEpoch(train.length, c) - 1); // (the epoch's last batch is topped up from its start)
    expect(Math.max(...first.map((t) => t.reference.length))).toBeLessThanOrEqual(Math.min(...last.map((t) => t.reference.length)));
  });

  it("every preset's run trains every one of its train tasks at least 3 times (the Mistake Book can replay)", () => {
    for (const name of PRESET_NAMES) {
      const c = presetConfig(name);
      const tasks = runTrainTasks(builtinTaskSet(c.task_set)!, c);
      const visits = [...taskVisits(tasks, c).values()];
      expect(Math.min(...visits), name).toBeGreaterThanOrEqual(3);
    }
  });

  it("runTrainTasks: train_tasks of the train split spread evenly over the file, the same for every seed; 0 is all", () => {
    const file = arenaV2();
    const all = tasksOfSplit(file, "train");
    const c = presetConfig("classroom");
    const picked = runTrainTasks(file, c);
    expect(picked).toHaveLength(c.train_tasks);
    expect(new Set(picked.map((t) => t.id)).size).toBe(c.train_tasks);
    expect(picked.every((t) => t.split === "train")).toBe(true);
    expect(runTrainTasks(file, presetConfig("classroom", { seed: 99 }))).toEqual(picked);
    // Evenly spread: many families, not the first few.
    expect(new Set(picked.map((t) => t.family)).size).toBeGreaterThan(c.train_tasks / 2);
    expect(all.indexOf(picked.at(-1)!)).toBeGreaterThan(all.length * 0.9);
    expect(runTrainTasks(file, { train_tasks: 0 })).toEqual(all);
    expect(runTrainTasks(arenaV1(), { train_tasks: 1000 })).toEqual(train);
  });

  it("random order draws distinct tasks per step; trainedTasks lists only tasks a run drew", () => {
    const c = presetConfig("classroom", { task_order: "random", steps: 2 });
    const batch = stepTasks(train, c, 1);
    expect(new Set(batch.map((t) => t.id)).size).toBe(4);
    const trained = trainedTasks(train, c);
    expect(trained.length).toBeLessThanOrEqual(8);
    expect(trained.every((t) => train.includes(t))).toBe(true);
    expect(trainedTasks(train, presetConfig("classroom"))).toHaveLength(train.length);
  });
});
