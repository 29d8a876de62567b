/**
 * `npm run pretrain-base [-- OPTIONS]`: rebuilds the joint base model (every player of every mode starts
 * from it) on Node wasm from the arena-v2 train split, evaluates it in both roles through the real
 * grader and writes the checkpoint, the corpus and manifest.json (docs/BASE-MODELS.md).
 *
 *   --size tiny|small     model size (default tiny)
 *   --seed N              corpus, weights and batch order (default 1)
 *   --steps N             optimizer steps (default: the size's BASE_RECIPES)
 *   --lr X                peak learning rate (default: the size's BASE_RECIPES)
 *   --fresh-inputs        corpus lever: every suite on inputs of its own (CorpusOptions.freshInputs)
 *   --max-default-share X corpus lever: most share of a suite's lines with the commonest answer (default 1)
 *   --out DIR             where the checkpoint and manifest go (default public/checkpoints)
 *   --skip-train          train nothing: evaluate the checkpoint in --out and rewrite the manifest
 *   --no-eval             skip the evaluation (the manifest's figures become null)
 *   --mutants             also build the equivalence-filtered mutants, for mut@k (slower)
 *   --codes-per-task N    code samples per task in the evaluation (default 8)
 *   --tasks FILE          pretrain on this task file's train tasks (an imported set) instead of arena-v1;
 *                         needs --out elsewhere than public/checkpoints; the vocabulary stays the shipped one
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { arenaV2 } from "../src/core/arena/arena-v2.ts";
import { buildPlusTests } from "../src/core/arena/plus.ts";
import { prepareBench } from "../src/core/arena/mutants.ts";
import type { Bench } from "../src/core/arena/metrics-evaluate.ts";
import type { BySplit } from "../src/core/arena/metrics.ts";
import { sha256Hex } from "../src/core/bundle.ts";
import { arenaConstraints, arenaVocabulary } from "../src/core/duel/contexts.ts";
import { buildCorpus, corpusHash, corpusStats, jointSequences, vocabHash, type PretrainCorpus } from "../src/core/duel/pretrain-corpus.ts";
import {
  BASE_CORPUS_FILE, BASE_MANIFEST_FILE, BASE_MANIFEST_FORMAT, BASE_RECIPES, baseCheckpointFile, corpusFileBytes, pretrainBase, pretrainOptions,
  type BaseManifest, type BasePolicyEntry, type PretrainProgress,
} from "../src/core/duel/pretrain.ts";
import { evaluateBase } from "../src/core/duel/pretrain-eval.ts";
import type { ModelSize } from "../src/core/policy/config.ts";
import { PolicyService } from "../src/core/policy/policy-service.ts";
import { createNodeGrader } from "../src/node/grader.ts";
import { createNodeRunPython, mutateSource } from "../src/node/python-runner.ts";
import { useNodeBackend } from "../src/node/tf-backend.ts";
import { CliError, parseArgs, usage, type FlagSpec } from "../src/node/cli.ts";
import { loadTaskFile } from "../src/node/run-files.ts";
import { lossCurveSvg } from "../src/node/loss-curve.ts";

const FLAGS: Record<string, FlagSpec> = {
  size: { kind: "string", help: "model size: tiny | small (default tiny)" },
  seed: { kind: "string", help: "corpus, weights and batch order (default 1)" },
  steps: { kind: "int", min: 1, help: "optimizer steps (default: the size's recipe)" },
  lr: { kind: "string", help: "peak learning rate (default: the size's recipe)" },
  "fresh-inputs": { kind: "bool", help: "corpus lever: every suite on inputs no other suite of its task uses" },
  "max-default-share": { kind: "string", help: "corpus lever: most share of a suite's lines with the task's commonest answer (default 1)" },
  out: { kind: "string", help: "checkpoint and manifest folder (default public/checkpoints)" },
  "skip-train": { kind: "bool", help: "train nothing: evaluate the checkpoint in --out again" },
  "no-eval": { kind: "bool", help: "skip the evaluation (the manifest's figures become null)" },
  mutants: { kind: "bool", help: "also build mutants, to report mut@k (slower)" },
  "codes-per-task": { kind: "int", min: 1, help: "code samples per task in the evaluation (default 8)" },
  tasks: { kind: "string", help: "task file whose train tasks make the corpus (an imported set; default arena-v2); needs --out" },
};
const USAGE = usage("pretrain", "[flags]", FLAGS);

function pretrainArgs(argv: string[]) {
  const { flags } = parseArgs(argv, FLAGS, 0);
  const size = (flags.size as string | undefined) ?? "tiny";
  if (size !== "tiny" && size !== "small") throw new CliError(`--size must be tiny or small, got ${JSON.stringify(size)}`);
  const seedRaw = (flags.seed as string | undefined) ?? "1";
  const seed = /^-?[0-9]+$/.test(seedRaw) ? Number(seedRaw) : seedRaw;
  const tasks = flags.tasks as string | undefined;
  if (tasks !== undefined && tasks !== "arena-v2" && (flags.out === undefined || flags.out === "public/checkpoints")) {
    throw new CliError("--tasks needs --out DIR other than public/checkpoints (the shipped base model is arena-v2's)");
  }
  const num = (name: string, lo: number, hi: number) => {
    const raw = flags[name] as string | undefined;
    if (raw === undefined) return undefined;
    const x = Number(raw);
    if (!(x > lo && x <= hi)) throw new CliError(`--${name} must be a number in (${lo}, ${hi}], got ${JSON.stringify(raw)}`);
    return x;
  };
  return {
    tasks,
    size: size as ModelSize,
    seed,
    steps: flags.steps as number | undefined,
    lr: num("lr", 0, 1),
    freshInputs: flags["fresh-inputs"] === true,
    maxDefaultShare: num("max-default-share", 0, 1),
    out: (flags.out as string | undefined) ?? "public/checkpoints",
    train: flags["skip-train"] !== true,
    noEval: flags["no-eval"] === true,
    mutants: flags.mutants === true,
    codesPerTask: (flags["codes-per-task"] as number | undefined) ?? 8,
  };
}

function printProgress(e: PretrainProgress): void {
  console.log(`[${e.phase}] ${e.text}`);
}

/**
 * npm runs a script named "pretrain" before "train" (pre-scripts), so `npm run train` would
 * rebuild the base models first. The environment is the same either way; the npm process'
 * command line tells them apart (Linux /proc; elsewhere this returns false).
 */
function runAsPreScriptOfTrain(): boolean {
  if (process.env.npm_lifecycle_event !== "pretrain") return false;
  let pid = process.ppid;
  for (let depth = 0; depth < 6 && pid > 1; depth++) {
    try {
      // npm retitles itself ("npm run train" as one argument), so split on whitespace too.
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split(/[\0\s]+/).filter(Boolean);
      const run = cmd.findIndex((a) => a === "run" || a === "run-script");
      if (run >= 0 && cmd.slice(run + 1).find((a) => !a.startsWith("-")) === "train") return true;
      pid = Number(readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "").split(" ")[1]);
    } catch {
      return false;
    }
  }
  return false;
}

async function main(): Promise<void> {
  if (runAsPreScriptOfTrain()) {
    console.log("pretrain: skipped (npm runs \"pretrain\" before \"train\"); the shipped base checkpoint is used. Rebuild it with npm run pretrain-base.");
    return;
  }
  const opts = pretrainArgs(process.argv.slice(2));
  const started = performance.now();
  const file = opts.tasks ? loadTaskFile(opts.tasks) : arenaV2();
  // The shipped vocabulary whatever the set: checkpoints stay loadable by the app (new words read as unk).
  const vocab = arenaVocabulary();
  const backend = await useNodeBackend("wasm");
  if (backend.backend !== "wasm") console.warn(`pretrain: ${backend.reason}; checkpoints are reproducible per backend only`);
  const runPython = createNodeRunPython();

  // 1. The corpus (train split only).
  const corpus: PretrainCorpus = await buildCorpus(vocab, file, runPython, {
    seed: opts.seed, ...(opts.freshInputs ? { freshInputs: true } : {}), ...(opts.maxDefaultShare !== undefined ? { maxDefaultShare: opts.maxDefaultShare } : {}),
  });
  const stats = corpusStats(corpus);
  const hash = await corpusHash(corpus);
  console.log(`corpus: ${corpus.tasks.length} train tasks, ${corpus.code.length} code sequences ${JSON.stringify(stats.code)}, ` +
    `${corpus.test.length} suites (${stats.testLines} lines, ${stats.wrongLines} wrong, ${stats.separatingLines} separating a buggy program), sha256 ${hash.slice(0, 16)}`);

  // 2. Train (or load) the joint model. The corpus ships too: the app pretrains in place from it.
  mkdirSync(opts.out, { recursive: true });
  writeFileSync(join(opts.out, BASE_CORPUS_FILE), corpusFileBytes(corpus));
  const previous = readManifest(opts.out);
  const path = join(opts.out, baseCheckpointFile(opts.size));
  const service = new PolicyService(arenaConstraints(vocab));
  await service.init([backend.backend]);
  let entry: BasePolicyEntry | null;
  if (opts.train) {
    const t0 = performance.now();
    const options = recipe(opts);
    const result = await pretrainBase(service, jointSequences(corpus), { ...options, vocab: vocab.size, label: "base model" }, printProgress);
    writeFileSync(path, new Uint8Array(result.checkpoint));
    await service.load(result.checkpoint);
    entry = {
      file: baseCheckpointFile(opts.size),
      bytes: result.checkpoint.byteLength,
      sha256: await sha256Hex(new Uint8Array(result.checkpoint)),
      numParams: result.info.numParams,
      options,
      finalLoss: result.losses[result.losses.length - 1],
      seconds: Math.round((performance.now() - t0) / 1000),
    };
    console.log(`base model: ${result.info.numParams} parameters, ${entry.seconds} s, final loss ${result.losses[result.losses.length - 1].toFixed(3)}, wrote ${path} (${result.checkpoint.byteLength} bytes)`);
    // The loss curve: docs/base-models/ for the shipped base, beside the checkpoint otherwise.
    const curveDir = opts.out === "public/checkpoints" ? "docs/base-models" : opts.out;
    mkdirSync(curveDir, { recursive: true });
    const curve = join(curveDir, `loss-${opts.size}.svg`);
    writeFileSync(curve, lossCurveSvg(result.losses, options.progressEvery, `${opts.size} base: pretraining loss (${options.steps} steps, lr ${options.lr})`));
    console.log(`wrote ${curve}`);
  } else if (existsSync(path)) {
    const buf = readFileSync(path);
    await service.load(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
    // A checkpoint without a manifest entry (trained by a run that did not finish the script): the
    // file's own facts and the recipe it claims; loss and time were not measured here.
    entry = previous?.base?.sha256 === (await sha256Hex(new Uint8Array(buf))) ? previous.base : {
      file: baseCheckpointFile(opts.size),
      bytes: buf.byteLength,
      sha256: await sha256Hex(new Uint8Array(buf)),
      numParams: (await service.info()).numParams,
      options: recipe(opts),
      finalLoss: null,
      seconds: null,
    };
    console.log(`base model: loaded ${path}`);
  } else throw new CliError(`--skip-train: no checkpoint at ${path}`);

  // 3. Evaluate both roles of the one model on every task (train and held-out) through the real grader.
  let figures = null;
  if (!opts.noEval) {
    const grader = await createNodeGrader();
    try {
      const t0 = performance.now();
      const bench = opts.mutants
        ? await prepareBench(grader, runPython, mutateSource(), file.tasks, { seed: 0, onProgress: (p) => p.done === p.total && console.log(`[bench] ${p.text}`) })
        : await plusOnlyBench(file.tasks, runPython);
      console.log(`bench: plus tests${opts.mutants ? " and mutants" : ""} for ${file.tasks.length} tasks in ${Math.round((performance.now() - t0) / 1000)} s`);
      const result = await evaluateBase(grader, bench, vocab, service, service, { seed: opts.seed, codesPerTask: opts.codesPerTask }, (e) => {
        if (e.done === e.total) printProgress(e);
      });
      figures = result.figures;
      console.log(`figures (%, temperature ${figures.temperature}):`);
      const f1 = (x: number) => (Number.isNaN(x) ? "  n/a" : x.toFixed(1).padStart(5));
      const row = (name: string, b: BySplit | null | undefined) =>
        b && console.log(`  ${name.padEnd(22)} train ${f1(b.train)}  held-out compositional ${f1(b.heldout_compositional)}  family ${f1(b.heldout_family)}  all ${f1(b.all)}`);
      row("code plus-pass@1", figures.code?.plusPass1);
      row("code golden-pass@1", figures.code?.goldenPass1);
      row("test validity", figures.test?.validity);
      row(`test pass@${figures.test?.k ?? 5}`, figures.test?.passK);
      row("test bug detection", figures.test?.bugDetection);
      row(`test mut@${figures.test?.k ?? 5}`, figures.test?.mutK);
    } finally {
      await grader.close();
    }
  }

  // 4. The manifest.
  if (entry) {
    const manifest: BaseManifest = {
      format: BASE_MANIFEST_FORMAT,
      size: opts.size,
      seed: opts.seed,
      backend: backend.backend,
      taskSet: file.name,
      vocabSize: vocab.size,
      vocabHash: await vocabHash(vocab),
      corpusHash: hash,
      corpus: corpus.options,
      base: entry,
      // Figures measured here, else the previous manifest's only when they were measured on this very checkpoint.
      figures: figures ?? (previous?.base?.sha256 === entry.sha256 ? previous.figures : null),
      // What rebuilds these bytes from scratch (--out and evaluation flags do not matter).
      command: rebuildCommand(opts),
    };
    writeFileSync(join(opts.out, BASE_MANIFEST_FILE), JSON.stringify(manifest, null, 2) + "\n");
    console.log(`wrote ${join(opts.out, BASE_MANIFEST_FILE)}`);
  }
  console.log(`pretrain: done in ${Math.round((performance.now() - started) / 1000)} s`);
}

/** The size's recipe with the command line's overrides. */
function recipe(opts: { size: ModelSize; seed: number | string; steps?: number; lr?: number }) {
  return pretrainOptions({ ...BASE_RECIPES[opts.size], size: opts.size, seed: opts.seed, ...(opts.steps ? { steps: opts.steps } : {}), ...(opts.lr ? { lr: opts.lr } : {}) });
}

function rebuildCommand(opts: { size: ModelSize; seed: number | string; steps?: number; lr?: number; freshInputs: boolean; maxDefaultShare?: number }): string {
  const args = [
    ...(opts.size !== "tiny" ? ["--size", opts.size] : []),
    ...(opts.seed !== 1 ? ["--seed", String(opts.seed)] : []),
    ...(opts.steps ? ["--steps", String(opts.steps)] : []),
    ...(opts.lr ? ["--lr", String(opts.lr)] : []),
    ...(opts.freshInputs ? ["--fresh-inputs"] : []),
    ...(opts.maxDefaultShare !== undefined ? ["--max-default-share", String(opts.maxDefaultShare)] : []),
  ];
  return ["npm run pretrain-base", ...(args.length ? ["--", ...args] : [])].join(" ");
}

/** Plus tests only (no mutants): enough for plus-pass, validity and bug detection. */
async function plusOnlyBench(tasks: Bench["tasks"], runPython: ReturnType<typeof createNodeRunPython>): Promise<Bench> {
  const plus = new Map();
  for (const t of tasks) plus.set(t.id, await buildPlusTests(t, runPython, { seed: 0 }));
  return { tasks, plus, mutants: new Map() };
}

function readManifest(dir: string): BaseManifest | null {
  const path = join(dir, BASE_MANIFEST_FILE);
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as BaseManifest;
  } catch {
    return null;
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    if (e instanceof CliError) {
      console.error(`pretrain: ${e.message}\n${USAGE}`);
      process.exit(2);
    }
    console.error(e instanceof Error ? e.stack ?? e.message : e);
    process.exit(1);
  },
);
