/**
 * The GRPO objective (Code-A1 spec, "Optimisation"): group-relative advantages and a PPO-style
 * clipped, dual-clipped, token-mean loss with a k3 KL penalty to a frozen reference policy.
 * Rollout and scoring live elsewhere; this file is the math only.
 */
import * as tf from "@tensorflow/tfjs";

/**
 * Group-relative advantages A_i = (r_i - mean(group)) / (std(group) + 1e-6), groups being
 * consecutive runs of `groupSize` rewards (8 codes of a task, or 8 suites of a code).
 * std is the sample standard deviation (n - 1 in the denominator), as torch.std in verl and TRL.
 * A group of one has no baseline and gets advantage 0.
 *
 * Example: groupAdvantages([1, 0, 0, 1], 2) = [0.7071, -0.7071, -0.7071, 0.7071] (std = 0.7071).
 */
export function groupAdvantages(rewards: readonly number[], groupSize: number): number[] {
  if (!Number.isInteger(groupSize) || groupSize < 1) throw new RangeError(`groupSize must be a positive integer, got ${groupSize}`);
  if (rewards.length % groupSize !== 0) {
    throw new RangeError(`${rewards.length} rewards do not split into groups of ${groupSize}`);
  }
  const out = new Array<number>(rewards.length);
  for (let g = 0; g < rewards.length; g += groupSize) {
    const group = rewards.slice(g, g + groupSize);
    for (const r of group) if (!Number.isFinite(r)) throw new RangeError(`reward ${r} is not a finite number`);
    if (groupSize === 1) {
      out[g] = 0;
      continue;
    }
    const mean = group.reduce((a, b) => a + b, 0) / groupSize;
    const std = Math.sqrt(group.reduce((a, r) => a + (r - mean) ** 2, 0) / (groupSize - 1));
    group.forEach((r, i) => (out[g + i] = (r - mean) / (std + 1e-6)));
  }
  return out;
}

/** Loss hyperparameters; defaults are the paper's (see train-config.ts for the documented block). */
export interface GrpoLossConfig {
  /** Lower clip: ratio floor 1 - clipLow for positive advantages. Paper 0.2. */
  clipLow: number;
  /** Upper clip: ratio ceiling 1 + clipHigh (DAPO's clip-higher). Paper 0.28. */
  clipHigh: number;
  /** Dual clip c: the loss of a negative-advantage token is at most -A * c (Ye et al. 2020). Paper 10. */
  dualClip: number;
  /** beta, weight of the k3 KL to the reference policy. Paper 0.001; 0 disables it. */
  klCoef: number;
}

export interface GrpoLossInput {
  /** (N, T) log pi_theta of each taken token, under the sampling distribution (sampler.ts). */
  logp: tf.Tensor2D;
  /** (N, T) log pi_old of the same tokens, returned by the sampler. */
  oldLogp: tf.Tensor2D;
  /** (N, T) log pi_ref of the same tokens, or null when klCoef = 0. */
  refLogp: tf.Tensor2D | null;
  /** (N) one advantage per sequence, broadcast over its tokens; or (N, T), one per token. */
  advantages: tf.Tensor1D | tf.Tensor2D;
  /** (N, T) 1 for generated tokens that count, 0 for prompt and padding. */
  mask: tf.Tensor2D;
  /** (N, T) entropy of pi_theta at each position, for the metric only (optional). */
  entropy?: tf.Tensor2D;
  /**
   * Denominator of the token mean; default sum(mask). A micro-batch of a larger mini-batch passes
   * the mini-batch's token count, so that summing micro-batch gradients gives the mini-batch's.
   */
  tokenCount?: number;
}

export interface GrpoLossOutput {
  loss: tf.Scalar;
  metrics: {
    /** Share of tokens where the clipped term was the active one (verl's pg_clipfrac). */
    clipFraction: tf.Scalar;
    /** Share of negative-advantage tokens held by the dual clip. */
    dualClipFraction: tf.Scalar;
    /** Token-mean k3 KL to the reference (0 without one). */
    kl: tf.Scalar;
    /** Token-mean entropy (0 when not given). */
    entropy: tf.Scalar;
    /** Token-mean policy-gradient term alone. */
    pgLoss: tf.Scalar;
  };
}

/**
 * Per token, with r = exp(logp - oldLogp), A the sequence advantage (verl's compute_policy_loss):
 *   l1 = -A r,  l2 = -A clip(r, 1 - clipLow, 1 + clipHigh),  lc = max(l1, l2)
 *   pg = A < 0 ? min(lc, -A c) : lc
 *   k3 = exp(ref - logp) - (ref - logp) - 1           ("low_var_kl", clamped to [-10, 10] as in verl)
 *   loss = sum(mask (pg + beta k3)) / sum(mask)       (token-mean over the whole mini-batch)
 * Pure: no variables touched, so it can sit inside tf.variableGrads.
 */
export function grpoLoss(input: GrpoLossInput, cfg: GrpoLossConfig): GrpoLossOutput {
  const { logp, oldLogp, refLogp, mask } = input;
  const tokens = input.tokenCount !== undefined ? tf.scalar(Math.max(1, input.tokenCount)) : tf.maximum(tf.sum(mask), 1);
  const tokenMean = (x: tf.Tensor) => tf.div(tf.sum(tf.mul(x, mask)), tokens) as tf.Scalar;
  const adv = input.advantages.rank === 1 ? tf.expandDims(input.advantages, 1) : input.advantages; // (N, 1) or (N, T)
  const ratio = tf.exp(tf.sub(logp, oldLogp));
  const l1 = tf.neg(tf.mul(adv, ratio));
  const l2 = tf.neg(tf.mul(adv, tf.clipByValue(ratio, 1 - cfg.clipLow, 1 + cfg.clipHigh)));
  const lc = tf.maximum(l1, l2);
  const l3 = tf.mul(tf.neg(adv), cfg.dualClip);
  const negative = tf.less(tf.broadcastTo(adv, logp.shape), 0);
  const pg = tf.where(negative, tf.minimum(lc, l3), lc);
  let kl: tf.Tensor = tf.zerosLike(logp);
  if (refLogp && cfg.klCoef !== 0) {
    const d = tf.sub(refLogp, logp);
    kl = tf.clipByValue(tf.sub(tf.sub(tf.exp(d), d), 1), -10, 10);
  }
  const pgLoss = tokenMean(pg);
  const klMean = tokenMean(kl);
  const loss = tf.add(pgLoss, tf.mul(klMean, cfg.klCoef)) as tf.Scalar;
  const clipped = tf.cast(tf.greater(l2, l1), "float32");
  const dual = tf.cast(tf.logicalAnd(negative, tf.greater(lc, l3)), "float32");
  return {
    loss,
    metrics: {
      clipFraction: tokenMean(clipped),
      dualClipFraction: tokenMean(dual),
      kl: klMean,
      entropy: input.entropy ? tokenMean(input.entropy) : tf.scalar(0),
      pgLoss,
    },
  };
}

/**
 * log pi of each target under softmax(logits / temperature + maskBias), and the entropy of that
 * distribution. Targets enter as oneHot x sum (no gather), for deterministic gradients on webgpu.
 * logits (N, T, V), targets (N, T) int32, maskBias (N, T, V) with 0 = allowed, -1e9 = excluded, or null.
 */
export function tokenLogProbs(
  logits: tf.Tensor3D,
  targets: tf.Tensor2D,
  temperature: number,
  maskBias: tf.Tensor3D | null,
): { logp: tf.Tensor2D; entropy: tf.Tensor2D } {
  let z: tf.Tensor3D = temperature === 1 ? logits : tf.div(logits, temperature);
  if (maskBias) z = tf.add(z, maskBias);
  const logSm = tf.logSoftmax(z, -1);
  const logp = tf.sum(tf.mul(logSm, tf.oneHot(targets, logits.shape[2])), -1) as tf.Tensor2D;
  const entropy = tf.neg(tf.sum(tf.mul(tf.exp(logSm), logSm), -1)) as tf.Tensor2D;
  return { logp, entropy };
}
