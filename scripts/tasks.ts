/**
 * `npm run tasks -- <command>`: the task suite's command line.
 *
 *   check [--tasks FILE|arena-v1|arena-v2] [--lenient] [--seed N] [--sample N]
 *       Runs every invariant (docs/TASKS.md, "Invariants") through the real grader and ends with ONE
 *       JSON line {tasks, train, heldout, weak_golden, violations} (a generated set: heldout_compositional
 *       and heldout_family instead of heldout). Exit code 1 when violations exist.
 *       --lenient: imported files (no size floors, no weak-golden share, variants optional).
 *   import mbpp|humaneval IN.jsonl --out FILE [--split train|heldout] [--name NAME] [--seed N] [--keep-outside] [--report FILE]
 *       Converts MBPP- or HumanEval-style JSONL into arena tasks (src/core/arena/importers/arenise.ts): renamed to
 *       arena names, input_spec and preconditions inferred, buggy variants from mutants, each checked by
 *       execution. A malformed file is refused as a whole (every bad line named, nothing written); a task
 *       that cannot be an arena task is refused naming what stops it, and the rest still import.
 *       Prints one JSON summary line; the per-task report goes to stderr (and to --report as JSON).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { checkSummary, checkTasks, isGenerated } from "../src/core/arena/task-check.ts";
import type { TaskFile } from "../src/core/arena/task.ts";
import { ImportError, type ImportFormat } from "../src/core/arena/importers/import.ts";
import { importArenaTasks, type TaskReport } from "../src/core/arena/importers/arenise.ts";
import { createNodeGrader } from "../src/node/grader.ts";
import { areniseSource, createNodeRunPython, mutateSource } from "../src/node/python-runner.ts";
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
  split: { kind: "string", help: "train | heldout (default train)" },
  name: { kind: "string", help: "task set name (default import-FORMAT)" },
  seed: { kind: "int", help: "seed of the drawn inputs and the variant choice (default 0)" },
  "keep-outside": { kind: "bool", help: "also write refused tasks, flagged outside_arena (play and evaluation only; check with --lenient)" },
  report: { kind: "string", help: "also write the per-task report as JSON to this file" },
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

async function runImport(args: string[]): Promise<void> {
  const { flags, positional } = flagsOf(args, IMPORT_FLAGS, 2);
  const out = flags.out as string | undefined;
  const split = (flags.split as string | undefined) ?? "train";
  const name = flags.name as string | undefined;
  const [format, input] = positional;
  if (format !== "mbpp" && format !== "humaneval") fail("import needs a format: mbpp or humaneval");
  if (!input) fail("import needs exactly one input file");
  if (!out) fail("import needs --out FILE");
  if (split !== "train" && split !== "heldout") fail("--split must be train or heldout");
  let text: string;
  try {
    text = readFileSync(input, "utf8");
  } catch (e) {
    fail(`cannot read ${input}: ${(e as Error).message}`);
  }
  const grader = await createNodeGrader();
  let exit = 0;
  try {
    const t0 = Date.now();
    const { file, report } = await importArenaTasks(
      text,
      format as ImportFormat,
      { grader, runPython: createNodeRunPython(), roundTrip: createRoundTrip(), arenisePy: areniseSource(), mutatePy: mutateSource() },
      {
        split,
        name: name ?? `import-${format}`,
        seed: (flags.seed as number | undefined) ?? 0,
        keepOutside: flags["keep-outside"] === true,
        onProgress: (done, total, id) => process.stderr.isTTY && process.stderr.write(`\r${`${done}/${total} ${id}`.padEnd(60)}`),
      },
    );
    if (process.stderr.isTTY) process.stderr.write("\n");
    for (const r of report) console.error(reportLine(r));
    const trainable = report.filter((r) => r.status === "trainable");
    if (file.tasks.length === 0) {
      console.error(`tasks: none of the ${report.length} task(s) can be an arena task; nothing written`);
      exit = 1;
      return;
    }
    writeFileSync(out, JSON.stringify(file, null, 2) + "\n");
    if (flags.report) writeFileSync(flags.report as string, JSON.stringify(report, null, 2) + "\n");
    console.error(`imported ${input} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    console.log(JSON.stringify({
      records: report.length,
      trainable: trainable.length,
      refused: report.length - trainable.length,
      weak_golden: trainable.filter((r) => r.weakGolden).length,
      with_preconditions: trainable.filter((r) => (r.preconditions ?? []).length > 0).length,
      out,
    }));
  } catch (e) {
    if (e instanceof ImportError) {
      console.error(`tasks: ${e.message}`);
      exit = 1;
      return;
    }
    throw e;
  } finally {
    await grader.close();
    // Set explicitly: the grader's worker teardown must not turn a refused import into exit 0.
    if (exit !== 0) process.exit(exit);
  }
}

/** One stderr line per task: what it became, or what stops it. */
function reportLine(r: TaskReport): string {
  if (r.status === "refused") return `refused ${r.id} (line ${r.line}): ${r.reason}`;
  const renames = Object.entries(r.renames ?? {}).map(([a, b]) => `${a}->${b}`).join(" ");
  const pre = (r.preconditions ?? []).map((p) => `${p.expr} (excludes ${p.excluded}/${p.drawn} drawn inputs; the reference raises on e.g. ${p.example})`);
  return [
    `trainable ${r.id} (line ${r.line}): renamed ${renames || "nothing"}`,
    `same outputs on ${r.checkedInputs} inputs`,
    `${r.variants} buggy variants of ${r.mutants} mutants${r.weakGolden ? ", weak golden" : ""}`,
    ...(pre.length > 0 ? [`preconditions: ${pre.join("; ")}`] : []),
  ].join("; ");
}

const [command, ...args] = process.argv.slice(2);
if (command === "check") await check(args);
else if (command === "import") await runImport(args);
else fail(command ? `unknown command '${command}'` : "missing command");
