/**
 * The browser's TrainerHost: each policy in its own module worker (src/browser/policy-client.ts), runs in
 * IndexedDB, task sets built in or imported (IndexedDB, config task_set `imported:HASH16`), base checkpoints fetched from the app's own /checkpoints/, and the grader given by the
 * caller (the sandbox worker's client). Used by workers/trainer.worker.ts; all sequencing is in
 * src/core/duel/trainer-service.ts.
 */
import { appBenchPath, builtinTaskSet } from "../core/arena/task-suite.ts";
import { benchFromFile } from "../core/arena/bench-file.ts";
import MUTATE_PY from "../core/arena/mutate.py?raw";
import { arenaVocabulary } from "../core/duel/contexts.ts";
import { evalStepMetrics, evaluatePlayers, quickLookTasks } from "../core/duel/evaluate.ts";
import { isWhiteBox } from "../core/duel/step.ts";
import type { Bench } from "../core/arena/metrics-evaluate.ts";
import type { Task } from "../core/arena/task.ts";
import type { HostedPlayer, TrainerHost } from "../core/duel/trainer-service.ts";
import type { Grader } from "../core/grader/types.ts";
import { startPolicyWorker } from "./policy-client.ts";
import { fetchAppFile, fetchBaseCheckpoint } from "./app-files.ts";
import { openArenaDb } from "../storage/db.ts";
import { indexedDbRepository } from "../storage/run-repository.ts";
import { findImportedSet } from "../storage/task-sets.ts";

const EVAL_SAMPLES = 2;

/**
 * The evaluation bench (plus tests and surviving mutants) of a task set's quick-look tasks, built in
 * Node by the same prepareBench the CLI uses (`npm run app-bench`) and shipped as
 * /bench/<task set>.json: building it needs a trusted Python runtime and takes minutes, so the app
 * loads it instead.
 */
async function loadBench(name: string, tasks: Task[]): Promise<Bench> {
  const path = appBenchPath(name);
  const response = await fetchAppFile(path);
  if (!response) throw new Error(`the evaluation bench ${path} is missing: build it with npm run app-bench -- --tasks ${name}`);
  const { bench, key, found } = await benchFromFile(tasks, await response.json(), MUTATE_PY);
  if (!bench) throw new Error(`the evaluation bench ${path} was built for other tasks or mutants (${found ?? "no key"}, these are ${key}): rebuild it with npm run app-bench -- --tasks ${name}`);
  return bench;
}

export async function createBrowserTrainerHost(grader: Grader): Promise<TrainerHost> {
  const db = await openArenaDb();
  const benches = new Map<string, Promise<Bench>>();
  const bench = (name: string): Promise<Bench> => {
    let b = benches.get(name);
    if (!b) {
      b = loadBench(name, quickLookTasks(builtinTaskSet(name)!));
      // A failed load (missing file, offline) is retried at the next evaluation.
      b.catch(() => benches.delete(name));
      benches.set(name, b);
    }
    return b;
  };
  return {
    async taskSet(config) {
      const builtin = builtinTaskSet(config.task_set);
      if (builtin) return builtin;
      const stored = await findImportedSet(db, config.task_set);
      if (!stored) throw new Error(`the task set ${config.task_set} is not stored in this browser: import its JSONL in Settings > Task sets, or a run bundle that carries it`);
      return stored.file;
    },
    // An imported set ships no bench (plus tests and surviving mutants, built in Node): its runs train
    // and are scored by their duels, without the live evaluation.
    evaluates: (config) => builtinTaskSet(config.task_set) !== null,
    vocab: arenaVocabulary(),
    grader,
    repo: indexedDbRepository(db),
    async player(role, init, train, backend): Promise<HostedPlayer> {
      const w = startPolicyWorker(`${role} policy`);
      // A worker that dies fails the call in flight at once (the watchdog covers one that hangs).
      const call = <T>(p: Promise<T>): Promise<T> => Promise.race([p, w.failed]);
      try {
        const choice = await call(w.policy.init(backend));
        if ("checkpoint" in init) {
          await call(w.policy.load(init.checkpoint, train));
          if (init.freezeReference) await call(w.policy.setReference());
        } else await call(w.policy.create({ ...init.fresh, train }));
        return {
          sample: (prompts, spec, opts) => call(w.policy.sample(prompts, spec, opts)),
          update: (samples, rngState) => call(w.policy.update(samples, rngState)),
          save: () => call(w.policy.save()),
          dispose: () => w.close(),
          backend: { backend: choice.backend, reason: choice.reason, adapter: choice.adapter ?? null },
        };
      } catch (e) {
        w.close();
        throw e;
      }
    },
    async evaluate(players, config, step) {
      const b = await bench(config.task_set);
      const { metrics } = await evaluatePlayers(players.code, players.test, b, b.tasks, {
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
