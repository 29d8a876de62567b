/**
 * Policy checkpoints as one ArrayBuffer (for IndexedDB and run bundles):
 *
 *   bytes 0-3   magic "CA1P"
 *   bytes 4-7   uint32 LE format version (CHECKPOINT_FORMAT_VERSION)
 *   bytes 8-11  uint32 LE header length H
 *   12..12+H    UTF-8 JSON header {config, train, optimizerStep, params: [name, shape][], hasReference}
 *   then, 4-byte aligned, float32 LE blocks in parameter order: weights, Adam m, Adam v,
 *   and the frozen reference weights when hasReference.
 */
import { type ModelConfig, parameterShapes, validateModelConfig } from "./config.ts";
import { type TrainConfig, trainConfig } from "./train-config.ts";

export const CHECKPOINT_FORMAT_VERSION = 1;
const MAGIC = "CA1P";

export interface CheckpointData {
  config: ModelConfig;
  train: TrainConfig;
  optimizerStep: number;
  weights: Float32Array[];
  m: Float32Array[];
  v: Float32Array[];
  reference: Float32Array[] | null;
}

export class CheckpointError extends Error {
  override name = "CheckpointError";
}

export function encodeCheckpoint(d: CheckpointData): ArrayBuffer {
  const params = parameterShapes(d.config);
  const blocks = [d.weights, d.m, d.v, ...(d.reference ? [d.reference] : [])];
  for (const block of blocks) {
    if (block.length !== params.length) throw new CheckpointError(`expected ${params.length} arrays per block, got ${block.length}`);
  }
  const header = new TextEncoder().encode(
    JSON.stringify({ config: d.config, train: d.train, optimizerStep: d.optimizerStep, params, hasReference: !!d.reference }),
  );
  const dataStart = align4(12 + header.length);
  const floats = params.reduce((a, [, s]) => a + s.reduce((x, y) => x * y, 1), 0);
  const buf = new ArrayBuffer(dataStart + blocks.length * floats * 4);
  const view = new DataView(buf);
  new Uint8Array(buf, 0, 4).set(new TextEncoder().encode(MAGIC));
  view.setUint32(4, CHECKPOINT_FORMAT_VERSION, true);
  view.setUint32(8, header.length, true);
  new Uint8Array(buf, 12, header.length).set(header);
  let offset = dataStart;
  for (const block of blocks) {
    for (const arr of block) {
      for (let i = 0; i < arr.length; i++) view.setFloat32(offset + 4 * i, arr[i], true);
      offset += arr.length * 4;
    }
  }
  return buf;
}

export function decodeCheckpoint(buf: ArrayBuffer): CheckpointData {
  if (buf.byteLength < 12) throw new CheckpointError(`checkpoint is ${buf.byteLength} bytes: too short to be a policy checkpoint`);
  const magic = new TextDecoder().decode(new Uint8Array(buf, 0, 4));
  if (magic !== MAGIC) throw new CheckpointError(`not a policy checkpoint (magic "${magic}", expected "${MAGIC}")`);
  const view = new DataView(buf);
  const version = view.getUint32(4, true);
  if (version !== CHECKPOINT_FORMAT_VERSION) {
    throw new CheckpointError(`checkpoint format version ${version} is not supported (this build reads version ${CHECKPOINT_FORMAT_VERSION})`);
  }
  const headerLength = view.getUint32(8, true);
  if (12 + headerLength > buf.byteLength) throw new CheckpointError("checkpoint header is truncated");
  const header = parseHeader(new TextDecoder().decode(new Uint8Array(buf, 12, headerLength)));
  validateModelConfig(header.config);
  const params = parameterShapes(header.config);
  if (JSON.stringify(params) !== JSON.stringify(header.params)) {
    throw new CheckpointError("checkpoint parameter table does not match its config (written by an incompatible model version)");
  }
  const sizes = params.map(([, s]) => s.reduce((x, y) => x * y, 1));
  const floats = sizes.reduce((a, b) => a + b, 0);
  const nBlocks = header.hasReference ? 4 : 3;
  let offset = align4(12 + headerLength);
  if (buf.byteLength !== offset + nBlocks * floats * 4) {
    throw new CheckpointError(`checkpoint is ${buf.byteLength} bytes, expected ${offset + nBlocks * floats * 4}: truncated or corrupt`);
  }
  const readBlock = () =>
    sizes.map((n) => {
      const arr = new Float32Array(n);
      for (let i = 0; i < n; i++) arr[i] = view.getFloat32(offset + 4 * i, true);
      offset += n * 4;
      return arr;
    });
  const weights = readBlock();
  const m = readBlock();
  const v = readBlock();
  const reference = header.hasReference ? readBlock() : null;
  return { config: header.config, train: trainConfig(header.train), optimizerStep: header.optimizerStep, weights, m, v, reference };
}

interface CheckpointHeader {
  config: ModelConfig;
  train: TrainConfig;
  optimizerStep: number;
  params: [string, number[]][];
  hasReference: boolean;
}

/**
 * The header's JSON, checked for shape before any field is used: checkpoints arrive in bundles
 * from other machines, and a malformed one must be a CheckpointError, not a TypeError later.
 * Field values are checked by validateModelConfig / trainConfig and the parameter table.
 */
function parseHeader(text: string): CheckpointHeader {
  let h: unknown;
  try {
    h = JSON.parse(text);
  } catch (e) {
    throw new CheckpointError(`checkpoint header is not valid JSON (${(e as Error).message}): truncated or corrupt`);
  }
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  if (!isObject(h)) throw new CheckpointError("checkpoint header must be a JSON object");
  const keys = Object.keys(h).sort().join(",");
  if (keys !== "config,hasReference,optimizerStep,params,train") {
    throw new CheckpointError(`checkpoint header must have exactly the fields config, hasReference, optimizerStep, params, train; it has ${keys || "none"}`);
  }
  if (!isObject(h.config)) throw new CheckpointError("checkpoint header config must be an object");
  if (!isObject(h.train)) throw new CheckpointError("checkpoint header train must be an object");
  if (!Number.isInteger(h.optimizerStep) || (h.optimizerStep as number) < 0) throw new CheckpointError("checkpoint header optimizerStep must be a non-negative integer");
  if (!Array.isArray(h.params)) throw new CheckpointError("checkpoint header params must be a list");
  if (typeof h.hasReference !== "boolean") throw new CheckpointError("checkpoint header hasReference must be true or false");
  return h as unknown as CheckpointHeader;
}

function align4(n: number): number {
  return (n + 3) & ~3;
}

/** Largest magnitude each block of a checkpoint may hold (src/core/bundle-bounds.ts WEIGHT_BOUNDS). */
export interface WeightBounds {
  weights: number;
  m: number;
  v: number;
}

/**
 * The first value of a decoded checkpoint that no training writes (NaN, an infinity, beyond its
 * block's bound, a negative second moment), named by tensor and block; null when all are plausible.
 * The reference block is checked as weights.
 */
export function implausibleWeight(d: CheckpointData, bounds: WeightBounds): string | null {
  const names = parameterShapes(d.config).map(([name]) => name);
  const blocks: [string, Float32Array[] | null, number, number][] = [
    ["weights", d.weights, -bounds.weights, bounds.weights],
    ["Adam m", d.m, -bounds.m, bounds.m],
    ["Adam v", d.v, 0, bounds.v],
    ["reference weights", d.reference, -bounds.weights, bounds.weights],
  ];
  for (const [block, arrays, lo, hi] of blocks) {
    if (!arrays) continue;
    for (let t = 0; t < arrays.length; t++) {
      const a = arrays[t];
      for (let i = 0; i < a.length; i++) {
        const x = a[i];
        if (!(x >= lo && x <= hi)) {
          const what = Number.isNaN(x) ? "NaN" : !Number.isFinite(x) ? String(x) : `${x}, outside [${lo}, ${hi}]`;
          return `tensor ${names[t]} (${block}) holds ${what} at index ${i}`;
        }
      }
    }
  }
  return null;
}
