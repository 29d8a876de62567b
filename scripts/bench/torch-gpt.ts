/**
 * The bridge to torch_gpt.py, the PyTorch twin of the policy GPT (src/core/policy/model.ts), for the
 * policy benchmark's comparison and its parity test.
 *
 * Weights travel as two files: `<stem>.json`, a header {format, config, params: [{name, shape}],
 * data}, and `<stem>.bin` (the header's `data`), every parameter as float32 little-endian, back to
 * back in parameterShapes order. The interpreter is $TORCH_PYTHON, else /usr/bin/python3 (Debian's
 * python3-torch; the python3 on PATH may be another build without torch). Nothing here is needed
 * by the app or CI: without torch the benchmark prints one line and the parity test is skipped.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as tf from "@tensorflow/tfjs";
import type { GrpoSample } from "../../src/core/policy/batch.ts";
import { benchPolicyOptions, benchRow, benchWorkload, medianRun, pairedRatio, type PolicyBenchResult, type RunFigure } from "../../src/core/policy/bench-workload.ts";
import { decodeCheckpoint } from "../../src/core/policy/checkpoint.ts";
import { type ModelConfig, type ModelSize, validateModelConfig } from "../../src/core/policy/config.ts";
import { attentionBias, GptModel, parameterShapes } from "../../src/core/policy/model.ts";
import { Policy, type UpdateMetrics } from "../../src/core/policy/policy.ts";
import type { TrainConfig } from "../../src/core/policy/train-config.ts";
import { leftPad, type LeftPadded } from "../../src/core/policy/sampler.ts";

export const RAW_WEIGHTS_FORMAT = "code-a1-gpt-f32le/1";
const SCRIPT = fileURLToPath(new URL("./torch_gpt.py", import.meta.url));

export interface RawWeightsHeader {
  format: typeof RAW_WEIGHTS_FORMAT;
  config: ModelConfig;
  params: { name: string; shape: number[] }[];
  /** File name of the float32 data, next to the header. */
  data: string;
}

export class TorchBridgeError extends Error {
  override name = "TorchBridgeError";
}

/** Header and little-endian bytes of `weights` (checkpoint order, as GptModel.weights() gives). */
export function encodeRawWeights(config: ModelConfig, weights: readonly Float32Array[], data: string): { header: RawWeightsHeader; bytes: Uint8Array } {
  validateModelConfig(config);
  const params = parameterShapes(config).map(([name, shape]) => ({ name, shape }));
  if (weights.length !== params.length) throw new TorchBridgeError(`expected ${params.length} weight arrays for this config, got ${weights.length}`);
  const floats = weights.reduce((a, w, i) => {
    const n = params[i].shape.reduce((x, y) => x * y, 1);
    if (w.length !== n) throw new TorchBridgeError(`weight ${params[i].name}: expected ${n} values, got ${w.length}`);
    return a + n;
  }, 0);
  const bytes = new Uint8Array(floats * 4);
  const view = new DataView(bytes.buffer);
  let offset = 0;
  for (const w of weights) {
    for (let i = 0; i < w.length; i++) view.setFloat32(offset + 4 * i, w[i], true);
    offset += w.length * 4;
  }
  return { header: { format: RAW_WEIGHTS_FORMAT, config, params, data }, bytes };
}

/** The weights back from a header and its data bytes; rejects a header that does not match its config. */
export function decodeRawWeights(header: RawWeightsHeader, bytes: Uint8Array): Float32Array[] {
  if (header.format !== RAW_WEIGHTS_FORMAT) throw new TorchBridgeError(`weights format "${header.format}", expected "${RAW_WEIGHTS_FORMAT}"`);
  validateModelConfig(header.config);
  const expected = parameterShapes(header.config).map(([name, shape]) => ({ name, shape }));
  if (JSON.stringify(expected) !== JSON.stringify(header.params)) throw new TorchBridgeError("weights header's parameter table does not match its config");
  const sizes = expected.map((p) => p.shape.reduce((x, y) => x * y, 1));
  const floats = sizes.reduce((a, b) => a + b, 0);
  if (bytes.length !== floats * 4) throw new TorchBridgeError(`weights data is ${bytes.length} bytes, expected ${floats * 4}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 0;
  return sizes.map((n) => {
    const w = new Float32Array(n);
    for (let i = 0; i < n; i++) w[i] = view.getFloat32(offset + 4 * i, true);
    offset += n * 4;
    return w;
  });
}

/** Write `<dir>/<stem>.json` and `<dir>/<stem>.bin`; returns the header's path (what torch_gpt.py takes). */
export function writeRawWeights(dir: string, stem: string, config: ModelConfig, weights: readonly Float32Array[]): string {
  const { header, bytes } = encodeRawWeights(config, weights, `${stem}.bin`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, header.data), bytes);
  const path = join(dir, `${stem}.json`);
  writeFileSync(path, JSON.stringify(header));
  return path;
}

/** The interpreter that should have torch: $TORCH_PYTHON, else Debian's /usr/bin/python3. */
export function torchPython(): string {
  return process.env.TORCH_PYTHON || "/usr/bin/python3";
}

/** Whether `python` can import torch (one short subprocess). */
export function hasTorch(python = torchPython()): boolean {
  return spawnSync(python, ["-c", "import torch"], { stdio: "ignore", timeout: 60_000 }).status === 0;
}

/** Left-padded rows for a logits request (the sampler's layout). */
export type LogitsBatch = LeftPadded;

/** A GrpoSample as JSON carries it: typed arrays as plain arrays (masks still packed 8 tokens per byte). */
export type WireSample = Omit<GrpoSample, "logProbs" | "masks"> & { logProbs: number[]; masks: number[] };

export function toWire(samples: readonly GrpoSample[]): WireSample[] {
  return samples.map((s) => ({ ...s, logProbs: Array.from(s.logProbs), masks: Array.from(s.masks) }));
}

export type TorchRequest =
  | ({ op: "logits"; weights: string; prefill?: number } & LogitsBatch)
  | {
      op: "update";
      weights: string;
      /** Frozen weights of the KL term; default: `weights`. */
      reference?: string;
      train: TrainConfig;
      samples: WireSample[];
      seed?: number;
      microBatchSize?: number;
      /** Where to write the updated weights (float32 little-endian, parameter order, no header). */
      out?: string;
    }
  | {
      op: "bench";
      weights: string;
      train: TrainConfig;
      workload: { samplePrompts: number[][]; updatePrompts: number[][]; newTokens: number; toy: { vocab: number; minLength: number; maxLength: number } };
      /** Timed runs, each from the initial weights: torch threads, timed repetitions and untimed ones before them (default 1). */
      runs: { threads: number; reps: number; warmups?: number; device?: "cpu" | "cuda" }[];
      microBatchSize?: number;
    };

export interface TorchBenchRun {
  threads: number;
  /** The GPU's name, on a "cuda" run. */
  device?: string;
  sampleTokPerS: number;
  sampleTokPerCpuS: number;
  updateMs: number;
  updateCpuMs: number;
}

export interface TorchReplies {
  logits: { shape: [number, number, number]; logits: number[] };
  update: Omit<UpdateMetrics, "tokens">;
  bench: {
    torch: string;
    /** Path of the BLAS library torch's matmuls ran on (see blasName). */
    blas: string | null;
    defaultThreads: number;
    cores: number;
    /** One per requested run, in request order. */
    runs: TorchBenchRun[];
  };
}

/** Run one request through torch_gpt.py (JSON on stdin, JSON reply on stdout). */
export async function runTorchGpt<R extends TorchRequest>(request: R, python = torchPython()): Promise<TorchReplies[R["op"]]> {
  return (await runTorchGptAll([request], python))[0] as TorchReplies[R["op"]];
}

/** Several requests in one interpreter (torch's import takes seconds); replies in request order. */
export function runTorchGptAll(requests: readonly TorchRequest[], python = torchPython()): Promise<TorchReplies[TorchRequest["op"]][]> {
  const ops = requests.map((r) => r.op).join(", ");
  return new Promise((resolve, reject) => {
    const child = spawn(python, [SCRIPT], { stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.on("error", (e) => reject(new TorchBridgeError(`cannot run ${python}: ${e.message} (set TORCH_PYTHON to a python with torch)`)));
    child.on("close", (code) => {
      if (code !== 0) {
        reject(new TorchBridgeError(`torch_gpt.py (${ops}) failed (exit ${code}): ${Buffer.concat(err).toString().trim().split("\n").slice(-3).join(" | ")}`));
        return;
      }
      try {
        resolve(JSON.parse(Buffer.concat(out).toString()));
      } catch (e) {
        reject(new TorchBridgeError(`torch_gpt.py (${ops}) replied with something that is not JSON: ${(e as Error).message}`));
      }
    });
    child.stdin.end(JSON.stringify(requests));
  });
}

/** tfjs's (B, T, V) logits of a left-padded batch on the current backend, its sampling path (model.ts's forward without `training`). */
export async function tfjsLogits(config: ModelConfig, weights: readonly Float32Array[], batch: LogitsBatch): Promise<Float32Array> {
  const [B, T] = [batch.tokens.length, batch.tokens[0].length];
  const model = GptModel.fromWeights(config, [...weights], false);
  const logitsT = tf.tidy(
    () =>
      model.forward({
        tokens: tf.tensor2d(batch.tokens, [B, T], "int32"),
        positions: tf.tensor2d(batch.positions, [B, T], "int32"),
        attnBias: attentionBias(batch.pad, T, T),
      }).logits,
  );
  const logits = (await logitsT.data()) as Float32Array;
  logitsT.dispose();
  model.dispose();
  return logits;
}

/** Largest |ours - theirs| over the real (unpadded) positions of `batch` (padded queries attend nothing: their logits mean nothing). */
export function realLogitsMaxAbsDiff(ours: Float32Array, theirs: TorchReplies["logits"], batch: LogitsBatch, vocab: number): number {
  const [B, T, V] = [batch.tokens.length, batch.tokens[0].length, vocab];
  if (theirs.shape.join() !== [B, T, V].join()) throw new TorchBridgeError(`torch logits shape ${theirs.shape}, expected ${[B, T, V]}`);
  let max = 0;
  for (let b = 0; b < B; b++) {
    for (let i = (b * T + batch.pad[b]) * V; i < (b + 1) * T * V; i++) max = Math.max(max, Math.abs(ours[i] - theirs.logits[i]));
  }
  return max;
}

/**
 * Largest |tfjs - torch| logit over the real positions of `rows` for the same weights: torch's full
 * forward, and its KV-cached decoding from position `prefill` on (the sampler's path).
 */
export async function logitsMaxAbsDiff(
  config: ModelConfig,
  weights: readonly Float32Array[],
  weightsPath: string,
  rows: readonly (readonly number[])[],
  prefill: number,
  python = torchPython(),
): Promise<{ full: number; cached: number }> {
  const batch = leftPad(rows);
  const ours = await tfjsLogits(config, weights, batch);
  const replies = await runTorchGptAll([{ op: "logits", weights: weightsPath, ...batch }, { op: "logits", weights: weightsPath, ...batch, prefill }], python);
  const [full, cached] = (replies as TorchReplies["logits"][]).map((r) => realLogitsMaxAbsDiff(ours, r, batch, config.vocab));
  return { full, cached };
}

/** Above this, tfjs and torch are not computing the same model: the comparison is void. */
export const LOGITS_TOLERANCE = 1e-4;

export interface TorchComparison {
  /** Largest |tfjs - torch| logit over the parity batch, full forward and KV-cached decoding. */
  logitsMaxAbsDiff: number;
  /** What torch_gpt.py reported of itself. */
  info: Omit<TorchReplies["bench"], "runs">;
  /** 1-thread runs, one per round of the benchmark: round i ran right after tfjs's round i. */
  rounds: TorchBenchRun[];
  /** One run on every core (secondary), or null on one core. */
  allCores: TorchBenchRun | null;
}

/**
 * The PyTorch side of one benchmarked size: the same seeded initial weights as runPolicyBench's
 * policy (benchPolicyOptions), checked once against tfjs on the current backend (the first 4 of the
 * workload's prompts, left-padded, the last 16 positions decoded through torch's KV cache); then
 * `run` times the same workload in torch_gpt.py (`warmups` untimed repetitions, then `reps` timed ones), as often
 * as the caller pairs it with a tfjs round. `close` removes the weights.
 */
export async function openTorchSide(size: ModelSize, vocab: number, python = torchPython()) {
  const policy = Policy.create(benchPolicyOptions(size, vocab));
  const dir = mkdtempSync(join(tmpdir(), "torch-gpt-"));
  const close = () => rmSync(dir, { recursive: true, force: true });
  try {
    const { config, weights } = decodeCheckpoint(await policy.save());
    const path = writeRawWeights(dir, size, config, weights);
    const w = benchWorkload(vocab);
    const rows = w.samplePrompts.slice(0, 4);
    const diff = await logitsMaxAbsDiff(config, weights, path, rows, Math.max(...rows.map((r) => r.length)) - 16, python);
    const workload = { samplePrompts: w.samplePrompts, updatePrompts: w.updatePrompts, newTokens: w.newTokens, toy: w.spec.params };
    const train = policy.train;
    return {
      logitsMaxAbsDiff: Math.max(diff.full, diff.cached),
      run: async (threads: number, reps = 1, warmups = 1, device: "cpu" | "cuda" = "cpu") => {
        const { runs, ...info } = await runTorchGpt({ op: "bench", weights: path, train, workload, runs: [{ threads, reps, warmups, device }] }, python);
        return { info, run: runs[0] };
      },
      close,
    };
  } catch (e) {
    close();
    throw e;
  } finally {
    policy.dispose();
  }
}

/** A short name for the BLAS library torch_gpt.py found loaded (its path), for the report. */
export function blasName(path: string | null): string {
  if (!path) return "unknown BLAS";
  if (/openblas/.test(path)) return "OpenBLAS";
  if (/mkl/.test(path)) return "MKL";
  if (/\/blas\/libblas\.so/.test(path)) return "reference BLAS (Debian libblas3)";
  return path;
}

/** What the benchmark prints and records for one size: figures (null keys without torch), lines, notes. */
export interface TorchReport {
  figures: Record<string, number | null>;
  lines: string[];
  notes: string[];
  /** Set when the logits disagree beyond LOGITS_TOLERANCE: the benchmark must fail. */
  mismatch: string | null;
}

/**
 * Keys (policy.ts's header): `<size>_torch_{sample_tok_per_s, update_ms, sample_tok_per_cpu_s,
 * update_cpu_ms}` with 1 thread (medians over the rounds), `<size>_torch_all_cores_{sample_tok_per_s,
 * update_ms}`, `<size>_torch_logits_max_abs_diff`, and the tfjs / torch ratios of the 1-thread figures
 * `<size>_wasm_vs_torch_{sample_ratio, update_ratio, sample_cpu_ratio, update_cpu_ratio}`: the median
 * over the rounds of each round's ratio (`wasm[i]` against `t.rounds[i]`, run one after the other,
 * so both saw the same load; a round missing on either side is left out).
 */
export function torchReport(size: string, wasm: readonly (PolicyBenchResult | null)[], t: TorchComparison | null): TorchReport {
  const figures: Record<string, number | null> = {};
  const keys = ["sample_tok_per_s", "update_ms", "sample_tok_per_cpu_s", "update_cpu_ms", "all_cores_sample_tok_per_s", "all_cores_update_ms", "logits_max_abs_diff"];
  for (const k of keys) figures[`${size}_torch_${k}`] = null;
  for (const k of ["sample_ratio", "update_ratio", "sample_cpu_ratio", "update_cpu_ratio"]) figures[`${size}_wasm_vs_torch_${k}`] = null;
  if (!t || t.rounds.length === 0) return { figures, lines: [], notes: [], mismatch: null };
  const one = medianRun(t.rounds);
  const all = t.allCores;
  const paired = (k: RunFigure) => {
    const r = pairedRatio(wasm, t.rounds, k);
    return r === null ? null : Number(r.toPrecision(3));
  };
  Object.assign(figures, {
    [`${size}_torch_sample_tok_per_s`]: Math.round(one.sampleTokPerS),
    [`${size}_torch_update_ms`]: Math.round(one.updateMs),
    [`${size}_torch_sample_tok_per_cpu_s`]: Math.round(one.sampleTokPerCpuS),
    [`${size}_torch_update_cpu_ms`]: Math.round(one.updateCpuMs),
    [`${size}_torch_all_cores_sample_tok_per_s`]: all ? Math.round(all.sampleTokPerS) : null,
    [`${size}_torch_all_cores_update_ms`]: all ? Math.round(all.updateMs) : null,
    [`${size}_torch_logits_max_abs_diff`]: t.logitsMaxAbsDiff,
    [`${size}_wasm_vs_torch_sample_ratio`]: paired("sampleTokPerS"),
    [`${size}_wasm_vs_torch_update_ratio`]: paired("updateMs"),
    [`${size}_wasm_vs_torch_sample_cpu_ratio`]: paired("sampleTokPerCpuS"),
    [`${size}_wasm_vs_torch_update_cpu_ratio`]: paired("updateCpuMs"),
  });
  const row = (label: string, r: TorchBenchRun) => benchRow(size, label, r);
  const b = t.info;
  const lines = [row("torch 1 thr", one), ...(all ? [row(`torch ${all.threads} thr`, all)] : [])];
  const f = (k: string) => figures[`${size}_wasm_vs_torch_${k}`];
  lines.push(
    `${size.padEnd(5)} torch ${b.torch} on ${blasName(b.blas)}, default threads ${b.defaultThreads}; logits max |tfjs - torch| ${t.logitsMaxAbsDiff.toExponential(2)}` +
      (f("sample_ratio") !== null ? `; tfjs wasm / torch 1 thread, median of ${t.rounds.length} paired rounds: ${f("sample_ratio")}x the tok/s, ${f("update_ratio")}x the ms/update (per CPU time ${f("sample_cpu_ratio")}x, ${f("update_cpu_ratio")}x)` : ""),
  );
  const notes = blasName(b.blas).startsWith("reference")
    ? [`${size} torch: ran on the reference BLAS (${b.blas}), matmuls about 5x slower than OpenBLAS: apt-get install libopenblas0-pthread for a fair comparison`]
    : [];
  // NaN fails this test too.
  const mismatch = t.logitsMaxAbsDiff <= LOGITS_TOLERANCE ? null : `${size} torch: logits differ from tfjs by ${t.logitsMaxAbsDiff} (> ${LOGITS_TOLERANCE}): not the same model, the comparison is void`;
  return { figures, lines, notes, mismatch };
}
