/**
 * Batched, grammar-constrained sampling from a GptModel.
 *
 * All rows decode together. Prompts of different lengths are LEFT-padded to the longest one; each
 * row's positions start at 0 at its first real token and padded keys are masked out of attention,
 * so a row's logits do not depend on its padding. A KV cache keeps each block's keys/values, so
 * a step feeds one token per row (set `kvCache: false` to recompute the whole prefix, for checks).
 * Rows with the same prompt (a task's G programs) share one prefill, whose logits and cache rows are
 * copied to each: every operation of the forward works row by row, so a copy holds the same bits the
 * row would have computed itself (set `sharePrefill: false` to prefill every row, for checks). For the
 * same reason finished rows leave the batch (their cache rows dropped once a quarter of the batch has
 * finished) without changing anyone's draws (`dropFinished: false` keeps them, for checks).
 *
 * On wasm the cache is kept in place and each decoding step runs without tfjs's engine
 * (wasm-decode-step.ts: the same kernels and bits).
 *
 * Per step there is exactly ONE device-to-host read: the (B, V) logits of the new position. The
 * grammar mask, temperature, top-p and the draw happen on the host with the seeded Rng (the draw's
 * arithmetic in WebAssembly where it runs, draw.ts: the same bits as in JavaScript).
 *
 * The sampling distribution, which the PPO ratio in grpo.ts uses on both sides:
 *   pi(a | s) = softmax(logits / temperature) restricted to the stored allowed set A(s),
 * where A(s) is the grammar's allowed set intersected with the top-p nucleus chosen at sampling time.
 * With top_p = 1 (the paper's training setting) A(s) is the grammar mask. The rollout stores A(s)
 * for every generated token and the update re-applies exactly that set and temperature, so the old
 * log-probs returned here and the new ones computed in the update are of the same distribution.
 */
import * as tf from "@tensorflow/tfjs";
import type { TokenConstraint } from "../decoding.ts";
import type { Rng } from "../rng.ts";
import { type Draw, JsDraw } from "./draw.ts";
import { attentionBias, type GptModel, type LayerCache } from "./model.ts";
import { inPlaceCache, inPlaceCacheAvailable, type InPlaceCache } from "./kernels/wasm-decode-attention.ts";
import { DirectDecoder, directDecodeAvailable } from "./kernels/wasm-decode-step.ts";
import { WasmDraw } from "./kernels/wasm-draw.ts";

export interface SampleOptions {
  /** Most tokens generated per row; rows stop earlier when their constraint is done. */
  maxNewTokens: number;
  /** Softmax temperature (> 0). Paper: 1.0 for training, 0.7 for evaluation. */
  temperature?: number;
  /** Nucleus mass in (0, 1]; 1 keeps every grammar-allowed token. */
  topP?: number;
  /** Seeded generator; draws one number per live row per step, rows in order. */
  rng: Rng;
  /** Reuse attention keys/values across steps (default true; see the policy benchmark). */
  kvCache?: boolean;
  /** Prefill each distinct prompt once (default true, with the KV cache); same rollout either way. */
  sharePrefill?: boolean;
  /** Take finished rows out of the batch (default true); same rollout either way. */
  dropFinished?: boolean;
  /** Leave the prompts' left padding out of the per-position work (default true); same rollout either way. */
  skipPadding?: boolean;
}

/** What one batched sampling call produced; plain arrays, so it crosses worker boundaries. */
export interface Rollout {
  prompts: number[][];
  /** Generated tokens per row (the end token included when the constraint finished). */
  completions: number[][];
  /** log pi(token) per generated token, under the distribution described above. */
  logProbs: Float32Array[];
  /** Allowed set A(s) per generated token, packed bits: token j's set at bytes [j*W, (j+1)*W), W = ceil(V/8). */
  masks: Uint8Array[];
  /** True when the row's constraint completed; false when maxNewTokens cut it. */
  done: boolean[];
  temperature: number;
  vocab: number;
}

export class SamplingError extends Error {
  override name = "SamplingError";
}

/** Bytes per packed mask of a vocabulary. */
export function maskBytes(vocab: number): number {
  return Math.ceil(vocab / 8);
}

/** Rows left-padded with token 0 to the longest: (B, T) tokens, per-row positions, pad per row. */
export interface LeftPadded {
  tokens: number[][];
  positions: number[][];
  pad: number[];
}

/**
 * Positions of the last T of S left-padded columns: each row counts from 0 at its first real token
 * (padding sits at 0 too; attentionBias hides it).
 */
export function paddedPositions(pad: readonly number[], T: number, S: number): number[][] {
  return pad.map((pd) => Array.from({ length: T }, (_, t) => Math.max(0, S - T + t - pd)));
}

/** `rows` left-padded to the longest, as the sampler lays out its prompts. */
export function leftPad(rows: readonly (readonly number[])[]): LeftPadded {
  const T = Math.max(...rows.map((r) => r.length));
  const pad = rows.map((r) => T - r.length);
  return { tokens: rows.map((r, b) => [...new Array<number>(pad[b]).fill(0), ...r]), positions: paddedPositions(pad, T, T), pad };
}

export async function sampleBatch<S>(
  model: GptModel,
  prompts: readonly (readonly number[])[],
  constraint: TokenConstraint<S> | readonly TokenConstraint<S>[],
  opts: SampleOptions,
): Promise<Rollout> {
  const { vocab: V, context } = model.config;
  const temperature = opts.temperature ?? 1;
  const topP = opts.topP ?? 1;
  const kvCache = opts.kvCache ?? true;
  const B = prompts.length;
  if (B === 0) throw new SamplingError("sample needs at least one prompt");
  // One grammar for every row, or one per row (rows of different tasks decode in one batch).
  const rowConstraint: readonly TokenConstraint<S>[] = Array.isArray(constraint) ? constraint : prompts.map(() => constraint as TokenConstraint<S>);
  if (rowConstraint.length !== B) throw new SamplingError(`${rowConstraint.length} constraints for ${B} prompts`);
  for (const c of rowConstraint) {
    if (c.vocabSize !== V) throw new SamplingError(`constraint vocabulary ${c.vocabSize} differs from the model's ${V}`);
  }
  if (!(temperature > 0)) throw new SamplingError(`temperature must be > 0, got ${temperature}`);
  if (!(topP > 0 && topP <= 1)) throw new SamplingError(`topP must be in (0, 1], got ${topP}`);
  if (!Number.isInteger(opts.maxNewTokens) || opts.maxNewTokens < 1) {
    throw new SamplingError(`maxNewTokens must be a positive integer, got ${opts.maxNewTokens}`);
  }
  prompts.forEach((p, b) => {
    if (p.length === 0) throw new SamplingError(`prompt ${b} is empty: start every prompt with a BOS token`);
    for (const t of p) if (!Number.isInteger(t) || t < 0 || t >= V) throw new SamplingError(`prompt ${b} has token ${t} outside [0, ${V})`);
  });
  const P = Math.max(...prompts.map((p) => p.length));
  if (P + opts.maxNewTokens > context) {
    throw new SamplingError(`longest prompt ${P} + maxNewTokens ${opts.maxNewTokens} exceeds the model context ${context}`);
  }

  const W = maskBytes(V);
  const { tokens: padded, pad } = leftPad(prompts);
  const states = rowConstraint.map((c) => c.start());
  const done = prompts.map(() => false);
  const completions: number[][] = prompts.map(() => []);
  const logProbs = prompts.map(() => new Float32Array(opts.maxNewTokens));
  const masks = prompts.map(() => new Uint8Array(opts.maxNewTokens * W));
  // The draws' arithmetic, in WebAssembly where it can run (draw.ts, kernels/wasm-draw.ts).
  const draw: Draw = WasmDraw.create(B, V) ?? new JsDraw(V);
  states.forEach((s, b) => (done[b] = rowConstraint[b].isDone(s)));

  // (B, P) left-padded prompt tokens and per-row positions; `history` grows as tokens are drawn.
  // The cache is two segments per block: the prompt's keys/values (fixed after the first step) and
  // the generated tokens' (grown by one position per step), so a step copies only the generated part.
  const history: number[][] = padded;
  const draws: Draws<S> = { V, W, constraints: rowConstraint, states, done, completions, logProbs, masks, history, temperature, topP, rng: opts.rng, draw };
  // distinct[u]: the first row with the u-th distinct prompt; ofRow[b]: row b's u.
  const firstRow = new Map<string, number>();
  const ofRow = prompts.map((p) => {
    const key = p.join(",");
    if (!firstRow.has(key)) firstRow.set(key, firstRow.size);
    return firstRow.get(key)!;
  });
  const distinct = [...new Set(ofRow)].map((u) => ofRow.indexOf(u));
  const sharePrefill = kvCache && (opts.sharePrefill ?? true) && distinct.length < B;
  const dropFinished = opts.dropFinished ?? true;
  const skipPadding = opts.skipPadding ?? true;
  // The rows in the batch, in cache order: all of them until finished ones are dropped.
  let batchRows = prompts.map((_, b) => b);
  let promptCache: LayerCache[] | undefined;
  let genCache: LayerCache[] | undefined;
  // On wasm the cache is kept in place instead (wasm-decode-attention.ts): preallocated, written one
  // position per step, the same bits.
  const inPlace = kvCache && inPlaceCacheAvailable(model.config.dModel / model.config.heads);
  let inPlaceCaches: InPlaceCache[] | undefined;
  // And its decoding steps run without tfjs's engine (wasm-decode-step.ts), the same kernels; the
  // decoder (its buffers) is made at the first decoding step.
  const useDirect = inPlace && directDecodeAvailable(model);
  let direct: DirectDecoder | undefined;
  /** Logits (rows in the batch, V) of a decoding step over the in-place cache, without the engine. */
  const directStep = (): Float32Array => {
    direct ??= new DirectDecoder(model, B, P + opts.maxNewTokens);
    const S = history[batchRows[0]].length;
    const rowPad = batchRows.map((b) => pad[b]);
    return direct.step(batchRows.map((b) => history[b][S - 1]), paddedPositions(rowPad, 1, S).map((p) => p[0]), rowPad, inPlaceCaches!, S - 1 - P);
  };
  const disposeCache = (c: LayerCache[] | undefined) => c?.forEach((x) => { x.k.dispose(); x.v.dispose(); });
  const disposeInPlace = () => inPlaceCaches?.forEach((c) => tf.dispose([c.kT, c.v, c.kTGen, c.vGen]));
  /** Keep only the unfinished rows: in the batch, and in both cache segments (axis 0). */
  const dropFinishedRows = () => {
    const keep = batchRows.flatMap((b, i) => (done[b] ? [] : [i]));
    if (kvCache) {
      const idx = tf.tensor1d(keep, "int32");
      const gather = (c: LayerCache[] | undefined) => c?.map((x) => ({ k: tf.gather(x.k, idx, 0), v: tf.gather(x.v, idx, 0) }));
      const [p, g] = [gather(promptCache), gather(genCache)];
      const kept = inPlaceCaches?.map((c) => ({ kT: tf.gather(c.kT, idx, 0), v: tf.gather(c.v, idx, 0), kTGen: tf.gather(c.kTGen, idx, 0), vGen: tf.gather(c.vGen, idx, 0) }));
      idx.dispose();
      disposeCache(promptCache);
      disposeCache(genCache);
      disposeInPlace();
      [promptCache, genCache, inPlaceCaches] = [p, g, kept];
    }
    batchRows = keep.map((i) => batchRows[i]);
  };
  const step = (first: boolean): tf.Tensor3D =>
    tf.tidy(() => {
      const S = history[batchRows[0]].length;
      const T = first || !kvCache ? S : 1;
      // The shared prefill runs the distinct prompts' rows, then copies each result to its rows.
      const rows = first && sharePrefill ? distinct : batchRows;
      const rowPad = rows.map((b) => pad[b]);
      const toks = rows.map((b) => history[b].slice(history[b].length - T));
      const pos = paddedPositions(rowPad, T, S);
      const past = kvCache && !first && !inPlace ? promptCache!.map((p, l) => (genCache ? [p, genCache[l]] : [p])) : undefined;
      const out = model.forward({
        tokens: tf.tensor2d(toks, [rows.length, T], "int32"),
        positions: tf.tensor2d(pos, [rows.length, T], "int32"),
        attnBias: attentionBias(rowPad, T, S),
        leftPad: skipPadding ? rowPad : undefined,
        past,
        growLast: true,
        lastOnly: true,
        // The token fed is generated token S - 1 - P (history holds P prompt columns, then the draws).
        ...(inPlace && !first ? { inPlace: { caches: inPlaceCaches!, pos: S - 1 - P } } : {}),
      });
      if (first && rows.length < B) {
        const spread = tf.tensor1d(ofRow, "int32");
        out.logits = tf.gather(out.logits, spread, 0); // (U, 1, V) -> (B, 1, V)
        out.present = out.present.map((c) => ({ k: tf.gather(c.k, spread, 0), v: tf.gather(c.v, spread, 0) })); // (U, H, P, D) -> (B, H, P, D)
      }
      if (inPlace) {
        if (first) inPlaceCaches = out.present.map((c) => inPlaceCache(c.k, c.v, opts.maxNewTokens)).map((c) => ({ kT: tf.keep(c.kT), v: tf.keep(c.v), kTGen: tf.keep(c.kTGen), vGen: tf.keep(c.vGen) }));
      } else if (kvCache) {
        // First step: the prompt segment; later: the generated segment, grown by this step's token.
        const kept = out.present.map((c) => ({ k: tf.keep(c.k), v: tf.keep(c.v) }));
        if (first) promptCache = kept;
        else {
          disposeCache(genCache);
          genCache = kept;
        }
      }
      return out.logits;
    });

  try {
    for (let i = 0; i < opts.maxNewTokens; i++) {
      if (done.every(Boolean)) break;
      let logits: Float32Array;
      if (useDirect && i > 0) logits = directStep();
      else {
        const logitsT = step(i === 0);
        logits = (await logitsT.data()) as Float32Array; // the one device->host read of this step
        logitsT.dispose();
      }
      drawStep(logits, batchRows, draws);
      const finished = batchRows.filter((b) => done[b]).length;
      // Dropping copies the caches, so it waits until a quarter of the batch is idle.
      if (dropFinished && finished < batchRows.length && finished * 4 >= batchRows.length) dropFinishedRows();
    }
  } finally {
    direct?.dispose();
    disposeCache(promptCache);
    disposeCache(genCache);
    disposeInPlace();
  }
  return {
    prompts: prompts.map((p) => [...p]),
    completions,
    logProbs: logProbs.map((lp, b) => lp.slice(0, completions[b].length)),
    masks: masks.map((m, b) => m.slice(0, completions[b].length * W)),
    done,
    temperature,
    vocab: V,
  };
}

/** What a sampling call's draws read and write, row by row: one object per call (a steady shape for V8's optimiser). */
interface Draws<S> {
  V: number;
  /** Bytes per packed mask. */
  W: number;
  constraints: readonly TokenConstraint<S>[];
  states: S[];
  done: boolean[];
  completions: number[][];
  logProbs: Float32Array[];
  masks: Uint8Array[];
  /** Each row's tokens so far (prompt, then draws). */
  history: number[][];
  temperature: number;
  topP: number;
  rng: Rng;
  draw: Draw;
}

/**
 * The host side of a decoding step: one token for each unfinished row of the batch (`batchRows`, in
 * cache order) from its logits, rows in order. A function of its own, apart from sampleBatch's long
 * body, so V8 optimises this hot loop once instead of re-optimising sampleBatch (over 100 ms of
 * compiler time on a helper thread) whenever one of its many objects changes shape.
 */
function drawStep<S>(logits: Float32Array, batchRows: readonly number[], d: Draws<S>): void {
  const { V, W } = d;
  d.draw.load(logits);
  for (let r = 0; r < batchRows.length; r++) {
    const b = batchRows[r];
    if (d.done[b]) {
      d.history[b].push(0); // a finished row still in the batch keeps it rectangular; its outputs are ignored
      continue;
    }
    const j = d.completions[b].length;
    const { token, logProb } = drawToken(r * V, d.constraints[b], d.states[b], d.temperature, d.topP, d.rng, d.draw, d.masks[b], j * W, b);
    d.states[b] = d.constraints[b].advance(d.states[b], token);
    d.completions[b].push(token);
    d.logProbs[b][j] = logProb;
    d.history[b].push(token);
    d.done[b] = d.constraints[b].isDone(d.states[b]);
  }
}

/**
 * One draw from softmax(logits / T) over the V logits at `from` of the step's (loaded into `draw`),
 * restricted to the grammar mask and the top-p nucleus; writes the final allowed set into `packed` at
 * byte `at` and returns the token and its log-probability under that set. (Offsets, not subarrays:
 * 6000 views a sampling call were garbage.)
 */
function drawToken<S>(
  from: number,
  constraint: TokenConstraint<S>,
  state: S,
  temperature: number,
  topP: number,
  rng: Rng,
  draw: Draw,
  packed: Uint8Array,
  at: number,
  row: number,
): { token: number; logProb: number } {
  const { allowed, weight, order } = draw;
  allowed.fill(0);
  constraint.allowed(state, allowed);
  let n = draw.weigh(from, temperature);
  if (n === 0) throw new SamplingError(`row ${row}: the constraint allows no token but is not done (grammar bug)`);
  if (!Number.isFinite(draw.max)) throw new SamplingError(`row ${row}: logits are not finite (diverged weights?)`);
  let total = draw.total;
  if (topP < 1) {
    // Smallest set of most likely tokens whose mass reaches topP (ties broken by token id).
    const sorted = Array.from(order.subarray(0, n)).sort((a, c) => weight[c] - weight[a] || a - c);
    let kept = 0;
    let mass = 0;
    while (kept < n && mass < topP * total) mass += weight[sorted[kept++]];
    n = kept;
    for (let i = 0; i < n; i++) order[i] = sorted[i];
    order.subarray(0, n).sort();
    total = mass;
  }
  const token = draw.pick(rng.next() * total, n);
  draw.pack(n, packed, at);
  return { token, logProb: Math.log(weight[token] / total) };
}
