/**
 * Page-side code for tests/e2e/policy.test.ts and the policy benchmark, served from source by the
 * vite dev server: drives a policy worker through src/browser/policy-client.ts.
 */
import { startPolicyWorker } from "../../src/browser/policy-client.ts";
import { groupAdvantages } from "../../src/core/policy/grpo.ts";
import type { BackendChoice } from "../../src/core/policy/backend.ts";
import type { BackendPreference } from "../../src/core/policy/backend-choice.ts";
import { rolloutSamples } from "../../src/core/policy/batch.ts";
import { type PolicyBenchOptions, type PolicyBenchResult, runPolicyBench } from "../../src/core/policy/bench-workload.ts";

export interface DuelResult {
  backend: string;
  reason: string;
  completions: number[][];
  done: boolean[];
  advantages: number[];
  /** sum_i A_i (log pi_new(y_i) - log pi_old(y_i)): > 0 when the update followed the advantages. */
  moved: number;
  clipFraction: number;
  gradNorm: number;
  checkpointBytes: number;
}

/** The backend a policy worker chooses for `preference`, without creating a policy. */
export async function chooseOnly(preference: BackendPreference): Promise<BackendChoice> {
  const { policy, close } = startPolicyWorker("e2e-choice");
  try {
    return await policy.init(preference);
  } finally {
    close();
  }
}

/** Start a worker, sample 8 rows of the toy grammar, reward even symbols, take one GRPO update. */
export async function runDuel(vocab: number, preference: BackendPreference = "auto"): Promise<DuelResult> {
  const { policy, close } = startPolicyWorker("e2e-policy");
  try {
    const choice = await policy.init(preference);
    await policy.create({ size: "tiny", vocab, seed: 7, train: { lr: 3e-3, warmupSteps: 0, klCoef: 0.001, miniBatches: 1 } }); // one optimiser step: ratio 1 everywhere
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
      gradNorm: metrics.gradNorm,
      checkpointBytes: checkpoint.byteLength,
    };
  } finally {
    close();
  }
}

/** Prefix of the console lines that carry benchPolicy's progress to scripts/bench/policy.ts. */
export const BENCH_PROGRESS = "bench-progress: ";

/** The policy benchmark's browser half: the shared timing loop against a policy worker. */
export async function benchPolicy(o: PolicyBenchOptions): Promise<PolicyBenchResult> {
  const { policy, close } = startPolicyWorker("bench-policy");
  try {
    return await runPolicyBench(policy, o, undefined, (text) => console.log(BENCH_PROGRESS + text));
  } finally {
    close();
  }
}
