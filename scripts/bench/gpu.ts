/**
 * `npm run bench -- gpu [--json] [--sizes tiny,small] [--reps N] [--steps N] [--no-torch] [--no-run]`
 *
 * For a machine with a real GPU (a lent one: docs/BENCHMARKS.md, "On a GPU"). The policy bench's
 * workload (src/core/policy/bench-workload.ts: batch 64 x 48 new constrained tokens, a GRPO update
 * on 64 x 128 tokens, vocab 256) on tfjs's webgpu backend in Node through Dawn, the WebGPU
 * implementation inside Chromium (src/node/dawn.ts: ARENA_DAWN names its Node binding), beside
 * PyTorch on the same machine from the same initial weights: on CUDA, and on the CPU with 1 thread
 * (scripts/bench/torch_gpt.py; $TORCH_PYTHON, default python3 on PATH here). Then a seeded
 * classroom run of --steps steps (default 3) on webgpu, and the same run on Node wasm, seconds per
 * step side by side (the grader is the same Pyodide on the CPU in both).
 *
 * Keys: `gpu_adapter` (vendor, architecture, description), `<size>_webgpu_{sample_tok_per_s,
 * update_ms, warmup_s}`, `<size>_torch_cuda_*` and `<size>_torch_cpu_*` (same two figures),
 * `<size>_webgpu_vs_torch_cuda_{sample_ratio, update_ratio}` (tok/s: below 1, tfjs slower; ms: above 1,
 * tfjs slower), `<size>_webgpu_logits_max_abs_diff` (tfjs webgpu against torch CPU, the sampler's path),
 * `classroom_{webgpu,wasm}_step_s` (median seconds per step after the first) and
 * `classroom_{webgpu,wasm}_first_step_s`. A figure that could not be measured is null with a note.
 * With --json, stdout is one JSON line and the readable lines go to stderr.
 * Exits 1 when no GPU adapter is found (Dawn's fallback or none): nothing here is worth timing then.
 */
import { availableParallelism } from "node:os";
import * as tf from "@tensorflow/tfjs";
import { benchRow, median, type PolicyBenchResult, runPolicyBench } from "../../src/core/policy/bench-workload.ts";
import { tfjsAdapterOptions } from "../../src/core/policy/backend.ts";
import type { ModelSize } from "../../src/core/policy/config.ts";
import { PolicyService } from "../../src/core/policy/policy-service.ts";
import { CliError, cliConfig, parseArgs, type FlagSpec } from "../../src/node/cli.ts";
import { installDawn } from "../../src/node/dawn.ts";
import { createNodeGrader } from "../../src/node/grader.ts";
import { runTaskFile } from "../../src/node/run-files.ts";
import { useNodeBackend } from "../../src/node/tf-backend.ts";
import { trainRun } from "../../src/node/train-run.ts";
import { hasTorch, openTorchSide } from "./torch-gpt.ts";

const VOCAB = 256;

const FLAGS: Record<string, FlagSpec> = {
  json: { kind: "bool", help: "print exactly one JSON line" },
  sizes: { kind: "string", help: "tiny,small (default both)" },
  reps: { kind: "int", min: 1, help: "timed repetitions, median reported (default 3)" },
  steps: { kind: "int", min: 2, help: "steps of the classroom run on each backend (default 3)" },
  "no-torch": { kind: "bool", help: "skip PyTorch" },
  "no-run": { kind: "bool", help: "skip the classroom run" },
};

const round = (x: number, digits = 0) => (Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : null);

export async function main(argv: string[]): Promise<void> {
  const { flags } = parseArgs(argv, FLAGS, 0);
  const sizes = ((flags.sizes as string | undefined) ?? "tiny,small").split(",") as ModelSize[];
  for (const s of sizes) if (s !== "tiny" && s !== "small") throw new CliError(`unknown size ${s}: use tiny, small`);
  const reps = (flags.reps as number | undefined) ?? 3;
  const steps = (flags.steps as number | undefined) ?? 3;
  const json = flags.json === true;
  // With --json the human lines go to stderr: stdout is the one JSON line.
  const log = (line: string) => (json ? console.error(line) : console.log(line));
  const figures: Record<string, number | string | null> = {};
  const notes: string[] = [];

  await installDawn();
  const gpu = (globalThis as unknown as { navigator: { gpu: { requestAdapter(o: object): Promise<{ info: { vendor: string; architecture: string; description: string }; isFallbackAdapter?: boolean } | null> } } }).navigator.gpu;
  const adapter = await gpu.requestAdapter(tfjsAdapterOptions());
  const name = adapter ? [adapter.info.vendor, adapter.info.architecture, adapter.info.description].filter(Boolean).join(" ") : null;
  figures.gpu_adapter = name;
  if (!adapter || adapter.isFallbackAdapter) {
    console.error(`bench gpu: no GPU adapter through Dawn (${name ?? "none"}); this bench is for a machine with a GPU`);
    process.exitCode = 1;
    return;
  }
  const choice = await useNodeBackend("webgpu");
  if (choice.backend !== "webgpu") throw new Error(`tfjs did not start webgpu: ${choice.reason}`);
  log(`GPU bench: tfjs ${tf.version.tfjs} webgpu in Node through Dawn on ${name}; ${availableParallelism()} CPU cores`);
  log(`policy workload: batch 64 x 48 new constrained tokens; GRPO update on 64 x 128 tokens; vocab ${VOCAB}; median of ${reps}`);

  const withTorch = flags["no-torch"] !== true && hasTorch();
  if (flags["no-torch"] !== true && !withTorch) notes.push("torch: not importable by $TORCH_PYTHON / python3");
  for (const size of sizes) {
    // tfjs webgpu: one warm-up (shader compilation), then `reps` timed repetitions.
    let webgpu: PolicyBenchResult | null = null;
    const service = new PolicyService();
    try {
      webgpu = await runPolicyBench(service, { backend: "webgpu", size, vocab: VOCAB, reps, warmups: 1 });
      log(`${benchRow(size, "webgpu", webgpu)}   (warm-up repetition: ${webgpu.warmupS?.toFixed(1)} s)`);
    } catch (e) {
      notes.push(`${size} webgpu: ${(e as Error).message}`);
      log(`${size} webgpu unavailable: ${(e as Error).message}`);
    } finally {
      service.dispose();
    }
    figures[`${size}_webgpu_sample_tok_per_s`] = webgpu ? round(webgpu.sampleTokPerS) : null;
    figures[`${size}_webgpu_update_ms`] = webgpu ? round(webgpu.updateMs, 1) : null;
    figures[`${size}_webgpu_warmup_s`] = webgpu?.warmupS !== undefined ? round(webgpu.warmupS, 1) : null;
    for (const dev of ["cuda", "cpu"] as const) {
      figures[`${size}_torch_${dev}_sample_tok_per_s`] = null;
      figures[`${size}_torch_${dev}_update_ms`] = null;
    }
    figures[`${size}_webgpu_vs_torch_cuda_sample_ratio`] = null;
    figures[`${size}_webgpu_vs_torch_cuda_update_ratio`] = null;
    figures[`${size}_webgpu_logits_max_abs_diff`] = null;
    if (!withTorch) continue;
    try {
      // Weights made on the current backend (webgpu); its logits against torch's on the CPU.
      const side = await openTorchSide(size, VOCAB);
      figures[`${size}_webgpu_logits_max_abs_diff`] = side.logitsMaxAbsDiff;
      try {
        for (const dev of ["cuda", "cpu"] as const) {
          try {
            const { run } = await side.run(1, reps, 3, dev);
            figures[`${size}_torch_${dev}_sample_tok_per_s`] = round(run.sampleTokPerS);
            figures[`${size}_torch_${dev}_update_ms`] = round(run.updateMs, 1);
            log(`${size.padEnd(5)} torch ${dev.padEnd(7)} ${run.sampleTokPerS.toFixed(0).padStart(8)} tok/s   update ${run.updateMs.toFixed(1).padStart(8)} ms${run.device ? `   (${run.device})` : " (1 thread)"}`);
            if (dev === "cuda" && webgpu) {
              figures[`${size}_webgpu_vs_torch_cuda_sample_ratio`] = round(webgpu.sampleTokPerS / run.sampleTokPerS, 2);
              figures[`${size}_webgpu_vs_torch_cuda_update_ratio`] = round(webgpu.updateMs / run.updateMs, 2);
            }
          } catch (e) {
            notes.push(`${size} torch ${dev}: ${(e as Error).message}`);
            log(`${size} torch ${dev} unavailable: ${(e as Error).message}`);
          }
        }
      } finally {
        side.close();
      }
      log(`${size.padEnd(5)} logits: tfjs webgpu vs torch cpu, max |diff| ${side.logitsMaxAbsDiff.toExponential(2)}`);
    } catch (e) {
      notes.push(`${size} torch: ${(e as Error).message}`);
    }
  }

  if (flags["no-run"] !== true) {
    const grader = await createNodeGrader();
    try {
      for (const backend of ["webgpu", "wasm"] as const) {
        const { file, config } = runTaskFile(undefined, cliConfig("classroom", { seed: 1, steps, evalEvery: 0 }, { backend }));
        const stamps: number[] = [];
        let chosen = "";
        const t0 = performance.now();
        try {
          await trainRun({
            config, file, grader, out: null, runId: `gpu-bench-${backend}`, evaluation: null,
            emit: (e) => {
              if (e.type === "step") stamps.push(performance.now());
              if (e.type === "backend") chosen = e.backend;
            },
          });
          const per = stamps.slice(1).map((t, i) => (t - stamps[i]) / 1000);
          figures[`classroom_${backend}_first_step_s`] = round((stamps[0] - t0) / 1000, 1);
          figures[`classroom_${backend}_step_s`] = round(median(per), 2);
          log(`classroom ${backend.padEnd(6)} (players on ${chosen}): first step ${((stamps[0] - t0) / 1000).toFixed(1)} s (players, sandbox, shaders), then ${median(per).toFixed(2)} s a step (median of ${per.length})`);
          if (chosen !== backend) notes.push(`classroom ${backend}: the players ran on ${chosen}`);
        } catch (e) {
          notes.push(`classroom ${backend}: ${String(e)}`);
          figures[`classroom_${backend}_step_s`] = null;
          log(`classroom ${backend} failed: ${String(e)}`);
        }
      }
    } finally {
      await grader.close();
    }
  }
  for (const n of notes) log(`note: ${n}`);
  if (json) console.log(JSON.stringify({ ...figures, notes }));
}
