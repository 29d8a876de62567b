/**
 * The browser's TrainerHost: each policy in its own module worker (src/policy-client.ts), runs in
 * IndexedDB, base checkpoints fetched from the app's own /checkpoints/, and the grader given by the
 * caller (the sandbox worker's client). Used by workers/trainer.worker.ts; all sequencing is in
 * src/core/duel/trainer-service.ts.
 */
import { arenaV1 } from "./core/arena/task-suite.ts";
import { taskSetHash } from "./core/bundle.ts";
import { arenaVocabulary } from "./core/duel/contexts.ts";
import { evalStepMetrics, evaluatePlayers } from "./core/duel/evaluate.ts";
import { isWhiteBox } from "./core/duel/step.ts";
import type { Bench } from "./core/arena/metrics-evaluate.ts";
import type { Task } from "./core/arena/task.ts";
import type { HostedPlayer, TrainerHost } from "./core/duel/trainer-service.ts";
import type { Grader } from "./core/grader/types.ts";
import { startPolicyWorker } from "./policy-client.ts";
import { fetchAppFile, fetchBaseCheckpoint } from "./app-files.ts";
import { openArenaDb } from "./storage/db.ts";
import { indexedDbRepository } from "./storage/run-repository.ts";

/** Tasks evaluated in the app: the first 8 train and 8 held-out tasks (the CLI evaluates more). */
const EVAL_TASKS_PER_SPLIT = 8;
const EVAL_SAMPLES = 2;

/**
 * The evaluation bench (plus tests and surviving mutants per task), built in Node by the same
 * prepareBench the CLI uses and shipped as /bench/arena-v1.json: building it needs a trusted
 * Python runtime and takes minutes, so the app loads it instead.
 */
async function loadBench(tasks: Task[]): Promise<Bench> {
  const response = await fetchAppFile("/bench/arena-v1.json");
  if (!response) throw new Error("the evaluation bench /bench/arena-v1.json is missing: see the README (Train, evaluate, reproduce)");
  const f = (await response.json()) as { key: string; plus: [string, unknown][]; mutants: [string, unknown][] };
  const key = (await taskSetHash(tasks)).slice(0, 16);
  if (f.key !== key) throw new Error(`the evaluation bench was built for another task set (${f.key}, this one is ${key}): rebuild it`);
  return { tasks, plus: new Map(f.plus), mutants: new Map(f.mutants) } as Bench;
}

export async function createBrowserTrainerHost(grader: Grader): Promise<TrainerHost> {
  const tasks = arenaV1();
  const db = await openArenaDb();
  const evalTasks = (["train", "heldout"] as const).flatMap((split) => tasks.tasks.filter((t) => t.split === split).slice(0, EVAL_TASKS_PER_SPLIT));
  let bench: Promise<Bench> | null = null;
  return {
    tasks,
    vocab: arenaVocabulary(),
    grader,
    repo: indexedDbRepository(db, await taskSetHash(tasks)),
    async player(role, init, train, backend): Promise<HostedPlayer> {
      const w = startPolicyWorker(`${role} policy`);
      try {
        const choice = await w.policy.init(backend);
        if ("checkpoint" in init) {
          await w.policy.load(init.checkpoint, train);
          if (init.freezeReference) await w.policy.setReference();
        } else await w.policy.create({ ...init.fresh, train });
        return {
          sample: (prompts, spec, opts) => w.policy.sample(prompts, spec, opts),
          update: (samples, rngState) => w.policy.update(samples, rngState),
          save: () => w.policy.save(),
          dispose: () => w.close(),
          backend: { backend: choice.backend, reason: choice.reason, adapter: choice.adapter ?? null },
        };
      } catch (e) {
        w.close();
        throw e;
      }
    },
    async evaluate(players, config, step) {
      bench ??= loadBench(tasks.tasks);
      const { metrics } = await evaluatePlayers(players.code, players.test, await bench, evalTasks, {
        vocab: arenaVocabulary(),
        grader,
        samples: EVAL_SAMPLES,
        // pass@k needs n >= k: the live dashboard's small evaluation reports pass@2 / mut@2.
        k: EVAL_SAMPLES,
        // Independent of the run's seed: runs of different seeds are measured on the same draws.
        seed: `eval-${step}`,
        whiteBox: isWhiteBox(config),
        testsPerSuite: config.tests_per_suite,
        ttsSuitesPerCode: 0,
      });
      return evalStepMetrics(metrics);
    },
    baseCheckpoint: fetchBaseCheckpoint,
  };
}
