/**
 * AdamW (Loshchilov & Hutter 2019) with linear warm-up then cosine decay, and global grad-norm
 * clipping, written out on tf tensors so its moments can be saved and restored exactly.
 * Everything stays on the device: the clip factor is computed there, no read per step.
 */
import * as tf from "@tensorflow/tfjs";

export interface OptimizerConfig {
  /** Peak learning rate, reached after warm-up. */
  lr: number;
  /** Linear warm-up length in optimizer steps (paper: 10). */
  warmupSteps: number;
  /** Steps of the cosine schedule; the rate stays at its floor afterwards. */
  totalSteps: number;
  /** Floor of the cosine as a fraction of lr. */
  minLrRatio: number;
  /** Decoupled weight decay on matrices (not on biases or LayerNorm gains); paper 0.1. */
  weightDecay: number;
  /** Global L2 gradient-norm limit; paper 1.0; 0 disables clipping. */
  gradClip: number;
  beta1: number;
  beta2: number;
  eps: number;
}

/**
 * Learning rate for optimizer step `step` (0-based):
 *   warm-up: lr (step + 1) / warmupSteps;  then lr (m + (1 - m) 0.5 (1 + cos(pi p))),
 *   p = (step - warmupSteps) / (totalSteps - warmupSteps) clamped to [0, 1], m = minLrRatio.
 */
export function learningRate(step: number, cfg: OptimizerConfig): number {
  if (step < cfg.warmupSteps) return (cfg.lr * (step + 1)) / cfg.warmupSteps;
  const span = Math.max(1, cfg.totalSteps - cfg.warmupSteps);
  const p = Math.min(1, (step - cfg.warmupSteps) / span);
  return cfg.lr * (cfg.minLrRatio + (1 - cfg.minLrRatio) * 0.5 * (1 + Math.cos(Math.PI * p)));
}

export class AdamW {
  /** Optimizer steps taken so far (drives bias correction and the schedule). */
  step = 0;
  private readonly m: Map<string, tf.Variable>;
  private readonly v: Map<string, tf.Variable>;

  constructor(
    private readonly params: Map<string, tf.Variable>,
    public config: OptimizerConfig,
  ) {
    const zeros = (p: tf.Variable) => tf.tidy(() => tf.variable(tf.zerosLike(p), false));
    this.m = new Map([...params].map(([k, p]) => [k, zeros(p)]));
    this.v = new Map([...params].map(([k, p]) => [k, zeros(p)]));
  }

  /**
   * One update from gradients by parameter name. Returns the pre-clip global gradient norm
   * (a scalar the caller reads and disposes) and the learning rate used.
   */
  apply(grads: tf.NamedTensorMap): { gradNorm: tf.Scalar; lr: number } {
    const cfg = this.config;
    const lr = learningRate(this.step, cfg);
    this.step += 1;
    const t = this.step;
    const gradNorm = tf.tidy(() => {
      const sq = [...this.params.keys()].map((k) => tf.sum(tf.square(grads[k])));
      // Pairwise adds, not tf.addN: webgpu's AddN binds one storage buffer per input and fails
      // (invalid pipeline, silently dropping the step) past the adapter's limit, e.g. 8 on SwiftShader.
      const norm = tf.sqrt(sq.reduce((a, b) => tf.add(a, b))) as tf.Scalar;
      const scale = cfg.gradClip > 0 ? tf.minimum(1, tf.div(cfg.gradClip, tf.add(norm, 1e-6))) : tf.scalar(1);
      const c1 = 1 - cfg.beta1 ** t;
      const c2 = 1 - cfg.beta2 ** t;
      for (const [k, p] of this.params) {
        const g = tf.mul(grads[k], scale);
        const m = this.m.get(k)!;
        const v = this.v.get(k)!;
        m.assign(tf.add(tf.mul(m, cfg.beta1), tf.mul(g, 1 - cfg.beta1)));
        v.assign(tf.add(tf.mul(v, cfg.beta2), tf.mul(tf.square(g), 1 - cfg.beta2)));
        let update = tf.div(tf.div(m, c1), tf.add(tf.sqrt(tf.div(v, c2)), cfg.eps));
        if (cfg.weightDecay > 0 && p.rank >= 2) update = tf.add(update, tf.mul(p, cfg.weightDecay));
        p.assign(tf.sub(p, tf.mul(update, lr)));
      }
      return tf.keep(norm);
    });
    return { gradNorm, lr };
  }

  /** First and second moments in parameter order, for checkpoints. */
  async moments(): Promise<{ m: Float32Array[]; v: Float32Array[] }> {
    const read = (map: Map<string, tf.Variable>) =>
      Promise.all([...this.params.keys()].map(async (k) => new Float32Array(await map.get(k)!.data())));
    return { m: await read(this.m), v: await read(this.v) };
  }

  restore(step: number, m: Float32Array[], v: Float32Array[]): void {
    const keys = [...this.params.keys()];
    if (m.length !== keys.length || v.length !== keys.length) throw new Error(`optimizer state has ${m.length} moments, expected ${keys.length}`);
    this.step = step;
    tf.tidy(() =>
      keys.forEach((k, i) => {
        const shape = this.params.get(k)!.shape;
        this.m.get(k)!.assign(tf.tensor(m[i], shape, "float32"));
        this.v.get(k)!.assign(tf.tensor(v[i], shape, "float32"));
      }),
    );
  }

  dispose(): void {
    for (const x of [...this.m.values(), ...this.v.values()]) x.dispose();
  }
}
