/**
 * From a run's Config to the Policy's training knobs (src/core/policy/train-config.ts). The knobs
 * that are run settings carry the Policy's name in the field table (`policy`: epsilon -> clipLow,
 * beta -> klCoef, num_iterations -> epochs, mini_batches -> miniBatches, ...); this maps them over.
 * The run counts training steps, the optimiser counts its own steps (several per training step),
 * hence the factor for warm-up and the schedule's length.
 */
import { miniBatchRows, POLICY_CONFIG_FIELDS, TRAIN_DEFAULTS, type TrainConfig } from "../policy/train-config.ts";
import { MODE_TABLE, testerCodesPerTask } from "../duel/modes.ts";
import type { Config } from "./fields.ts";

/** Sequences one training step gives a policy's update (zero-advantage ones included, the default). */
export function updateBatchSize(c: Readonly<Config>, role: "code" | "test"): number {
  const mode = MODE_TABLE[c.mode];
  const code = mode.trains.code ? c.tasks_per_step * c.num_generations : 0;
  const test = mode.trains.test && mode.writesSuites ? c.tasks_per_step * testerCodesPerTask(c) * c.suites_per_code : 0;
  if (mode.sharedPolicy) return code + test; // one policy, one update with both roles' samples
  return role === "code" ? code : test;
}

/**
 * Optimiser steps one training step makes for a policy, counted from ITS OWN update batch (the
 * Test policy's TopVar batch differs from the Code policy's): max(mini_batches, ceil(batch /
 * miniBatchSize)), at most the batch, times num_iterations. 0 when the policy does not train.
 * startPlayers (trainer-service.ts) uses it for the app and the command line alike.
 */
export function optimizerStepsPerStep(c: Readonly<Config>, role: "code" | "test"): number {
  const n = updateBatchSize(c, role);
  if (n === 0) return 0;
  return Math.ceil(n / miniBatchRows(n, { miniBatches: c.mini_batches, miniBatchSize: TRAIN_DEFAULTS.miniBatchSize })) * c.num_iterations;
}

/**
 * Overrides for `trainConfig()` for one policy. `optimizerStepsPerStep`: that policy's optimiser
 * steps per training step (0 for a policy that does not train: its schedule is then irrelevant and
 * counted as 1), for warm-up and the schedule's length. `lr_scheduler_type: constant` keeps the
 * rate flat after warm-up (cosine floor = 1).
 */
export function policyTrainOverrides(c: Readonly<Config>, optimizerStepsPerStep: number): Partial<TrainConfig> {
  if (!Number.isInteger(optimizerStepsPerStep) || optimizerStepsPerStep < 0) {
    throw new RangeError(`optimizerStepsPerStep must be a non-negative integer, got ${optimizerStepsPerStep}`);
  }
  const perStep = Math.max(1, optimizerStepsPerStep);
  const overrides: Partial<TrainConfig> = Object.fromEntries(Object.entries(POLICY_CONFIG_FIELDS).map(([name, key]) => [name, c[key!]]));
  overrides.warmupSteps = c.warmup_steps * perStep;
  overrides.totalSteps = c.steps * perStep;
  if (c.lr_scheduler_type === "constant") overrides.minLrRatio = 1;
  return overrides;
}
