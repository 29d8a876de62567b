/**
 * `npm run bench -- policy [--json] [--sizes tiny,small] [--backends cpu,wasm,webgpu,chromium-wasm] [--reps N]`
 *
 * Sampled tokens/s (batch 64, 48 new constrained tokens) and ms per GRPO update (64 sequences of
 * 128 tokens) for each model size and backend: Node cpu and wasm in-thread, and Chromium webgpu and
 * wasm in a policy worker (headless, the e2e launcher, a vite dev server). The workload and timing
 * loop are src/core/policy/bench-workload.ts, identical on both sides.
 * Keys: `<size>_<backend>_sample_tok_per_s`, `<size>_<backend>_update_ms` with backend one of
 * cpu, wasm (Node), webgpu, chromium-wasm (Chromium); null when a backend could not run or timed out.
 * webgpu rows add `<size>_webgpu_warmup_s`, the wall time of the untimed warm-up repetition (the same
 * work plus shader compilation), and a note names the adapter: here SwiftShader, WebGPU on the CPU.
 * Node rows add `<size>_<backend>_sample_tok_per_cpu_s` and `_update_cpu_ms`: the same work per CPU
 * second of the process, the figure to compare when the 2 shared cores are busy with other jobs.
 * Node wasm runs three variants per size: `wasm-tfjs` (tfjs's own kernels), `wasm-simd-only` (the
 * SIMD BatchMatMul of src/core/policy/kernels/wasm-matmul.ts alone) and `wasm` (every speed-up of VARIANT_FLAGS;
 * all bit-identical), in `--reps` paired rounds: each round runs the three and PyTorch one after the
 * other (`--warmups` untimed repetitions, default 3, and one timed repetition each, each in a process of its own); figures are each
 * side's medians, and every ratio is the median of the rounds' ratios (pairedRatio).
 * `<size>_wasm_vs_wasm_tfjs_sample_ratio` (tok/s: above 1, wasm is faster) and `_update_ratio` (ms:
 * below 1, faster), the same `_vs_wasm_simd_only_`, and `_sample_cpu_ratio`, `_update_cpu_ratio` the
 * same per CPU second (steadier when other jobs share the cores). Then `<size>_wasm_grouped_sample_tok_per_s`
 * and `_grouped_full_batch_sample_tok_per_s`: sampling as a duel step does (16 prompts x 4 rows that
 * end apart), with each prompt prefilled once and finished rows dropped, and without (same rollout).
 * chromium-wasm runs three times side by side: as the app does (tfjs's single-threaded SIMD build, every
 * speed-up on); with the speed-ups off (`<size>_chromium_wasm_tfjs_*`, and `<size>_chromium_wasm_vs_tfjs_
 * sample_ratio` / `_update_ratio`); and on tfjs's multi-threaded SIMD build asking one XNNPACK thread
 * per core (`<size>_chromium_wasm_threads_*`, `_count` the threads it runs, `_vs_1_sample_ratio` /
 * `_vs_1_update_ratio` against one thread).
 * The first round's `wasm` child also profiles one more update (tf.profile, exclusive kernel time): the
 * largest kernels by name and by name and input shapes are printed per size, and with --json are the
 * line's `update_profiles` (`{ tiny: { totalMs, kernels, byKernel, byShape } }`).
 * PyTorch: when $TORCH_PYTHON (default /usr/bin/python3, Debian's python3-torch) imports torch, each
 * size run on Node wasm is then built in PyTorch from the same initial weights (torch-gpt.ts,
 * torch_gpt.py). Its logits must match tfjs's within 1e-4, else the run fails (exit 1, a note); then
 * the same workload runs on torch CPU with 1 thread (the main figure: tfjs wasm in Node is
 * single-threaded) and with every core. Keys `<size>_torch_*` and the tfjs / torch ratios
 * `<size>_wasm_vs_torch_sample_ratio` (tok/s: below 1, tfjs is slower) and `_update_ratio` (ms: above 1,
 * tfjs is slower) are listed at torchReport; all null without torch. The BLAS torch ran on is printed:
 * with Debian's default, the reference libblas3, torch's matmuls are about 5x slower than on OpenBLAS.
 */
import * as tf from "@tensorflow/tfjs";
import { type BackendName, WASM_SPEEDUP_FLAGS } from "../../src/core/policy/backend.ts";
import { SIMD_MATMUL_FLAG } from "../../src/core/policy/kernels/wasm-matmul.ts";
import { POLICY_SPEEDUP_FLAGS } from "../../src/core/policy/policy.ts";
import { benchPolicyOptions, benchRow, type KernelProfile, medianRun, type PolicyBenchOptions, pairedRatio, type PolicyBenchResult, runGroupedSampleBench, runPolicyBench, type RunFigure } from "../../src/core/policy/bench-workload.ts";
import type { ModelSize } from "../../src/core/policy/config.ts";
import { PolicyService } from "../../src/core/policy/policy-service.ts";
import { execFile } from "node:child_process";
import { availableParallelism } from "node:os";
import { useNodeBackend } from "../../src/node/tf-backend.ts";
import { CliError, parseArgs, type FlagSpec } from "../../src/node/cli.ts";
import { hasTorch, openTorchSide, type TorchBenchRun, type TorchComparison, torchPython, torchReport } from "./torch-gpt.ts";
import { launchBrowser } from "../../tests/e2e/browser.ts";
import { callHarness, startPolicyDevServer } from "../../tests/e2e/policy-page.ts";
import { BENCH_PROGRESS } from "../../tests/e2e/policy-harness.ts";

type BenchBackend = "cpu" | "wasm" | "wasm-tfjs" | "wasm-simd-only" | "webgpu" | "chromium-wasm";
type WasmVariant = "wasm" | "wasm-tfjs" | "wasm-simd-only";
/**
 * The speed changes of src/core/policy that each wasm variant turns on (all bit-identical; the list
 * is backend.ts' WASM_SPEEDUP_FLAGS and policy.ts' head at scored positions): `wasm` all of them,
 * `wasm-tfjs` none (tfjs as it comes), `wasm-simd-only` the SIMD BatchMatMul of wasm-matmul.ts alone
 * (the code before the copy kernels and the scored head).
 */
const SPEEDUP_FLAGS: string[] = [...WASM_SPEEDUP_FLAGS, ...POLICY_SPEEDUP_FLAGS];
const only = (on: string[]) => Object.fromEntries(SPEEDUP_FLAGS.map((f) => [f, on.includes(f)]));
const VARIANT_FLAGS: Record<WasmVariant, Record<string, boolean>> = { "wasm-tfjs": only([]), "wasm-simd-only": only([SIMD_MATMUL_FLAG]), wasm: only(SPEEDUP_FLAGS) };
const ALL_BACKENDS: BenchBackend[] = ["cpu", "wasm", "webgpu", "chromium-wasm"];
/** The arena's vocabulary is a few hundred words; 256 stands in for it until it is fixed. */
const VOCAB = 256;
/**
 * Longest wait for one browser measurement, warm-up included; past it the row is null with the
 * reason in `notes`. Headless Chromium's WebGPU here is SwiftShader, which runs the shaders on the
 * CPU: tiny's warm-up plus one timed repetition took 12.5 minutes on the 2 shared cores; small (14x
 * the parameters) was still in its warm-up update after 10 minutes.
 */
const BROWSER_TIMEOUT_S: Record<"webgpu" | "chromium-wasm", Record<ModelSize, number>> = {
  webgpu: { tiny: 1800, small: 600 },
  "chromium-wasm": { tiny: 240, small: 240 },
};
/** While a browser measurement runs, a line on stderr at least this often. */
const HEARTBEAT_MS = 30_000;

interface Args {
  json: boolean;
  sizes: ModelSize[];
  backends: BenchBackend[];
  reps: number;
  /** Untimed repetitions before the timed one, in each Node wasm and PyTorch measurement. */
  warmups: number;
  child?: "cpu" | WasmVariant;
  /** With child: also profile one more update kernel by kernel (updateProfile). */
  profile: boolean;
}

/**
 * Untimed repetitions before each Node wasm and PyTorch measurement. V8 is still optimising the
 * JavaScript during the first calls of a process (measured 2026-12-01, tiny, every speed-up on:
 * sampling took 685, 137, 112, 115, 113 ms in calls 1 to 5, 938, 202, 141, 135, 129 ms of CPU;
 * the update 883, 534, 511, 481, 494 ms), so after one warm-up the timed call still paid for the
 * compiler; a training run makes hundreds of these calls. PyTorch gets the same number.
 */
const NODE_WARMUPS = 3;

const FLAGS: Record<string, FlagSpec> = {
  json: { kind: "bool", help: "print exactly one JSON line" },
  sizes: { kind: "string", help: "tiny,small (default both)" },
  backends: { kind: "string", help: `${ALL_BACKENDS.join(",")} (default all)` },
  reps: { kind: "int", min: 1, help: "timed repetitions (paired rounds on Node wasm), median reported (default 3)" },
  warmups: { kind: "int", min: 1, help: `untimed repetitions before each timed one, Node wasm and PyTorch (default ${NODE_WARMUPS})` },
  child: { kind: "string", help: "(internal) measure this one Node variant and print its result as JSON" },
  profile: { kind: "bool", help: "(internal, with --child) add a per-kernel profile of one more update" },
};

function benchArgs(argv: string[]): Args {
  const { flags } = parseArgs(argv, FLAGS, 0);
  const sizes = ((flags.sizes as string | undefined) ?? "tiny,small").split(",") as ModelSize[];
  const backends = ((flags.backends as string | undefined) ?? ALL_BACKENDS.join(",")).split(",") as BenchBackend[];
  for (const s of sizes) if (s !== "tiny" && s !== "small") throw new CliError(`unknown size ${s}: use tiny, small`);
  for (const b of backends) if (!ALL_BACKENDS.includes(b)) throw new CliError(`unknown backend ${b}: use ${ALL_BACKENDS.join(", ")}`);
  const child = flags.child as string | undefined;
  if (child !== undefined && child !== "cpu" && !(child in VARIANT_FLAGS)) throw new CliError(`--child: unknown variant ${child}`);
  const warmups = (flags.warmups as number | undefined) ?? NODE_WARMUPS;
  return { json: flags.json === true, sizes, backends, reps: (flags.reps as number | undefined) ?? 3, warmups, profile: flags.profile === true, ...(child ? { child: child as "cpu" | WasmVariant } : {}) };
}

/**
 * One Node measurement in a process of its own (this script with the hidden --child flag), so no
 * variant runs on a heap and JIT state another left: measured 2026-12-01, every speed-up on ran about
 * 20 % slower right after a run on tfjs's own kernels in the same process than in a fresh one.
 */
function nodeBenchInChild(bench: "cpu" | WasmVariant, size: ModelSize, reps: number, warmups: number, profile = false): Promise<PolicyBenchResult> {
  return new Promise((resolve, reject) => {
    const args = [...process.execArgv, process.argv[1], "policy", "--child", bench, "--sizes", size, "--reps", String(reps), "--warmups", String(warmups), ...(profile ? ["--profile"] : [])];
    execFile(process.execPath, args, { maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      const line = stdout.trim().split("\n").pop() ?? "";
      if (error) reject(new Error(`${bench} ${size} in a child process: ${(stderr.trim().split("\n").pop() ?? error.message).slice(0, 300)}`));
      else resolve(JSON.parse(line) as PolicyBenchResult);
    });
  });
}

/**
 * tf.profile of `update`, kernel time summed by kernel name and by name and input shapes. Only kernels
 * the wasm backend registers count: tfjs also lists the ops wrapping them (fusedMatMul__op, a
 * customGrad's forward), whose time is their kernels' again.
 */
async function kernelProfile(update: () => Promise<unknown>, top = 12): Promise<KernelProfile> {
  const info = await tf.profile(async () => void (await update()));
  const kernels = info.kernels.filter((k) => tf.getKernel(k.name, "wasm") !== undefined);
  const sum = <K extends string>(key: (k: (typeof kernels)[number]) => K) => {
    const m = new Map<K, { calls: number; ms: number }>();
    for (const k of kernels) {
      const e = m.get(key(k)) ?? { calls: 0, ms: 0 };
      e.calls++;
      e.ms += k.kernelTimeMs as number;
      m.set(key(k), e);
    }
    return [...m].sort((a, b) => b[1].ms - a[1].ms).slice(0, top).map(([name, e]) => ({ name, calls: e.calls, ms: Math.round(e.ms * 10) / 10 }));
  };
  return {
    totalMs: Math.round(kernels.reduce((a, k) => a + (k.kernelTimeMs as number), 0)),
    kernels: kernels.length,
    byKernel: sum((k) => k.name).map(({ name, ...e }) => ({ kernel: name, ...e })),
    byShape: sum((k) => `${k.name} ${JSON.stringify(k.inputShapes)}`).map(({ name, ...e }) => ({ kernel: name.split(" ")[0], shapes: name.slice(name.indexOf(" ") + 1), ...e })),
  };
}

/** A wasm variant runs with its VARIANT_FLAGS (switched by tfjs env flags), then every flag goes back on. */
async function nodeBench(bench: "cpu" | WasmVariant, size: ModelSize, reps: number, warmups: number, profile = false): Promise<PolicyBenchResult> {
  const backend = bench === "cpu" ? "cpu" : "wasm";
  const choice = await useNodeBackend(backend);
  if (choice.backend !== backend) throw new Error(`Node backend ${backend} unavailable: ${choice.reason}`);
  for (const [flag, on] of Object.entries(VARIANT_FLAGS[bench === "cpu" ? "wasm" : bench])) tf.env().set(flag, on);
  const service = new PolicyService();
  try {
    // The pure-JS cpu backend is slow (minutes for small): one timed repetition, no warm-up (no shaders).
    const cpuMs = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    };
    const options: PolicyBenchOptions = backend === "cpu" ? { backend, size, vocab: VOCAB, reps: 1, warmups: 0 } : { backend, size, vocab: VOCAB, reps, warmups };
    return await runPolicyBench(service, options, cpuMs, undefined, profile ? (update) => kernelProfile(update) : undefined);
  } finally {
    service.dispose();
    for (const flag of Object.keys(VARIANT_FLAGS.wasm)) tf.env().set(flag, true);
  }
}

/**
 * One measurement in a fresh headless Chromium. Once it has run HEARTBEAT_MS, the page's progress
 * (each phase as it ends) and a heartbeat at least every HEARTBEAT_MS go to `say`; past `timeoutS` it
 * fails, naming the last phase.
 */
async function browserBench(
  origin: string,
  backend: BackendName,
  size: ModelSize,
  reps: number,
  timeoutS: number,
  say: (text: string) => void,
  wasmThreads?: number,
  wasmSpeedups?: boolean,
): Promise<PolicyBenchResult> {
  const browser = await launchBrowser();
  const started = Date.now();
  const elapsed = () => `${Math.round((Date.now() - started) / 1000)} s`;
  let last = "nothing finished yet";
  let lastSaid = started;
  const sayNow = (text: string) => {
    lastSaid = Date.now();
    say(`${elapsed()}${text}`);
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const heartbeat = setInterval(() => {
    if (Date.now() - lastSaid >= HEARTBEAT_MS) sayNow(`, still running (last: ${last})`);
  }, 1000);
  try {
    const page = await browser.newPage();
    page.on("console", (m) => {
      if (!m.text().startsWith(BENCH_PROGRESS)) return;
      last = m.text().slice(BENCH_PROGRESS.length);
      if (Date.now() - started >= HEARTBEAT_MS) sayNow(`: ${last}`); // quiet for quick measurements
    });
    await page.goto(origin);
    const opts = JSON.stringify({ backend, size, vocab: VOCAB, reps, ...(wasmThreads ? { wasmThreads } : {}), ...(wasmSpeedups !== undefined ? { wasmSpeedups } : {}) });
    const run = callHarness<PolicyBenchResult>(page, `m.benchPolicy(${opts})`);
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${timeoutS} s (last: ${last})`)), timeoutS * 1000);
    });
    const result = await Promise.race([run, timeout]);
    if (result.backend !== backend) throw new Error(`asked for ${backend}, the worker chose ${result.backend}`);
    return result;
  } finally {
    clearTimeout(timer);
    clearInterval(heartbeat);
    await browser.close();
  }
}

/** The WebGPU adapter headless Chromium offers, e.g. "google swiftshader"; null when none. */
async function webgpuAdapter(origin: string): Promise<string | null> {
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    await page.goto(origin);
    // A string, not a function: tsx's transform would add helpers the page does not have.
    return (await page.evaluate(
      `navigator.gpu ? navigator.gpu.requestAdapter().then((a) => a && [a.info?.vendor, a.info?.architecture].join(" ")) : null`,
    )) as string | null;
  } finally {
    await browser.close();
  }
}

export async function main(argv: string[]): Promise<void> {
  const args = benchArgs(argv);
  if (args.child) {
    process.stdout.write(JSON.stringify(await nodeBench(args.child, args.sizes[0], args.reps, args.warmups, args.profile)) + "\n");
    return;
  }
  const figures: Record<string, number | null> = {};
  /** Each size's per-kernel profile of one update on every speed-up (the JSON line's `update_profiles`). */
  const profiles: Partial<Record<ModelSize, KernelProfile>> = {};
  const notes: string[] = [];
  const log = (line: string) => {
    if (!args.json) console.log(line);
  };
  const record = (size: ModelSize, backend: BenchBackend, r: PolicyBenchResult | null, error?: string) => {
    figures[`${size}_${backend}_sample_tok_per_s`] = r ? Math.round(r.sampleTokPerS) : null;
    figures[`${size}_${backend}_update_ms`] = r ? Math.round(r.updateMs) : null;
    if (backend === "webgpu") figures[`${size}_webgpu_warmup_s`] = r?.warmupS !== undefined ? Math.round(r.warmupS) : null;
    if (r?.sampleTokPerCpuS !== undefined) {
      figures[`${size}_${backend}_sample_tok_per_cpu_s`] = Math.round(r.sampleTokPerCpuS);
      figures[`${size}_${backend}_update_cpu_ms`] = Math.round(r.updateCpuMs!);
    }
    const warmupNote = backend === "webgpu" && r?.warmupS !== undefined ? `   (warm-up repetition: ${Math.round(r.warmupS)} s)` : "";
    if (r) log(`${benchRow(size, backend, r)}${warmupNote}`);
    else {
      notes.push(`${size} ${backend}: ${error}`);
      log(`${size.padEnd(5)} ${backend.padEnd(13)} unavailable: ${error}`);
    }
  };
  log(`policy benchmark: batch 64 x 48 new constrained tokens; GRPO update on 64 x 128 tokens; vocab ${VOCAB}; median of ${args.reps}, each after ${args.warmups} untimed repetitions (Node wasm, PyTorch)`);
  const python = torchPython();
  const withTorch = args.backends.includes("wasm") && hasTorch(python);
  /** The PyTorch comparison of one size, or null (with a note) where torch is absent or fails. */
  const openTorch = async (size: ModelSize) => {
    if (!withTorch) return null;
    try {
      return await openTorchSide(size, VOCAB, python);
    } catch (e) {
      notes.push(`${size} torch: ${(e as Error).message}`);
      log(`${size.padEnd(5)} ${"torch".padEnd(13)} unavailable: ${(e as Error).message}`);
      return null;
    }
  };
  const runNode = async (backend: "cpu" | "wasm") => {
    if (!args.backends.includes(backend)) return;
    for (const size of args.sizes) {
      if (backend === "wasm") {
        // Paired rounds: each round runs tfjs's own kernels, the SIMD BatchMatMul alone, every speed-up
        // and PyTorch one after the other (args.warmups untimed and one timed repetition each, every variant in a
        // process of its own), so the ratios compare runs that saw the same load on the shared cores.
        await useNodeBackend("wasm"); // this process's wasm backend builds the PyTorch comparison's weights
        const torch = await openTorch(size);
        const variants = ["wasm-tfjs", "wasm-simd-only", "wasm"] as const;
        const rounds: Record<WasmVariant, (PolicyBenchResult | null)[]> = { "wasm-tfjs": [], "wasm-simd-only": [], wasm: [] };
        const errors: Partial<Record<WasmVariant, string>> = {};
        const torchRounds: TorchBenchRun[] = [];
        let torchInfo: TorchComparison["info"] | undefined;
        for (let round = 0; round < args.reps; round++) {
          for (const variant of variants) {
            // The first round of every speed-up also profiles one more update (after its timed one).
            const profile = variant === "wasm" && round === 0;
            rounds[variant].push(await nodeBenchInChild(variant, size, 1, args.warmups, profile).catch((e: Error) => ((errors[variant] = e.message), null)));
          }
          if (!torch) continue;
          try {
            const { info, run } = await torch.run(1, 1, args.warmups);
            torchRounds.push(run);
            torchInfo = info;
          } catch (e) {
            notes.push(`${size} torch round ${round + 1}: ${(e as Error).message}`);
          }
        }
        let comparison: TorchComparison | null = null;
        if (torch && torchInfo) {
          // The all-cores figure is secondary (and slow where other jobs share the cores): one repetition.
          const allCores = availableParallelism() > 1 ? await torch.run(availableParallelism()).then((r) => r.run, (e: Error) => (notes.push(`${size} torch on every core: ${e.message}`), null)) : null;
          comparison = { logitsMaxAbsDiff: torch.logitsMaxAbsDiff, info: torchInfo, rounds: torchRounds, allCores };
        }
        torch?.close();
        const results: Partial<Record<WasmVariant, PolicyBenchResult>> = {};
        for (const variant of variants) {
          const ok = rounds[variant].filter((r) => r !== null);
          if (ok.length) results[variant] = medianRun(ok);
          record(size, variant, results[variant] ?? null, errors[variant]);
        }
        const paired = (a: (PolicyBenchResult | null)[], b: (PolicyBenchResult | null)[], k: RunFigure) => {
          const r = pairedRatio(a, b, k);
          return r === null ? null : Math.round(r * 100) / 100;
        };
        for (const [before, label] of [["wasm-tfjs", "tfjs's kernels"], ["wasm-simd-only", "SIMD BatchMatMul alone"]] as const) {
          const key = `${size}_wasm_vs_${before.replaceAll("-", "_")}`;
          figures[`${key}_sample_ratio`] = paired(rounds.wasm, rounds[before], "sampleTokPerS");
          figures[`${key}_update_ratio`] = paired(rounds.wasm, rounds[before], "updateMs");
          figures[`${key}_sample_cpu_ratio`] = paired(rounds.wasm, rounds[before], "sampleTokPerCpuS");
          figures[`${key}_update_cpu_ratio`] = paired(rounds.wasm, rounds[before], "updateCpuMs");
          log(
            `${size.padEnd(5)} wasm / ${label}: sampling ${figures[`${key}_sample_ratio`]}x tok/s, update ${figures[`${key}_update_ratio`]}x ms` +
              `   (per CPU time: ${figures[`${key}_sample_cpu_ratio`]}x, ${figures[`${key}_update_cpu_ratio`]}x)`,
          );
        }
        const profile = rounds.wasm[0]?.updateProfile;
        if (profile) {
          profiles[size] = profile;
          log(`${size.padEnd(5)} wasm, one update kernel by kernel (tf.profile): ${profile.totalMs} ms in ${profile.kernels} kernels; the largest:`);
          for (const k of profile.byKernel) log(`        ${k.ms.toFixed(1).padStart(8)} ms ${String(k.calls).padStart(5)} x ${k.kernel}`);
          log(`      by kernel and input shapes:`);
          for (const k of profile.byShape.slice(0, 8)) log(`        ${k.ms.toFixed(1).padStart(8)} ms ${String(k.calls).padStart(5)} x ${k.kernel} ${k.shapes}`);
        }
        const report = torchReport(size, rounds.wasm, comparison);
        Object.assign(figures, report.figures);
        report.lines.forEach(log);
        notes.push(...report.notes);
        if (report.mismatch) {
          console.error(`ERROR ${report.mismatch}`);
          notes.push(report.mismatch);
          process.exitCode = 1;
        }
        try {
          await useNodeBackend("wasm");
          const service = new PolicyService();
          await service.init(["wasm"]);
          await service.create(benchPolicyOptions(size, VOCAB));
          const g = await runGroupedSampleBench(service, VOCAB, args.reps);
          service.dispose();
          figures[`${size}_wasm_grouped_sample_tok_per_s`] = Math.round(g.sharedTokPerS);
          figures[`${size}_wasm_grouped_full_batch_sample_tok_per_s`] = Math.round(g.fullTokPerS);
          log(`${size.padEnd(5)} wasm, 16 prompts x 4 rows, rows ending apart: ${Math.round(g.sharedTokPerS)} tok/s (one prefill per prompt, finished rows dropped), ${Math.round(g.fullTokPerS)} tok/s (full batch)`);
        } catch (e) {
          notes.push(`${size} wasm grouped sampling: ${(e as Error).message}`);
        }
        continue;
      }
      try {
        record(size, backend, await nodeBenchInChild(backend, size, args.reps, args.warmups));
      } catch (e) {
        record(size, backend, null, (e as Error).message);
      }
    }
  };
  await runNode("wasm");
  const browserBackends = args.backends.filter((b) => b === "webgpu" || b === "chromium-wasm");
  if (browserBackends.length) {
    const { server, origin } = await startPolicyDevServer();
    try {
      if (browserBackends.includes("webgpu")) {
        const adapter = await webgpuAdapter(origin).catch((e: Error) => `unknown (${e.message.split("\n")[0]})`);
        const note = `webgpu adapter: ${adapter ?? "none"}${adapter?.includes("swiftshader") ? " (SwiftShader runs WebGPU on the CPU: not GPU figures)" : ""}`;
        notes.push(note);
        log(note);
      }
      for (const backend of browserBackends) {
        for (const size of args.sizes) {
          const timeoutS = BROWSER_TIMEOUT_S[backend][size];
          // Progress on stderr, so that --json keeps stdout to the one JSON line.
          const say = (text: string) => console.error(`  ${size} ${backend}: ${text}`);
          try {
            // SwiftShader WebGPU is slow: one timed repetition after the warm-up.
            const reps = backend === "webgpu" ? 1 : args.reps;
            record(size, backend, await browserBench(origin, backend === "webgpu" ? "webgpu" : "wasm", size, reps, timeoutS, say, backend === "webgpu" ? undefined : 1));
          } catch (e) {
            record(size, backend, null, (e as Error).message.split("\n")[0]);
          }
          if (backend !== "chromium-wasm") continue;
          const ratio = (x: number | null | undefined, y: number | null | undefined) => (x && y ? Math.round((x / y) * 100) / 100 : null);
          const one = { s: figures[`${size}_chromium-wasm_sample_tok_per_s`], u: figures[`${size}_chromium-wasm_update_ms`] };
          // Side by side: the speed-ups off (tfjs's own kernels), then tfjs's multi-threaded SIMD build.
          try {
            const r = await browserBench(origin, "wasm", size, args.reps, timeoutS, say, 1, false);
            const key = `${size}_chromium_wasm_tfjs`;
            figures[`${key}_sample_tok_per_s`] = Math.round(r.sampleTokPerS);
            figures[`${key}_update_ms`] = Math.round(r.updateMs);
            figures[`${size}_chromium_wasm_vs_tfjs_sample_ratio`] = ratio(one.s, r.sampleTokPerS);
            figures[`${size}_chromium_wasm_vs_tfjs_update_ratio`] = ratio(one.u, r.updateMs);
            log(`${benchRow(size, "chromium-wasm-tfjs", r)}   (speed-ups / tfjs's kernels: ${figures[`${size}_chromium_wasm_vs_tfjs_sample_ratio`]}x tok/s, ${figures[`${size}_chromium_wasm_vs_tfjs_update_ratio`]}x ms)`);
          } catch (e) {
            notes.push(`${size} chromium-wasm with tfjs's kernels: ${(e as Error).message.split("\n")[0]}`);
          }
          const threads = availableParallelism();
          const key = `${size}_chromium_wasm_threads`;
          try {
            const r = await browserBench(origin, "wasm", size, args.reps, timeoutS, say, threads);
            figures[`${key}_sample_tok_per_s`] = Math.round(r.sampleTokPerS);
            figures[`${key}_update_ms`] = Math.round(r.updateMs);
            figures[`${key}_count`] = r.wasmThreads ?? null;
            figures[`${key}_vs_1_sample_ratio`] = ratio(r.sampleTokPerS, one.s);
            figures[`${key}_vs_1_update_ratio`] = ratio(r.updateMs, one.u);
            log(`${benchRow(size, `chromium-wasm, threaded build (${threads} asked, ${r.wasmThreads} running)`, r)}   (/ 1 thread: ${figures[`${key}_vs_1_sample_ratio`]}x tok/s, ${figures[`${key}_vs_1_update_ratio`]}x ms)`);
          } catch (e) {
            notes.push(`${size} chromium-wasm with ${threads} threads: ${(e as Error).message.split("\n")[0]}`);
          }
        }
      }
    } finally {
      await server.close();
    }
  }
  await runNode("cpu"); // last: the slowest by far
  if (args.backends.includes("wasm") && !withTorch) {
    const note = `PyTorch: ${python} cannot import torch, no comparison (set TORCH_PYTHON, or apt-get install python3-torch).`;
    notes.push(note);
    log(note);
  }
  if (args.json) console.log(JSON.stringify({ ...figures, update_profiles: profiles, notes }));
}
