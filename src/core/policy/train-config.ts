/**
 * Every training knob of a Policy. The knobs that are also run settings (learning rate, clip, KL,
 * epochs, mini-batches, ...) take their default and bounds from the config table
 * (src/core/config/fields.ts, each field's `policy` name): one table, so the two cannot drift.
 * The rest are the optimiser's own (Adam's moments, the schedule in optimiser steps, memory), with
 * their defaults below. The paper's values are for 1.5B-7B models; the learning rate is rescaled.
 */
import type { GrpoLossConfig } from "./grpo.ts";
import type { OptimizerConfig } from "./optimizer.ts";
import { PolicyConfigError } from "./config.ts";
import { mergeOptions, requireIntegers } from "../options.ts";
import { CONFIG_FIELDS, CONFIG_KEYS, DEFAULT_CONFIG, type ConfigKey } from "../config/fields.ts";
import { fieldProblem } from "../config/parse.ts";

export interface TrainConfig extends GrpoLossConfig, OptimizerConfig {
  /** Passes over one batch of rollouts per update call (paper: 1). Raise for sample efficiency; the clip guards it. */
  epochs: number;
  /**
   * Mini-batches one update's batch is split into, each one optimiser step (paper: 2, 256 tasks in
   * mini-batches of 128). At least this many steps per epoch, more when a mini-batch would exceed
   * miniBatchSize sequences.
   */
  miniBatches: number;
  /** Most sequences per optimiser step: an update of N sequences takes max(miniBatches, ceil(N / miniBatchSize)) steps per epoch. */
  miniBatchSize: number;
  /** Sequences per forward/backward pass within a mini-batch (gradients summed): bounds memory, not the math. */
  microBatchSize: number;
}

/** TrainConfig keys that are run settings, and the config field each comes from. */
export const POLICY_CONFIG_FIELDS: Readonly<Partial<Record<keyof TrainConfig, ConfigKey>>> = Object.fromEntries(
  CONFIG_KEYS.flatMap((k) => {
    const spec = CONFIG_FIELDS[k];
    return "policy" in spec ? [[spec.policy, k]] : [];
  }),
);

/** The optimiser's own knobs (no run setting names them). */
const OPTIMISER_ONLY = {
  warmupSteps: 10, // in optimiser steps; a run sets warmup_steps x optimiser steps per training step
  totalSteps: 1000, // length of the cosine in optimiser steps; a run sets steps x optimiser steps per training step
  minLrRatio: 0.1, // cosine floor, as a fraction of lr (1 with lr_scheduler_type constant)
  beta1: 0.9,
  beta2: 0.999,
  eps: 1e-8,
  miniBatchSize: 64, // most sequences per optimiser step
  microBatchSize: 16, // lower it if the wasm backend aborts (out of memory); raise it for fewer, larger kernels
} satisfies Partial<TrainConfig>;

/** Defaults: the run settings' defaults from the config table, then the optimiser's own. */
export const TRAIN_DEFAULTS: Readonly<TrainConfig> = Object.freeze({
  ...(Object.fromEntries(Object.entries(POLICY_CONFIG_FIELDS).map(([name, key]) => [name, DEFAULT_CONFIG[key!]])) as Pick<TrainConfig, "clipLow" | "clipHigh" | "dualClip" | "klCoef" | "lr" | "weightDecay" | "gradClip" | "epochs" | "miniBatches">),
  ...OPTIMISER_ONLY,
});

/** Defaults overridden by `overrides`; unknown keys and out-of-range values are rejected (bounds of run settings: the config table's). */
export function trainConfig(overrides: Partial<TrainConfig> = {}): TrainConfig {
  const cfg = mergeOptions("training config key", TRAIN_DEFAULTS, overrides, PolicyConfigError);
  for (const [name, key] of Object.entries(POLICY_CONFIG_FIELDS)) {
    const problem = fieldProblem(CONFIG_FIELDS[key!], cfg[name as keyof TrainConfig]);
    if (problem !== null) throw new PolicyConfigError(`training config ${name} (the run's ${key}): ${problem}`);
  }
  for (const key of ["minLrRatio", "eps"] as const) {
    if (!(Number.isFinite(cfg[key]) && cfg[key] >= 0)) throw new PolicyConfigError(`training config ${key} must be a finite number >= 0, got ${cfg[key]}`);
  }
  requireIntegers("training config", cfg, ["miniBatchSize", "microBatchSize", "totalSteps"], PolicyConfigError);
  requireIntegers("training config", cfg, ["warmupSteps"], PolicyConfigError, 0);
  for (const key of ["beta1", "beta2"] as const) {
    if (!(cfg[key] >= 0 && cfg[key] < 1)) throw new PolicyConfigError(`training config ${key} must be in [0, 1), got ${cfg[key]}`);
  }
  return cfg;
}

/** Rows per mini-batch of an update of `n` sequences: n split into max(miniBatches, ceil(n / miniBatchSize)) near-equal parts (at most n). */
export function miniBatchRows(n: number, cfg: Pick<TrainConfig, "miniBatches" | "miniBatchSize">): number {
  const parts = Math.min(n, Math.max(cfg.miniBatches, Math.ceil(n / cfg.miniBatchSize)));
  return Math.max(1, Math.ceil(n / parts));
}
