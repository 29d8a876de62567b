/**
 * Training batches: prompt + completion sequences laid out for one teacher-forced forward pass.
 *
 * Rows are RIGHT-padded (positions 0..T-1 for everyone, causal attention only): padding sits after
 * every real token, so causal attention never lets a real query see it and no key mask is needed.
 * Position t predicts token t+1, so a completion token j of a row with prompt length P is predicted
 * at position P - 1 + j; that is where its loss-mask bit, old log-prob and allowed set go.
 */
import type { Rollout } from "./sampler.ts";
import { maskBytes } from "./sampler.ts";

/** One generated sequence ready for the GRPO update. */
export interface GrpoSample {
  prompt: number[];
  completion: number[];
  /** log pi_old per completion token, from the sampler. */
  logProbs: Float32Array;
  /** Packed allowed sets per completion token, from the sampler (see Rollout.masks). */
  masks: Uint8Array;
  /** Sequence advantage, e.g. from groupAdvantages. */
  advantage: number;
  /** Temperature it was sampled at; the update uses the same. */
  temperature: number;
}

/** The update's samples from a rollout and one advantage per row; `rows` picks a subset (e.g. TopVar). */
export function rolloutSamples(rollout: Rollout, advantages: readonly number[], rows?: readonly number[]): GrpoSample[] {
  if (advantages.length !== rollout.completions.length) {
    throw new RangeError(`got ${advantages.length} advantages for ${rollout.completions.length} rollout rows`);
  }
  const picked = rows ?? rollout.completions.map((_, i) => i);
  return picked.map((i) => ({
    prompt: rollout.prompts[i],
    completion: rollout.completions[i],
    logProbs: rollout.logProbs[i],
    masks: rollout.masks[i],
    advantage: advantages[i],
    temperature: rollout.temperature,
  }));
}

/** Host-side arrays of a batch; the policy turns them into tensors. */
export interface HostBatch {
  N: number;
  T: number;
  tokens: Int32Array; // (N, T) inputs
  targets: Int32Array; // (N, T) next tokens
  positions: Int32Array; // (N, T) 0..T-1 per row
  lossMask: Float32Array; // (N, T) 1 on completion predictions
  oldLogp: Float32Array; // (N, T)
  advantages: Float32Array; // (N)
  /** (N, T, V) 0 where allowed, -1e9 where excluded; null when no row carries masks. */
  maskBias: Float32Array | null;
}

/**
 * Lay out sequences. `completionStart[b]` is where the scored part of row b begins (its prompt
 * length); rows of GRPO samples also carry old log-probs and allowed sets.
 */
export function buildBatch(
  rows: { sequence: readonly number[]; completionStart: number; logProbs?: Float32Array; masks?: Uint8Array; advantage?: number }[],
  vocab: number,
  context: number,
): HostBatch {
  const N = rows.length;
  if (N === 0) throw new RangeError("a training batch needs at least one sequence");
  const T = Math.max(...rows.map((r) => r.sequence.length)) - 1;
  if (T < 1) throw new RangeError("every training sequence is shorter than 2 tokens: nothing to predict");
  if (T > context) throw new RangeError(`a sequence of ${T + 1} tokens exceeds the model context ${context} + 1`);
  const W = maskBytes(vocab);
  const withMasks = rows.some((r) => r.masks);
  const b: HostBatch = {
    N,
    T,
    tokens: new Int32Array(N * T),
    targets: new Int32Array(N * T),
    positions: new Int32Array(N * T),
    lossMask: new Float32Array(N * T),
    oldLogp: new Float32Array(N * T),
    advantages: new Float32Array(N),
    maskBias: withMasks ? new Float32Array(N * T * vocab) : null,
  };
  rows.forEach((r, n) => {
    const seq = r.sequence;
    for (const t of seq) if (!Number.isInteger(t) || t < 0 || t >= vocab) throw new RangeError(`sequence ${n} has token ${t} outside [0, ${vocab})`);
    b.advantages[n] = r.advantage ?? 0;
    for (let t = 0; t < T; t++) {
      b.positions[n * T + t] = t;
      if (t + 1 >= seq.length) continue;
      b.tokens[n * T + t] = seq[t];
      b.targets[n * T + t] = seq[t + 1];
      const j = t + 1 - r.completionStart; // index of the predicted token within the completion
      if (j < 0) continue;
      b.lossMask[n * T + t] = 1;
      if (r.logProbs) b.oldLogp[n * T + t] = r.logProbs[j];
      if (r.masks && b.maskBias) {
        const bias = b.maskBias.subarray((n * T + t) * vocab, (n * T + t + 1) * vocab);
        for (let v = 0; v < vocab; v++) if (!(r.masks[j * W + (v >> 3)] & (1 << (v & 7)))) bias[v] = -1e9;
      }
    }
  });
  return b;
}

/** buildBatch rows for GRPO samples (validated against their stored log-probs and masks). */
export function grpoRows(samples: readonly GrpoSample[], vocab: number) {
  const W = maskBytes(vocab);
  return samples.map((s, i) => {
    if (s.prompt.length === 0) throw new RangeError(`sample ${i} has an empty prompt`);
    if (s.logProbs.length !== s.completion.length) {
      throw new RangeError(`sample ${i}: ${s.logProbs.length} log-probs for ${s.completion.length} completion tokens`);
    }
    if (s.masks.length !== s.completion.length * W) {
      throw new RangeError(`sample ${i}: masks hold ${s.masks.length} bytes, expected ${s.completion.length * W} (vocab ${vocab})`);
    }
    if (!Number.isFinite(s.advantage)) throw new RangeError(`sample ${i}: advantage ${s.advantage} is not finite`);
    return { sequence: [...s.prompt, ...s.completion], completionStart: s.prompt.length, logProbs: s.logProbs, masks: s.masks, advantage: s.advantage };
  });
}

/** A batch's scored positions only: what the loss reads where the head runs at those positions alone. */
export interface ScoredPositions {
  M: number;
  /** (M) flat indices n * T + t of the positions whose loss-mask bit is set, in increasing order. */
  rows: Int32Array;
  targets: Int32Array; // (M)
  oldLogp: Float32Array; // (M)
  /** (M) each position's sequence advantage. */
  advantages: Float32Array;
  /** (M, V) the allowed sets as in HostBatch.maskBias; null when it has none. */
  maskBias: Float32Array | null;
}

/** The positions of `b` with a loss-mask bit, and their targets, old log-probs, advantages and allowed sets. */
export function scoredPositions(b: HostBatch, vocab: number): ScoredPositions {
  const rows: number[] = [];
  for (let i = 0; i < b.N * b.T; i++) if (b.lossMask[i] !== 0) rows.push(i);
  const M = rows.length;
  const out: ScoredPositions = {
    M,
    rows: Int32Array.from(rows),
    targets: new Int32Array(M),
    oldLogp: new Float32Array(M),
    advantages: new Float32Array(M),
    maskBias: b.maskBias ? new Float32Array(M * vocab) : null,
  };
  rows.forEach((i, m) => {
    out.targets[m] = b.targets[i];
    out.oldLogp[m] = b.oldLogp[i];
    out.advantages[m] = b.advantages[Math.floor(i / b.T)];
    out.maskBias?.set(b.maskBias!.subarray(i * vocab, (i + 1) * vocab), m * vocab);
  });
  return out;
}
