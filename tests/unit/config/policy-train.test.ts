import { expect, it } from "vitest";
import { parseConfig, presetConfig } from "../../../src/core/config/index.ts";
import { policyTrainOverrides } from "../../../src/core/config/policy-train.ts";
import { TRAIN_DEFAULTS, trainConfig } from "../../../src/core/policy/train-config.ts";

it("maps the run config onto the Policy's training config, which accepts every preset", () => {
  const c = presetConfig("paper-mini");
  const t = trainConfig(policyTrainOverrides(c, 3));
  expect(t).toMatchObject({ clipLow: 0.2, clipHigh: 0.28, dualClip: 10, klCoef: 0.001, lr: c.learning_rate, warmupSteps: 15, totalSteps: 180, weightDecay: 0.1, gradClip: 1, epochs: 1 });
  expect(t.minLrRatio).toBe(TRAIN_DEFAULTS.minLrRatio);
  expect(trainConfig(policyTrainOverrides(parseConfig({ lr_scheduler_type: "constant" }), 1)).minLrRatio).toBe(1);
  expect(() => policyTrainOverrides(c, 0)).toThrow(/positive integer/);
});
