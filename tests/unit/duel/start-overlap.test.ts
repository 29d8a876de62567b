/**
 * A first step's wait (issue 28, a newcomer's minute): the Python sandbox's cold start is the longest
 * part of starting a run, so it runs beside the players' start, and `warm(config)` begins it (and the
 * task set) while the user reads, before any Start. Real players (tfjs wasm) and the real Node grader.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { presetConfig } from "../../../src/core/config/index.ts";
import { arenaV1 } from "../../../src/core/arena/task-suite.ts";
import { arenaVocabulary } from "../../../src/core/duel/contexts.ts";
import { TrainerService, type TrainerHost } from "../../../src/core/duel/trainer-service.ts";
import { createSupervisedGrader, type SupervisedGrader } from "../../../src/core/grader/supervisor.ts";
import type { TrainerEvent } from "../../../src/core/loop/events.ts";
import { createNodeGrader, spawnNodeRunner } from "../../../src/node/grader.ts";
import { useNodeBackend } from "../../../src/node/tf-backend.ts";
import { memoryRepo } from "./memory-repo.ts";
import { realPlayer, until } from "./service-helpers.ts";

const vocab = arenaVocabulary();
beforeAll(() => useNodeBackend("wasm"));

const tiny = presetConfig("classroom", { steps: 1, tasks_per_step: 1, num_generations: 2, suites_per_code: 2, tests_per_suite: 2, eval_every: 0, beta: 0 });


/** The host, counting what it is asked for: each warm() of the grader and each task-set read. */
function countingHost(grader: SupervisedGrader, player: TrainerHost["player"]) {
  const counts = { warms: 0, taskSets: 0 };
  let warmed!: () => void;
  const firstWarm = new Promise<void>((r) => (warmed = r));
  const host: TrainerHost = {
    taskSet: async () => (counts.taskSets++, arenaV1()),
    vocab,
    grader: { ...grader, grade: grader.grade, close: grader.close, warm: (p) => (counts.warms++, warmed(), grader.warm(p)) },
    repo: memoryRepo().repo,
    player,
    baseCheckpoint: async () => null,
  };
  return { host, counts, firstWarm };
}


describe("starting a run", () => {
  it("starts the Python sandbox beside the players, not after them", async () => {
    const grader = await createNodeGrader();
    try {
      // Players that arrive only once the sandbox's start has begun: a start that waits for the players first never gets there.
      const ctx: ReturnType<typeof countingHost> = countingHost(grader, async (_role, init, train) => {
        await ctx.firstWarm;
        return realPlayer(init, train);
      });
      const service = new TrainerService(ctx.host, { watchdog: { startMs: 30_000, firstMs: 120_000 } });
      const events: TrainerEvent[] = [];
      await service.subscribe((e) => events.push(e));
      await service.start(tiny);
      const end = await until(events, (e) => (e.type === "status" && (e.status === "done" || e.status === "failed") ? e : undefined));
      expect(events.filter((e) => e.type === "error")).toEqual([]);
      expect(end).toMatchObject({ status: "done" });
      // The sandbox's phase is still shown, after the players' (its start ran beside theirs).
      const phases = events.flatMap((e) => (e.type === "progress" ? [e.phase] : []));
      expect(phases.indexOf("sandbox")).toBeGreaterThan(phases.lastIndexOf("load"));
      expect(phases.indexOf("sample")).toBeGreaterThan(phases.lastIndexOf("sandbox"));
    } finally {
      await grader.close();
    }
  }, 240_000);

  it("warm(config) starts the sandbox and reads the task set before any Start; a Start after it starts no runner of its own", async () => {
    const grader = createSupervisedGrader(spawnNodeRunner); // not warmed (createNodeGrader warms itself)
    try {
      const { host, counts } = countingHost(grader, async (_role, init, train) => realPlayer(init, train));
      const service = new TrainerService(host);
      expect([grader.judgeSpawns, grader.spawns]).toEqual([0, 0]);
      await service.warm(tiny);
      expect(counts).toEqual({ warms: 1, taskSets: 1 });
      expect([grader.judgeSpawns, grader.spawns]).toEqual([1, 1]);
      const events: TrainerEvent[] = [];
      await service.subscribe((e) => events.push(e));
      await service.start(tiny);
      await until(events, (e) => (e.type === "status" && e.status === "done" ? e : undefined));
      expect(events.filter((e) => e.type === "error")).toEqual([]);
      expect(grader.judgeSpawns).toBe(1); // the judge warm() started is the one the run graded with
    } finally {
      await grader.close();
    }
  }, 240_000);

  it("warm(config) never fails: a sandbox that cannot start is left for the Start to report", async () => {
    const failing: SupervisedGrader = {
      ...(await createNodeGrader()),
      warm: () => Promise.reject(new Error("Pyodide is missing")),
    };
    try {
      const { host } = countingHost(failing, async (_role, init, train) => realPlayer(init, train));
      const service = new TrainerService({ ...host, grader: failing, taskSet: () => Promise.reject(new Error("no such task set")) });
      await expect(service.warm(tiny)).resolves.toBeUndefined();
    } finally {
      await failing.close();
    }
  }, 120_000);
});
