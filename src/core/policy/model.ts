/**
 * A GPT-style decoder on TensorFlow.js (after nanoGPT): token + learned position embeddings,
 * pre-LayerNorm blocks of causal multi-head attention and a GELU MLP, a final LayerNorm and a tied
 * or untied output head.
 *
 * Shapes: B batch, T query positions, S key positions (cached + new), C dModel, H heads,
 * D = C / H head width, V vocabulary, P position table length (context).
 *
 * Determinism: embeddings are oneHot x matMul, never gather, because gather's gradient is an
 * unsorted segment sum that uses atomics on webgpu (accumulation order varies run to run). Every
 * kernel used here (matMul, softmax, elementwise, sum/mean reductions) reduces in a fixed order on
 * cpu, wasm and webgpu, so the same seed and backend give the same weights.
 */
import * as tf from "@tensorflow/tfjs";
import { Rng } from "../rng.ts";
import { countParams, parameterShapes, type ModelConfig, validateModelConfig } from "./config.ts";

export { parameterShapes };
import { decodeAttentionAvailable, decodeScores, decodeScoresInPlace, decodeValues, type InPlaceCache } from "./kernels/wasm-decode-attention.ts";
import { embeddingKernelAvailable, embedRows } from "./kernels/wasm-embedding.ts";
import { fusedGeluInner, fusedLayerNorm, fusedOpsAvailable } from "./kernels/wasm-fused.ts";
import { triangularMatMul } from "./kernels/wasm-matmul.ts";
import { prefillAttention, prefillAttentionAvailable } from "./kernels/wasm-prefill-attention.ts";
import "./kernels/reduction-grads.ts"; // Mean and Sum gradients without tfjs's ones() (same bits)

/** Keys and values of one block for the positions seen so far: each (B, H, S, D). */
export interface LayerCache {
  k: tf.Tensor4D;
  v: tf.Tensor4D;
}

export interface ForwardInput {
  /** (B, T) int32 token ids. */
  tokens: tf.Tensor2D;
  /** (B, T) int32 positions into the learned table (per row, so left-padded rows start at 0). */
  positions: tf.Tensor2D;
  /** (B, 1, T, S) additive attention bias: 0 where a query may attend a key, -1e9 elsewhere. */
  attnBias: tf.Tensor4D;
  /**
   * Keys/values of earlier positions (S - T of them in all), per block as a list of segments in
   * position order. Segments let a sampler keep the prompt's cache fixed and grow only the
   * generated part, instead of copying the whole cache every step.
   */
  past?: LayerCache[][];
  /**
   * Append this call's keys/values to the last `past` segment (when there are two or more) instead
   * of attending them as a segment of their own: fewer kernels per decoding step, and `present`
   * is then the grown segment, ready to be the next step's last segment.
   */
  growLast?: boolean;
  /**
   * A decoding step (T = 1) on wasm over caches kept in place (wasm-decode-attention.ts), one per
   * block, instead of `past`: this step's keys and values are written at generated position `pos`,
   * and `present` is empty. Only where inPlaceCacheAvailable(D).
   */
  inPlace?: { caches: InPlaceCache[]; pos: number };
  /**
   * Only compute logits for the last position (prefill for sampling). On wasm, without a cache and
   * outside a gradient, the last block then also runs its attention output, MLP and residuals for
   * the last position alone (its keys and values still cover every position): same bits, since every
   * op there works row by row and the products keep their order per element (the SIMD BatchMatMul's
   * order, tfjs's, does not depend on the number of rows).
   */
  lastOnly?: boolean;
  /**
   * Each row's left padding (the `pad` given to attentionBias), for a call without a cache and outside
   * a gradient (a prefill): the work done position by position (embeddings, LayerNorms, linears,
   * GELU, residuals) then runs on the real positions alone, and attention sees zero keys and values at
   * the padded ones (which attnBias masks out). The real positions' outputs keep their bits: every
   * such op works row by row, and a masked key's probability is exactly 0 whatever its value.
   * Ignored with a cache, with `outputRows` or under a gradient.
   */
  leftPad?: readonly number[];
  /**
   * (M) int32 row indices into the flattened (B*T) positions, in increasing order: the final
   * LayerNorm, head and logits only at these positions (a training loss that counts only completion
   * positions); logits are then (1, M, V). The gradient returns to exactly these rows (zeros elsewhere).
   */
  outputRows?: tf.Tensor1D;
  /**
   * With `outputRows`: the last block already runs its attention's output projection, its MLP and both
   * residuals at those rows alone (its attention still sees every position's key and value). Same
   * logits and, on wasm, the same gradients bit for bit: those ops work row by row, and the rows left
   * out only added exact zeros to the weight gradients' in-order sums over rows (XNNPACK's k loop,
   * Sum's loop; see policy.ts' SCORED_LAST_BLOCK_FLAG).
   */
  outputRowsFromLastBlock?: boolean;
  /**
   * Under a gradient (tf.variableGrads): embeddings as oneHot x matMul and linears with the
   * wasm-friendly gradient. Otherwise gather and fused matMul + bias, fewer kernels per decoding
   * step, same values (a oneHot row times a matrix is that matrix row exactly). Without a cache,
   * training attention is causal (causalScores): attnBias must let every query see its own key, as
   * the right-padded batches of policy.ts do; a row whose keys are all masked (left padding) would
   * get other values than without a gradient.
   */
  training?: boolean;
}

export interface ForwardOutput {
  /** (B, T, V) logits, or (B, 1, V) with lastOnly. */
  logits: tf.Tensor3D;
  /** Keys/values of this call's T positions (with growLast: the grown last segment), one entry per block; none with inPlace. */
  present: LayerCache[];
}

/** Standard-normal draws from the seeded Rng (Box-Muller), so initial weights are identical on every backend. */
function normals(rng: Rng, n: number, std: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const u = 1 - rng.next();
    const r = Math.sqrt(-2 * Math.log(u)) * std;
    const a = 2 * Math.PI * rng.next();
    out[i] = r * Math.cos(a);
    if (i + 1 < n) out[i + 1] = r * Math.sin(a);
  }
  return out;
}


export class GptModel {
  readonly config: ModelConfig;
  /** Trainable parameters by name, in `parameterShapes` order. */
  readonly params: Map<string, tf.Variable>;

  private constructor(config: ModelConfig, params: Map<string, tf.Variable>) {
    this.config = config;
    this.params = params;
  }

  /**
   * GPT-2 initialisation: N(0, 0.02) weights, residual projections scaled by 1/sqrt(2 * layers),
   * zero biases, unit LayerNorm gains. Draws come from `rng` in parameter order.
   */
  static init(config: ModelConfig, rng: Rng, trainable = true): GptModel {
    validateModelConfig(config);
    const params = new Map<string, tf.Variable>();
    const residualStd = 0.02 / Math.sqrt(2 * config.layers);
    for (const [name, shape] of parameterShapes(config)) {
      const n = shape.reduce((a, b) => a * b, 1);
      let values: Float32Array;
      if (name.endsWith(".g")) values = new Float32Array(n).fill(1);
      else if (name.endsWith(".b")) values = new Float32Array(n);
      else values = normals(rng, n, name.endsWith("proj.w") ? residualStd : 0.02);
      params.set(name, makeVariable(values, shape, trainable, name));
    }
    return new GptModel(config, params);
  }

  /** A model with the given weights (checkpoint order), e.g. a frozen reference copy. */
  static fromWeights(config: ModelConfig, weights: Float32Array[], trainable = true): GptModel {
    validateModelConfig(config);
    const shapes = parameterShapes(config);
    if (weights.length !== shapes.length) {
      throw new Error(`expected ${shapes.length} weight arrays for this config, got ${weights.length}`);
    }
    const params = new Map<string, tf.Variable>();
    shapes.forEach(([name, shape], i) => {
      const n = shape.reduce((a, b) => a * b, 1);
      if (weights[i].length !== n) throw new Error(`weight ${name}: expected ${n} values, got ${weights[i].length}`);
      params.set(name, makeVariable(weights[i], shape, trainable, name));
    });
    return new GptModel(config, params);
  }

  get numParams(): number {
    return countParams(this.config);
  }

  /** Copies of all weights, in checkpoint order (one device read per parameter). */
  async weights(): Promise<Float32Array[]> {
    return Promise.all([...this.params.values()].map(async (p) => new Float32Array(await p.data())));
  }

  /** Overwrite all weights in place (same config). */
  assign(weights: Float32Array[]): void {
    const entries = [...this.params.values()];
    if (weights.length !== entries.length) throw new Error(`expected ${entries.length} weight arrays, got ${weights.length}`);
    tf.tidy(() => entries.forEach((p, i) => p.assign(tf.tensor(weights[i], p.shape, "float32"))));
  }

  private p(name: string): tf.Variable {
    const v = this.params.get(name);
    if (!v) throw new Error(`missing parameter ${name}`);
    return v;
  }

  /** Run the decoder. Call inside tf.tidy (or dispose the outputs). */
  forward(input: ForwardInput): ForwardOutput {
    const { layers, heads, dModel: C, context: P, vocab: V } = this.config;
    const [B, T] = input.tokens.shape;
    const D = C / heads;
    const training = input.training ?? false;
    const fuseOps = !training && fusedOpsAvailable(C);
    if (input.inPlace && (T !== 1 || training)) throw new Error(`an in-place cache takes one decoding step without a gradient, got T = ${T}${training ? " under a gradient" : ""}`);
    const dense = (x: tf.Tensor2D, name: string): tf.Tensor2D =>
      training
        ? (tf.add(linear(x, this.p(`${name}.w`)), this.p(`${name}.b`)) as tf.Tensor2D)
        : (tf.fused.matMul({ a: x, b: this.p(`${name}.w`) as tf.Tensor2D, bias: this.p(`${name}.b`) }) as tf.Tensor2D);
    // Under a gradient on wasm: the one-hot product's exact bits without it (wasm-embedding.ts).
    const embedKernel = training && embeddingKernelAvailable();
    const embed = (ids: tf.Tensor, table: string, n: number): tf.Tensor2D => {
      const flat = tf.reshape(ids, [-1]) as tf.Tensor1D;
      if (embedKernel) return embedRows(this.p(table) as tf.Tensor2D, flat);
      return training ? linear(tf.oneHot(flat, n), this.p(table)) : (tf.gather(this.p(table), flat) as tf.Tensor2D);
    };
    // Outside a gradient and without a cache (a prefill), the padded positions can be left out of the
    // per-position work: with a cache the queries are past the padding.
    const packed = !training && input.leftPad && !input.outputRows && !input.past?.length && !input.inPlace ? packRows(input.leftPad, T) : null;
    // (B*T, V) @ (V, C) + (B*T, P) @ (P, C) -> (B*T, C), or the R real positions' rows when packed.
    const ids = (t: tf.Tensor2D) => (packed ? tf.gather(tf.reshape(t, [B * T]), packed.real) : t);
    let x: tf.Tensor2D = tf.add(embed(ids(input.tokens), "wte", V), embed(ids(input.positions), "wpe", P));
    const present: LayerCache[] = [];
    // Each row's last position among x's rows, and whether the last block runs on those rows alone.
    const lastRows = () => tf.tensor1d(packed ? packed.last : Array.from({ length: B }, (_, b) => b * T + T - 1), "int32");
    const lastBlockAtLast = input.lastOnly === true && T > 1 && !training && !input.outputRows && !input.past?.length && !input.inPlace && tf.getBackend() === "wasm";
    const fusedPrefill = !training && T > 1 && !input.past?.length && !input.inPlace && prefillAttentionAvailable(B, T, heads, D, input.attnBias.shape);
    for (let l = 0; l < layers; l++) {
      const atLast = lastBlockAtLast && l === layers - 1;
      // Attention: pre-LN, qkv projection, then over the cache kept in place or the segments.
      const h = layerNorm(x, this.p(`h${l}.ln1.g`), this.p(`h${l}.ln1.b`), fuseOps);
      const qkv = dense(h, `h${l}.attn.qkv`); // (B*T, 3C)
      let attended: tf.Tensor2D; // (B*T, C)
      if (input.inPlace) {
        // A decoding step on wasm with its cache in place (wasm-decode-attention.ts): this step's keys
        // and values go straight from qkv into the cache, no split, no Concat.
        const cache = input.inPlace.caches[l];
        const pos = input.inPlace.pos;
        const att = decodeScoresInPlace(qkv, cache, input.attnBias, heads, pos, 1 / Math.sqrt(D));
        attended = tf.reshape(decodeValues(tf.softmax(att, -1) as tf.Tensor4D, [cache.v, cache.vGen], [cache.v.shape[2], pos + 1]), [B, C]);
      } else if (fusedPrefill) {
        // A prefill on wasm (wasm-prefill-attention.ts): from qkv's rows as they are, over the keys each
        // used query can see, straight to the used queries' merged heads; the cache's keys and values too.
        const prefill = prefillAttention(qkv, input.attnBias, B, T, heads, 1 / Math.sqrt(D), packed ? input.leftPad! : null, atLast);
        present.push({ k: prefill.k, v: prefill.v });
        attended = prefill.attended;
        if (atLast) x = tf.gather(x, lastRows());
      } else if (atLast) {
        // The last query of each row only: (B, C), the residual stream's last rows with it.
        attended = this.segmentAttention(packed ? packed.unpackRows(qkv) : qkv, l, input, present, true);
        x = tf.gather(x, lastRows());
      } else if (packed) {
        // Back to (B*T, 3C) with zero rows at the padding, and the real rows of the result.
        attended = tf.gather(this.segmentAttention(packed.unpackRows(qkv), l, input, present), packed.real);
      } else attended = this.segmentAttention(qkv, l, input, present);
      if (input.outputRows && input.outputRowsFromLastBlock && l === layers - 1) {
        // (M, C): the scored rows of the residual stream and of the attention, the rest of the block on them.
        x = selectRows(x, input.outputRows);
        attended = selectRows(attended, input.outputRows);
      }
      x = tf.add(x, dense(attended, `h${l}.attn.proj`));
      // MLP: pre-LN, C -> 4C -> C with GELU.
      const h2 = layerNorm(x, this.p(`h${l}.ln2.g`), this.p(`h${l}.ln2.b`), fuseOps);
      x = tf.add(x, dense(gelu(dense(h2, `h${l}.mlp.fc`), fuseOps), `h${l}.mlp.proj`)); // via (B*T, 4C)
    }
    let rows = T;
    let outB = B;
    if (input.outputRows) {
      if (!(input.outputRowsFromLastBlock && layers > 0)) x = selectRows(x, input.outputRows);
      [outB, rows] = [1, input.outputRows.shape[0]];
    } else if (input.lastOnly && T > 1) {
      // Each row's last position (a row copy: tfjs-wasm's Slice takes 3 ms where this takes 0.1).
      if (!lastBlockAtLast) x = tf.gather(x, lastRows());
      rows = 1;
    } else if (packed) x = packed.unpackRows(x);
    const hf = layerNorm(x, this.p("lnf.g"), this.p("lnf.b"), fuseOps);
    const head = this.config.tiedHead ? tf.transpose(this.p("wte")) : this.p("head.w");
    const logits = training ? linear(hf, head) : tf.matMul(hf, head as tf.Tensor2D);
    return { logits: tf.reshape(logits, [outB, rows, V]), present };
  }

  /**
   * Attention of one block over cache segments (`input.past`, tensor ops or, for a decoding step on
   * wasm, the two kernels of wasm-decode-attention.ts); pushes this call's keys and values (grown
   * into the last segment with growLast) to `present`. Returns (B*T, C), or with `lastQuery` (no cache,
   * T > 1) the attention of each row's last query alone, (B, C).
   */
  private segmentAttention(qkv: tf.Tensor2D, l: number, input: ForwardInput, present: LayerCache[], lastQuery = false): tf.Tensor2D {
    const { heads, dModel: C } = this.config;
    const [B, T] = input.tokens.shape;
    const D = C / heads;
    const training = input.training ?? false;
    // (B*T, C) <-> (B, H, T, D); with T = 1 the transpose is a reshape.
    const splitHeads = (t: tf.Tensor) =>
      (T === 1 ? tf.reshape(t, [B, heads, 1, D]) : tf.transpose(tf.reshape(t, [B, T, heads, D]), [0, 2, 1, 3])) as tf.Tensor4D;
    const mergeHeads = (t: tf.Tensor) => (T === 1 ? tf.reshape(t, [B, C]) : tf.reshape(tf.transpose(tf.reshape(t, [B, heads, T, D]), [0, 2, 1, 3]), [B * T, C])) as tf.Tensor2D;
    const [q, kNew, vNew] = tf.split(qkv, 3, 1).map(splitHeads); // each (B, H, T, D)
    if (lastQuery) {
      // The full path's products, scale, bias and softmax on each row's last query: (BH, 1, D) @ k^T.
      present.push({ k: kNew, v: vNew });
      const k = tf.reshape(kNew, [B * heads, T, D]) as tf.Tensor3D;
      const qLast = tf.reshape(tf.slice(q, [0, 0, T - 1, 0], [B, heads, 1, D]), [B * heads, 1, D]) as tf.Tensor3D;
      const bias = tf.slice(input.attnBias, [0, 0, T - 1, 0], [B, 1, 1, T]);
      const att = tf.add(tf.mul(tf.reshape(tf.matMul(qLast, k, false, true), [B, heads, 1, T]), 1 / Math.sqrt(D)), bias);
      const probs = tf.reshape(tf.softmax(att, -1), [B * heads, 1, T]) as tf.Tensor3D;
      return tf.reshape(tf.matMul(probs, tf.reshape(vNew, [B * heads, T, D]) as tf.Tensor3D), [B, C]);
    }
    const past = input.past?.[l] ?? [];
    const grow = input.growLast && past.length >= 2;
    const last = grow
      ? { k: tf.concat([past[past.length - 1].k, kNew], 2) as tf.Tensor4D, v: tf.concat([past[past.length - 1].v, vNew], 2) as tf.Tensor4D }
      : { k: kNew, v: vNew };
    present.push(last);
    const segments = [...(grow ? past.slice(0, -1) : past), last]; // each (B, H, S_i, D)
    const sizes = segments.map((g) => g.k.shape[2]);
    const S = sizes.reduce((a, b) => a + b, 0);
    // (B*H, T, D) @ (B*H, D, S_i) per segment -> (B, H, T, S), scaled by 1/sqrt(D), masked, softmax over keys.
    // With one query (a decoding step) the products are broadcast multiply + sum on wasm and cpu:
    // wasm's batched matMul has no fast path and costs about 10x more on (256, 1, 16) x (256, 16, 72).
    // Not on webgpu, whose sum spends a 64-thread workgroup on each 16-term dot product: on
    // SwiftShader that is 15-20x slower than matMul for the scores and 2x for the values.
    // Decoding on wasm: the same sums in two fused kernels around the softmax (wasm-decode-attention.ts).
    const fused = T === 1 && !training && decodeAttentionAvailable(D);
    const mulSum = T === 1 && tf.getBackend() !== "webgpu";
    // Under a gradient (training batches are right-padded: every query sees its own key) attention is
    // causal: causalScores and causalValues tell the products where their operands are known zeros
    // (same values, fewer terms on wasm).
    const causal = training && segments.length === 1 && S === T && T > 1;
    const qh = tf.reshape(q, [B * heads, T, D]);
    const flat = (t: tf.Tensor4D, n: number) => tf.reshape(t, [B * heads, n, D]) as tf.Tensor3D;
    let att: tf.Tensor;
    if (fused) att = decodeScores(qh as tf.Tensor3D, segments.map((g, i) => flat(g.k, sizes[i])), input.attnBias, heads, 1 / Math.sqrt(D));
    else {
      const scores = segments.map((g, i) => {
        const k = flat(g.k, sizes[i]);
        if (causal) return causalScores(qh as tf.Tensor3D, k);
        return mulSum ? tf.expandDims(tf.sum(tf.mul(qh, k), -1), 1) : tf.matMul(qh, k, false, true);
      });
      att = tf.reshape(scores.length === 1 ? scores[0] : tf.concat(scores, 2), [B, heads, T, S]);
      att = tf.add(tf.mul(att, 1 / Math.sqrt(D)), input.attnBias);
    }
    let y: tf.Tensor;
    if (fused) y = decodeValues(tf.softmax(att, -1) as tf.Tensor4D, segments.map((g, i) => flat(g.v, sizes[i])));
    else {
      const probs = tf.reshape(tf.softmax(att, -1), [B * heads, T, S]);
      // (B*H, T, S_i) @ (B*H, S_i, D) summed over segments -> (B, H, T, D) -> (B*T, C)
      const parts = segments.length === 1 ? [probs] : tf.split(probs, sizes, 2);
      y = parts
        .map((p, i) => {
          const v = flat(segments[i].v, sizes[i]);
          if (causal) return causalValues(p as tf.Tensor3D, v);
          return mulSum ? tf.sum(tf.mul(tf.reshape(p, [B * heads, sizes[i], 1]), v), 1, true) : tf.matMul(p, v);
        })
        .reduce((a, b) => tf.add(a, b));
    }
    return mergeHeads(y);
  }

  dispose(): void {
    for (const p of this.params.values()) p.dispose();
  }
}

let nextId = 0;

/** A variable holding a copy of `values`; tidy frees the temporary the variable was built from. */
function makeVariable(values: Float32Array, shape: number[], trainable: boolean, name: string): tf.Variable {
  return tf.tidy(() => tf.variable(tf.tensor(values, shape, "float32"), trainable, `${name}_${nextId++}`));
}

/**
 * x (N, K) @ w (K, M) with a gradient that transposes explicitly: dx = dy @ w^T and
 * dw = x^T @ dy, or (dy^T @ x)^T when M > K. Both choices are for the wasm backend: its matMul with a
 * transpose flag takes a slow loop (10x slower than transpose + matMul on (7744, 256) x (7744, 64)),
 * and its fast path (XNNPACK) repacks the right operand every call, so the right operand should be
 * the narrower of x and dy (5x on (64, 7744) x (7744, 192)). On webgpu every form is fast.
 */
const linearGrad = tf.customGrad(((x: tf.Tensor2D, w: tf.Tensor2D, save: tf.GradSaveFunc) => {
  save([x, w]);
  return {
    value: tf.matMul(x, w),
    gradFunc: (dy: tf.Tensor2D, saved: tf.Tensor2D[]) => {
      const [xs, ws] = saved;
      const dw = ws.shape[1] > ws.shape[0] ? tf.transpose(tf.matMul(tf.transpose(dy), xs)) : tf.matMul(tf.transpose(xs), dy);
      return [tf.matMul(dy, tf.transpose(ws)), dw];
    },
  };
}) as unknown as Parameters<typeof tf.customGrad>[0]);
const linear = (x: tf.Tensor, w: tf.Tensor): tf.Tensor2D => linearGrad(x, w) as tf.Tensor2D;

/**
 * Causal attention's two products, q (BH, T, D) @ k^T and probs (BH, T, T) @ v, with tfjs's own gradient
 * products (BatchMatMul's gradient: the same operands and transposes), each told what triangularMatMul
 * may leave out: the probabilities and their gradient dS are zero above the diagonal (the mask's
 * probabilities are exactly 0, and dS = (dP - sum(dP P)) P there), their transposes below it; and the
 * scores and dP are not needed above it (the mask's -1e9 makes any finite score's probability 0, and
 * the softmax's gradient multiplies dP there by that 0). Same bits on wasm; elsewhere it is tf.matMul.
 */
const causalScores = tf.customGrad(((q: tf.Tensor3D, k: tf.Tensor3D, save: tf.GradSaveFunc) => {
  save([q, k]);
  return {
    value: triangularMatMul(q, k, false, true, { outAbove: true }),
    gradFunc: (dy: tf.Tensor3D, [qs, ks]: tf.Tensor3D[]) => [triangularMatMul(dy, ks, false, false, { aZeros: "above" }), triangularMatMul(dy, qs, true, false, { aZeros: "below" })],
  };
}) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (q: tf.Tensor3D, k: tf.Tensor3D) => tf.Tensor3D;

const causalValues = tf.customGrad(((p: tf.Tensor3D, v: tf.Tensor3D, save: tf.GradSaveFunc) => {
  save([p, v]);
  return {
    value: triangularMatMul(p, v, false, false, { aZeros: "above" }),
    gradFunc: (dy: tf.Tensor3D, [ps, vs]: tf.Tensor3D[]) => [triangularMatMul(dy, vs, false, true, { outAbove: true }), triangularMatMul(ps, dy, true, false, { aZeros: "below" })],
  };
}) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (p: tf.Tensor3D, v: tf.Tensor3D) => tf.Tensor3D;

/**
 * Rows `idx` of x (N, C), with a gradient that scatters back to those rows (zeros elsewhere): no
 * unsorted segment sum, which the wasm backend lacks. The indices must be distinct.
 */
function selectRows(x: tf.Tensor2D, idx: tf.Tensor1D): tf.Tensor2D {
  const op = tf.customGrad(((xs: tf.Tensor2D) => ({
    value: tf.gather(xs, idx),
    gradFunc: (dy: tf.Tensor2D) => tf.scatterND(tf.expandDims(idx, 1), dy, xs.shape),
  })) as unknown as Parameters<typeof tf.customGrad>[0]);
  return op(x) as tf.Tensor2D;
}

/**
 * The real (not left-padding) positions of (B, T) left-padded rows: `real`, their flat indices in
 * increasing order (R of them); `unpackRows`, (R, W) rows back to (B*T, W) with zero rows at the
 * padding; `last`, each row's last position among the R. Null when no row is padded.
 */
function packRows(pad: readonly number[], T: number): { real: tf.Tensor1D; unpackRows: (t: tf.Tensor2D) => tf.Tensor2D; last: number[] } | null {
  const firstReal = pad.map((p) => Math.min(T, p));
  if (firstReal.every((f) => f === 0)) return null;
  const R = firstReal.reduce((n, f) => n + T - f, 0);
  const real: number[] = [];
  const unpack = new Int32Array(pad.length * T).fill(R); // row R: the zero row appended below
  const last: number[] = [];
  firstReal.forEach((first, b) => {
    for (let t = first; t < T; t++) {
      unpack[b * T + t] = real.length;
      real.push(b * T + t);
    }
    last.push(real.length - 1);
  });
  const unpackIdx = tf.tensor1d(unpack, "int32");
  const unpackRows = (t: tf.Tensor2D) => tf.gather(tf.concat([t, tf.zeros([1, t.shape[1]])], 0), unpackIdx) as tf.Tensor2D;
  return { real: tf.tensor1d(real, "int32"), unpackRows, last };
}

/**
 * LayerNorm over the last axis, eps 1e-5 (GPT-2). x: (N, C). `fused`: in one wasm kernel with the same
 * bits (wasm-layernorm.ts), only outside a gradient.
 */
function layerNorm(x: tf.Tensor2D, g: tf.Tensor, b: tf.Tensor, fused: boolean): tf.Tensor2D {
  if (fused) return fusedLayerNorm(x, g, b);
  const { mean, variance } = tf.moments(x, -1, true);
  return tf.add(tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, 1e-5))), g), b);
}

/**
 * GELU, tanh approximation (Hendrycks & Gimpel 2016; GPT-2): 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3))),
 * computed as x sigmoid(2 sqrt(2/pi)(x + 0.044715x^3)) since 0.5(1 + tanh z) = sigmoid(2z): fewer kernels.
 * `fused`: the sigmoid's argument in one wasm kernel with the same bits (wasm-fused.ts), only outside a gradient.
 */
function gelu(x: tf.Tensor2D, fused: boolean): tf.Tensor2D {
  const { a, c } = GELU;
  const inner = fused ? fusedGeluInner(x, a, c) : tf.mul(x, tf.add(tf.mul(tf.square(x), a), c));
  return tf.mul(x, tf.sigmoid(inner));
}

/** GELU's sigmoid argument x (x^2 a + c): c = 2 sqrt(2/pi), a = 0.044715 c. */
export const GELU = { a: 2 * Math.sqrt(2 / Math.PI) * 0.044715, c: 2 * Math.sqrt(2 / Math.PI) };

/**
 * Additive attention bias (B, 1, T, S) for rows left-padded by `pad[b]` tokens, where the T queries
 * are the last T of S positions: a query sees keys at or before itself that are not padding.
 */
export function attentionBias(pad: readonly number[], T: number, S: number): tf.Tensor4D {
  return tf.tensor4d(writeAttentionBias(new Float32Array(pad.length * T * S), pad, T, S), [pad.length, 1, T, S]);
}

/** attentionBias's values written into `out` (at least B * T * S floats; wasm-decode-step.ts writes the wasm heap). */
export function writeAttentionBias(out: Float32Array, pad: readonly number[], T: number, S: number): Float32Array {
  for (let b = 0; b < pad.length; b++) {
    for (let t = 0; t < T; t++) {
      const q = S - T + t; // absolute position of this query
      for (let s = 0; s < S; s++) out[(b * T + t) * S + s] = s > q || s < pad[b] ? -1e9 : 0;
    }
  }
  return out;
}
