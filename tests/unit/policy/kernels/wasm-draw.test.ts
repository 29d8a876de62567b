/**
 * The sampler's draw in WebAssembly (wasm-draw.ts) against JavaScript, bit for bit: its exp against
 * Math.exp over a million arguments and every branch of V8's exp; weigh, pick and pack of WasmDraw
 * and JsDraw (draw.ts) against the sampler's JavaScript draw over rows built to take every path (two
 * exps at once on the main or the k = 0 path, one at a time elsewhere, odd counts, masked tokens,
 * infinite and NaN logits); and sampled rollouts (tokens, log-probabilities, allowed sets) with the
 * flag off and on.
 */
import * as tf from "@tensorflow/tfjs";
import { beforeAll, describe, expect, it } from "vitest";
import { type Draw, JsDraw } from "../../../../src/core/policy/draw.ts";
import { GptModel } from "../../../../src/core/policy/model.ts";
import { sampleBatch, SamplingError } from "../../../../src/core/policy/sampler.ts";
import { ToyConstraint, TOY_BOS } from "../../../../src/core/policy/toy-constraint.ts";
import { WASM_DRAW_FLAG, WasmDraw, wasmExp } from "../../../../src/core/policy/kernels/wasm-draw.ts";
import { Rng } from "../../../../src/core/rng.ts";
import { setupBackend, withFlag } from "../helpers.ts";

beforeAll(setupBackend);

const bits64 = (a: Float64Array) => new BigUint64Array(Float64Array.from(a).buffer);
const double = (hi: number, lo: number) => {
  const v = new DataView(new ArrayBuffer(8));
  v.setUint32(0, hi >>> 0);
  v.setUint32(4, lo >>> 0);
  return v.getFloat64(0);
};

/** The sampler's draw arithmetic as it was in JavaScript before draw.ts (drawToken with topP = 1). */
function jsWeigh(logits: Float32Array, allowed: Uint8Array, temperature: number) {
  const V = logits.length;
  const weight = new Float64Array(V);
  const order: number[] = [];
  let max = -Infinity;
  for (let t = 0; t < V; t++) {
    if (allowed[t]) {
      order.push(t);
      const z = logits[t] / temperature;
      weight[t] = z;
      if (z > max) max = z;
    }
  }
  let total = 0;
  if (order.length > 0 && Number.isFinite(max)) {
    for (const t of order) {
      weight[t] = Math.exp(weight[t] - max);
      total += weight[t];
    }
  }
  return { n: order.length, max, total, weight, order };
}

describe("the draw in WebAssembly", () => {
  it("has V8's exp: Math.exp's bits over a million arguments and every branch", () => {
    const rng = new Rng("exp");
    const xs: number[] = [];
    const v = new DataView(new ArrayBuffer(8));
    for (let i = 0; i < 250_000; i++) {
      xs.push(-760 * rng.next()); // the sampler's range (x <= 0), down past underflow
      xs.push(-2 * rng.next()); // around the k = 0 and k = -1 paths
      xs.push(1500 * (rng.next() - 0.5)); // both signs, overflow
      v.setUint32(0, Math.floor(rng.next() * 2 ** 32));
      v.setUint32(4, Math.floor(rng.next() * 2 ** 32));
      xs.push(v.getFloat64(0)); // any double: NaNs, infinities, subnormals
    }
    // Each branch's edges: the filter (|x| >= 709.78), the thresholds, 0.5 ln2, 1.5 ln2, 2^-28, exp(1),
    // and the 2^(k + 1000) scaling of subnormal results.
    const edges = [
      [0x40862e42, 0], [0x40862e41, 0xffffffff], [0x40862e42, 0xfefa39ef], [0x40862e42, 0xfefa39f0], [0xc0874910, 0xd52d3051], [0xc0874910, 0xd52d3052],
      [0x3fd62e42, 0xffffffff], [0x3fd62e43, 0], [0x3ff0a2b1, 0xffffffff], [0x3ff0a2b2, 0], [0x3e2fffff, 0xffffffff], [0x3e300000, 0],
      [0x7ff00000, 0], [0x7ff00000, 1], [0x7ff80000, 0], [0, 1], [0x000fffff, 0xffffffff],
    ];
    for (const [hi, lo] of edges) xs.push(double(hi, lo), -double(hi, lo));
    for (let x = -745.2; x < -707; x += 0.01) xs.push(x); // k < -1021: subnormal results
    xs.push(0, -0, 1, -1, 709.78, -708.4, Math.LN2, -Math.LN2, 0.5 * Math.LN2, -0.5 * Math.LN2, 1.5 * Math.LN2, -1.5 * Math.LN2);
    const args = Float64Array.from(xs);
    const got = bits64(wasmExp(args));
    const want = bits64(args.map(Math.exp));
    const differ = [...args].filter((x, i) => got[i] !== want[i] && !Number.isNaN(x));
    expect(differ.slice(0, 5)).toEqual([]);
    // NaN in, NaN out.
    args.forEach((x, i) => Number.isNaN(x) && expect(Number.isNaN(new Float64Array(got.buffer)[i])).toBe(true));
  });

  for (const kind of ["WasmDraw", "JsDraw"] as const) {
    it(`weighs, picks and packs as the sampler's JavaScript did, over rows that take every path (${kind})`, () => {
      const V = 61; // odd: pairs and a last single one
      const rows = 8;
      const draw: Draw = kind === "WasmDraw" ? WasmDraw.create(rows, V)! : new JsDraw(V);
      expect(draw).not.toBeNull();
      const rng = new Rng("weigh");
      const W = Math.ceil(V / 8);
      let checked = 0;
      for (let trial = 0; trial < 400; trial++) {
        // Row r's logits at a scale from 1e-9 (every exp near 1: the k = 0 and tiny paths) to 1e4 (exps
        // below -707: one at a time, subnormal or zero), with ties, and sometimes infinite or NaN logits.
        const logits = new Float32Array(rows * V);
        for (let r = 0; r < rows; r++) {
          const scale = 10 ** (-9 + 13 * rng.next());
          for (let t = 0; t < V; t++) logits[r * V + t] = rng.next() < 0.1 ? 3 : scale * (rng.next() * 2 - 1);
          if (trial % 50 === 7) logits[r * V + rng.int(V)] = [Infinity, -Infinity, NaN][r % 3];
        }
        // Row 0 of every tenth trial: the edges between the paths, paired with each other (max 0, temperature 1).
        if (trial % 10 === 0) {
          const edges = [0, double(0x3fd62e43, 0), double(0x3fd62e42, 0), double(0x3e300000, 0), double(0x3e2fffff, 0xe0000000), 707, 707.0001, 708.5, 746, 1e-30, 0.5, 1];
          for (let t = 0; t < V; t++) logits[t] = -edges[(t * 7 + trial) % edges.length];
        }
        draw.load(logits);
        for (let r = 0; r < rows; r++) {
          const allowed = Uint8Array.from({ length: V }, () => (rng.next() < [0.9, 0.5, 0.02, 0][r % 4] || (r === 0 && trial % 10 === 0) ? 1 : 0));
          const temperature = r === 0 && trial % 10 === 0 ? 1 : [1, 0.7, 1.3, 1e-3][trial % 4];
          const want = jsWeigh(logits.subarray(r * V, (r + 1) * V), allowed, temperature);
          draw.allowed.set(allowed);
          const n = draw.weigh(r * V, temperature);
          expect(n).toBe(want.n);
          expect(Object.is(draw.max, want.max)).toBe(true);
          if (n === 0 || !Number.isFinite(want.max)) continue;
          expect([...draw.order.subarray(0, n)]).toEqual(want.order);
          expect(Object.is(draw.total, want.total)).toBe(true);
          const got = bits64(Float64Array.from(want.order, (t) => draw.weight[t]));
          expect(got).toEqual(bits64(Float64Array.from(want.order, (t) => want.weight[t])));
          // pick: u across [0, total], with u on the edges between tokens and past the total.
          const w0 = want.weight[want.order[0]];
          for (const u of [0, rng.next() * want.total, want.total, want.total * 2, w0, w0 + want.weight[want.order[n > 1 ? 1 : 0]]]) {
            let rest = u;
            let token = want.order[n - 1];
            for (const t of want.order) {
              rest -= want.weight[t];
              if (rest < 0) {
                token = t;
                break;
              }
            }
            expect(draw.pick(u, n)).toBe(token);
          }
          const packed = new Uint8Array(2 * W).fill(0x80);
          draw.pack(n, packed, W);
          const wantPacked = new Uint8Array(2 * W).fill(0x80);
          for (const t of want.order) wantPacked[W + (t >> 3)] |= 1 << (t & 7);
          expect(packed).toEqual(wantPacked);
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(1000);
    });
  }

  it("is not made with the flag off", async () => {
    expect(await withFlag(WASM_DRAW_FLAG, false, () => WasmDraw.create(4, 10))).toBeNull();
    expect(WasmDraw.create(4, 10)).not.toBeNull();
  });

  it("samples the rollouts of the JavaScript draw, token for token", async () => {
    const V = 29;
    const model = GptModel.init({ layers: 2, heads: 2, dModel: 16, context: 40, vocab: V, tiedHead: false }, new Rng("rollouts"));
    const grammar = new ToyConstraint(V, 3, 12);
    const prompts = [[TOY_BOS], [TOY_BOS, 5, 6, 7, 8], [TOY_BOS, 9], [TOY_BOS, 3, 4, 3, 4, 3, 4, 3], [TOY_BOS, 5, 6, 7, 8]];
    for (const opts of [{ temperature: 1 }, { temperature: 0.7, topP: 0.9 }, { temperature: 0.05 }, { temperature: 2.5, topP: 0.5 }]) {
      const run = (on: boolean) => withFlag(WASM_DRAW_FLAG, on, () => sampleBatch(model, prompts, grammar, { maxNewTokens: 14, rng: new Rng(11), ...opts }));
      const [js, wasm] = [await run(false), await run(true)];
      expect(wasm.completions).toEqual(js.completions);
      wasm.logProbs.forEach((lp, b) => expect(bits64(Float64Array.from(lp))).toEqual(bits64(Float64Array.from(js.logProbs[b]))));
      expect(wasm.masks).toEqual(js.masks);
    }
    model.dispose();
  });

  it("keeps the sampler's errors: no allowed token, logits not finite", async () => {
    const V = 12;
    const model = GptModel.init({ layers: 1, heads: 2, dModel: 8, context: 16, vocab: V, tiedHead: true }, new Rng("errors"));
    const none = { vocabSize: V, start: () => 0, allowed: () => {}, advance: (s: number) => s + 1, isDone: () => false };
    await expect(sampleBatch(model, [[TOY_BOS]], none, { maxNewTokens: 2, rng: new Rng(1) })).rejects.toThrow(/allows no token/);
    model.params.get("lnf.b")!.assign(tf.fill([8], NaN));
    await expect(sampleBatch(model, [[TOY_BOS]], new ToyConstraint(V), { maxNewTokens: 2, rng: new Rng(1) })).rejects.toThrow(SamplingError);
    await expect(sampleBatch(model, [[TOY_BOS]], new ToyConstraint(V), { maxNewTokens: 2, rng: new Rng(1) })).rejects.toThrow(/not finite/);
    model.dispose();
  });
});
