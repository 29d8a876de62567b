import { expect, it } from "vitest";
import { DEFAULT_CONFIG, parseConfig, presetConfig } from "../../../src/core/config/index.ts";
import { policyTrainOverrides } from "../../../src/core/config/policy-train.ts";
import { miniBatchRows, POLICY_CONFIG_FIELDS, TRAIN_DEFAULTS, trainConfig } from "../../../src/core/policy/train-config.ts";

it("maps the run config onto the Policy's training config, which accepts every preset", () => {
  const c = presetConfig("paper-mini");
  const t = trainConfig(policyTrainOverrides(c, 3));
  expect(t).toMatchObject({ clipLow: 0.2, clipHigh: 0.28, dualClip: 10, klCoef: 0.001, lr: c.learning_rate, warmupSteps: 15, totalSteps: 180, weightDecay: 0.1, gradClip: 1, epochs: 1 });
  expect(t.minLrRatio).toBe(TRAIN_DEFAULTS.minLrRatio);
  expect(trainConfig(policyTrainOverrides(parseConfig({ lr_scheduler_type: "constant" }), 1)).minLrRatio).toBe(1);
  expect(() => policyTrainOverrides(c, -1)).toThrow(/non-negative integer/);
});

it("takes the run settings' defaults and bounds from the config table (no second table)", () => {
  // epsilon is (0, 1] in the table, so clipLow is too (the policy's own check said [0, 1) before).
  expect(trainConfig({ clipLow: 1 }).clipLow).toBe(1);
  expect(() => trainConfig({ clipLow: 0 })).toThrow(/clipLow \(the run's epsilon\): expected a value in \(0, 1\]/);
  expect(() => trainConfig({ miniBatches: 0 })).toThrow(/miniBatches \(the run's mini_batches\)/);
  expect(TRAIN_DEFAULTS).toMatchObject({ clipLow: DEFAULT_CONFIG.epsilon, klCoef: DEFAULT_CONFIG.beta, lr: DEFAULT_CONFIG.learning_rate, miniBatches: DEFAULT_CONFIG.mini_batches });
  for (const [name, key] of Object.entries(POLICY_CONFIG_FIELDS)) expect(TRAIN_DEFAULTS[name as keyof typeof TRAIN_DEFAULTS]).toBe(DEFAULT_CONFIG[key!]);
  expect(Object.keys(POLICY_CONFIG_FIELDS).sort()).toEqual(["clipHigh", "clipLow", "dualClip", "epochs", "gradClip", "klCoef", "lr", "miniBatches", "weightDecay"]);
});

it("splits an update into the configured number of mini-batches", () => {
  expect(miniBatchRows(16, { miniBatches: 2, miniBatchSize: 64 })).toBe(8);
  expect(miniBatchRows(200, { miniBatches: 2, miniBatchSize: 64 })).toBe(50); // 4 parts: the size cap wins
  expect(miniBatchRows(1, { miniBatches: 2, miniBatchSize: 64 })).toBe(1);
});
