/**
 * No silent hang: real workers that never answer (a child process that starts and never says
 * ready, a policy's worker that stops answering mid-run), under watchdog limits made short.
 *  - the grader gives up on a runner that never starts, ends it, and stays usable;
 *  - a run whose Python sandbox never starts fails with a message that names it and says what to
 *    try; a reload resumes it once, and after the same failure twice it waits for the user;
 *  - Pause during a stuck phase returns without waiting for the stuck call;
 *  - a worker that stops answering mid-run fails the run with its committed steps intact.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { presetConfig } from "../../../src/core/config/index.ts";
import { arenaV1 } from "../../../src/core/arena/task-suite.ts";
import { arenaVocabulary } from "../../../src/core/duel/contexts.ts";
import { TrainerService, type HostedPlayer, type RunRepository, type TrainerHost } from "../../../src/core/duel/trainer-service.ts";
import { PhaseStuckError, StepAbandonedError, Watchdog } from "../../../src/core/duel/watchdog.ts";
import { createSupervisedGrader, RunnerStartTimeoutError, type SpawnRunner } from "../../../src/core/grader/supervisor.ts";
import type { Grader } from "../../../src/core/grader/types.ts";
import type { TrainerEvent } from "../../../src/core/loop/events.ts";
import { PolicyService } from "../../../src/core/policy/policy-service.ts";
import { childProcessRunner } from "../../../src/node/grader.ts";
import { useNodeBackend } from "../../../src/node/tf-backend.ts";
import { sharedNodeGrader } from "../node-grader.ts";
import { memoryRepo } from "./memory-repo.ts";
import { realPlayer, until } from "./service-helpers.ts";

const vocab = arenaVocabulary();
beforeAll(() => useNodeBackend("wasm"));

/** A real process that starts and then never says a word (as a runner whose Pyodide never loads). */
function silentChild(): ChildProcess {
  return spawn(process.execPath, ["-e", "setInterval(() => {}, 1e6)"], { stdio: ["pipe", "ignore", "pipe", "pipe"] });
}

/** Runners that never become ready; remembers each process so the test can see it was ended. */
function hangingSpawner(): { spawn: SpawnRunner; children: ChildProcess[] } {
  const children: ChildProcess[] = [];
  return {
    children,
    spawn: (role, onEvent, onExit, signal) => {
      const child = silentChild();
      children.push(child);
      return childProcessRunner(child, child.stdio[3] as Readable, `grader ${role}`, onEvent, onExit, signal);
    },
  };
}

const exited = (c: ChildProcess) => new Promise<void>((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve() : c.once("exit", () => resolve())));

describe("the watchdog's limits", () => {
  it("start phases get startMs; a phase never timed gets firstMs, then factor x its slowest time, at least minMs", async () => {
    const w = new Watchdog({ startMs: 50, firstMs: 400, factor: 3, minMs: 20, pauseGraceMs: 10 });
    expect(w.limitFor("sandbox")).toBe(50);
    expect(w.limitFor("sample")).toBe(400);
    await w.guard("sample", "x", () => new Promise((r) => setTimeout(r, 30)));
    expect(w.limitFor("sample")).toBeGreaterThanOrEqual(90);
    expect(w.limitFor("sample")).toBeLessThan(400);
    // Grading's limit never drops under a runner start: a killed sandbox restarts inside a batch.
    await w.guard("grade", "x", async () => undefined);
    expect(w.limitFor("grade")).toBe(50);
  });

  it("a beat re-arms the limit: work that keeps moving is never stuck, work that stops is", async () => {
    const w = new Watchdog({ startMs: 1000, firstMs: 80, factor: 1, minMs: 80, pauseGraceMs: 10 });
    const moving = w.guard("grade", "g", async (beat) => {
      for (let i = 0; i < 6; i++) {
        await new Promise((r) => setTimeout(r, 40));
        beat();
      }
      return "graded";
    });
    await expect(moving).resolves.toBe("graded");
    const stopped = w.guard("update", "the Code policy's worker", () => new Promise(() => undefined));
    await expect(stopped).rejects.toThrow(/The Code policy's worker stopped answering \(the policy update\): nothing within 0\.1 s\. Resume/);
    await expect(stopped).rejects.toBeInstanceOf(PhaseStuckError);
  });

  it("abandon fails the calls in flight and every later one", async () => {
    const w = new Watchdog();
    const stuck = w.guard("sample", "s", () => new Promise(() => undefined));
    w.abandon(new StepAbandonedError("paused"));
    await expect(stuck).rejects.toBeInstanceOf(StepAbandonedError);
    await expect(w.guard("update", "u", async () => 1)).rejects.toBeInstanceOf(StepAbandonedError);
  });
});

describe("a grader whose runner never starts", () => {
  it("gives up after startTimeoutMs without retrying, ends the process, and stays usable", async () => {
    const { spawn: spawner, children } = hangingSpawner();
    const grader = createSupervisedGrader(spawner, { startTimeoutMs: 300 });
    const t0 = Date.now();
    await expect(grader.warm()).rejects.toBeInstanceOf(RunnerStartTimeoutError);
    await expect(grader.warm()).rejects.toThrow(/^the grader's judge did not start within 0\.3 s \(Pyodide never finished loading\)$/);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(children).toHaveLength(2); // one start per request: a hang is not tried three times
    await Promise.all(children.map(exited)); // both processes were ended
    await grader.close();
  });

  it("halt() ends a start in progress and fails the request in flight at once", async () => {
    const { spawn: spawner, children } = hangingSpawner();
    const grader = createSupervisedGrader(spawner, { startTimeoutMs: 60_000 });
    const warming = grader.warm();
    await new Promise((r) => setTimeout(r, 100));
    await grader.halt("given up by the test");
    await expect(warming).rejects.toThrow(/given up by the test/);
    await exited(children[0]);
    await grader.close();
  });
});


const tiny = (steps: number) => presetConfig("classroom", { steps, tasks_per_step: 1, num_generations: 2, suites_per_code: 2, tests_per_suite: 2, eval_every: 0, beta: 0 });

function hostWith(grader: Grader, repo: RunRepository, player?: TrainerHost["player"]): TrainerHost {
  return {
    taskSet: () => arenaV1(),
    vocab,
    grader,
    repo,
    player: player ?? (async (_role, init, train) => realPlayer(init, train)),
    baseCheckpoint: async () => null,
  };
}


describe("a run whose Python sandbox never starts", () => {
  it("fails with what failed and what to try; a reload retries once, then it waits for the user", async () => {
    const { spawn: spawner, children } = hangingSpawner();
    const grader = createSupervisedGrader(spawner, { startTimeoutMs: 60_000 });
    const { runs, repo } = memoryRepo();
    const service = new TrainerService(hostWith(grader, repo), { watchdog: { startMs: 400 } });
    const events: TrainerEvent[] = [];
    await service.subscribe((e) => events.push(e));

    const runId = await service.start(tiny(2));
    // The sandbox's start is a phase of its own, before any step.
    await until(events, (e) => (e.type === "progress" && e.phase === "sandbox" ? e : undefined));
    const error = await until(events, (e) => (e.type === "error" ? e : undefined));
    expect(error.name).toBe("PhaseStuckError");
    expect(error.message).toMatch(/^The Python sandbox did not start: nothing within 0\.4 s\. The Python sandbox \(Pyodide, served at \/pyodide\//);
    await until(events, (e) => (e.type === "status" && e.status === "failed" ? e : undefined));
    expect(runs.get(runId)!.status).toBe("failed");
    expect(runs.get(runId)!.failure).toMatchObject({ signature: "sandbox:PhaseStuckError", step: 0, count: 1, retry: true });
    await Promise.all(children.map(exited)); // the stuck runner was ended, not left running

    // A reload: the once-failed run is tried again (the message says so), and fails the same way.
    events.length = 0;
    const first = await service.autoResume(runId);
    expect(first.resumed).toBe(true);
    expect(first.note).toMatch(/failed once .*trying again from step 0/);
    await until(events, (e) => (e.type === "status" && e.status === "failed" ? e : undefined));
    expect(runs.get(runId)!.failure?.count).toBe(2);

    // The next reload does not resume into the same hang: it says why and waits.
    const spawnsBefore = children.length;
    const second = await service.autoResume(runId);
    expect(second).toEqual({ resumed: false, note: expect.stringMatching(/not resumed, so that it does not hang again: it failed the same way twice: The Python sandbox did not start.*press Resume/) });
    expect(children.length).toBe(spawnsBefore);
    expect(runs.get(runId)!.status).toBe("failed");
    await grader.close();
  }, 20_000);

  it("Pause while the sandbox is stuck starting returns without waiting for it; the run is paused", async () => {
    const { spawn: spawner, children } = hangingSpawner();
    const grader = createSupervisedGrader(spawner, { startTimeoutMs: 60_000 });
    const { runs, repo } = memoryRepo();
    const service = new TrainerService(hostWith(grader, repo), { watchdog: { startMs: 60_000, pauseGraceMs: 50 } });
    const events: TrainerEvent[] = [];
    await service.subscribe((e) => events.push(e));
    const runId = await service.start(tiny(2));
    await until(events, (e) => (e.type === "progress" && e.phase === "sandbox" ? e : undefined));
    const t0 = Date.now();
    await service.pause();
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(runs.get(runId)!.status).toBe("paused");
    expect(events.filter((e) => e.type === "error")).toEqual([]);
    await exited(children[0]);
    // An interrupted start is no failure: a reload resumes it.
    expect(runs.get(runId)!.failure).toBeNull();
    await grader.close();
  }, 120_000);
});

describe("a policy's worker that stops answering mid-run", () => {
  const grader = sharedNodeGrader();
  const silent: ChildProcess[] = [];
  afterAll(() => {
    for (const c of silent) c.kill("SIGKILL");
  });

  it("fails the run in its sampling phase with step 1 committed; Pause during the hang returns at once", async () => {
    // The Code policy answers step 1, then asks a process that never answers (as a worker whose
    // thread is stuck in a kernel or was lost).
    let calls = 0;
    const player: TrainerHost["player"] = async (role, init, train): Promise<HostedPlayer> => {
      const real = await realPlayer(init, train);
      if (role !== "code") return real;
      const sample = real.sample.bind(real);
      return Object.assign(real, {
        sample: (...args: Parameters<PolicyService["sample"]>) => {
          if (++calls <= 1) return sample(...args);
          const child = silentChild();
          silent.push(child);
          return new Promise<never>((_, reject) => {
            (child.stdio[3] as Readable).once("data", () => reject(new Error("it answered")));
            child.stdin!.write(JSON.stringify({ type: "sample" }) + "\n");
          });
        },
      });
    };
    const { runs, repo } = memoryRepo();
    const service = new TrainerService(hostWith(grader, repo, player), { watchdog: { firstMs: 200_000, startMs: 200_000, pauseGraceMs: 50 } });
    const events: TrainerEvent[] = [];
    await service.subscribe((e) => events.push(e));
    const runId = await service.start(tiny(3));
    await until(events, (e) => (e.type === "step" ? e : undefined), 200_000);
    await until(events, (e) => (e.type === "progress" && e.phase === "sample" && e.done === 1 ? e : undefined));
    await new Promise((r) => setTimeout(r, 200)); // step 2's sampling is stuck now
    const t0 = Date.now();
    await service.pause();
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(runs.get(runId)!.status).toBe("paused");
    expect(runs.get(runId)!.commits.map((c) => c.step)).toEqual([1]);

    // Resumed with a short limit: the same hang now fails the run, naming the worker and the phase.
    const short = new TrainerService(hostWith(grader, repo, player), { watchdog: { firstMs: 500, minMs: 500, startMs: 200_000 } });
    const seen: TrainerEvent[] = [];
    await short.subscribe((e) => seen.push(e));
    await short.resume(runId);
    const error = await until(seen, (e) => (e.type === "error" ? e : undefined), 120_000);
    expect(error.message).toMatch(/^The Code policy's worker stopped answering \(sampling\): nothing within 0\.5 s\. Resume to retry from the last committed step/);
    await until(seen, (e) => (e.type === "status" && e.status === "failed" ? e : undefined));
    expect(runs.get(runId)!.status).toBe("failed");
    expect(runs.get(runId)!.commits.map((c) => c.step)).toEqual([1]);
    expect(runs.get(runId)!.failure).toMatchObject({ signature: "sample:PhaseStuckError", step: 1, count: 1 });
  }, 240_000);
});

describe("Resume and Start while a run is still starting", () => {
  const grader = sharedNodeGrader();

  /** Players whose start waits for `open()`; counts starts and releases. */
  function gatedPlayers() {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const counts = { started: 0, disposed: 0 };
    const player: TrainerHost["player"] = async (_role, init, train) => {
      counts.started++;
      await gate;
      const s = await realPlayer(init, train);
      const dispose = s.dispose.bind(s);
      return Object.assign(s, { dispose: () => (counts.disposed++, dispose()) });
    };
    return { player, counts, open: () => open() };
  }

  it("a second Resume during the start is the same request: the run starts once and trains, no error", async () => {
    const { player, counts, open } = gatedPlayers();
    const { runs, repo } = memoryRepo();
    const service = new TrainerService(hostWith(grader, repo, player), { watchdog: { startMs: 200_000, firstMs: 200_000 } });
    const events: TrainerEvent[] = [];
    await service.subscribe((e) => events.push(e));
    const runId = await service.start(tiny(1));
    await until(events, (e) => (e.type === "progress" && e.phase === "load" ? e : undefined));
    await service.pause(); // paused while starting, as a reload leaves a run
    expect(runs.get(runId)!.status).toBe("paused");
    const before = counts.started;
    // Two presses, the second while the first is still starting (one before its players are asked for, one after).
    const first = service.resume(runId);
    const second = service.resume(runId);
    await Promise.all([first, second]);
    await until(events, (e) => (e.type === "progress" && e.phase === "load" && counts.started > before ? e : undefined));
    await service.resume(runId);
    open();
    await until(events, (e) => (e.type === "status" && e.status === "done" ? e : undefined), 200_000);
    expect(counts.started - before).toBe(2); // one Code and one Test player: not a second start
    expect(events.filter((e) => e.type === "error")).toEqual([]);
    expect(runs.get(runId)!.status).toBe("done");
    expect(runs.get(runId)!.commits.map((c) => c.step)).toEqual([1]);
  }, 240_000);

  it("Start during another run's start leaves that one paused (no failure, its players released) and runs the new one", async () => {
    const { player, counts, open } = gatedPlayers();
    const { runs, repo } = memoryRepo();
    const service = new TrainerService(hostWith(grader, repo, player), { watchdog: { startMs: 200_000, firstMs: 200_000 } });
    const events: TrainerEvent[] = [];
    await service.subscribe((e) => events.push(e));
    const a = await service.start(tiny(1));
    await until(events, (e) => (e.type === "progress" && e.phase === "load" ? e : undefined));
    const b = await service.start(tiny(1));
    expect(runs.get(a)!.status).toBe("paused");
    open(); // A's players arrive after it was left: released, never used
    await until(events, (e) => (e.type === "status" && e.runId === b && e.status === "done" ? e : undefined), 200_000);
    expect(events.filter((e) => e.type === "error")).toEqual([]);
    expect(runs.get(a)!.status).toBe("paused");
    expect(runs.get(a)!.failure).toBeNull();
    expect(runs.get(a)!.commits).toEqual([]);
    expect(runs.get(b)!.commits.map((c) => c.step)).toEqual([1]);
    await expect.poll(() => counts.disposed, { timeout: 10_000 }).toBeGreaterThanOrEqual(2); // A's two players
  }, 240_000);
});
