/**
 * `npm run tasks -- <command>`: the task suite's command line.
 *
 *   check [--tasks FILE|arena-v1|arena-v2] [--lenient] [--seed N] [--sample N]
 *       Runs every invariant (docs/TASKS.md, "Invariants") through the real grader and ends with ONE
 *       JSON line {tasks, train, heldout, weak_golden, violations} (a generated set: heldout_compositional
 *       and heldout_family instead of heldout). Exit code 1 when violations exist.
 *       --lenient: imported files (no size floors, no weak-golden share, variants optional).
 *   import mbpp|humaneval IN.jsonl --out FILE [--split train|heldout] [--name NAME]
 *       Converts MBPP- or HumanEval-style JSONL into a task file (all or nothing); prints a summary.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { checkSummary, checkTasks, isGenerated } from "../src/core/arena/task-check.ts";
import type { TaskFile } from "../src/core/arena/task.ts";
import { importJsonl, ImportError, type ImportFormat } from "../src/core/arena/import.ts";
import { createNodeGrader } from "../src/node/grader.ts";
import { createNodeRunPython } from "../src/node/python-runner.ts";
import { createRoundTrip } from "../src/core/arena/task-round-trip.ts";
import { loadTaskFile, RunFileError } from "../src/node/run-files.ts";
import { CliError, parseArgs, usage, type FlagSpec } from "../src/node/cli.ts";

const CHECK_FLAGS: Record<string, FlagSpec> = {
  tasks: { kind: "string", help: "task file, or a built-in set: arena-v1 (default), arena-v2" },
  lenient: { kind: "bool", help: "imported files: no size floors, no weak-golden share, variants optional" },
  seed: { kind: "int", help: "seed of the drawn inputs (default 0)" },
  sample: { kind: "int", min: 1, help: "execute only N tasks spread evenly over the set (structure and floors: all)" },
};
const IMPORT_FLAGS: Record<string, FlagSpec> = {
  out: { kind: "string", help: "task file to write (required)" },
  split: { kind: "string", help: "train | heldout (default heldout)" },
  name: { kind: "string", help: "task set name (default import-FORMAT)" },
};
const USAGE = [usage("tasks", "check [flags]", CHECK_FLAGS), usage("tasks", "import mbpp|humaneval IN.jsonl --out FILE [flags]", IMPORT_FLAGS)].join("\n");

/** Flags of a subcommand; a CliError ends the command with its usage (exit 2). */
function flagsOf(args: string[], specs: Record<string, FlagSpec>, maxPositional: number) {
  try {
    return parseArgs(args, specs, maxPositional);
  } catch (e) {
    if (e instanceof CliError) fail(e.message);
    throw e;
  }
}

function fail(message: string): never {
  console.error(`tasks: ${message}\n${USAGE}`);
  process.exit(2);
}

async function check(args: string[]): Promise<void> {
  const { flags } = flagsOf(args, CHECK_FLAGS, 0);
  const path = flags.tasks as string | undefined;
  const seed = (flags.seed as number | undefined) ?? 0;
  const lenient = flags.lenient === true;
  let file: TaskFile;
  try {
    file = loadTaskFile(path, { strict: !lenient });
  } catch (e) {
    if (e instanceof RunFileError) fail(e.message);
    throw e;
  }
  const grader = await createNodeGrader();
  try {
    const t0 = Date.now();
    const report = await checkTasks(
      file,
      { grader, runPython: createNodeRunPython(), roundTrip: createRoundTrip() },
      {
        strict: !lenient,
        seed,
        sample: flags.sample as number | undefined,
        onProgress: (text) => process.stderr.isTTY && process.stderr.write(`\r${text.padEnd(60)}`),
      },
    );
    if (process.stderr.isTTY) process.stderr.write("\n");
    console.error(`checked ${file.name} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    for (const v of report.violations) console.error(`violation: ${v}`);
    console.log(JSON.stringify(checkSummary(report, isGenerated(file))));
    if (report.violations.length > 0) process.exitCode = 1;
  } finally {
    await grader.close();
  }
}

function runImport(args: string[]): void {
  const { flags, positional } = flagsOf(args, IMPORT_FLAGS, 2);
  const out = flags.out as string | undefined;
  const split = (flags.split as string | undefined) ?? "heldout";
  const name = flags.name as string | undefined;
  const [format, input] = positional;
  if (format !== "mbpp" && format !== "humaneval") fail("import needs a format: mbpp or humaneval");
  if (!input) fail("import needs exactly one input file");
  if (!out) fail("import needs --out FILE");
  if (split !== "train" && split !== "heldout") fail("--split must be train or heldout");
  try {
    const { file, outside } = importJsonl(readFileSync(input, "utf8"), format as ImportFormat, {
      split,
      name: name ?? `import-${format}`,
      roundTrip: createRoundTrip(),
    });
    writeFileSync(out, JSON.stringify(file, null, 2) + "\n");
    console.log(JSON.stringify({ imported: file.tasks.length, outside_arena: outside.length, out }));
    for (const o of outside) console.error(`outside arena-Python: ${o.id}: ${o.reason}`);
  } catch (e) {
    if (e instanceof ImportError) {
      console.error(`tasks: ${e.message}`);
      process.exit(1);
    }
    throw e;
  }
}

const [command, ...args] = process.argv.slice(2);
if (command === "check") await check(args);
else if (command === "import") runImport(args);
else fail(command ? `unknown command '${command}'` : "missing command");
