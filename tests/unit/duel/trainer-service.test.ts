import { beforeAll, expect, it } from "vitest";
import { arenaV1 } from "../../../src/core/arena/task-suite.ts";
import { arenaConstraints, arenaVocabulary } from "../../../src/core/duel/contexts.ts";
import { startPlayers, TrainerService, type TrainerHost } from "../../../src/core/duel/trainer-service.ts";
import { MODES, presetConfig } from "../../../src/core/config/index.ts";
import type { TrainerEvent } from "../../../src/core/loop/events.ts";
import { PolicyService } from "../../../src/core/policy/policy-service.ts";
import { useNodeBackend } from "../../../src/node/tf-backend.ts";
import { sharedNodeGrader } from "../node-grader.ts";
import { memoryRepo } from "./memory-repo.ts";

const vocab = arenaVocabulary();
const grader = sharedNodeGrader();
beforeAll(() => useNodeBackend("wasm"));

it("starts from base checkpoints without a KL reference (freezing one), steps to the end and reports events", async () => {
  // A base checkpoint as pretraining ships it: weights, no reference.
  const base = new PolicyService(arenaConstraints(vocab));
  await base.init(["wasm"]);
  await base.create({ size: "tiny", vocab: vocab.size, seed: 9, reference: false });
  const checkpoint = await base.save();
  base.dispose();

  const { runs, repo } = memoryRepo();
  const backends: string[] = [];
  const host: TrainerHost = {
    taskSet: () => arenaV1(),
    vocab,
    grader,
    repo,
    async player(_role, init, train, backend) {
      backends.push(backend);
      const s = new PolicyService(arenaConstraints(vocab));
      await s.init(["wasm"]);
      if ("checkpoint" in init) {
        await s.load(init.checkpoint, train);
        if (init.freezeReference) await s.setReference();
      } else await s.create({ ...init.fresh, train });
      return Object.assign(s, { backend: { backend: "wasm", reason: "test" } });
    },
    baseCheckpoint: async () => checkpoint,
  };
  const service = new TrainerService(host);
  const events: TrainerEvent[] = [];
  await service.subscribe((e) => events.push(e));
  const config = presetConfig("classroom", { steps: 2, tasks_per_step: 1, num_generations: 2, suites_per_code: 2, tests_per_suite: 2, eval_every: 0, beta: 0.01 });
  const runId = await service.start(config);
  // Marked running before its first commit, so the app resumes it after a reload during step 1.
  expect(runs.get(runId)!.commits).toEqual([]);
  expect(runs.get(runId)!.status).toBe("running");
  expect(backends).toEqual(["auto", "auto"]); // the config's backend preference reaches each player
  await expect.poll(() => runs.get(runId)?.commits.length ?? 0, { timeout: 300_000, interval: 500 }).toBe(2);
  await service.pause();
  expect(events.filter((e) => e.type === "error")).toEqual([]);
  expect(events.some((e) => e.type === "backend" && e.policy === "test")).toBe(true);
  expect(events.filter((e) => e.type === "step").map((e) => (e as { metrics: { step: number } }).metrics.step)).toEqual([1, 2]);
  // The KL term ran against the frozen base (without a reference the update would have thrown).
  for (const m of runs.get(runId)!.commits.map((c) => c.metrics)) expect(Number.isFinite(m.kl_test) && m.kl_test >= 0).toBe(true);
  expect(runs.get(runId)!.status).toBe("done");
}, 600_000);

it("every mode's players start from the one base checkpoint of their size (one model for both roles)", async () => {
  const base = new ArrayBuffer(8);
  const asked: string[] = [];
  const inits: [string, unknown][] = [];
  const host: Pick<TrainerHost, "vocab" | "player" | "baseCheckpoint"> = {
    vocab,
    baseCheckpoint: async (size) => {
      asked.push(size);
      return base;
    },
    player: async (role, init) => {
      inits.push([role, "checkpoint" in init ? init.checkpoint : "fresh"]);
      return { sample: async () => { throw new Error("unused"); }, update: async () => { throw new Error("unused"); }, save: async () => new ArrayBuffer(0) } as never;
    },
  };
  for (const mode of MODES) {
    asked.length = 0;
    inits.length = 0;
    const players = await startPlayers(host, presetConfig("classroom", { mode }), null);
    expect(inits.every(([, c]) => c === base), mode).toBe(true);
    expect(asked.every((s) => s === "tiny"), mode).toBe(true);
    expect(players.origin, mode).toEqual({ code: "base tiny checkpoint", test: "base tiny checkpoint" });
    expect(inits.map(([r]) => r), mode).toEqual(players.code === players.test ? ["code"] : ["code", "test"]);
  }
});
