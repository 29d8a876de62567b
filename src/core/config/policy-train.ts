/**
 * From a run's Config to the Policy's training knobs (src/core/policy/train-config.ts), which use
 * the loss' and optimiser's own names: epsilon -> clipLow, epsilon_high -> clipHigh, beta -> klCoef,
 * num_iterations -> epochs, max_grad_norm -> gradClip. The run counts training steps, the optimiser
 * counts its own steps (several per training step with mini-batches), hence the factor.
 */
import { TRAIN_DEFAULTS, type TrainConfig } from "../policy/train-config.ts";
import type { Config } from "./fields.ts";

/**
 * Optimiser steps one training step makes, for the learning-rate schedule: the Code policy's
 * tasks x G sequences over the mini-batch size, times the epochs. startPlayers (trainer-service.ts)
 * uses it for the app and the command line alike, so a run has the same schedule in both.
 */
export function optimizerStepsPerStep(c: Readonly<Config>): number {
  return Math.max(1, Math.ceil((c.tasks_per_step * c.num_generations) / TRAIN_DEFAULTS.miniBatchSize)) * c.num_iterations;
}

/**
 * Overrides for `trainConfig()`. `optimizerStepsPerStep`: optimiser steps one training step makes
 * (ceil(sequences / miniBatchSize) x num_iterations), for warm-up and the schedule's length.
 * `lr_scheduler_type: constant` keeps the rate flat after warm-up (cosine floor = 1).
 */
export function policyTrainOverrides(c: Readonly<Config>, optimizerStepsPerStep: number): Partial<TrainConfig> {
  if (!Number.isInteger(optimizerStepsPerStep) || optimizerStepsPerStep < 1) {
    throw new RangeError(`optimizerStepsPerStep must be a positive integer, got ${optimizerStepsPerStep}`);
  }
  const overrides: Partial<TrainConfig> = {
    clipLow: c.epsilon,
    clipHigh: c.epsilon_high,
    dualClip: c.dual_clip,
    klCoef: c.beta,
    lr: c.learning_rate,
    warmupSteps: c.warmup_steps * optimizerStepsPerStep,
    totalSteps: c.steps * optimizerStepsPerStep,
    weightDecay: c.weight_decay,
    gradClip: c.max_grad_norm,
    epochs: c.num_iterations,
  };
  if (c.lr_scheduler_type === "constant") overrides.minLrRatio = 1;
  return overrides;
}
