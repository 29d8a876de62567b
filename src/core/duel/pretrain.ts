/**
 * Base-model pretraining: plain next-token prediction on the pretraining corpus
 * (pretrain-corpus.ts), the loss on the completion only (program or suite tokens, never the
 * context). The same function runs in Node (scripts/pretrain.ts, in-thread PolicyService on wasm)
 * and in the app (against a policy worker through comlink), reporting progress as the loop's
 * `{type: "progress", phase: "pretrain", done, total, text}` event.
 *
 * Deterministic by construction: the initial weights come from `seed`, the batch order from a fork
 * of it, and nothing else is random, so the same seed, corpus and backend give a byte-identical
 * checkpoint.
 *
 *   const service = new PolicyService(arenaConstraints(vocab)); await service.init(["wasm"]);
 *   const { checkpoint } = await pretrainBase(service, corpus.code, { vocab: vocab.size, seed: 1 }, onProgress);
 */
import { Rng } from "../rng.ts";
import { mergeOptions, requireIntegers } from "../options.ts";
import type { TrainerEvent } from "../loop/events.ts";
import { type ModelSize, MODEL_SIZES } from "../policy/config.ts";
import type { CreatePolicyOptions } from "../policy/policy.ts";
import type { PolicyInfo } from "../policy/policy-service.ts";
import { decodeCheckpoint, encodeCheckpoint } from "../policy/checkpoint.ts";
import { trainConfig } from "../policy/train-config.ts";
import { sha256Hex } from "../bundle.ts";
import type { Vocabulary } from "../arena/vocab.ts";
import { gunzipSync, gzipSync, strFromU8, strToU8 } from "fflate";
import { corpusHash, jointSequences, vocabHash, type CorpusOptions, type CorpusSequence, type PretrainCorpus } from "./pretrain-corpus.ts";
import type { BaseFigures } from "./pretrain-eval.ts";

/** Pretraining knobs; defaults in PRETRAIN_DEFAULTS (BASE_RECIPE is what ships). */
export interface PretrainOptions {
  /** Named model size. */
  size: ModelSize;
  /** Seed of the initial weights and of the batch order. */
  seed: number | string;
  /** Optimizer steps. */
  steps: number;
  /** Sequences per step. */
  batchSize: number;
  /** Peak learning rate (AdamW, linear warm-up then cosine to 10% over `steps`). */
  lr: number;
  warmupSteps: number;
  /** A progress event every this many steps (and after the last). */
  progressEvery: number;
}

export const PRETRAIN_DEFAULTS: Readonly<Omit<PretrainOptions, "seed">> = {
  size: "tiny",
  steps: 1200,
  batchSize: 32,
  lr: 3e-3,
  warmupSteps: 50,
  progressEvery: 25,
};

/**
 * The shipped recipe (scripts/pretrain.ts and the app's "pretrain in place" use it): one joint
 * model on the arena-v2 corpus's code and suite sequences (pretrain-corpus.ts jointSequences).
 * docs/BASE-MODELS.md has the figures and the command.
 */
export const BASE_RECIPE: Readonly<Partial<Omit<PretrainOptions, "seed">>> = { steps: 3000, batchSize: 32, lr: 8e-3, warmupSteps: 50 };
/**
 * The recipe of each size. small (3x wider, twice as deep) trained at tiny's 8e-3 ended far below
 * every band (docs/BASE-MODELS.md); its peak rate is scaled down with the width (8e-3 x 64/192,
 * rounded down), the usual rule for Adam on wider layers.
 */
export const BASE_RECIPES: Readonly<Record<ModelSize, Readonly<Partial<Omit<PretrainOptions, "seed">>>>> = {
  tiny: BASE_RECIPE,
  small: { ...BASE_RECIPE, lr: 2.5e-3 },
};

/** File name of the shipped base checkpoint of a size: every player of every mode starts from it. */
export function baseCheckpointFile(size: ModelSize): string {
  return `base-${size}.bin`;
}

export const BASE_MANIFEST_FILE = "manifest.json";
/**
 * The pretraining corpus as built by `npm run pretrain-base` (a PretrainCorpus as gzipped JSON), so the
 * app can pretrain in place without Python.
 */
export const BASE_CORPUS_FILE = "corpus.json.gz";
export const BASE_MANIFEST_FORMAT = 2;

/** One shipped checkpoint and how it was made. */
export interface BasePolicyEntry {
  file: string;
  bytes: number;
  sha256: string;
  numParams: number;
  options: PretrainOptions;
  /** Mean completion loss of the last progress window; null when the manifest was written by --skip-train for a file trained elsewhere. */
  finalLoss: number | null;
  /** Pretraining time in seconds; null as finalLoss. */
  seconds: number | null;
}

/** public/checkpoints/manifest.json: what the shipped base checkpoints are and how good. */
export interface BaseManifest {
  format: typeof BASE_MANIFEST_FORMAT;
  size: ModelSize;
  seed: number | string;
  /** tfjs backend the weights were trained on (same seed + backend = same bytes). */
  backend: string;
  taskSet: string;
  vocabSize: number;
  vocabHash: string;
  corpusHash: string;
  corpus: CorpusOptions;
  /** The one base checkpoint (joint model). */
  base: BasePolicyEntry;
  figures: BaseFigures | null;
  /** The command that rebuilt these files. */
  command: string;
}

/** What pretraining needs of a policy host: a PolicyService in-thread, or its comlink Remote. */
export interface PretrainHost {
  create(opts: CreatePolicyOptions): Promise<PolicyInfo>;
  pretrainStep(sequences: number[][], completionStart?: number[]): Promise<{ loss: number; gradNorm: number; lr: number }>;
  save(): Promise<ArrayBuffer>;
}

export type PretrainProgress = Extract<TrainerEvent, { type: "progress" }>;

export interface PretrainResult {
  /** The base checkpoint (baseCheckpoint of the trained policy). */
  checkpoint: ArrayBuffer;
  /** The policy as created (config, parameter count, backend). */
  info: PolicyInfo;
  /** Mean completion loss (nats/token) per progress window, in order. */
  losses: number[];
  steps: number;
}

export class PretrainError extends Error {
  override name = "PretrainError";
}

export class PretrainAbortedError extends Error {
  override name = "PretrainAbortedError";
}

/** Defaults overridden by `overrides`; unknown keys and bad values are rejected by name. */
export function pretrainOptions(overrides: Partial<PretrainOptions> & { seed: number | string }): PretrainOptions {
  const o = mergeOptions("pretrain option", PRETRAIN_DEFAULTS, overrides, PretrainError, ["seed"]);
  if (!Object.hasOwn(MODEL_SIZES, o.size)) throw new PretrainError(`unknown model size "${o.size}": use one of ${Object.keys(MODEL_SIZES).join(", ")}`);
  requireIntegers("pretrain option", o, ["steps", "batchSize", "progressEvery"], PretrainError);
  requireIntegers("pretrain option", o, ["warmupSteps"], PretrainError, 0);
  if (!(Number.isFinite(o.lr) && o.lr > 0)) throw new PretrainError(`pretrain option lr must be a positive number, got ${o.lr}`);
  return o;
}

/**
 * Creates a fresh policy on `service` and trains it for `steps` steps on `corpus` (the joint
 * model's sequences: jointSequences of a PretrainCorpus). Batches walk
 * the corpus epoch after epoch in seeded, length-bucketed order (epochBatches). `signal.aborted` is checked before each
 * step (the app's cancel button); an aborted run throws PretrainAbortedError.
 */
export async function pretrainBase(
  service: PretrainHost,
  corpus: readonly CorpusSequence[],
  overrides: Partial<PretrainOptions> & { seed: number | string; vocab: number; label?: string; signal?: { readonly aborted: boolean } },
  onProgress?: (e: PretrainProgress) => void,
): Promise<PretrainResult> {
  const { vocab, label = "policy", signal, ...rest } = overrides;
  const o = pretrainOptions(rest);
  if (corpus.length === 0) throw new PretrainError("the pretraining corpus is empty: build it from a task set with train tasks");
  const info = await service.create({
    size: o.size,
    vocab,
    seed: o.seed,
    // Plain cross-entropy: no KL (and so no reference copy), the cosine spans the whole run.
    train: { lr: o.lr, warmupSteps: o.warmupSteps, totalSteps: o.steps, klCoef: 0 },
    reference: false,
  });
  const rng = new Rng(o.seed).fork("pretrain-batches");
  let batches: number[][] = [];
  const losses: number[] = [];
  let window = 0;
  let windowSteps = 0;
  onProgress?.({ type: "progress", phase: "pretrain", done: 0, total: o.steps, text: `pretraining ${label}: step 0/${o.steps}` });
  for (let step = 1; step <= o.steps; step++) {
    if (signal?.aborted) throw new PretrainAbortedError(`pretraining ${label} aborted at step ${step - 1}/${o.steps}`);
    if (batches.length === 0) batches = epochBatches(corpus, o.batchSize, rng);
    const batch = batches.pop()!.map((i) => corpus[i]);
    const { loss } = await service.pretrainStep(batch.map((s) => s.tokens), batch.map((s) => s.completionStart));
    if (!Number.isFinite(loss)) throw new PretrainError(`pretraining ${label} diverged at step ${step} (loss ${loss}): lower lr`);
    window += loss;
    windowSteps++;
    if (step % o.progressEvery === 0 || step === o.steps) {
      losses.push(window / windowSteps);
      onProgress?.({ type: "progress", phase: "pretrain", done: step, total: o.steps, text: `pretraining ${label}: step ${step}/${o.steps}, loss ${(window / windowSteps).toFixed(3)}` });
      window = 0;
      windowSteps = 0;
    }
  }
  const checkpoint = baseCheckpoint(await service.save());
  return { checkpoint, info, losses, steps: o.steps };
}

/** Sequences of one bucket are sorted by length before batching: batches pad to their longest row. */
const BUCKET_BATCHES = 8;

/**
 * One epoch as batches of indices: a seeded permutation cut into buckets of BUCKET_BATCHES
 * batches, each bucket sorted by length and cut into batches, the batches in a seeded order. Rows
 * of similar length share a batch, so little compute goes to padding (attention costs O(T^2));
 * the last batch of an epoch may be short.
 */
export function epochBatches(corpus: readonly CorpusSequence[], batchSize: number, rng: Rng): number[][] {
  const perm = rng.shuffle(corpus.map((_, i) => i));
  const out: number[][] = [];
  for (let b = 0; b < perm.length; b += batchSize * BUCKET_BATCHES) {
    const bucket = perm.slice(b, b + batchSize * BUCKET_BATCHES).sort((x, y) => corpus[x].tokens.length - corpus[y].tokens.length || x - y);
    for (let i = 0; i < bucket.length; i += batchSize) out.push(bucket.slice(i, i + batchSize));
  }
  return rng.shuffle(out);
}

/**
 * A trained policy's checkpoint as a base to start RL from: the weights, zeroed Adam moments at
 * step 0 (RL starts its own optimizer, as the paper's RL starts from a released model), the
 * default training config (the run overrides it on load) and no reference: the loader freezes the
 * base itself with setReference(). The format always carries the moment blocks, so zeros keep it
 * loadable by Policy.load; they compress to nothing when the file is served gzipped.
 */
export function baseCheckpoint(saved: ArrayBuffer): ArrayBuffer {
  const d = decodeCheckpoint(saved);
  const zeros = d.weights.map((w) => new Float32Array(w.length));
  return encodeCheckpoint({ ...d, train: trainConfig(), optimizerStep: 0, m: zeros, v: zeros, reference: null });
}

/** The base model pretrained again from the shipped corpus (rebuildBase). */
export interface RebuiltBase {
  /** File name of the matching shipped checkpoint, e.g. base-tiny.bin. */
  file: string;
  /** Backend it was trained on. */
  backend: string;
  checkpoint: ArrayBuffer;
  sha256: string;
  steps: number;
  finalLoss: number;
  /** Byte-identical to the shipped checkpoint; null when not comparable (other steps or backend). */
  sameAsShipped: boolean | null;
}

export interface RebuildOptions {
  /** Steps; null: the shipped recipe's. */
  steps: number | null;
  signal?: { readonly aborted: boolean };
  onProgress?: (p: { done: number; total: number; text: string }) => void;
}

/**
 * Pretrains the base model again from the corpus `npm run pretrain-base` shipped, with the manifest's
 * recipe (or `steps`): what the app's Settings > Base models runs against a policy worker. The
 * corpus must be the manifest's (corpusHash) and `vocab` the one the manifest was built for
 * (vocabHash), else PretrainError. `backend` is the one `host` runs on: at the recipe's steps on
 * the manifest's backend the bytes are compared with the shipped file.
 */
export async function rebuildBase(host: PretrainHost, backend: string, manifest: BaseManifest, corpus: PretrainCorpus, vocab: Vocabulary, opts: RebuildOptions): Promise<RebuiltBase> {
  if ((await vocabHash(vocab)) !== manifest.vocabHash) throw new PretrainError("the shipped base model was built for another vocabulary than this app's: rebuild it with npm run pretrain-base");
  if ((await corpusHash(corpus)) !== manifest.corpusHash) throw new PretrainError("the corpus does not match the manifest's corpusHash: rebuild it with npm run pretrain-base");
  const options = pretrainOptions({ ...manifest.base.options, ...(opts.steps ? { steps: opts.steps } : {}) });
  const trained = await pretrainBase(host, jointSequences(corpus), { ...options, vocab: vocab.size, label: "base model", signal: opts.signal }, (e) =>
    opts.onProgress?.({ done: e.done, total: e.total, text: e.text }));
  const sha256 = await sha256Hex(new Uint8Array(trained.checkpoint));
  const shipped = manifest.base;
  return {
    file: baseCheckpointFile(manifest.size),
    backend,
    checkpoint: trained.checkpoint,
    sha256,
    steps: options.steps,
    finalLoss: trained.losses[trained.losses.length - 1],
    sameAsShipped: options.steps === shipped.options.steps && backend === manifest.backend ? sha256 === shipped.sha256 : null,
  };
}

/** gzip magic: a corpus file served as stored (gzipped) or already decoded by the server's Content-Encoding. */
export function parseCorpusFile(bytes: Uint8Array): PretrainCorpus {
  const text = bytes[0] === 0x1f && bytes[1] === 0x8b ? strFromU8(gunzipSync(bytes)) : strFromU8(bytes);
  let corpus: unknown;
  try {
    corpus = JSON.parse(text);
  } catch (e) {
    throw new PretrainError(`the corpus file is not JSON: ${(e as Error).message}`);
  }
  const c = corpus as Partial<PretrainCorpus>;
  if (typeof c !== "object" || c === null || !Array.isArray(c.code) || !Array.isArray(c.test) || !Array.isArray(c.tasks)) {
    throw new PretrainError("the corpus file is not a pretraining corpus (expected {options, tasks, code, test})");
  }
  return c as PretrainCorpus;
}

/** The corpus as the shipped file stores it (gzipped canonical JSON). */
export function corpusFileBytes(corpus: PretrainCorpus): Uint8Array {
  return gzipSync(strToU8(JSON.stringify(corpus)), { level: 9, mtime: 0 });
}
