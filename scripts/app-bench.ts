/**
 * `npm run app-bench [-- --tasks arena-v2|arena-v1]`: builds the evaluation bench the app's live
 * evaluation reads (public/bench/<set>.json): plus tests and screened mutants of the set's
 * quick-look tasks (quickLookTasks in src/core/duel/evaluate.ts). Building it runs references and
 * mutants in Python, which the app does not do for itself; rebuild after changing a task set,
 * mutate.py or the mutant screen (the app refuses a bench whose keys differ).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { appBenchPath, builtinTaskSet, BUILTIN_TASK_SETS } from "../src/core/arena/task-suite.ts";
import { quickLookTasks } from "../src/core/duel/evaluate.ts";
import { createNodeGrader } from "../src/node/grader.ts";
import { loadOrPrepareBench } from "../src/node/run-files.ts";
import { benchFile } from "../src/core/arena/bench-file.ts";
import { mutateSource } from "../src/node/python-runner.ts";
import { CliError, parseArgs, usage, type FlagSpec } from "../src/node/cli.ts";
import { HeldoutIndex } from "../src/core/arena/split-leaks.ts";

const FLAGS: Record<string, FlagSpec> = {
  tasks: { kind: "string", help: `built-in task set: ${Object.keys(BUILTIN_TASK_SETS).join(", ")} (default arena-v2)` },
  out: { kind: "string", help: "folder of the app's files (default public)" },
};
const USAGE = usage("app-bench", "[flags]", FLAGS);

async function main(): Promise<void> {
  const { flags } = parseArgs(process.argv.slice(2), FLAGS, 0);
  const name = (flags.tasks as string | undefined) ?? "arena-v2";
  const file = builtinTaskSet(name);
  if (!file) throw new CliError(`--tasks must be a built-in set (${Object.keys(BUILTIN_TASK_SETS).join(", ")}), got ${JSON.stringify(name)}`);
  const tasks = quickLookTasks(file);
  const grader = await createNodeGrader();
  try {
    const t0 = performance.now();
    const bench = await loadOrPrepareBench(grader, tasks, "runs", (p) => p.done === p.total && console.log(`[bench] ${p.text}`), new HeldoutIndex(file.tasks));
    const out = join((flags.out as string | undefined) ?? "public", appBenchPath(name));
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, JSON.stringify(await benchFile(bench, mutateSource())) + "\n");
    console.log(`app-bench: ${tasks.length} tasks of ${name} in ${Math.round((performance.now() - t0) / 1000)} s -> ${out}`);
  } finally {
    await grader.close();
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    if (e instanceof CliError) {
      console.error(`app-bench: ${e.message}\n${USAGE}`);
      process.exit(2);
    }
    console.error(e instanceof Error ? e.stack ?? e.message : e);
    process.exit(1);
  },
);
