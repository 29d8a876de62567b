/**
 * A decoding step on tfjs's wasm backend without tfjs's engine or its kernels' JavaScript: the
 * functions GptModel.forward's in-place decoding step (T = 1) ends up in, called straight on buffers
 * kept for the whole sampling call. tfjs-backend-wasm 4.22's own C++ kernels (`_Add`, `__FusedMatMul`,
 * `_Softmax`, `_Sigmoid`, `_Multiply`, `_BatchMatMul`, the functions its kernels cwrap) with the
 * arguments its JavaScript passes them, and this folder's wasm kernels (wasm-fused.ts' LayerNorm and
 * GELU argument, wasm-decode-attention.ts' in-place attention) on heap offsets. Same functions, same
 * inputs, so the same bits (tests/unit/policy/kernels/wasm-decode-step.test.ts: one step's logits and cache
 * writes against model.forward's, and rollouts token for token).
 *
 * Why: a tiny model's decoding step is ~35 kernels of a few microseconds each. Through the engine,
 * each also paid for a scope, a Tensor object and its disposal, a kernel lookup, a fresh output buffer
 * (malloc, registration with the C++ side, free) and argument marshalling, and left garbage for V8's
 * collector: about as long again as the kernels. Here a step writes its tokens, positions and
 * attention bias into the heap, runs the kernels in place, and copies the logits out into one reused
 * array; the embedding rows are copied, the tied head is transposed once per sampling call.
 *
 * Only where every piece is there (the wasm backend with those exports, the in-place cache, the fused
 * ops, the flag on); otherwise the sampler keeps model.forward.
 */
import * as tf from "@tensorflow/tfjs";
import { GELU, type GptModel, writeAttentionBias } from "../model.ts";
import { inPlaceCacheAvailable, inPlaceScores, inPlaceValues, kernelsFor, type DecodeAttentionKernels, type InPlaceCache } from "./wasm-decode-attention.ts";
import { fusedOpsAvailable, kernelFor as fusedKernelsFor, LAYERNORM_EPS, type FusedKernels } from "./wasm-fused.ts";
import { registerFlagOnce, type WasmBackendInternals } from "./wasm-kernels.ts";

/** tfjs env flag: false runs decoding steps through model.forward and the engine (the benchmark's "before", and a check). */
export const DIRECT_DECODE_FLAG = "A1_WASM_DIRECT_DECODE";
registerFlagOnce(DIRECT_DECODE_FLAG);

/** tfjs-backend-wasm 4.22's C++ kernels as its JavaScript calls them (shape arguments: pointers to int32s). */
interface Cpp {
  _Add(aId: number, aShape: number, aRank: number, bId: number, bShape: number, bRank: number, dtype: number, outId: number): void;
  _Multiply(aId: number, aShape: number, aRank: number, bId: number, bShape: number, bRank: number, dtype: number, outId: number): void;
  __FusedMatMul(aId: number, aShape: number, aRank: number, bId: number, bShape: number, bRank: number, transposeA: number, transposeB: number, activation: number, biasId: number, preluId: number, alpha: number, outId: number): void;
  _BatchMatMul(aId: number, aShape: number, aRank: number, bId: number, bShape: number, bRank: number, transposeA: number, transposeB: number, outId: number): void;
  _Softmax(xId: number, outId: number, channels: number, batch: number): void;
  _Sigmoid(xId: number, outId: number): void;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
}
const CPP_FUNCTIONS = ["_Add", "_Multiply", "__FusedMatMul", "_BatchMatMul", "_Softmax", "_Sigmoid", "_malloc", "_free"] as const;
/** tfjs-backend-wasm's CppDType.float32, and FusableActivation.linear. */
const FLOAT32 = 0;
const LINEAR = 0;
/** The float32 attributes model.forward's kernels get: LayerNorm's epsilon and GELU's constants. */
const EPS = Math.fround(LAYERNORM_EPS);
const GELU_A = Math.fround(GELU.a);
const GELU_C = Math.fround(GELU.c);

/** WasmBackendInternals with the C++ side's tensor ids and functions. */
interface Backend extends Omit<WasmBackendInternals, "dataIdMap" | "wasm"> {
  dataIdMap: { get(dataId: object): { id: number; memoryOffset: number } | undefined };
  wasm: WasmBackendInternals["wasm"] & Partial<Cpp>;
}

/** Steps run since start (tests check this path really ran). */
export const directDecodeCounts = { steps: 0 };

/** Whether `model`'s decoding steps can run here without the engine now. */
export function directDecodeAvailable(model: GptModel): boolean {
  const { dModel: C, heads } = model.config;
  if (!inPlaceCacheAvailable(C / heads) || !fusedOpsAvailable(C) || !tf.env().getBool(DIRECT_DECODE_FLAG)) return false;
  const wasm = (tf.backend() as unknown as Backend).wasm;
  return CPP_FUNCTIONS.every((f) => typeof wasm[f] === "function");
}

/** A buffer of the backend's, registered with its C++ side: its id and heap offset. */
interface Buffer {
  dataId: object;
  id: number;
  at: number;
}

/** A linear's weight and bias as the C++ kernels take them (ids), with its (K, N); a LayerNorm's gain and bias as ours do (offsets). */
type Linear = { w: number; b: number; K: number; N: number };
type Norm = { g: number; b: number };

/** One sampling call's decoding steps for `model` over at most `rows` rows and `keys` keys (check directDecodeAvailable first; dispose when done). */
export class DirectDecoder {
  private readonly backend = tf.backend() as unknown as Backend;
  private readonly cpp = this.backend.wasm as Cpp;
  private readonly memory = (this.backend.wasm.asm?.memory ?? this.backend.wasm.wasmMemory)!;
  private readonly fused: FusedKernels;
  private readonly attention: DecodeAttentionKernels;
  /** (C, V): the tied head transposed once (the forward transposes it every call), or the untied head. */
  private readonly head: tf.Tensor2D;
  /** The weights, looked up once: they stay where they are for the sampling call. */
  private readonly w: { wte: number; wpe: number; head: number; lnf: Norm; blocks: { ln1: Norm; qkv: Linear; proj: Linear; ln2: Norm; fc: Linear; out: Linear }[] };
  private readonly buffers: Buffer[] = [];
  private readonly buf: Record<"e1" | "e2" | "x" | "x2" | "h" | "qkv" | "att" | "probs" | "y" | "t" | "f" | "inner" | "sig" | "g" | "bias" | "logits", Buffer>;
  /** Room for the shape arguments, 4 int32s each. */
  private readonly shapes: number;
  private readonly logits: Float32Array;

  constructor(
    private readonly model: GptModel,
    private readonly rows: number,
    private readonly keys: number,
  ) {
    const { dModel: C, heads, vocab: V } = model.config;
    this.fused = fusedKernelsFor(this.backend)!;
    this.attention = kernelsFor(this.backend, C / heads)!;
    this.head = (model.config.tiedHead ? tf.transpose(model.params.get("wte")!) : model.params.get("head.w")!) as tf.Tensor2D;
    const info = (t: tf.Tensor) => this.backend.dataIdMap.get(t.dataId)!;
    const param = (name: string) => info(model.params.get(name)!);
    const linear = (name: string): Linear => {
      const [K, N] = model.params.get(`${name}.w`)!.shape;
      return { w: param(`${name}.w`).id, b: param(`${name}.b`).id, K, N };
    };
    const norm = (name: string): Norm => ({ g: param(`${name}.g`).memoryOffset, b: param(`${name}.b`).memoryOffset });
    this.w = {
      wte: param("wte").memoryOffset,
      wpe: param("wpe").memoryOffset,
      head: info(this.head).id,
      lnf: norm("lnf"),
      blocks: Array.from({ length: model.config.layers }, (_, l) => ({
        ln1: norm(`h${l}.ln1`),
        qkv: linear(`h${l}.attn.qkv`),
        proj: linear(`h${l}.attn.proj`),
        ln2: norm(`h${l}.ln2`),
        fc: linear(`h${l}.mlp.fc`),
        out: linear(`h${l}.mlp.proj`),
      })),
    };
    const floats = { e1: C, e2: C, x: C, x2: C, h: C, qkv: 3 * C, att: heads * keys, probs: heads * keys, y: C, t: C, f: 4 * C, inner: 4 * C, sig: 4 * C, g: 4 * C, bias: keys, logits: V };
    this.buf = Object.fromEntries(Object.entries(floats).map(([name, n]) => [name, this.alloc(rows * n)])) as DirectDecoder["buf"];
    this.shapes = this.cpp._malloc(16 * 8) >>> 0; // unsigned, as tfjs keeps its memoryOffsets: an address past 2 GiB comes back negative
    this.logits = new Float32Array(rows * V);
  }

  /**
   * The (B, V) logits of one step (rows b: token `tokens[b]` at position `positions[b]`, left padding
   * `pad[b]`), as model.forward's in-place step over `caches` at generated position `pos` computes
   * them; this step's keys and values are written into the caches. The array is reused by the next step.
   */
  step(tokens: readonly number[], positions: readonly number[], pad: readonly number[], caches: readonly InPlaceCache[], pos: number): Float32Array {
    const { heads: H, dModel: C, vocab: V } = this.model.config;
    const D = C / H;
    const B = tokens.length;
    const P = caches[0].kT.shape[3];
    const cap = caches[0].kTGen.shape[3];
    const S = P + pos + 1;
    if (B > this.rows || S > this.keys) throw new RangeError(`a decoding step of ${B} rows over ${S} keys exceeds this decoder's ${this.rows} x ${this.keys}`);
    directDecodeCounts.steps++;
    const { cpp, buf, w } = this;
    const heap = new Float32Array(this.memory.buffer);
    const at = (t: tf.Tensor) => this.backend.dataIdMap.get(t.dataId)!.memoryOffset;
    // tf.gather's rows of wte and wpe (a copy), then tfjs's Add: x = wte[token] + wpe[position].
    for (let b = 0; b < B; b++) {
      heap.copyWithin((buf.e1.at >>> 2) + b * C, (w.wte >>> 2) + tokens[b] * C, (w.wte >>> 2) + (tokens[b] + 1) * C);
      heap.copyWithin((buf.e2.at >>> 2) + b * C, (w.wpe >>> 2) + positions[b] * C, (w.wpe >>> 2) + (positions[b] + 1) * C);
    }
    writeAttentionBias(heap.subarray(buf.bias.at >>> 2), pad, 1, S);
    const rowsC = this.shape(0, B, C);
    cpp._Add(buf.e1.id, rowsC, 2, buf.e2.id, rowsC, 2, FLOAT32, buf.x.id);
    // tf.fused.matMul((B, K), (K, N), bias): its kernel on (1, B, K) and (1, K, N).
    const dense = (x: Buffer, f: Linear, out: Buffer) => cpp.__FusedMatMul(x.id, this.shape(1, 1, B, f.K), 3, f.w, this.shape(2, 1, f.K, f.N), 3, 0, 0, LINEAR, f.b, 0, 0, out.id);
    const layerNorm = (x: Buffer, n: Norm, out: Buffer) => this.fused.layerNorm(x.at, n.g, n.b, out.at, B, C, C, EPS);
    const [x, x2] = [buf.x, buf.x2];
    w.blocks.forEach((block, l) => {
      const cache = caches[l];
      layerNorm(x, block.ln1, buf.h);
      dense(buf.h, block.qkv, buf.qkv);
      inPlaceScores(this.attention, buf.qkv.at, at(cache.kT), at(cache.kTGen), at(cache.vGen), buf.bias.at, buf.att.at, B * H, H, P, cap, pos, Math.fround(1 / Math.sqrt(D)));
      cpp._Softmax(buf.att.id, buf.probs.id, S, B * H);
      inPlaceValues(this.attention, buf.probs.at, at(cache.v), at(cache.vGen), buf.y.at, B * H, D, P, cap, pos);
      dense(buf.y, block.proj, buf.t);
      cpp._Add(x.id, rowsC, 2, buf.t.id, rowsC, 2, FLOAT32, x2.id);
      layerNorm(x2, block.ln2, buf.h);
      dense(buf.h, block.fc, buf.f);
      this.fused.geluInner(buf.f.at, buf.inner.at, B * 4 * C, GELU_A, GELU_C);
      // Sigmoid runs over its whole buffer (tfjs's takes the size registered): rows past B are unused.
      cpp._Sigmoid(buf.inner.id, buf.sig.id);
      const rows4C = this.shape(3, B, 4 * C);
      cpp._Multiply(buf.f.id, rows4C, 2, buf.sig.id, rows4C, 2, FLOAT32, buf.g.id);
      dense(buf.g, block.out, buf.t);
      cpp._Add(x2.id, rowsC, 2, buf.t.id, rowsC, 2, FLOAT32, x.id);
    });
    layerNorm(x, w.lnf, buf.h);
    // tf.matMul((B, C), head (C, V)): tfjs's BatchMatMul kernel on (1, B, C) and (1, C, V).
    cpp._BatchMatMul(buf.h.id, this.shape(1, 1, B, C), 3, w.head, this.shape(2, 1, C, V), 3, 0, 0, buf.logits.id);
    const out = this.logits.subarray(0, B * V);
    out.set(new Float32Array(this.memory.buffer, buf.logits.at, B * V));
    return out;
  }

  dispose(): void {
    for (const b of this.buffers) this.backend.disposeData(b.dataId);
    this.cpp._free(this.shapes);
    if (this.model.config.tiedHead) this.head.dispose();
  }

  private alloc(floats: number): Buffer {
    const { dataId } = this.backend.makeOutput([floats], "float32");
    const { id, memoryOffset } = this.backend.dataIdMap.get(dataId)!;
    const b = { dataId, id, at: memoryOffset };
    this.buffers.push(b);
    return b;
  }

  /** Writes `dims` into shape slot `slot` of the heap and returns its address. */
  private shape(slot: number, ...dims: number[]): number {
    const ptr = this.shapes + 16 * slot;
    new Int32Array(this.memory.buffer, ptr, dims.length).set(dims);
    return ptr;
  }
}
