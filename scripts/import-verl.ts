/**
 * `npm run import-verl -- LOGDIR --export DIR --out runs/x.a1run [--tasks FILE] [--host NAME]`
 * The rollout dumps of a verl run of an exported experiment (LOGDIR: the reference's `logs/`; DIR:
 * the folder `npm run export -- verl` wrote, for its config and experiment name) as an `.a1run`
 * bundle that the app opens in its Duel and Mistake Book views (Runs > Import). docs/SCALING.md.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { CliError, parseArgs, usage, type FlagSpec } from "../src/node/cli.ts";
import { loadTaskFile, writeRunFile } from "../src/node/run-files.ts";
import { taskSetHash } from "../src/core/bundle.ts";
import { parseConfig } from "../src/core/config/index.ts";
import { parseDumpJsonl, verlDumpToSnapshot, type DumpEntry, type ReferenceBook, type VerlDump } from "../src/core/export/verl-import.ts";

const FLAGS: Record<string, FlagSpec> = {
  export: { kind: "string", help: "the folder `npm run export -- verl` wrote (its export.json: config, experiment, task set) (required)" },
  out: { kind: "string", help: "bundle to write, e.g. runs/x.a1run (required)" },
  tasks: { kind: "string", help: "task-suite JSON of a custom task set (default: the built-in set named in export.json)" },
  host: { kind: "string", help: "which host's dumps when several wrote them (default: the only one)" },
};
const USAGE = usage("import-verl", "LOGDIR --export DIR --out runs/x.a1run [flags]", FLAGS);

function hostDir(root: string, suffix: string, host: string | undefined): string {
  if (!existsSync(root)) throw new CliError(`no dumps at ${root} (is LOGDIR the reference's logs/ folder, and the experiment the exported one?)`);
  const hosts = readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory() && d.name.endsWith(suffix)).map((d) => d.name);
  const want = host === undefined ? null : host + suffix;
  const pick = want ? hosts.filter((h) => h === want) : hosts;
  if (pick.length !== 1) throw new CliError(`${root}: ${pick.length === 0 ? "no host folder" : `several host folders (${hosts.join(", ")}): choose one with --host`}${want ? ` named ${want}` : ""}`);
  return join(root, pick[0]);
}

function readSteps<T>(dir: string, re: RegExp, read: (text: string, path: string) => T): Map<number, T> {
  const out = new Map<number, T>();
  for (const name of readdirSync(dir)) {
    const m = re.exec(name);
    if (m) out.set(Number(m[1]), read(readFileSync(join(dir, name), "utf8"), join(dir, name)));
  }
  return out;
}

async function main(argv: string[]): Promise<void> {
  const { flags, positional } = parseArgs(argv, FLAGS, 1);
  const logs = positional[0];
  if (!logs) throw new CliError("LOGDIR is required (the reference's logs/ folder)");
  const exportDir = flags.export as string | undefined;
  const out = flags.out as string | undefined;
  if (!exportDir) throw new CliError("--export is required (the exported folder, for its export.json)");
  if (!out?.endsWith(".a1run")) throw new CliError(`--out must end in .a1run, got ${JSON.stringify(out ?? "")}`);
  const manifestPath = join(exportDir, "export.json");
  if (!existsSync(manifestPath)) throw new CliError(`${manifestPath} not found`);
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { experiment?: string; task_set?: string; config?: unknown };
  if (typeof manifest.experiment !== "string" || typeof manifest.task_set !== "string") throw new CliError(`${manifestPath}: not an export manifest (experiment, task_set)`);
  const config = parseConfig(manifest.config);
  const file = loadTaskFile((flags.tasks as string | undefined) ?? manifest.task_set);
  const host = flags.host as string | undefined;
  const codeDir = hostDir(join(logs, "code_rollout", manifest.experiment), "", host);
  const suiteDir = hostDir(join(logs, "test_rollout", manifest.experiment), "_phase2", host);
  const dump: VerlDump = {
    codes: readSteps<DumpEntry[]>(codeDir, /^(\d+)\.jsonl$/, parseDumpJsonl),
    suites: readSteps<DumpEntry[]>(suiteDir, /^(\d+)\.jsonl$/, parseDumpJsonl),
    books: readSteps<ReferenceBook>(codeDir, /^mistake_book_step_(\d+)\.json$/, (t) => JSON.parse(t) as ReferenceBook),
  };
  const snapshot = verlDumpToSnapshot(dump, {
    file, config, taskSetHash: await taskSetHash(file.tasks), runId: basename(out, ".a1run"), name: `verl: ${manifest.experiment}`, now: Date.now(),
  });
  await writeRunFile(out, snapshot);
  const records = snapshot.duels.reduce((a, d) => a + d.records.length, 0);
  process.stdout.write(`import-verl: ${snapshot.run.step} steps, ${records} task duels, Mistake Book ${snapshot.mistake_book ? Object.values(snapshot.mistake_book.tasks).flat().length : 0} tests -> ${out} (open it in the app: Runs > Import)\n`);
}

main(process.argv.slice(2)).catch((e: unknown) => {
  const known = e instanceof Error && ["CliError", "RunFileError", "ConfigError", "ImportError", "BundleError"].includes(e.name);
  process.stderr.write(`import-verl: ${e instanceof Error ? (known ? e.message : (e.stack ?? e.message)) : String(e)}\n${e instanceof CliError ? USAGE + "\n" : ""}`);
  process.exitCode = known ? 2 : 1;
});
