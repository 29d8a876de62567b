/**
 * The policy benchmark's workload and timing loop, shared by Node (in-thread PolicyService) and the
 * browser (PolicyService in a worker), so both measure exactly the same thing:
 *   sampling: 64 prompts of 24-72 tokens (mean 48), 48 new grammar-constrained tokens each;
 *   update:   64 sequences of 80 prompt + 48 generated = 128 tokens, one GRPO update (one mini-batch).
 */
import type { BackendName } from "./backend.ts";
import { rolloutSamples } from "./batch.ts";
import type { ModelSize } from "./config.ts";
import { groupAdvantages } from "./grpo.ts";
import type { CreatePolicyOptions } from "./policy.ts";
import type { PolicyService } from "./policy-service.ts";
import type { RngState } from "../rng.ts";

/** What the benchmark needs of a policy host: a PolicyService, or its comlink proxy. */
export type PolicyHost = Pick<PolicyService, "init" | "create" | "sample" | "update">;

export interface PolicyBenchOptions {
  backend: BackendName;
  size: ModelSize;
  vocab: number;
  /** Timed repetitions. */
  reps: number;
  /**
   * Untimed repetitions first (shader compilation, kernel caches, V8's optimising compiler); default 1.
   * warmupS times the first.
   */
  warmups?: number;
  /** PolicyService.init's wasmThreads (tfjs's threaded wasm build, in a cross-origin isolated page). */
  wasmThreads?: number;
  /** PolicyService.init's wasmSpeedups (false: tfjs's own kernels). */
  wasmSpeedups?: boolean;
}

export interface PolicyBenchResult {
  backend: string;
  /** The wasm backend's XNNPACK threads, when on wasm. */
  wasmThreads?: number;
  sampleTokPerS: number;
  updateMs: number;
  /** The same per CPU second of this process, when a cpu clock was given: what an idle core would do. */
  sampleTokPerCpuS?: number;
  updateCpuMs?: number;
  /**
   * Wall seconds of the untimed warm-up repetition (the same work as a timed one plus first-call
   * costs: shader compilation on webgpu); absent without warm-up.
   */
  warmupS?: number;
  /** Where one more update's time went, kernel by kernel, when runPolicyBench was given a profiler. */
  updateProfile?: KernelProfile;
}

/** Kernel time of one call: per kernel name, and per kernel and input shapes, the largest first. */
export interface KernelProfile {
  totalMs: number;
  kernels: number;
  byKernel: { kernel: string; calls: number; ms: number }[];
  byShape: { kernel: string; shapes: string; calls: number; ms: number }[];
}

/** The benchmarked policy: seed 1, one epoch of one 64-sequence mini-batch per update. */
export function benchPolicyOptions(size: ModelSize, vocab: number): CreatePolicyOptions {
  return { size, vocab, seed: 1, train: { miniBatches: 1, miniBatchSize: 64, epochs: 1 } };
}

export function benchWorkload(vocab: number) {
  const newTokens = 48;
  const prompt = (len: number, i: number) => [1, ...Array.from({ length: len - 1 }, (_, j) => 3 + ((i * 7 + j * 3) % (vocab - 3)))];
  return {
    newTokens,
    // 47 symbols then EOS: every row generates exactly 48 tokens, each one through the grammar mask.
    spec: { kind: "toy", params: { vocab, minLength: newTokens - 1, maxLength: newTokens - 1 } },
    samplePrompts: Array.from({ length: 64 }, (_, i) => prompt(24 + ((i * 13) % 49), i)),
    updatePrompts: Array.from({ length: 64 }, (_, i) => prompt(80, i)),
  };
}

/**
 * Median sampled tokens/s and ms per update over `reps` timed repetitions. `cpuClock` (ms of CPU time
 * used by this process, e.g. from process.cpuUsage) adds CPU-time figures, which stay meaningful
 * when other jobs share the cores. `onProgress` hears each phase as it ends ("warm-up: sampled in
 * 98 s"), for callers that wait minutes (SwiftShader WebGPU).
 */
export async function runPolicyBench(
  host: PolicyHost,
  o: PolicyBenchOptions,
  cpuClock?: () => number,
  onProgress?: (text: string) => void,
  /** Runs one more (untimed) update inside, after the timed ones, and reports its kernels (tf.profile, in the host's thread). */
  profileUpdate?: (update: () => Promise<unknown>) => Promise<KernelProfile>,
): Promise<PolicyBenchResult> {
  const choice = await host.init([o.backend], { ...(o.wasmThreads !== undefined ? { wasmThreads: o.wasmThreads } : {}), ...(o.wasmSpeedups !== undefined ? { wasmSpeedups: o.wasmSpeedups } : {}) });
  await host.create(benchPolicyOptions(o.size, o.vocab));
  const w = benchWorkload(o.vocab);
  let rngState: RngState = [1, 2, 3, 4];
  const rates: number[] = [];
  const updateMs: number[] = [];
  const cpuRates: number[] = [];
  const cpuUpdateMs: number[] = [];
  const cpu = cpuClock ?? (() => 0);
  const warmups = o.warmups ?? 1;
  let warmupS: number | undefined;
  let lastUpdate: (() => Promise<unknown>) | null = null;
  for (let rep = 1 - warmups; rep <= o.reps; rep++) {
    const label = rep <= 0 ? `warm-up ${rep + warmups}/${warmups}` : `rep ${rep}/${o.reps}`;
    const repStart = performance.now();
    const since = (t: number) => `${((performance.now() - t) / 1000).toFixed(0)} s`;
    let t0 = performance.now();
    let c0 = cpu();
    const sampled = await host.sample(w.samplePrompts, w.spec, { maxNewTokens: w.newTokens, rngState });
    const seconds = (performance.now() - t0) / 1000;
    const cpuSeconds = (cpu() - c0) / 1000;
    const tokens = sampled.rollout.completions.reduce((a, c) => a + c.length, 0);
    onProgress?.(`${label}: sampled in ${since(t0)}`);
    t0 = performance.now();
    const long = await host.sample(w.updatePrompts, w.spec, { maxNewTokens: w.newTokens, rngState: sampled.rngState });
    onProgress?.(`${label}: the update's rollout sampled (untimed) in ${since(t0)}`);
    const samples = rolloutSamples(long.rollout, groupAdvantages(long.rollout.completions.map((_, i) => i % 2), 8));
    lastUpdate = () => host.update(samples, long.rngState);
    t0 = performance.now();
    c0 = cpu();
    const { rngState: next } = await host.update(samples, long.rngState);
    const ms = performance.now() - t0;
    const cpuMs = cpu() - c0;
    rngState = next;
    onProgress?.(`${label}: updated in ${since(t0)}`);
    if (warmups > 0 && rep === 1 - warmups) warmupS = (performance.now() - repStart) / 1000;
    if (rep > 0) {
      rates.push(tokens / seconds);
      updateMs.push(ms);
      cpuRates.push(tokens / cpuSeconds);
      cpuUpdateMs.push(cpuMs);
    }
  }
  const result: PolicyBenchResult = { backend: choice.backend, sampleTokPerS: median(rates), updateMs: median(updateMs) };
  if (choice.wasmThreads !== undefined) result.wasmThreads = choice.wasmThreads;
  if (cpuClock) Object.assign(result, { sampleTokPerCpuS: median(cpuRates), updateCpuMs: median(cpuUpdateMs) });
  if (warmupS !== undefined) result.warmupS = warmupS;
  if (profileUpdate && lastUpdate) result.updateProfile = await profileUpdate(lastUpdate);
  return result;
}

/**
 * Sampling as a duel step does it: 16 prompts x G = 4 rows each (a task's programs share its prompt),
 * under a grammar whose rows end after 8 to 47 symbols, so they finish apart. Each repetition times
 * the default sampler (each distinct prompt prefilled once, its padding skipped, finished rows dropped)
 * and the full batch (`sharePrefill`, `skipPadding`, `dropFinished` off) back to back on the same seed, whose rollouts are identical;
 * medians of tok/s over `reps` after one untimed warm-up of each.
 */
export async function runGroupedSampleBench(host: Pick<PolicyService, "sample">, vocab: number, reps: number): Promise<{ sharedTokPerS: number; fullTokPerS: number }> {
  const w = benchWorkload(vocab);
  const prompts = Array.from({ length: 64 }, (_, i) => w.samplePrompts[Math.floor(i / 4)]);
  const spec = { kind: "toy", params: { vocab, minLength: 8, maxLength: w.newTokens - 1 } };
  const rates = { shared: [] as number[], full: [] as number[] };
  for (let rep = 0; rep <= reps; rep++) {
    for (const variant of ["shared", "full"] as const) {
      const off = variant === "full" ? { sharePrefill: false, dropFinished: false, skipPadding: false } : {};
      const t0 = performance.now();
      const { rollout } = await host.sample(prompts, spec, { maxNewTokens: w.newTokens, rngState: [5, 6, 7, rep], ...off });
      const tokens = rollout.completions.reduce((a, c) => a + c.length, 0);
      if (rep > 0) rates[variant].push(tokens / ((performance.now() - t0) / 1000));
    }
  }
  return { sharedTokPerS: median(rates.shared), fullTokPerS: median(rates.full) };
}

/** One printed benchmark row: `<size> <label> N tok/s sampled   N ms/update   (per CPU time: ...)`. */
export function benchRow(size: string, label: string, r: Pick<PolicyBenchResult, "sampleTokPerS" | "updateMs" | "sampleTokPerCpuS" | "updateCpuMs">): string {
  const cpu = r.sampleTokPerCpuS !== undefined && r.updateCpuMs !== undefined ? `   (per CPU time: ${Math.round(r.sampleTokPerCpuS)} tok/s, ${Math.round(r.updateCpuMs)} ms)` : "";
  return `${size.padEnd(5)} ${label.padEnd(13)} ${Math.round(r.sampleTokPerS).toString().padStart(7)} tok/s sampled   ${Math.round(r.updateMs).toString().padStart(7)} ms/update${cpu}`;
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new RangeError("median of nothing");
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** The four figures a timed run reports (PolicyBenchResult and torch_gpt.py's runs). */
export type RunFigure = "sampleTokPerS" | "updateMs" | "sampleTokPerCpuS" | "updateCpuMs";

/** Per-figure medians of several runs (each figure's own median: not one run's figures). */
export function medianRun<R extends { sampleTokPerS: number; updateMs: number; sampleTokPerCpuS?: number; updateCpuMs?: number }>(runs: readonly R[]): R {
  const m = (k: RunFigure) => (runs.every((r) => r[k] !== undefined) ? median(runs.map((r) => r[k] as number)) : undefined);
  return { ...runs[0], sampleTokPerS: m("sampleTokPerS")!, updateMs: m("updateMs")!, sampleTokPerCpuS: m("sampleTokPerCpuS"), updateCpuMs: m("updateCpuMs") };
}

/**
 * The median over rounds of a[i][k] / b[i][k]: runs made one after the other in round i saw the same
 * load on shared cores. Rounds missing (null) or without the figure on either side are left out; null
 * when none is left.
 */
export function pairedRatio(a: readonly (Partial<Record<RunFigure, number>> | null)[], b: readonly (Partial<Record<RunFigure, number>> | null)[], k: RunFigure): number | null {
  const ratios = a.flatMap((x, i) => (x?.[k] && b[i]?.[k] ? [x[k]! / b[i]![k]!] : []));
  return ratios.length ? median(ratios) : null;
}
