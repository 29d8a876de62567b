/**
 * `npm run eval -- runs/x.a1run [--json]`: evaluation metrics of a run's last checkpoint.
 * `npm run eval -- --preset P [--json]`: those of the preset's base players; `--base DIR [--size S]`: of the
 * base checkpoint `npm run pretrain-base -- --out DIR [--size S]` wrote there instead of the shipped one.
 * Deterministic for a given checkpoint and --seed (sampling seed, default 0). Progress on stderr;
 * the table (or with --json one line) on stdout.
 */
import { CliError, cliConfig, parseArgs, trainTasksFlag, usage, type FlagSpec } from "../src/node/cli.ts";
import { createNodeGrader } from "../src/node/grader.ts";
import { evalTasks, evaluateCheckpoint, lastCheckpoint, metricsJson, metricsTable } from "../src/node/evaluate-run.ts";
import { baseCheckpointPath, loadOrPrepareBench, readRunFile, runTaskFile } from "../src/node/run-files.ts";
import { baseCheckpointFile } from "../src/core/duel/pretrain.ts";
import { BundleError } from "../src/core/bundle.ts";
import type { TaskFile } from "../src/core/arena/task.ts";
import { HeldoutIndex } from "../src/core/arena/split-leaks.ts";

const FLAGS: Record<string, FlagSpec> = {
  preset: { kind: "string", help: "evaluate this preset's base players instead of a run file" },
  base: { kind: "string", help: "with --preset: take the base checkpoint from this folder (an `npm run pretrain-base -- --out DIR`) instead of public/checkpoints" },
  size: { kind: "string", help: "with --preset: both players' model size, tiny | small (default the preset's)" },
  json: { kind: "bool", help: "print one JSON line" },
  samples: { kind: "int", min: 1, help: "programs and suites per task, n >= k (default 16)" },
  seed: { kind: "int", min: 0, help: "sampling seed of the evaluation, independent of the run's (default 0)" },
  temperature: { kind: "number", min: 0.01, help: "sampling temperature (default 0.7, as the paper)" },
  k: { kind: "int", min: 1, help: "k of pass@k and mut@k (default 5)" },
  tts: { kind: "int", min: 0, help: "suites per program for test-time scaling (default 1; 0 skips)" },
  tasks: { kind: "string", help: "task-suite JSON, or a built-in set: arena-v1, arena-v2 (default: the run's or preset's task_set)" },
  "task-limit": { kind: "int", min: 1, help: "evaluate only the first N tasks of train and of each held-out split" },
  "train-tasks": { kind: "string", help: "trained (default: the train tasks the run trained on) | all; held-out tasks are always all" },
  "bench-cache": { kind: "string", help: "directory caching plus tests and mutants (default runs/)" },
};
const USAGE = usage("eval", "<run.a1run> | --preset <name>  [flags]", FLAGS);

async function main(argv: string[]): Promise<void> {
  const { flags, positional } = parseArgs(argv, FLAGS, 1);
  const preset = flags.preset as string | undefined;
  if (!preset === !positional[0]) throw new CliError("give either a run file or --preset, not both and not neither");
  let bundled: TaskFile | null = null;
  let config;
  let checkpoint;
  let label: string;
  const baseDir = flags.base as string | undefined;
  const size = flags.size as string | undefined;
  if (!preset && (baseDir !== undefined || size !== undefined)) throw new CliError("--base and --size go with --preset (a run file carries its own players)");
  if (size !== undefined && size !== "tiny" && size !== "small") throw new CliError(`--size must be tiny or small, got ${JSON.stringify(size)}`);
  if (preset) {
    config = cliConfig(preset, {}, size ? { code_model: size, test_model: size } : {});
    if (baseDir !== undefined && !baseCheckpointPath(config.code_model, baseDir)) {
      throw new CliError(`--base ${baseDir}: no ${baseCheckpointFile(config.code_model)} there (npm run pretrain-base -- --out ${baseDir}${size === "small" ? " --size small" : ""})`);
    }
    label = `base players of preset ${preset}${baseDir !== undefined ? ` from ${baseDir}` : ""}`;
  } else {
    const snapshot = await readRunFile(positional[0]);
    // A run on an imported set carries it: evaluated on that set unless --tasks names another.
    if (snapshot.task_set && flags.tasks === undefined) bundled = snapshot.task_set;
    config = snapshot.config;
    checkpoint = lastCheckpoint(snapshot);
    label = `${positional[0]} at step ${checkpoint.step}`;
  }
  // A run is evaluated on the set it trained on (the one it carries, else its config's task_set) unless --tasks says otherwise.
  const file = bundled ?? runTaskFile(flags.tasks as string | undefined, config).file;
  const log = (s: string) => process.stderr.write(s + "\n");
  log(`eval: ${label}`);
  const grader = await createNodeGrader();
  try {
    // The bench of the evaluated tasks only: arena-v2's 1,000+ tasks would take most of an hour.
    const taskLimit = flags["task-limit"] as number | undefined;
    const bench = await loadOrPrepareBench(grader, evalTasks(file, config, 0, "all", taskLimit), (flags["bench-cache"] as string | undefined) ?? "runs", (p) => {
      if (p.done === p.total) log(`  bench: ${p.text}`);
    }, new HeldoutIndex(file.tasks));
    const t0 = Date.now();
    const { evaluation, origin, step } = await evaluateCheckpoint(config, checkpoint, file, grader, bench, {
      ...(baseDir !== undefined ? { baseDir } : {}),
      samples: (flags.samples as number | undefined) ?? 16,
      seed: (flags.seed as number | undefined) ?? 0,
      temperature: (flags.temperature as number | undefined) ?? 0.7,
      k: (flags.k as number | undefined) ?? 5,
      tts: (flags.tts as number | undefined) ?? 1,
      taskLimit,
      trainTasks: trainTasksFlag(flags["train-tasks"]),
      onProgress: (p) => {
        if (p.done === p.total) log(`  ${p.phase}: ${p.text}`);
      },
    });
    log(`  players: code ${origin.code}; test ${origin.test} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
    if (flags.json) process.stdout.write(metricsJson(evaluation.metrics, { step, mode: config.mode }) + "\n");
    else process.stdout.write(`${label}\n${metricsTable(evaluation.metrics)}\n`);
  } finally {
    await grader.close();
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  if (e instanceof CliError) {
    process.stderr.write(`eval: ${e.message}\n${USAGE}\n`);
    process.exitCode = 2;
  } else if (e instanceof BundleError || (e instanceof Error && e.name === "RunFileError")) {
    process.stderr.write(`eval: ${e.message}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`eval: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  }
});
