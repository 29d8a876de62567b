/**
 * The bench file: one key rule for the CLI's cache, the app's shipped benches and the verl export.
 * The shipped benches must match the quick-look tasks the app evaluates on.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { benchFile, benchFromFile, benchKey } from "../../../src/core/arena/bench-file.ts";
import { appBenchPath, BUILTIN_TASK_SETS, builtinTaskSet } from "../../../src/core/arena/task-suite.ts";
import { quickLookTasks } from "../../../src/core/duel/evaluate.ts";
import { taskSetHash } from "../../../src/core/bundle.ts";

describe("bench files", () => {
  const tasks = quickLookTasks(builtinTaskSet("arena-v2")!);

  it("key a bench by its tasks in order, and read back only for those tasks", async () => {
    expect(await benchKey(tasks)).toBe((await taskSetHash(tasks)).slice(0, 16));
    const plus = { lines: ["assert f([]) == 0"] } as never;
    const bench = { tasks: tasks.slice(0, 2), plus: new Map([[tasks[0].id, plus]]), mutants: new Map([[tasks[0].id, []]]) };
    const json = JSON.parse(JSON.stringify(await benchFile(bench))) as unknown;
    const back = await benchFromFile(tasks.slice(0, 2), json);
    expect(back.bench?.plus.get(tasks[0].id)).toEqual(plus);
    expect(back.found).toBe(back.key);
    // Other tasks, the same tasks in another order, or no bench at all: null, with both keys named.
    const other = await benchFromFile(tasks.slice(1, 3), json);
    expect(other.bench).toBeNull();
    expect(other.found).toBe(back.key);
    expect(other.key).not.toBe(back.key);
    expect((await benchFromFile([tasks[1], tasks[0]], json)).bench).toBeNull();
    for (const junk of [null, 7, "x", {}, { key: back.key }, { key: back.key, plus: {}, mutants: [] }]) expect((await benchFromFile(tasks.slice(0, 2), junk)).bench).toBeNull();
  });

  it("the app's shipped benches hold every quick-look task of their set", async () => {
    for (const name of Object.keys(BUILTIN_TASK_SETS)) {
      const look = quickLookTasks(builtinTaskSet(name)!);
      const { bench, key, found } = await benchFromFile(look, JSON.parse(readFileSync(`public${appBenchPath(name)}`, "utf8")));
      expect(found, `public${appBenchPath(name)}: rebuild with npm run app-bench -- --tasks ${name}`).toBe(key);
      expect([...bench!.plus.keys()].sort()).toEqual(look.map((t) => t.id).sort());
    }
  });
});
