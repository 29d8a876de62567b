/**
 * `npm run train` assembles its run through the app's TrainerService (node-host.ts): the bundle
 * keeps the starting players as step 0 and every kept checkpoint, and the same seed gives the same
 * run whether the TrainerService writes to the Node file repository or to any other one.
 */
import { beforeAll, expect, it } from "vitest";
import { arenaV1 } from "../../../src/core/arena/task-suite.ts";
import { presetConfig } from "../../../src/core/config/index.ts";
import { arenaVocabulary } from "../../../src/core/duel/contexts.ts";
import { TrainerService, type RunRepository } from "../../../src/core/duel/trainer-service.ts";
import type { RunCommit } from "../../../src/core/duel/run.ts";
import type { TrainerEvent } from "../../../src/core/loop/events.ts";
import { emptyMistakeBook } from "../../../src/core/loop/mistake-book.ts";
import { Rng } from "../../../src/core/rng.ts";
import { nodeBaseCheckpoint, nodePlayer } from "../../../src/node/node-players.ts";
import { trainRun } from "../../../src/node/train-run.ts";
import { baseCheckpointPath } from "../../../src/node/run-files.ts";
import { useNodeBackend } from "../../../src/node/tf-backend.ts";
import { sharedNodeGrader } from "../node-grader.ts";

const grader = sharedNodeGrader();
beforeAll(() => useNodeBackend("wasm"));
const config = presetConfig("classroom", { steps: 2, tasks_per_step: 1, num_generations: 2, suites_per_code: 2, tests_per_suite: 2, eval_every: 0, checkpoint_every: 1, seed: 5 });
/** Per-step metrics without the wall-clock ones. */
const noTimes = (m: object) => Object.fromEntries(Object.entries(m).filter(([k]) => !k.startsWith("time_")));

it("trains through the TrainerService: step-0 players, kept checkpoints, events, and the same run as another repository gets", async () => {
  const events: TrainerEvent[] = [];
  const file = arenaV1();
  const r = await trainRun({ config, file, grader, out: null, runId: "cli-run", evaluation: null, emit: (e) => events.push(e) });
  const s = r.snapshot;
  expect(s.run.status).toBe("done");
  expect(s.metrics.map((m) => m.step)).toEqual([1, 2]);
  expect(s.checkpoints.map((c) => c.step)).toEqual([0, 1, 2]);
  expect(Object.keys(s.checkpoints[0].policies).sort()).toEqual(["code", "test"]);
  expect(s.checkpoints[0].rng_state).toEqual(new Rng(config.seed).state());
  const shipped = baseCheckpointPath(config.code_model) !== null;
  expect(r.origin.code).toBe(shipped ? `base ${config.code_model} checkpoint` : `fresh ${config.code_model} weights, seed ${config.seed}`);
  expect(events.some((e) => e.type === "backend")).toBe(true);
  expect(events.filter((e) => e.type === "step")).toHaveLength(2);

  // The same config through a TrainerService writing to memory (as the app writes to IndexedDB).
  const commits: RunCommit[] = [];
  const repo: RunRepository = {
    create: async () => "memory-run",
    commitStep: async (c) => void commits.push(c),
    resume: async () => ({ config, state: { step: 0, book: emptyMistakeBook(), rng: new Rng(config.seed).state() }, policies: null }),
    setStatus: async () => undefined,
  };
  const vocab = arenaVocabulary();
  const service = new TrainerService({ taskSet: () => file, vocab, grader, repo, player: nodePlayer(vocab), baseCheckpoint: nodeBaseCheckpoint });
  await service.runToEnd(config);
  expect(commits.map((c) => noTimes(c.metrics))).toEqual(s.metrics.map(noTimes));
  expect(commits.at(-1)!.rngState).toEqual(s.run.rng_state);
  const last = new Uint8Array(commits.at(-1)!.checkpoint!.policies.code);
  expect(Buffer.from(last).equals(Buffer.from(s.checkpoints.at(-1)!.policies.code))).toBe(true);
}, 600_000);

it("a run that fails throws from runToEnd and is marked failed", async () => {
  const statuses: string[] = [];
  const repo: RunRepository = {
    create: async () => "bad-run",
    commitStep: async () => {
      throw new Error("disk full");
    },
    resume: async () => {
      throw new Error("unused");
    },
    setStatus: async (_id, st) => void statuses.push(st),
  };
  const vocab = arenaVocabulary();
  const service = new TrainerService({ taskSet: () => arenaV1(), vocab, grader, repo, player: nodePlayer(vocab), baseCheckpoint: nodeBaseCheckpoint });
  await expect(service.runToEnd({ ...config, steps: 1 })).rejects.toThrow(/disk full/);
  expect(statuses).toEqual(["failed"]);
}, 600_000);
