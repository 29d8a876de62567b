/**
 * `npm run export -- verl --tasks T --preset P --out DIR [--FIELD VALUE ...]`
 * The experiment as the files the reference implementation runs on verl and Ray (Parquet data, YAML
 * config, the arena's reward module, a README with the cluster commands): docs/SCALING.md.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CliError, cliConfig, configFlagValues, parseArgs, usage, withConfigFlags, type FlagSpec } from "../src/node/cli.ts";
import { runTaskFile } from "../src/node/run-files.ts";
import { evalTasks } from "../src/node/evaluate-run.ts";
import { benchKey } from "../src/core/arena/bench-file.ts";
import { benchPlus, buildVerlExport } from "../src/core/export/verl.ts";
import { presetConfig } from "../src/core/config/index.ts";
import type { TaskFile } from "../src/core/arena/task.ts";

const FLAGS: Record<string, FlagSpec> = withConfigFlags({
  preset: { kind: "string", help: "configuration preset (default classroom)" },
  tasks: { kind: "string", help: "task-suite JSON, or a built-in set: arena-v1, arena-v2 (default: the preset's task_set)" },
  out: { kind: "string", help: "folder to write (required; created; must be empty if it exists)" },
  bench: { kind: "string", help: "evaluation bench JSON whose plus tests join val.parquet's check functions (default: the shipped or cached bench of the task set, if any)" },
  "code-model": { kind: "string", help: "Hugging Face id of the Code LLM (default Qwen/Qwen2.5-Coder-1.5B-Instruct)" },
  "test-model": { kind: "string", help: "Hugging Face id of the Test LLM (default the same)" },
  nnodes: { kind: "int", min: 1, help: "nodes in the Ray cluster (default 1); the Code and the Test model share them" },
  "gpus-per-node": { kind: "int", min: 1, help: "GPUs on each node (default 8); the export splits them between the two models' pools so every batch divides, and says how" },
  experiment: { kind: "string", help: "experiment name (default <task set>-<preset>-seed<seed>)" },
});
const USAGE = usage("export", "verl --out DIR [flags]", FLAGS);

const REWARD_MODULE = new URL("../src/core/export/arena_reward.py", import.meta.url);

/** Plus tests from a bench file (the `npm run eval` cache format) built for this task set. */
async function findBench(file: TaskFile, explicit: string | undefined): Promise<{ plus: Map<string, string[]>; from: string } | null> {
  const key = await benchKey(evalTasks(file, presetConfig("classroom"), 0, "all"));
  const candidates = explicit ? [explicit] : [join("runs", `bench-${key}.json`), ...(existsSync("public/bench") ? readdirSync("public/bench").map((n) => join("public/bench", n)) : [])];
  for (const path of candidates) {
    if (!existsSync(path)) {
      if (explicit) throw new CliError(`--bench: file not found: ${path}`);
      continue;
    }
    const plus = await benchPlus(file, JSON.parse(readFileSync(path, "utf8")));
    if (plus) return { plus, from: path };
    if (explicit) throw new CliError(`--bench ${path}: built for another task set (this set's key is ${key})`);
  }
  return null;
}

async function main(argv: string[]): Promise<void> {
  const { flags, positional } = parseArgs(argv, FLAGS, 1);
  if (positional[0] !== "verl") throw new CliError(`the first argument is the target, and the one target is verl; got ${JSON.stringify(positional[0] ?? "")}`);
  const out = flags.out as string | undefined;
  if (!out) throw new CliError("--out is required (the folder to write)");
  if (existsSync(out) && readdirSync(out).length > 0) throw new CliError(`--out ${out} exists and is not empty`);
  const preset = (flags.preset as string | undefined) ?? "classroom";
  const { file, config } = runTaskFile(flags.tasks as string | undefined, cliConfig(preset, {}, configFlagValues(flags)));
  const bench = await findBench(file, flags.bench as string | undefined);
  const e = buildVerlExport({
    file,
    config,
    preset,
    rewardModule: readFileSync(REWARD_MODULE, "utf8"),
    plus: bench?.plus,
    codeModel: flags["code-model"] as string | undefined,
    testModel: flags["test-model"] as string | undefined,
    nnodes: flags.nnodes as number | undefined,
    gpusPerNode: flags["gpus-per-node"] as number | undefined,
    experiment: flags.experiment as string | undefined,
  });
  mkdirSync(out, { recursive: true });
  for (const [name, bytes] of Object.entries(e.files)) writeFileSync(join(out, name), bytes);
  const sizes = Object.entries(e.files).map(([n, b]) => `${n} ${b.byteLength} B`).join(", ");
  const shape = e.plan.adjusted.map((a) => `  - ${a}\n`).join("");
  process.stdout.write(`export verl: ${file.name}, preset ${preset}: ${e.train} train rows, ${e.val} validation rows (tests: ${bench ? `golden + plus from ${bench.from}` : "golden"})\n${shape}  ${out}: ${sizes}\n  next: ${join(out, "README.md")}\n`);
}

main(process.argv.slice(2)).catch((e: unknown) => {
  const known = e instanceof Error && ["CliError", "RunFileError", "ConfigError", "ExportError"].includes(e.name);
  process.stderr.write(`export: ${e instanceof Error ? (known ? e.message : (e.stack ?? e.message)) : String(e)}\n${e instanceof CliError ? USAGE + "\n" : ""}`);
  process.exitCode = known ? 2 : 1;
});
