/**
 * A player: a GptModel with its AdamW state and a frozen reference copy, able to sample
 * constrained sequences, take GRPO updates and next-token-prediction (pretraining) steps, and
 * save/load itself. The same class runs in-thread in Node and inside a Web Worker (workers/).
 *
 * The backend is whatever tf.getBackend() is when the policy is created: pick it first with
 * selectBackend (backend.ts) or src/node/tf-backend.ts.
 */
import * as tf from "@tensorflow/tfjs";
import type { TokenConstraint } from "../decoding.ts";
import { Rng } from "../rng.ts";
import { type ModelConfig, type ModelSize, modelConfig } from "./config.ts";
import { attentionBias, GptModel } from "./model.ts";
import { sampleBatch, type Rollout, type SampleOptions } from "./sampler.ts";
import { type GrpoSample, type HostBatch, buildBatch, grpoRows, scoredPositions } from "./batch.ts";
import { grpoLoss, tokenLogProbs } from "./grpo.ts";
import { AdamW } from "./optimizer.ts";
import { miniBatchRows, type TrainConfig, trainConfig } from "./train-config.ts";
import { decodeCheckpoint, encodeCheckpoint } from "./checkpoint.ts";

/**
 * tfjs env flag (default true): on the wasm backend, training losses run the final LayerNorm, the head
 * and the log-softmax only at the positions they score (completion tokens), not at every position.
 * Bit-identical to the full head there: every reduction over positions that changes (the loss sums,
 * the head's and the final LayerNorm's weight gradients) sums in sequence on wasm (Sum's loop,
 * XNNPACK's k loop), and the dropped positions only added zeros (tests/unit/policy/scored-head.test.ts).
 * Not on cpu (its matMul sums in 48-deep blocks, so dropping rows moves the block edges) nor on
 * webgpu (tree reductions).
 */
export const SCORED_HEAD_FLAG = "A1_SCORED_POSITIONS_HEAD";
/**
 * tfjs env flag (default true), with SCORED_HEAD_FLAG: the last block's attention output projection,
 * MLP and residuals run at the scored positions too (model.ts' `outputRowsFromLastBlock`), in the
 * update, its KL reference pass and pretraining: 48 of the bench's 127 positions. Bit-identical for
 * the same reason: the loss's gradient is exactly zero at every other row of that block's output, so
 * those rows only added zeros to its weight gradients (XNNPACK's in-order k loop, Sum's loop) and
 * passed zeros back to the attention (tests/unit/policy/scored-head.test.ts).
 */
export const SCORED_LAST_BLOCK_FLAG = "A1_SCORED_POSITIONS_LAST_BLOCK";
/** This file's speed switches (the wasm kernels' are backend.ts' WASM_SPEEDUP_FLAGS). */
export const POLICY_SPEEDUP_FLAGS = [SCORED_HEAD_FLAG, SCORED_LAST_BLOCK_FLAG] as const;
for (const flag of POLICY_SPEEDUP_FLAGS) if (!flagRegistered(flag)) tf.env().registerFlag(flag, () => true);

function flagRegistered(flag: string): boolean {
  try {
    tf.env().get(flag);
    return true;
  } catch {
    return false;
  }
}

export interface CreatePolicyOptions {
  /** Named size, or explicit shape fields on top of it (`model`). */
  size?: ModelSize;
  model?: Partial<ModelConfig>;
  vocab: number;
  /** Seed of the initial weights. */
  seed: number | string;
  train?: Partial<TrainConfig>;
  /** Keep a frozen copy of the initial weights for the KL term (default: when klCoef > 0). */
  reference?: boolean;
}

/** Averages over the mini-batches of one update call. */
export interface UpdateMetrics {
  loss: number;
  pgLoss: number;
  clipFraction: number;
  dualClipFraction: number;
  kl: number;
  entropy: number;
  /** Global gradient norm before clipping. */
  gradNorm: number;
  /** Learning rate of the last optimizer step. */
  lr: number;
  /** Optimizer steps taken. */
  steps: number;
  /** Completion tokens scored. */
  tokens: number;
}

export class Policy {
  readonly config: ModelConfig;
  readonly train: TrainConfig;
  private readonly model: GptModel;
  private reference: GptModel | null;
  private readonly optimizer: AdamW;

  private constructor(model: GptModel, train: TrainConfig, reference: GptModel | null) {
    this.config = model.config;
    this.train = train;
    this.model = model;
    this.reference = reference;
    this.optimizer = new AdamW(model.params, train);
  }

  static create(opts: CreatePolicyOptions): Policy {
    const config = modelConfig({ ...(opts.size ? { size: opts.size } : {}), ...opts.model }, opts.vocab);
    const train = trainConfig(opts.train);
    const model = GptModel.init(config, new Rng(opts.seed).fork("policy-init"));
    const wantRef = opts.reference ?? train.klCoef > 0;
    const reference = wantRef ? GptModel.init(config, new Rng(opts.seed).fork("policy-init"), false) : null;
    return new Policy(model, train, reference);
  }

  /** Restore a policy saved with `save()`: weights, optimizer moments and step, reference. */
  static load(buf: ArrayBuffer, trainOverrides?: Partial<TrainConfig>): Policy {
    const d = decodeCheckpoint(buf);
    const train = trainOverrides ? trainConfig({ ...d.train, ...trainOverrides }) : d.train;
    const model = GptModel.fromWeights(d.config, d.weights);
    const reference = d.reference ? GptModel.fromWeights(d.config, d.reference, false) : null;
    const policy = new Policy(model, train, reference);
    policy.optimizer.restore(d.optimizerStep, d.m, d.v);
    return policy;
  }

  get numParams(): number {
    return this.model.numParams;
  }

  get optimizerStep(): number {
    return this.optimizer.step;
  }

  get hasReference(): boolean {
    return this.reference !== null;
  }

  /** Batched constrained sampling (sampler.ts). */
  sample<S>(prompts: readonly (readonly number[])[], constraint: TokenConstraint<S> | readonly TokenConstraint<S>[], opts: SampleOptions): Promise<Rollout> {
    return sampleBatch(this.model, prompts, constraint, opts);
  }

  /** Freeze the current weights as the KL reference (e.g. after pretraining, before RL). */
  async setReference(): Promise<void> {
    const weights = await this.model.weights();
    this.reference?.dispose();
    this.reference = GptModel.fromWeights(this.config, weights, false);
  }

  /**
   * One GRPO update: `epochs` passes over the samples in shuffled mini-batches, each an AdamW step
   * on grpoLoss: max(miniBatches, ceil(N / miniBatchSize)) equal mini-batches per epoch (at most N),
   * so from the second step on the ratio pi / pi_old moves off 1 and the clip can act. One device
   * read per mini-batch (the metrics).
   */
  async update(samples: readonly GrpoSample[], rng: Rng): Promise<UpdateMetrics> {
    const live = samples.filter((s) => s.completion.length > 0);
    if (live.length === 0) throw new RangeError("update needs at least one sample with a non-empty completion");
    const temperature = live[0].temperature;
    if (live.some((s) => s.temperature !== temperature)) throw new RangeError("all samples of one update must share their sampling temperature");
    const cfg = this.train;
    if (cfg.klCoef > 0 && !this.reference) throw new RangeError("klCoef > 0 but this policy has no reference: call setReference() or create it with reference: true");
    const rows = grpoRows(live, this.config.vocab);
    const size = miniBatchRows(rows.length, cfg);
    const sums = new Float64Array(7);
    let steps = 0;
    let tokens = 0;
    let lr = 0;
    for (let epoch = 0; epoch < cfg.epochs; epoch++) {
      const order = rng.shuffle(rows.map((_, i) => i));
      for (let start = 0; start < order.length; start += size) {
        const miniBatch = order.slice(start, start + size).map((i) => rows[i]);
        const miniTokens = miniBatch.reduce((a, r) => a + r.sequence.length - r.completionStart, 0);
        const result = await this.accumulatedStep(miniBatch, (t, refLogp) => {
          const { logp, entropy } = tokenLogProbs(this.logits(this.model, t, true), t.targets, temperature, t.maskBias);
          const out = grpoLoss({ logp, oldLogp: t.oldLogp, refLogp, advantages: t.advantages, mask: t.lossMask, entropy, tokenCount: miniTokens }, cfg);
          const m = out.metrics;
          return [out.loss, m.pgLoss, m.clipFraction, m.dualClipFraction, m.kl, m.entropy];
        }, temperature);
        lr = result.lr;
        result.values.forEach((v, i) => (sums[i] += v));
        steps += 1;
        if (epoch === 0) tokens += miniTokens;
      }
    }
    const [loss, pgLoss, clipFraction, dualClipFraction, kl, entropy, gradNorm] = Array.from(sums, (s) => s / steps);
    return { loss, pgLoss, clipFraction, dualClipFraction, kl, entropy, gradNorm, lr, steps, tokens };
  }

  /**
   * One AdamW step over a mini-batch, in micro-batches of `microBatchSize` rows whose gradients are
   * summed (each micro-batch's loss is already divided by the mini-batch's token count, so the sum is
   * the mini-batch's token-mean gradient). `lossOf` returns [loss, ...metrics] as scalars on that
   * same scale; the reply is their sums plus the gradient norm, read in one device transfer.
   * `temperature` set means: compute the reference log-probs for the KL (when klCoef > 0).
   */
  private async accumulatedStep(
    rows: Parameters<typeof buildBatch>[0],
    lossOf: (t: ReturnType<Policy["tensors"]>, refLogp: tf.Tensor2D | null) => tf.Scalar[],
    temperature?: number,
  ): Promise<{ values: Float32Array; lr: number }> {
    const vars = [...this.model.params.values()];
    let acc: tf.NamedTensorMap | null = null;
    let metricSums: tf.Scalar[] | null = null;
    for (let m = 0; m < rows.length; m += this.train.microBatchSize) {
      const t = this.tensors(buildBatch(rows.slice(m, m + this.train.microBatchSize), this.config.vocab, this.config.context));
      try {
        const refLogp = temperature !== undefined && this.train.klCoef > 0 && this.reference
          ? tf.tidy(() => tokenLogProbs(this.logits(this.reference!, t), t.targets, temperature, t.maskBias).logp)
          : null;
        let kept: tf.Scalar[] = [];
        const { value, grads } = tf.variableGrads(() => {
          const out = lossOf(t, refLogp);
          kept = out.map((x) => tf.keep(x.clone()));
          return out[0];
        }, vars);
        refLogp?.dispose();
        value.dispose();
        const prevAcc: tf.NamedTensorMap | null = acc;
        const prevSums: tf.Scalar[] | null = metricSums;
        acc = prevAcc ? tf.tidy(() => Object.fromEntries(Object.entries(grads).map(([k, g]) => [k, tf.add(prevAcc[k], g)]))) : grads;
        metricSums = prevSums ? tf.tidy(() => kept.map((x, i) => tf.add(prevSums[i], x) as tf.Scalar)) : kept;
        if (prevAcc) tf.dispose([...Object.values(prevAcc), ...Object.values(grads)]);
        if (prevSums) tf.dispose([...prevSums, ...kept]);
      } finally {
        for (const x of Object.values(t)) (x as tf.Tensor | null)?.dispose();
      }
    }
    const { gradNorm, lr } = this.optimizer.apply(this.namedGrads(acc!));
    const stacked = tf.tidy(() => tf.stack([...metricSums!, gradNorm]));
    const values = (await stacked.data()) as Float32Array;
    tf.dispose([stacked, gradNorm, ...metricSums!, ...Object.values(acc!)]);
    return { values, lr };
  }

  /**
   * One next-token-prediction (cross-entropy) step on whole sequences, for base-model pretraining:
   * the loss is the token-mean over positions from `completionStart` on (default 1: every token
   * after the first). No grammar mask, temperature 1. Micro-batched like the GRPO update.
   */
  async pretrainStep(sequences: readonly (readonly number[])[], completionStart?: readonly number[]): Promise<{ loss: number; gradNorm: number; lr: number }> {
    const rows = sequences.map((s, i) => ({ sequence: s, completionStart: Math.max(1, completionStart?.[i] ?? 1) }));
    const total = Math.max(1, rows.reduce((a, r) => a + Math.max(0, r.sequence.length - r.completionStart), 0));
    const { values, lr } = await this.accumulatedStep(rows, (t) => {
      const { logp } = tokenLogProbs(this.logits(this.model, t, true), t.targets, 1, null);
      return [tf.div(tf.neg(tf.sum(tf.mul(logp, t.lossMask))), total) as tf.Scalar];
    });
    return { loss: values[0], gradNorm: values[1], lr };
  }

  /**
   * log pi of every completion token of each sample under the CURRENT weights and the sample's
   * own temperature and allowed sets (the quantity the update's ratio uses). For tests and evaluation.
   */
  async completionLogProbs(samples: readonly GrpoSample[]): Promise<Float32Array[]> {
    const rows = grpoRows(samples, this.config.vocab);
    const out: Float32Array[] = [];
    for (let i = 0; i < rows.length; i++) {
      const batch = buildBatch([rows[i]], this.config.vocab, this.config.context);
      const t = this.tensors(batch, false);
      const logpT = tf.tidy(() => tokenLogProbs(this.logits(this.model, t), t.targets, samples[i].temperature, t.maskBias).logp);
      const logp = await logpT.data();
      logpT.dispose();
      for (const x of Object.values(t)) (x as tf.Tensor | null)?.dispose();
      const start = samples[i].prompt.length - 1;
      out.push(Float32Array.from(logp.subarray(start, start + samples[i].completion.length)));
    }
    return out;
  }

  /** Weights, optimizer state and reference as one ArrayBuffer (checkpoint.ts). */
  async save(): Promise<ArrayBuffer> {
    const { m, v } = await this.optimizer.moments();
    return encodeCheckpoint({
      config: this.config,
      train: this.train,
      optimizerStep: this.optimizer.step,
      weights: await this.model.weights(),
      m,
      v,
      reference: this.reference ? await this.reference.weights() : null,
    });
  }

  dispose(): void {
    this.model.dispose();
    this.reference?.dispose();
    this.optimizer.dispose();
  }

  /**
   * The batch as tensors. With `scoredOnly` (where SCORED_HEAD_FLAG applies) the per-position inputs
   * of the loss hold only the scored positions, as (1, M), and `outputRows` names them.
   */
  private tensors(b: HostBatch, scoredOnly = tf.getBackend() === "wasm" && tf.env().getBool(SCORED_HEAD_FLAG)) {
    const V = this.config.vocab;
    const common = {
      tokens: tf.tensor2d(b.tokens, [b.N, b.T], "int32"),
      positions: tf.tensor2d(b.positions, [b.N, b.T], "int32"),
      attnBias: attentionBias([0], b.T, b.T), // causal only (right padding), broadcast over rows
    };
    const s = scoredOnly ? scoredPositions(b, V) : null;
    if (s && s.M > 0) {
      return {
        ...common,
        outputRows: tf.tensor1d(s.rows, "int32") as tf.Tensor1D | null,
        targets: tf.tensor2d(s.targets, [1, s.M], "int32"),
        lossMask: tf.ones([1, s.M]) as tf.Tensor2D,
        oldLogp: tf.tensor2d(s.oldLogp, [1, s.M]),
        advantages: tf.tensor2d(s.advantages, [1, s.M]) as tf.Tensor1D | tf.Tensor2D,
        maskBias: s.maskBias ? tf.tensor3d(s.maskBias, [1, s.M, V]) : null,
      };
    }
    return {
      ...common,
      outputRows: null,
      targets: tf.tensor2d(b.targets, [b.N, b.T], "int32"),
      lossMask: tf.tensor2d(b.lossMask, [b.N, b.T]),
      oldLogp: tf.tensor2d(b.oldLogp, [b.N, b.T]),
      advantages: tf.tensor1d(b.advantages),
      maskBias: b.maskBias ? tf.tensor3d(b.maskBias, [b.N, b.T, V]) : null,
    };
  }

  private logits(model: GptModel, t: ReturnType<Policy["tensors"]>, training = false): tf.Tensor3D {
    const outputRows = t.outputRows ?? undefined;
    const outputRowsFromLastBlock = outputRows !== undefined && tf.env().getBool(SCORED_LAST_BLOCK_FLAG);
    return model.forward({ tokens: t.tokens, positions: t.positions, attnBias: t.attnBias, training, outputRows, outputRowsFromLastBlock }).logits;
  }

  private namedGrads(grads: tf.NamedTensorMap): tf.NamedTensorMap {
    // variableGrads keys gradients by variable name; the optimizer keys by parameter name.
    const out: tf.NamedTensorMap = {};
    for (const [name, p] of this.model.params) out[name] = grads[p.name];
    return out;
  }
}
