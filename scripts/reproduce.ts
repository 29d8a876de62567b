/**
 * `npm run reproduce [-- --preset classroom --seeds 5 --steps 60 ...]`: the research claim of issue
 * 5, section 6. Trains golden-tests, self-play, CURE and code-a1 (and evaluates base) on one preset over
 * several seeds, runs the alpha ablation, evaluates every final checkpoint, and writes
 * docs/RESULTS.md with SVG curves in docs/results/.
 *
 * Incremental: every finished run (`<out-dir>/<job>.a1run`) and evaluation (`<job>.eval.json`) is
 * cached and reused, so an interrupted reproduce continues where it stopped; RESULTS.md is rewritten
 * after every job. Delete the out-dir (default runs/reproduce) to start over.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { CliError, cliConfig, formatDuration, parseArgs, trainTasksFlag, usage, type FlagSpec } from "../src/node/cli.ts";
import { createNodeGrader } from "../src/node/grader.ts";
import { evalTasks, evaluateCheckpoint, lastCheckpoint, type NodeEvalOptions } from "../src/node/evaluate-run.ts";
import { baseCheckpointPath, loadOrPrepareBench, readRunFile, runTaskFile } from "../src/node/run-files.ts";
import { trainRun } from "../src/node/train-run.ts";
import { CURVES, curveSvg, resultsMarkdown, type JobResult } from "../src/node/results-report.ts";
import { ABLATIONS, ALPHA_SWEEP, MODES, withAblation, type AblationName, type Config } from "../src/core/config/index.ts";
import { EVAL_METRICS_VERSION, type EvalMetrics } from "../src/core/duel/evaluate.ts";
import { mutantsKey } from "../src/core/arena/bench-file.ts";
import { mutateSource } from "../src/node/python-runner.ts";
import type { StepMetrics } from "../src/core/loop/types.ts";
import { runTrainTasks, taskVisits } from "../src/core/duel/task-order.ts";
import type { Grader } from "../src/core/grader/types.ts";
import type { Bench } from "../src/core/arena/metrics-evaluate.ts";
import type { Split, TaskFile } from "../src/core/arena/task.ts";
import { tasksOfSplit } from "../src/core/arena/task-suite.ts";
import { MODEL_SIZES, type ModelSize } from "../src/core/policy/config.ts";
import { HeldoutIndex } from "../src/core/arena/split-leaks.ts";

/**
 * Default scale: the main table issue 12 asks for, 5 seeds x 60 steps (classroom: 5 epochs of its 48
 * train tasks, so every task recurs 5 times and the Mistake Book replays) of base, golden-tests,
 * self-play, CURE and code-a1; code-a1 without the Mistake Book and without TopVar, and the alpha
 * sweep, on 3 seeds. Jobs run seed by seed (every mode of seed 1, then seed 2...), so a reproduce cut
 * short holds complete pairs. Measured on the shared 2-core machine (2026-12-06): a 60-step classroom
 * run 2.6 min, one evaluation of arena-v2 (336 tasks x 16 samples with test-time scaling) 7.6 min;
 * `--eval-task-limit 48` (144 tasks) about 3.3 min. Two processes share the cores with `--shard 1/2`
 * and `--shard 2/2` (each with its own --results), then one more run without --shard reads every
 * cached job and writes the report. Lower --steps, --seeds, --alpha-seeds, --ablation-seeds or
 * --eval-samples to fit a busier machine.
 */
const DEFAULT_SEEDS = 5;
const DEFAULT_STEPS = 60;
// Code-A1 without the Mistake Book and without TopVar: the method's two parts, ablated in every reproduce.
const DEFAULT_MODES = "base,golden-tests,self-play,cure,code-a1,code-a1+no-mistake-book,code-a1+no-topvar";
/** Ablated modes (Mistake Book, TopVar) on 3 seeds, as the alpha sweep: paired against code-a1's same seeds. */
const DEFAULT_ABLATION_SEEDS = 3;
/** The alpha sweep on 3 seeds: one seed cannot say whether a peak is real. */
const DEFAULT_ALPHA_SEEDS = 3;
/** Samples per task in evaluation: at least 16 (issue 12), and n >= k for pass@5 / mut@5. */
const DEFAULT_EVAL_SAMPLES = 16;

const FLAGS: Record<string, FlagSpec> = {
  preset: { kind: "string", help: "preset every run starts from (default classroom)" },
  seeds: { kind: "int", min: 1, help: `seeds per mode, 1..N (default ${DEFAULT_SEEDS})` },
  steps: { kind: "int", min: 1, help: `training steps per run (default ${DEFAULT_STEPS}; the classroom preset's own is 36 = 3 epochs)` },
  modes: { kind: "string", help: `comma-separated modes, each optionally +ablation(s), e.g. self-play+no-mistake-book+no-topvar (default ${DEFAULT_MODES})` },
  "ablation-seeds": { kind: "int", min: 0, help: `seeds of each ablated mode (an entry with +ablation, e.g. code-a1+no-topvar), 1..N (default ${DEFAULT_ABLATION_SEEDS})` },
  "alpha-seeds": { kind: "int", min: 0, help: `seeds of each alpha-ablation run (default ${DEFAULT_ALPHA_SEEDS}; 0 skips the ablation)` },
  alphas: { kind: "string", help: `comma-separated alpha values of the ablation (default ${ALPHA_SWEEP.filter((a) => a !== 0.5).join(",")}; 0.5 is code-a1's own row)` },
  "eval-samples": { kind: "int", min: 5, help: `programs and suites per task in evaluation, n >= k = 5 (default ${DEFAULT_EVAL_SAMPLES})` },
  "eval-seed": { kind: "int", min: 0, help: "sampling seed of every evaluation, independent of the run seeds (default 0)" },
  "eval-train-tasks": { kind: "string", help: "trained (default: the train tasks each run trained on) | all; held-out tasks: always all" },
  "eval-task-limit": { kind: "int", min: 1, help: "evaluate only the first N train tasks and N of each held-out split (default: all; arena-v2's 1,000+ tasks take long)" },
  tasks: { kind: "string", help: "task-suite JSON, or a built-in set: arena-v1, arena-v2 (default: the preset's task_set)" },
  "out-dir": { kind: "string", help: "where runs and evaluations are cached (default runs/reproduce)" },
  results: { kind: "string", help: "the report to write (default docs/RESULTS.md)" },
  size: { kind: "string", help: "model size of both policies, tiny | small (default: the preset's); its base comes from --base-dir (npm run pretrain-base -- --size small --out DIR)" },
  "base-dir": { kind: "string", help: "folder of the base checkpoints every run starts from and base is (default public/checkpoints; a lever's base: npm run pretrain-base -- --out DIR)" },
  shard: { kind: "string", help: "K/N: run only every N-th job from the K-th (1-based), so N processes share the cores; a last run without --shard reads every cached job and writes the whole report" },
};
const USAGE = usage("reproduce", "[flags]", FLAGS);

interface Job {
  name: string;
  /** Row label: the mode, with its ablations (self-play+no-mistake-book). */
  label: string;
  config: Config;
  kind: "main" | "alpha";
}

interface EvalCache {
  key: string;
  metrics: EvalMetrics;
  trainSeconds: number;
}

async function main(argv: string[]): Promise<void> {
  const { flags } = parseArgs(argv, FLAGS, 0);
  const preset = (flags.preset as string | undefined) ?? "classroom";
  const seeds = Array.from({ length: (flags.seeds as number | undefined) ?? DEFAULT_SEEDS }, (_, i) => i + 1);
  const steps = (flags.steps as number | undefined) ?? DEFAULT_STEPS;
  const modes = ((flags.modes as string | undefined) ?? DEFAULT_MODES).split(",").map((m) => m.trim());
  for (const entry of modes) {
    const [m, ...ablations] = entry.split("+");
    if (!(MODES as readonly string[]).includes(m)) throw new CliError(`--modes: unknown mode ${JSON.stringify(m)}; known: ${MODES.join(", ")}`);
    for (const a of ablations) if (!Object.hasOwn(ABLATIONS, a)) throw new CliError(`--modes: unknown ablation ${JSON.stringify(a)} in ${entry}; known: ${Object.keys(ABLATIONS).join(", ")}`);
  }
  const ablationSeeds = (flags["ablation-seeds"] as number | undefined) ?? DEFAULT_ABLATION_SEEDS;
  const alphaSeeds = Array.from({ length: (flags["alpha-seeds"] as number | undefined) ?? DEFAULT_ALPHA_SEEDS }, (_, i) => i + 1);
  const outDir = (flags["out-dir"] as string | undefined) ?? "runs/reproduce";
  const baseDir = flags["base-dir"] as string | undefined;
  const resultsPath = (flags.results as string | undefined) ?? "docs/RESULTS.md";
  const size = flags.size as string | undefined;
  if (size !== undefined && !Object.hasOwn(MODEL_SIZES, size)) throw new CliError(`--size must be one of ${Object.keys(MODEL_SIZES).join(", ")}, got ${JSON.stringify(size)}`);
  const sized: Partial<Config> = size !== undefined ? { code_model: size as ModelSize, test_model: size as ModelSize } : {};
  const { file, config: presetBase } = runTaskFile(flags.tasks as string | undefined, cliConfig(preset, {}, sized));
  const evalOpts: NodeEvalOptions = {
    samples: (flags["eval-samples"] as number | undefined) ?? DEFAULT_EVAL_SAMPLES,
    seed: (flags["eval-seed"] as number | undefined) ?? 0,
    temperature: 0.7,
    k: 5,
    tts: 1,
    trainTasks: trainTasksFlag(flags["eval-train-tasks"]),
    taskLimit: flags["eval-task-limit"] as number | undefined,
    ...(baseDir !== undefined ? { baseDir } : {}),
  };
  // Every run: the preset with this mode and seed, evaluation only at the end (below).
  const jobConfig = (mode: string, seed: number, alpha?: number) => ({ ...cliConfig(preset, { mode, seed, steps, evalEvery: 0, alpha }, sized), task_set: presetBase.task_set });
  const jobs: Job[] = [];
  // "mode+ablation+...": the mode with ablation overlays (e.g. the plain self-play baseline); its label names the row.
  const variant = (entry: string, seed: number) => {
    const [mode, ...ablations] = entry.split("+");
    return ablations.reduce((c, a) => withAblation(c, a as AblationName), jobConfig(mode, seed));
  };
  const alphas = flags.alphas === undefined ? ALPHA_SWEEP.filter((a) => a !== 0.5) : (flags.alphas as string).split(",").map((a) => Number(a.trim()));
  for (const a of alphas) if (!Number.isFinite(a) || a < 0 || a > 1 || a === 0.5) throw new CliError(`--alphas: each value must be in [0, 1] and not 0.5 (code-a1's own row), got ${JSON.stringify(flags.alphas)}`);
  // Seed by seed: every mode (and alpha) of a seed before the next seed, so a reproduce cut short
  // still holds complete pairs for the seeds it finished.
  for (const seed of seeds) {
    for (const entry of modes.filter((m) => !m.includes("+") || seed <= ablationSeeds)) jobs.push({ name: `${preset}-${entry}-s${seed}-n${steps}`, label: entry, config: variant(entry, seed), kind: "main" });
    if (alphaSeeds.includes(seed)) {
      for (const alpha of alphas) jobs.push({ name: `${preset}-code-a1-alpha${alpha}-s${seed}-n${steps}`, label: "code-a1", config: jobConfig("code-a1", seed, alpha), kind: "alpha" });
    }
  }
  for (const seed of alphaSeeds.filter((s) => !seeds.includes(s))) {
    for (const alpha of alphas) jobs.push({ name: `${preset}-code-a1-alpha${alpha}-s${seed}-n${steps}`, label: "code-a1", config: jobConfig("code-a1", seed, alpha), kind: "alpha" });
  }
  const shard = parseShard(flags.shard as string | undefined);
  // Paired differences need base and every run measured on the same train tasks. "trained" is
  // the same set as "all" once every run has covered an epoch; shorter runs are evaluated on all.
  const covered = jobs.every((j) => j.config.mode === "base" || Math.min(...taskVisits(runTrainTasks(file, j.config), j.config).values()) >= 1);
  if (!covered && evalOpts.trainTasks !== "all") {
    evalOpts.trainTasks = "all";
    process.stdout.write("reproduce: the runs are shorter than one epoch, so train tasks are evaluated on all of them (the same set for base and every run)\n");
  }
  const command = argv.length > 0 ? `npm run reproduce -- ${argv.join(" ")}` : "npm run reproduce";
  const count = (split: Split) => tasksOfSplit(file, split).length;
  const taskSet = `${file.name} (${runTrainTasks(file, presetBase).length} of its ${count("train")} train tasks trained on; held-out: ${count("heldout_compositional")} compositional, ${count("heldout_family")} family)`;
  const log = (s: string) => process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${s}\n`);
  log(`reproduce: ${jobs.length} jobs (${jobs.filter((j) => j.config.mode !== "base").length} to train, ${steps} steps each), cache ${outDir}`);
  mkdirSync(outDir, { recursive: true });
  checkCacheBase(outDir, presetBase, baseDir);

  const grader = await createNodeGrader();
  try {
    const bench = await loadOrPrepareBench(grader, evalTasks(file, cliConfig(preset, {}), 0, "all", evalOpts.taskLimit), "runs", (p) => {
      if (p.done === p.total || p.done % 10 === 0) log(`evaluation bench: ${p.text}`);
    }, new HeldoutIndex(file.tasks));
    const done: { job: Job; result: JobResult }[] = [];
    const t0 = Date.now();
    const mine = shard ? jobs.filter((_, i) => i % shard.n === shard.k - 1) : jobs;
    if (shard) log(`shard ${shard.k}/${shard.n}: ${mine.length} of the ${jobs.length} jobs; report to ${resultsPath}`);
    for (const [i, job] of mine.entries()) {
      const result = await runJob(job, file, grader, bench, evalOpts, outDir, log);
      done.push({ job, result });
      const left = ((Date.now() - t0) / (i + 1)) * (mine.length - i - 1);
      log(`[${i + 1}/${mine.length}] ${job.name}: plus held-out ${pct(result.metrics.plus_pass_heldout)}, bug detection held-out ${pct(result.metrics.bug_detection_heldout)}, Mul per suite ${result.metrics.mul_suite.toFixed(2)}; ETA ${formatDuration(left / 1000)}`);
      writeReport(done, { command, preset, steps, seeds, evalOpts, resultsPath, taskSet });
    }
    log(`wrote ${resultsPath}`);
  } finally {
    await grader.close();
  }
}

/** `--shard K/N` (1 <= K <= N), or null without the flag. */
function parseShard(raw: string | undefined): { k: number; n: number } | null {
  if (raw === undefined) return null;
  const m = /^([0-9]+)\/([0-9]+)$/.exec(raw.trim());
  const k = m ? Number(m[1]) : NaN;
  const n = m ? Number(m[2]) : NaN;
  if (!(n >= 1 && k >= 1 && k <= n)) throw new CliError(`--shard must be K/N with 1 <= K <= N, e.g. 1/2, got ${JSON.stringify(raw)}`);
  return { k, n };
}

const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : "n/a");

/** The cache's record of the base checkpoint its runs started from. */
const BASE_MARKER = "base.sha256";

/**
 * A cache holds runs of one base checkpoint: after the shipped base changes, cached runs would be
 * paired with a base they did not start from. The first use writes the base's SHA-256 (of the code
 * and test players' checkpoint files); a cache made from another base, or holding runs and no
 * record, is refused before anything runs.
 */
function checkCacheBase(outDir: string, config: Config, baseDir?: string): void {
  const hash = createHash("sha256");
  for (const size of new Set([config.code_model, config.test_model])) {
    const path = baseCheckpointPath(size, baseDir);
    if (!path) throw new CliError(`no base checkpoint for size ${size}${baseDir !== undefined ? ` in ${baseDir}` : ""}: build it with npm run pretrain-base -- --size ${size}${baseDir !== undefined ? ` --out ${baseDir}` : ""}`);
    hash.update(readFileSync(path));
  }
  const sha = hash.digest("hex");
  const marker = join(outDir, BASE_MARKER);
  const moveAway = `move ${outDir} away (or pass --out-dir) to start afresh`;
  if (existsSync(marker)) {
    const cached = readFileSync(marker, "utf8").trim();
    if (cached !== sha) throw new CliError(`${outDir} holds runs started from another base checkpoint (sha256 ${cached.slice(0, 12)}, shipped now ${sha.slice(0, 12)}): ${moveAway}`);
    return;
  }
  if (readdirSync(outDir).some((f) => f.endsWith(".a1run") || f.endsWith(".eval.json"))) {
    throw new CliError(`${outDir} holds runs but no record of their base checkpoint (${BASE_MARKER}), so they may not share the shipped one: ${moveAway}`);
  }
  writeFileSync(marker, sha + "\n");
}

/** Train (unless cached or base) and evaluate (unless cached) one job. */
async function runJob(job: Job, file: TaskFile, grader: Grader, bench: Bench, evalOpts: NodeEvalOptions, outDir: string, log: (s: string) => void): Promise<JobResult> {
  const bundlePath = join(outDir, `${job.name}.a1run`);
  const c = job.config;
  // The evaluation seed does not follow the run seed: every run is measured on the same draws, and
  // base players (the shipped checkpoints, whatever the seed) are evaluated once and reused.
  const sharedBase = c.mode === "base" && baseCheckpointPath(c.code_model, evalOpts.baseDir) !== null && baseCheckpointPath(c.test_model, evalOpts.baseDir) !== null;
  const evalPath = join(outDir, sharedBase ? `${c.mode}-${c.code_model}-${c.test_model}.eval.json` : `${job.name}.eval.json`);
  const opts = evalOpts;
  // The figures' version and the mutants measured against: a cache from before a change is measured again.
  const key = JSON.stringify({ ...opts, onProgress: undefined, whiteBox: c.white_box, testsPerSuite: c.tests_per_suite, metrics: EVAL_METRICS_VERSION, mutants: await mutantsKey(mutateSource()) });
  let stepMetrics: StepMetrics[] = [];
  let trainSeconds = 0;
  let checkpoint;
  if (c.mode !== "base") {
    let snapshot = existsSync(bundlePath) ? await readRunFile(bundlePath) : null;
    if (snapshot && (snapshot.run.step !== c.steps || snapshot.run.status !== "done")) snapshot = null;
    if (!snapshot) {
      log(`training ${job.name}`);
      const r = await trainRun({
        config: c,
        file,
        grader,
        out: bundlePath,
        runId: job.name,
        evaluation: null,
        ...(evalOpts.baseDir !== undefined ? { baseDir: evalOpts.baseDir } : {}),
        emit: (e) => {
          if (e.type === "step") log(`  ${job.name} step ${e.metrics.step}/${c.steps}: R_C ${e.metrics.code_reward.toFixed(3)} R_T ${e.metrics.test_reward.toFixed(3)} valid ${pct(e.metrics.test_validity)}`);
        },
      });
      snapshot = r.snapshot;
      trainSeconds = r.seconds;
    }
    stepMetrics = snapshot.metrics;
    checkpoint = lastCheckpoint(snapshot);
  }
  if (existsSync(evalPath)) {
    const cached = JSON.parse(readFileSync(evalPath, "utf8")) as EvalCache;
    if (cached.key === key) return result(job, file, cached.metrics, stepMetrics, cached.trainSeconds || trainSeconds);
  }
  log(`evaluating ${job.name}`);
  const { evaluation } = await evaluateCheckpoint(c, checkpoint, file, grader, bench, opts);
  // NaN survives the cache as null; read back as NaN.
  writeFileSync(evalPath, JSON.stringify({ key, metrics: evaluation.metrics, trainSeconds } satisfies EvalCache));
  return result(job, file, evaluation.metrics, stepMetrics, trainSeconds);
}

function result(job: Job, file: TaskFile, metrics: EvalMetrics, steps: StepMetrics[], trainSeconds: number): JobResult {
  // A figure added after the cache was written (tts_dual_plus_pass, evaluate.ts) reads NaN: not measured.
  const m = Object.fromEntries(Object.entries({ ...({ tts_dual_plus_pass: NaN } as Partial<EvalMetrics>), ...metrics }).map(([k, v]) => [k, v === null ? NaN : v])) as EvalMetrics;
  const visits = steps.length > 0 ? [...taskVisits(runTrainTasks(file, job.config), job.config).values()] : [0];
  return { mode: job.label, seed: job.config.seed, alpha: job.config.alpha, metrics: m, steps, trainSeconds, visits: { min: Math.min(...visits), max: Math.max(...visits) } };
}

function writeReport(
  done: { job: Job; result: JobResult }[],
  o: { command: string; preset: string; steps: number; seeds: number[]; evalOpts: NodeEvalOptions; resultsPath: string; taskSet: string },
): void {
  const main = done.filter((d) => d.job.kind === "main").map((d) => d.result);
  const alpha = done.filter((d) => d.job.kind === "alpha").map((d) => d.result);
  const docsDir = o.resultsPath.replace(/[^/]*$/, "") || ".";
  const curveDir = join(docsDir, "results");
  mkdirSync(curveDir, { recursive: true });
  for (const c of CURVES) writeFileSync(join(curveDir, c.file), curveSvg(main, c.key, c.title));
  writeFileSync(
    o.resultsPath,
    resultsMarkdown({
      command: o.command,
      preset: o.preset,
      steps: o.steps,
      seeds: o.seeds,
      evalSamples: o.evalOpts.samples,
      evalK: o.evalOpts.k,
      evalSeed: o.evalOpts.seed,
      evalTasks:
        (o.evalOpts.trainTasks === "all" ? "every train and every held-out task" : "every held-out task and the train tasks each run trained on (all of them: every run covers at least one epoch)") +
        (o.evalOpts.taskLimit !== undefined ? `, limited to the first ${o.evalOpts.taskLimit} train tasks and ${o.evalOpts.taskLimit} of each held-out split` : ""),
      taskSet: o.taskSet,
      main,
      alpha,
      curveDir: "results",
      discussion: existsSync(join(curveDir, "discussion.md")) ? readFileSync(join(curveDir, "discussion.md"), "utf8") : null,
      generatedAt: new Date().toISOString().slice(0, 16).replace("T", " ") + " UTC",
    }),
  );
}

main(process.argv.slice(2)).catch((e: unknown) => {
  const known = e instanceof Error && ["CliError", "RunFileError", "ConfigError", "BundleError"].includes(e.name);
  process.stderr.write(`reproduce: ${e instanceof Error ? (known ? e.message : (e.stack ?? e.message)) : String(e)}\n${e instanceof CliError ? USAGE + "\n" : ""}`);
  process.exitCode = known ? 2 : 1;
});
