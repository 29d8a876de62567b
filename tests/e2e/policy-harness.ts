/**
 * Page-side code for tests/e2e/policy.test.ts and the policy benchmark, served from source by the
 * vite dev server: drives a policy worker through src/policy-client.ts.
 */
import { startPolicyWorker } from "../../src/policy-client.ts";
import { groupAdvantages } from "../../src/core/policy/grpo.ts";
import { rolloutSamples } from "../../src/core/policy/batch.ts";
import type { BackendName } from "../../src/core/policy/backend.ts";
import type { ModelSize } from "../../src/core/policy/config.ts";

export interface DuelResult {
  backend: string;
  reason: string;
  completions: number[][];
  done: boolean[];
  advantages: number[];
  /** sum_i A_i (log pi_new(y_i) - log pi_old(y_i)): > 0 when the update followed the advantages. */
  moved: number;
  clipFraction: number;
  checkpointBytes: number;
}

/** Start a worker, sample 8 rows of the toy grammar, reward even symbols, take one GRPO update. */
export async function runDuel(vocab: number): Promise<DuelResult> {
  const { policy, close } = startPolicyWorker("e2e-policy");
  try {
    const choice = await policy.init();
    await policy.create({ size: "tiny", vocab, seed: 7, train: { lr: 3e-3, warmupSteps: 0, klCoef: 0.001 } });
    const prompts = [[1], [1, 5], [1, 6, 7], [1], [1, 8], [1, 9, 10, 11], [1], [1, 12]];
    const spec = { kind: "toy", params: { vocab, minLength: 1, maxLength: 6 } };
    const { rollout, rngState } = await policy.sample(prompts, spec, { maxNewTokens: 8, rngState: [1, 2, 3, 4] });
    const advantages = groupAdvantages(rollout.completions.map((c) => c.filter((t) => t > 2 && t % 2 === 0).length), 8);
    const samples = rolloutSamples(rollout, advantages);
    const before = await policy.completionLogProbs(samples);
    const { metrics } = await policy.update(samples, rngState);
    const after = await policy.completionLogProbs(samples);
    const total = (lp: Float32Array) => lp.reduce((a, b) => a + b, 0);
    const moved = advantages.reduce((a, adv, i) => a + adv * (total(after[i]) - total(before[i])), 0);
    const checkpoint = await policy.save();
    return {
      backend: choice.backend,
      reason: choice.reason,
      completions: rollout.completions,
      done: rollout.done,
      advantages,
      moved,
      clipFraction: metrics.clipFraction,
      checkpointBytes: checkpoint.byteLength,
    };
  } finally {
    close();
  }
}

export interface BrowserBenchOptions {
  backend: BackendName;
  size: ModelSize;
  vocab: number;
  reps: number;
}

/** The policy benchmark's browser half (see scripts/bench/policy.ts for the workload). */
export async function benchPolicy(o: BrowserBenchOptions): Promise<{ backend: string; sampleTokPerS: number; updateMs: number }> {
  const { policy, close } = startPolicyWorker("bench-policy");
  try {
    const choice = await policy.init([o.backend]);
    await policy.create({ size: o.size, vocab: o.vocab, seed: 1 });
    const w = benchWorkload(o.vocab);
    let rngState: [number, number, number, number] = [1, 2, 3, 4];
    const sampleRates: number[] = [];
    const updateMs: number[] = [];
    for (let rep = 0; rep <= o.reps; rep++) {
      let t0 = performance.now();
      const sampled = await policy.sample(w.samplePrompts, w.spec, { maxNewTokens: w.newTokens, rngState });
      const tokens = sampled.rollout.completions.reduce((a, c) => a + c.length, 0);
      const sampleS = (performance.now() - t0) / 1000;
      const long = await policy.sample(w.updatePrompts, w.spec, { maxNewTokens: w.newTokens, rngState: sampled.rngState });
      const samples = rolloutSamples(long.rollout, groupAdvantages(long.rollout.completions.map((_, i) => i % 2), 8));
      t0 = performance.now();
      await policy.update(samples, long.rngState);
      const ms = performance.now() - t0;
      rngState = long.rngState as [number, number, number, number];
      if (rep > 0) {
        // rep 0 warms up: shader compilation and kernel caches
        sampleRates.push(tokens / sampleS);
        updateMs.push(ms);
      }
    }
    return { backend: choice.backend, sampleTokPerS: median(sampleRates), updateMs: median(updateMs) };
  } finally {
    close();
  }
}

/**
 * The benchmark workload, shared by Node and the browser: 64 prompts of 24-72 tokens (mean 48)
 * with 48 new constrained tokens each for sampling; 64 sequences of 80 + 48 = 128 tokens per update.
 */
export function benchWorkload(vocab: number) {
  const newTokens = 48;
  const prompt = (len: number, i: number) => [1, ...Array.from({ length: len - 1 }, (_, j) => 3 + ((i * 7 + j * 3) % (vocab - 3)))];
  return {
    newTokens,
    // 47 symbols then EOS: every row generates exactly 48 tokens, every one through the grammar mask.
    spec: { kind: "toy", params: { vocab, minLength: newTokens - 1, maxLength: newTokens - 1 } },
    samplePrompts: Array.from({ length: 64 }, (_, i) => prompt(24 + ((i * 13) % 49), i)),
    updatePrompts: Array.from({ length: 64 }, (_, i) => prompt(80, i)),
  };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

(globalThis as unknown as { policyHarness: unknown }).policyHarness = { runDuel, benchPolicy };
