/**
 * A decoding step on tfjs's wasm backend without tfjs's engine: the kernels of GptModel.forward's
 * in-place decoding step (T = 1, wasm-decode-attention.ts' cache, wasm-fused.ts' LayerNorm and GELU
 * argument), called one after the other as `kernelFunc({ inputs, backend, attrs })` on the backend's
 * own buffers, the way tfjs's kernels call each other. Same kernels, same inputs, same attributes,
 * so the same bits (tests/unit/policy/wasm-decode-step.test.ts: rollouts token for token and the
 * logits of steps bit for bit, against the engine's path).
 *
 * Why: a tiny model's decoding step is ~40 kernels of a few microseconds each, and the engine spent
 * about as long again around each one (a scope, a Tensor object, its bookkeeping and disposal), and
 * made most of the JavaScript garbage a sampling call left to V8's collector. Here a reshape is a
 * view of the same buffer (as tfjs-backend-wasm's Reshape is), a step's temporaries are freed when
 * it ends, the tied head is transposed once per sampling call instead of every step, and the logits
 * are copied straight from the wasm heap into one reused array.
 *
 * Only where every piece is there (the wasm backend's internals, the in-place cache, the fused ops,
 * the flag on); otherwise the sampler keeps model.forward.
 */
import * as tf from "@tensorflow/tfjs";
import { GELU, type GptModel } from "./model.ts";
import { decodeScoresInPlaceCall, decodeValuesCall, inPlaceCacheAvailable, type InPlaceCache } from "./wasm-decode-attention.ts";
import { fusedOpsAvailable, geluInnerCall, layerNormCall } from "./wasm-fused.ts";
import { registerFlagOnce, type KernelArgs, type KernelCall, type WasmBackendInternals } from "./wasm-kernels.ts";

/** tfjs env flag: false runs decoding steps through model.forward and the engine (the benchmark's "before", and a check). */
export const DIRECT_DECODE_FLAG = "A1_WASM_DIRECT_DECODE";
registerFlagOnce(DIRECT_DECODE_FLAG);

type Backend = WasmBackendInternals & { typedArrayFromHeap(t: tf.TensorInfo): Float32Array | Int32Array; makeOutput(shape: number[], dtype: "float32" | "int32", memoryOffset?: number, values?: Float32Array | Int32Array): tf.TensorInfo };

/** Steps run since start (tests check this path really ran). */
export const directDecodeCounts = { steps: 0 };

/** Whether `model`'s decoding steps can run here without the engine now. */
export function directDecodeAvailable(model: GptModel): boolean {
  const { dModel: C, heads } = model.config;
  if (!inPlaceCacheAvailable(C / heads) || !fusedOpsAvailable(C) || !tf.env().getBool(DIRECT_DECODE_FLAG)) return false;
  return typeof (tf.backend() as Partial<Backend>).typedArrayFromHeap === "function";
}

/** A view of `t`'s buffer with another shape: what tfjs-backend-wasm's Reshape returns, without the reference count. */
const view = (t: tf.TensorInfo, shape: number[]): tf.TensorInfo => ({ dataId: t.dataId, shape, dtype: t.dtype });

/** One sampling call's decoding steps for `model` (check directDecodeAvailable first; dispose when done). */
export class DirectDecoder {
  private readonly backend = tf.backend() as unknown as Backend;
  private readonly kernels = new Map<string, (args: KernelArgs) => tf.TensorInfo>();
  /** This step's outputs, freed when it ends. */
  private readonly temps: tf.TensorInfo[] = [];
  /** (C, V): the tied head transposed once (the forward transposes it every call), or the untied head. */
  private readonly head: tf.Tensor2D;
  /** Reused host arrays: the logits returned, the bias and the token and position ids uploaded. */
  private logits = new Float32Array(0);
  private bias = new Float32Array(0);
  private ids = new Int32Array(0);

  constructor(private readonly model: GptModel) {
    const wte = model.params.get("wte")!;
    this.head = (model.config.tiedHead ? tf.transpose(wte) : model.params.get("head.w")!) as tf.Tensor2D;
  }

  /**
   * The (B, V) logits of one step (rows b: token `tokens[b]` at position `positions[b]`, left padding
   * `pad[b]`), as model.forward's in-place step over `caches` at generated position `pos` computes
   * them; this step's keys and values are written into the caches. The array is reused by the next step.
   */
  step(tokens: readonly number[], positions: readonly number[], pad: readonly number[], caches: readonly InPlaceCache[], pos: number): Float32Array {
    const { layers, heads, dModel: C, vocab: V } = this.model.config;
    const B = tokens.length;
    const P = caches[0].kT.shape[3];
    const S = P + pos + 1;
    const p = (name: string) => this.model.params.get(name)!;
    // The (B, 1, 1, S) bias attentionBias(pad, 1, S) builds: -1e9 at each row's padding.
    if (this.bias.length < B * S) this.bias = new Float32Array(2 * B * S);
    const bias = this.bias.subarray(0, B * S).fill(0);
    pad.forEach((n, b) => bias.fill(-1e9, b * S, b * S + Math.min(n, S)));
    if (this.ids.length < 2 * B) this.ids = new Int32Array(2 * B);
    directDecodeCounts.steps++;
    try {
      const input = (shape: number[], values: Float32Array | Int32Array) => this.keep(this.backend.makeOutput(shape, values instanceof Int32Array ? "int32" : "float32", undefined, values));
      this.ids.set(tokens);
      this.ids.set(positions, B);
      const tok = input([B], this.ids.subarray(0, B));
      const at = input([B], this.ids.subarray(B, 2 * B));
      const attnBias = input([B, 1, 1, S], bias);
      const gather = (table: string, ids: tf.TensorInfo) => this.run(["GatherV2", { x: p(table), indices: ids }, { axis: 0, batchDims: 0 }]);
      // tf.fused.matMul of (B, K) and (K, N) with a bias: its kernel on (1, B, K) and (1, K, N).
      const dense = (x: tf.TensorInfo, name: string) => {
        const w = p(`${name}.w`);
        const [K, N] = w.shape;
        const y = this.run(["_FusedMatMul", { a: view(x, [1, B, K]), b: view(w, [1, K, N]), bias: p(`${name}.b`) }, { transposeA: false, transposeB: false, activation: "linear", leakyreluAlpha: 0.2 }]);
        return view(y, [B, N]);
      };
      const add = (a: tf.TensorInfo, b: tf.TensorInfo) => this.run(["Add", { a, b }, {}]);
      let x = add(gather("wte", tok), gather("wpe", at));
      for (let l = 0; l < layers; l++) {
        const h = this.run(layerNormCall(x, p(`h${l}.ln1.g`), p(`h${l}.ln1.b`)));
        const qkv = dense(h, `h${l}.attn.qkv`);
        const cache = caches[l];
        const att = this.run(decodeScoresInPlaceCall(qkv, cache, attnBias, heads, pos, 1 / Math.sqrt(C / heads)));
        const probs = this.run(["Softmax", { logits: att }, { dim: 3 }]);
        const attended = this.run(decodeValuesCall(probs, [cache.v, cache.vGen], [P, pos + 1]));
        x = add(x, dense(view(attended, [B, C]), `h${l}.attn.proj`));
        const h2 = this.run(layerNormCall(x, p(`h${l}.ln2.g`), p(`h${l}.ln2.b`)));
        const f = dense(h2, `h${l}.mlp.fc`);
        const inner = this.run(geluInnerCall(f, GELU.a, GELU.c));
        const g = this.run(["Multiply", { a: f, b: this.run(["Sigmoid", { x: inner }, {}]) }, {}]);
        x = add(x, dense(g, `h${l}.mlp.proj`));
      }
      const hf = this.run(layerNormCall(x, p("lnf.g"), p("lnf.b")));
      const logits = this.run(["BatchMatMul", { a: hf, b: this.head }, { transposeA: false, transposeB: false }]);
      if (this.logits.length < B * V) this.logits = new Float32Array(B * V);
      const out = this.logits.subarray(0, B * V);
      out.set(this.backend.typedArrayFromHeap(logits) as Float32Array);
      return out;
    } finally {
      for (const t of this.temps) this.backend.disposeData(t.dataId);
      this.temps.length = 0;
    }
  }

  dispose(): void {
    if (this.model.config.tiedHead) this.head.dispose();
  }

  private keep(t: tf.TensorInfo): tf.TensorInfo {
    this.temps.push(t);
    return t;
  }

  /** One kernel, called as the engine would call it; its output lives until the step ends. */
  private run([name, inputs, attrs]: KernelCall): tf.TensorInfo {
    let kernel = this.kernels.get(name);
    if (!kernel) {
      const config = tf.getKernel(name, "wasm");
      if (!config) throw new Error(`tfjs has no wasm kernel ${name}`);
      kernel = config.kernelFunc as unknown as (args: KernelArgs) => tf.TensorInfo;
      this.kernels.set(name, kernel);
    }
    return this.keep(kernel({ inputs, backend: this.backend, attrs }));
  }
}
