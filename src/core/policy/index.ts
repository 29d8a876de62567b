/** The policies' public API: one import for the Code-A1 loop, the worker and scripts. */
export { MODEL_SIZES, countParams, modelConfig, PolicyConfigError, type ModelConfig, type ModelSize } from "./config.ts";
export { GptModel } from "./model.ts";
export { sampleBatch, maskBytes, SamplingError, type Rollout, type SampleOptions } from "./sampler.ts";
export { rolloutSamples, type GrpoSample } from "./batch.ts";
export { groupAdvantages, grpoLoss, tokenLogProbs, type GrpoLossConfig, type GrpoLossInput, type GrpoLossOutput } from "./grpo.ts";
export { AdamW, learningRate, type OptimizerConfig } from "./optimizer.ts";
export { TRAIN_DEFAULTS, trainConfig, type TrainConfig } from "./train-config.ts";
export { CHECKPOINT_FORMAT_VERSION, CheckpointError, decodeCheckpoint, encodeCheckpoint } from "./checkpoint.ts";
export { Policy, type CreatePolicyOptions, type UpdateMetrics } from "./policy.ts";
export { selectBackend, webgpuUnavailable, NoBackendError, type BackendChoice, type BackendName } from "./backend.ts";
export { ToyConstraint, TOY_BOS, TOY_EOS, TOY_PAD } from "./toy-constraint.ts";
