/**
 * The bench file: one key rule for the CLI's cache, the app's shipped benches and the verl export.
 * The shipped benches must match the quick-look tasks the app evaluates on and today's mutants.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { benchFile, benchFromFile, benchKey, mutantsKey } from "../../../src/core/arena/bench-file.ts";
import { mutateSource } from "../../../src/node/python-runner.ts";
import { appBenchPath, BUILTIN_TASK_SETS, builtinTaskSet } from "../../../src/core/arena/task-suite.ts";
import { quickLookTasks } from "../../../src/core/duel/evaluate.ts";
import { taskSetHash } from "../../../src/core/bundle.ts";

describe("bench files", () => {
  const tasks = quickLookTasks(builtinTaskSet("arena-v2")!);

  const source = mutateSource();

  it("key a bench by its tasks in order, and read back only for those tasks", async () => {
    expect(await benchKey(tasks)).toBe((await taskSetHash(tasks)).slice(0, 16));
    const plus = { lines: ["assert f([]) == 0"] } as never;
    const bench = { tasks: tasks.slice(0, 2), plus: new Map([[tasks[0].id, plus]]), mutants: new Map([[tasks[0].id, []]]) };
    const json = JSON.parse(JSON.stringify(await benchFile(bench, source))) as unknown;
    const back = await benchFromFile(tasks.slice(0, 2), json, source);
    expect(back.bench?.plus.get(tasks[0].id)).toEqual(plus);
    expect(back.found).toBe(back.key);
    // Other tasks, the same tasks in another order, or no bench at all: null, with both keys named.
    const other = await benchFromFile(tasks.slice(1, 3), json, source);
    expect(other.bench).toBeNull();
    expect(other.found).toBe(back.key);
    expect(other.key).not.toBe(back.key);
    expect((await benchFromFile([tasks[1], tasks[0]], json, source)).bench).toBeNull();
    const [taskKey, mutKey] = back.key.split("/");
    for (const junk of [null, 7, "x", {}, { key: taskKey }, { key: taskKey, mutants_key: mutKey, plus: {}, mutants: [] }]) expect((await benchFromFile(tasks.slice(0, 2), junk, source)).bench).toBeNull();
  });

  it("a bench made by other mutation operators, or from before the mutant screen, is not read", async () => {
    const bench = { tasks: tasks.slice(0, 1), plus: new Map(), mutants: new Map() };
    const json = JSON.parse(JSON.stringify(await benchFile(bench, source))) as Record<string, unknown>;
    expect(json.mutants_key).toBe(await mutantsKey(source));
    // One more operator in mutate.py changes the key; so does a file without one (built before the screen).
    const edited = source + "\n# another operator\n";
    expect(await mutantsKey(edited)).not.toBe(json.mutants_key);
    const stale = await benchFromFile(tasks.slice(0, 1), json, edited);
    expect(stale.bench).toBeNull();
    expect(stale.found).toBe(`${json.key as string}/${json.mutants_key as string}`);
    const { mutants_key: _m, ...before } = json;
    expect((await benchFromFile(tasks.slice(0, 1), before, source)).found).toBe(`${json.key as string}/none`);
    expect((await benchFromFile(tasks.slice(0, 1), before, source)).bench).toBeNull();
  });

  it("the app's shipped benches hold every quick-look task of their set", async () => {
    for (const name of Object.keys(BUILTIN_TASK_SETS)) {
      const look = quickLookTasks(builtinTaskSet(name)!);
      const { bench, key, found } = await benchFromFile(look, JSON.parse(readFileSync(`public${appBenchPath(name)}`, "utf8")), source);
      expect(found, `public${appBenchPath(name)}: rebuild with npm run app-bench -- --tasks ${name}`).toBe(key);
      expect([...bench!.plus.keys()].sort()).toEqual(look.map((t) => t.id).sort());
      // Every quick-look task carries screened mutants, and held-out ones have hard mutants to count.
      const mutants = [...bench!.mutants.values()].flat();
      expect(mutants.every((m) => typeof m.hard === "boolean" && typeof m.random_kill === "number")).toBe(true);
      expect(mutants.some((m) => m.hard)).toBe(true);
    }
  });
});
