/**
 * `npm run train -- --preset classroom --seed 1 --steps 40 [--mode M] [--FIELD VALUE ...] [--tasks FILE] --out runs/x.a1run`
 * The app's training loop in Node (wasm backend, Pyodide grader), printing one line per step
 * (rewards, pass rates, ETA) and writing an `.a1run` bundle the app can import (Runs > Import).
 */
import { basename } from "node:path";
import { CliError, cliConfig, configFlagValues, formatDuration, parseArgs, trainTasksFlag, usage, withConfigFlags, type FlagSpec } from "../src/node/cli.ts";
import { createNodeGrader } from "../src/node/grader.ts";
import { loadOrPrepareBench, runTaskFile } from "../src/node/run-files.ts";
import { trainRun } from "../src/node/train-run.ts";
import { evalTasks } from "../src/node/evaluate-run.ts";
import type { TrainerEvent } from "../src/core/loop/events.ts";
import { runTrainTasks, taskVisits } from "../src/core/duel/task-order.ts";
import { HeldoutIndex } from "../src/core/arena/split-leaks.ts";

// seed, steps, mode and every other config field are flags of their own name (withConfigFlags).
const FLAGS: Record<string, FlagSpec> = withConfigFlags({
  preset: { kind: "string", help: "configuration preset (default classroom)" },
  tasks: { kind: "string", help: "task-suite JSON, or a built-in set: arena-v1, arena-v2 (default: the config's task_set)" },
  out: { kind: "string", help: "bundle to write, e.g. runs/x.a1run (required)" },
  "eval-every": { kind: "int", min: 0, help: "evaluate every N steps and at the end (default: the preset's; 0: never)" },
  "eval-samples": { kind: "int", min: 1, help: "programs and suites per task when evaluating (default 16; pass@k uses k = min(5, n))" },
  "eval-train-tasks": { kind: "string", help: "trained (default: the train tasks trained on so far) | all; held-out: always all" },
  "eval-task-limit": { kind: "int", min: 1, help: "evaluate only the first N tasks of train and of each held-out split" },
});
const USAGE = usage("train", "--out runs/x.a1run [flags]", FLAGS);

function stepLine(e: Extract<TrainerEvent, { type: "step" }>, steps: number, eta: number | null): string {
  const m = e.metrics;
  const f = (x: number) => x.toFixed(3);
  const pct = (x: number | null) => (x === null || !Number.isFinite(x) ? "" : `${(100 * x).toFixed(1)}%`);
  const evals = m.plus_pass_train !== null ? `  | plus train ${pct(m.plus_pass_train)} held-out ${pct(m.plus_pass_heldout)}${m.plus_pass_heldout_compositional !== null && Number.isFinite(m.plus_pass_heldout_compositional) ? ` (compositional ${pct(m.plus_pass_heldout_compositional)}, family ${pct(m.plus_pass_heldout_family)})` : ""} golden ${pct(m.golden_pass)} Mul ${Number.isFinite(m.mul) ? m.mul!.toFixed(2) : "n/a"}` : "";
  const secs = (m.time_sample_ms + m.time_grade_ms + m.time_update_ms) / 1000;
  return (
    `step ${String(m.step).padStart(String(steps).length)}/${steps}  R_C ${f(m.code_reward)}  R_T ${f(m.test_reward)}  ` +
    `valid ${pct(m.test_validity)}  loads ${pct(m.code_loads)}  pairs failed ${pct(m.rollout_fail_rate)}  book ${m.mistake_book_size}  ` +
    `clip ${pct(m.clip_fraction_code)}/${pct(m.clip_fraction_test)} (${m.optimizer_steps_code}/${m.optimizer_steps_test} steps)  ` +
    `${secs.toFixed(1)} s  ETA ${eta === null ? "?" : formatDuration(eta)}${evals}`
  );
}

async function main(argv: string[]): Promise<void> {
  const { flags } = parseArgs(argv, FLAGS, 0);
  const out = flags.out as string | undefined;
  if (!out) throw new CliError("--out is required (the .a1run bundle to write)");
  if (!out.endsWith(".a1run")) throw new CliError(`--out must end in .a1run, got ${JSON.stringify(out)}`);
  const preset = cliConfig((flags.preset as string | undefined) ?? "classroom", { evalEvery: flags["eval-every"] as number | undefined }, configFlagValues(flags));
  const evalSamples = (flags["eval-samples"] as number | undefined) ?? 16;
  const evalTaskLimit = flags["eval-task-limit"] as number | undefined;
  const { file, config } = runTaskFile(flags.tasks as string | undefined, preset);
  if (!file.tasks.some((t) => t.split === "train")) throw new CliError(`task file ${String(flags.tasks)} has no train tasks`);
  const log = (s: string) => process.stdout.write(s + "\n");
  log(`train: ${config.mode}, seed ${config.seed}, ${config.steps} steps, ${config.tasks_per_step} tasks x ${config.num_generations} codes x ${config.suites_per_code} suites per step -> ${out}`);
  const grader = await createNodeGrader();
  try {
    const evaluation = config.eval_every > 0
      ? {
        bench: await loadOrPrepareBench(grader, evalTasks(file, config, 0, "all", evalTaskLimit), "runs", (p) => {
          if (p.done === p.total || p.done % 10 === 0) log(`  evaluation bench: ${p.text}`);
        }, new HeldoutIndex(file.tasks)),
        // Evaluation seed 0 whatever the run's seed, so every run is measured on the same draws.
        options: { samples: evalSamples, seed: 0, temperature: 0.7, k: Math.min(5, evalSamples), tts: 0, trainTasks: trainTasksFlag(flags["eval-train-tasks"]), taskLimit: evalTaskLimit },
      }
      : null;
    let eta: number | null = null;
    const { origin, seconds, snapshot } = await trainRun({
      config,
      file,
      grader,
      out,
      runId: basename(out, ".a1run"),
      evaluation,
      emit: (e) => {
        if (e.type === "status") eta = e.eta_s;
        else if (e.type === "step") log(stepLine(e, config.steps, eta));
        else if (e.type === "progress" && e.phase === "eval") log(`  ${e.text}`);
      },
    });
    log(`players: code ${origin.code}; test ${origin.test}`);
    const visits = [...taskVisits(runTrainTasks(file, config), config).values()];
    const replays = snapshot.metrics.reduce((a, m) => a + m.mistake_book_replays, 0);
    log(`task recurrence: each train task trained on ${Math.min(...visits)}-${Math.max(...visits)} times; Mistake Book replays (tasks shown stored tests, summed over steps): ${replays}`);
    log(`done in ${formatDuration(seconds)}: ${out} (open it in the app: Runs > Import, or npm run eval -- ${out})`);
  } finally {
    await grader.close();
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  const known = e instanceof Error && ["CliError", "RunFileError", "ConfigError"].includes(e.name);
  process.stderr.write(`train: ${e instanceof Error ? (known ? e.message : (e.stack ?? e.message)) : String(e)}\n${e instanceof CliError ? USAGE + "\n" : ""}`);
  process.exitCode = known ? 2 : 1;
});
