/**
 * Mean's and Sum's gradients without a new `ones(x.shape)` per call. tfjs 4.22 computes them as
 *   Sum:  dx = reshape(dy) * ones(x.shape)
 *   Mean: dx = (reshape(dy) * ones(x.shape)) / n       (n the number of elements reduced)
 * and `ones` fills a new array in JavaScript on every call (about 2 ms for 2032 x 64 on wasm, where
 * the Multiply takes 0.06 ms), twice in each of a micro-batch's five LayerNorms: without it a tiny GRPO
 * update in Node takes about 6 % less time (docs/BENCHMARKS.md, third round). Here the ones tensor is kept per backend and shape and
 * reused, and Mean divides the n-times smaller reshape(dy) before the multiply:
 *   Sum:  dx = reshape(dy) * ONES(x.shape)
 *   Mean: dx = (reshape(dy) / n) * ONES(x.shape)
 * Since y * 1 = y exactly in float32, every element has the same bits as tfjs's (dy * 1) / n.
 * (broadcastTo instead of the multiply would be exact too, but tfjs-wasm's Tile takes 5 ms there.)
 * tests/unit/policy/kernels/reduction-grads.test.ts compares both forms bit for bit, and an update's
 * checkpoint byte for byte.
 *
 * Registered over tfjs's gradients for every backend when this module loads; while REDUCTION_GRADS_FLAG
 * is off (the benchmark's "before"), tfjs's own run.
 */
import * as tf from "@tensorflow/tfjs";
import { registerFlagOnce } from "./wasm-kernels.ts";

/** tfjs env flag: false runs tfjs's own Mean and Sum gradients. */
export const REDUCTION_GRADS_FLAG = "A1_LEAN_REDUCTION_GRADS";
registerFlagOnce(REDUCTION_GRADS_FLAG);

type GradFunc = (dy: tf.Tensor, saved: tf.Tensor[], attrs: tf.NamedAttrMap) => Record<string, () => tf.Tensor>;

/** At most this many kept ones tensors (a model's few shapes); past it the cache starts again. */
const MAX_KEPT = 16;
const kept = new Map<string, tf.Tensor>();

/** A float32 ones tensor of `shape` on the current backend, kept and reused (never dispose it). */
function keptOnes(shape: number[]): tf.Tensor {
  const key = `${tf.getBackend()}:${shape.join(",")}`;
  let t = kept.get(key);
  if (!t || t.isDisposed) {
    if (kept.size >= MAX_KEPT) {
      for (const x of kept.values()) x.dispose();
      kept.clear();
    }
    t = tf.keep(tf.ones(shape, "float32"));
    kept.set(key, t);
  }
  return t;
}

function override(kernelName: "Mean" | "Sum"): void {
  const original = tf.getGradient(kernelName);
  if (!original || (original as { lean?: boolean }).lean) return; // tfjs without it, or already ours (module reloads)
  const tfjsGrad = original.gradFunc as unknown as GradFunc;
  const gradFunc: GradFunc = (dy, saved, attrs) => {
    const [x] = saved;
    if (!tf.env().getBool(REDUCTION_GRADS_FLAG) || dy.dtype !== "float32") return tfjsGrad(dy, saved, attrs);
    const axes = tf.util.parseAxisParam(attrs.axis as number | number[], x.shape);
    const expanded = x.shape.map((d, i) => (axes.includes(i) ? 1 : d));
    const n = axes.reduce((p, a) => p * x.shape[a], 1);
    return {
      x: () => {
        const d = tf.reshape(dy, expanded);
        return tf.mul(kernelName === "Mean" ? tf.div(d, n) : d, keptOnes(x.shape));
      },
    };
  };
  tf.registerGradient({ ...original, gradFunc: gradFunc as unknown as tf.GradFunc, lean: true } as tf.GradConfig);
}

override("Mean");
override("Sum");
