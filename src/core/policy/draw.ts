/**
 * The arithmetic of one draw (sampler.ts, drawToken): softmax weights over the grammar's allowed
 * tokens, the token a uniform number picks, and the allowed set as a bit mask. Two implementations
 * that give the same bits: JsDraw here, and WasmDraw (kernels/wasm-draw.ts), used where WebAssembly
 * runs (sampler.ts picks one per sampling call). WasmDraw imports this file, never the reverse.
 */

/** A draw's scratch and steps, for up to the rows of one sampling call. */
export interface Draw {
  /** The grammar's mask for the row being drawn (1 = allowed), filled by the caller. */
  readonly allowed: Uint8Array;
  /** weight[t]: token t's weight, exp(logit / temperature - max), after weigh. */
  readonly weight: Float64Array;
  /** order[0..n): the allowed tokens in increasing order after weigh (the caller may narrow and reorder them). */
  readonly order: Int32Array;
  /** Takes a step's logits (rows, V). */
  load(logits: Float32Array): void;
  /**
   * Weighs the allowed tokens of the row whose logits start at float `from`: returns their count n;
   * then `max` holds the largest logit / temperature and, when n > 0 and max is finite, `total` the
   * weights' sum, in order.
   */
  weigh(from: number, temperature: number): number;
  readonly max: number;
  readonly total: number;
  /** The first of order[0..n) at which u - weight[order[0]] - ... goes below 0; else order[n - 1]. */
  pick(u: number, n: number): number;
  /** ORs the bit mask of order[0..n) into `dst` at byte `at`. */
  pack(n: number, dst: Uint8Array, at: number): void;
}

/** The draw in JavaScript: where WebAssembly does not run, and the benchmark's "before". */
export class JsDraw implements Draw {
  readonly allowed: Uint8Array;
  readonly weight: Float64Array;
  readonly order: Int32Array;
  max = -Infinity;
  total = 0;
  private logits: Float32Array = new Float32Array(0);

  constructor(readonly V: number) {
    this.allowed = new Uint8Array(V);
    this.weight = new Float64Array(V);
    this.order = new Int32Array(V);
  }

  load(logits: Float32Array): void {
    this.logits = logits;
  }

  weigh(from: number, temperature: number): number {
    const { allowed, weight, order, logits, V } = this;
    let max = -Infinity;
    let n = 0;
    // weight[t] holds logits[t] / temperature, then exp(that - max): each quotient computed once.
    for (let t = 0; t < V; t++) {
      if (allowed[t]) {
        order[n++] = t;
        const z = logits[from + t] / temperature;
        weight[t] = z;
        if (z > max) max = z;
      }
    }
    this.max = max;
    if (n === 0 || !Number.isFinite(max)) return n;
    let total = 0;
    for (let i = 0; i < n; i++) {
      const t = order[i];
      weight[t] = Math.exp(weight[t] - max);
      total += weight[t];
    }
    this.total = total;
    return n;
  }

  pick(u: number, n: number): number {
    const { weight, order } = this;
    for (let i = 0; i < n; i++) {
      u -= weight[order[i]];
      if (u < 0) return order[i];
    }
    return order[n - 1];
  }

  pack(n: number, dst: Uint8Array, at: number): void {
    const { order } = this;
    for (let i = 0; i < n; i++) dst[at + (order[i] >> 3)] |= 1 << (order[i] & 7);
  }
}
