/**
 * Every training knob of a Policy, documented once: default, effect, when to change it.
 * The paper's values are for 1.5B-7B models; the learning rate is rescaled for tiny models.
 */
import type { GrpoLossConfig } from "./grpo.ts";
import type { OptimizerConfig } from "./optimizer.ts";
import { PolicyConfigError } from "./config.ts";
import { mergeOptions, requireIntegers } from "../options.ts";

export interface TrainConfig extends GrpoLossConfig, OptimizerConfig {
  /** Passes over one batch of rollouts per update call (paper: 1). Raise for sample efficiency; the clip guards it. */
  epochs: number;
  /** Sequences per optimizer step; an update of N sequences takes ceil(N / miniBatchSize) steps per epoch. Paper: 128 of 256. */
  miniBatchSize: number;
  /** Sequences per forward/backward pass within a mini-batch (gradients summed): bounds memory, not the math. */
  microBatchSize: number;
}

export const TRAIN_DEFAULTS: Readonly<TrainConfig> = {
  // Loss (grpo.ts), the paper's values.
  clipLow: 0.2, // ratio floor 1 - 0.2 on positive advantages
  clipHigh: 0.28, // ratio ceiling 1 + 0.28 (clip-higher keeps exploration alive)
  dualClip: 10, // caps the loss of negative-advantage tokens whose ratio exploded
  klCoef: 0.001, // beta of k3 KL to the frozen reference; 0 disables (and skips the reference pass)
  // Optimizer (optimizer.ts).
  lr: 1e-4, // paper 1e-6 at 1.5B; tiny models move at 1e-4..1e-3. Lower it if KL or clip fraction climbs fast.
  warmupSteps: 10, // paper: 10 warm-up steps
  totalSteps: 1000, // length of the cosine; set to the run's optimizer steps
  minLrRatio: 0.1, // cosine floor, as a fraction of lr
  weightDecay: 0.1, // paper 0.1, on matrices only
  gradClip: 1.0, // paper 1.0
  beta1: 0.9,
  beta2: 0.999,
  eps: 1e-8,
  // Schedule of one update call.
  epochs: 1, // paper: 1 PPO epoch
  miniBatchSize: 64, // sequences per optimizer step
  microBatchSize: 16, // lower it if the wasm backend aborts (out of memory); raise it for fewer, larger kernels
};

/** Defaults overridden by `overrides`; unknown keys and out-of-range values are rejected. */
export function trainConfig(overrides: Partial<TrainConfig> = {}): TrainConfig {
  const cfg = mergeOptions("training config key", TRAIN_DEFAULTS, overrides, PolicyConfigError);
  const nonNegative: (keyof TrainConfig)[] = ["clipLow", "clipHigh", "klCoef", "lr", "warmupSteps", "minLrRatio", "weightDecay", "gradClip", "eps"];
  for (const key of nonNegative) {
    if (!(Number.isFinite(cfg[key]) && cfg[key] >= 0)) throw new PolicyConfigError(`training config ${key} must be a finite number >= 0, got ${cfg[key]}`);
  }
  requireIntegers("training config", cfg, ["epochs", "miniBatchSize", "microBatchSize", "totalSteps"], PolicyConfigError);
  if (!(cfg.dualClip > 1)) throw new PolicyConfigError(`training config dualClip must be > 1, got ${cfg.dualClip}`);
  if (!(cfg.clipLow < 1)) throw new PolicyConfigError(`training config clipLow must be < 1, got ${cfg.clipLow}`);
  for (const key of ["beta1", "beta2"] as const) {
    if (!(cfg[key] >= 0 && cfg[key] < 1)) throw new PolicyConfigError(`training config ${key} must be in [0, 1), got ${cfg[key]}`);
  }
  return cfg;
}
