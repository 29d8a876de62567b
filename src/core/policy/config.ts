/**
 * Model shapes for the two players. One implementation (model.ts), two independent parameter sets:
 * the Code policy and the Test policy are each a `Policy` built from one of these configs.
 */

import { requireIntegers } from "../options.ts";

/** Shape of a GPT-style decoder. */
export interface ModelConfig {
  /** Transformer blocks. */
  layers: number;
  /** Attention heads per block; must divide dModel. */
  heads: number;
  /** Width of the residual stream. */
  dModel: number;
  /** Longest sequence (prompt + generated tokens) the learned position table covers. */
  context: number;
  /** Vocabulary size (the arena's shared vocabulary). */
  vocab: number;
  /** Output head shares the token embedding (logits = h @ wte^T) when true. */
  tiedHead: boolean;
}

export type ModelSize = "tiny" | "small";

/**
 * Named sizes, without the vocabulary (the arena decides it). Parameter counts at vocab 256:
 * tiny about 0.13M (2 x 64-wide blocks), small about 1.8M (4 x 192-wide blocks).
 */
export const MODEL_SIZES: Record<ModelSize, Omit<ModelConfig, "vocab">> = {
  tiny: { layers: 2, heads: 4, dModel: 64, context: 256, tiedHead: true },
  small: { layers: 4, heads: 6, dModel: 192, context: 256, tiedHead: true },
};

export class PolicyConfigError extends Error {
  override name = "PolicyConfigError";
}

const MODEL_KEYS: (keyof ModelConfig)[] = ["layers", "heads", "dModel", "context", "vocab", "tiedHead"];

/** A full config from a named size plus a vocabulary size, or a checked explicit config. */
export function modelConfig(spec: ModelSize | Partial<ModelConfig> & { size?: ModelSize }, vocab?: number): ModelConfig {
  const size = typeof spec === "string" ? spec : spec.size;
  if (size !== undefined && !Object.hasOwn(MODEL_SIZES, size)) {
    throw new PolicyConfigError(`unknown model size "${size}": use one of ${Object.keys(MODEL_SIZES).join(", ")}`);
  }
  const base = typeof spec === "string" ? { ...MODEL_SIZES[spec] } : { ...(spec.size ? MODEL_SIZES[spec.size] : {}), ...spec };
  delete (base as { size?: unknown }).size;
  const cfg = { ...base, ...(vocab !== undefined ? { vocab } : {}) } as ModelConfig;
  validateModelConfig(cfg);
  return cfg;
}

/** Reject unknown keys and impossible shapes loudly. */
export function validateModelConfig(cfg: ModelConfig): void {
  for (const key of Object.keys(cfg)) {
    if (!MODEL_KEYS.includes(key as keyof ModelConfig)) {
      throw new PolicyConfigError(`unknown model config key "${key}": known keys are ${MODEL_KEYS.join(", ")}`);
    }
  }
  requireIntegers("model config", cfg, ["layers", "heads", "dModel", "context", "vocab"], PolicyConfigError);
  if (typeof cfg.tiedHead !== "boolean") throw new PolicyConfigError(`model config tiedHead must be a boolean, got ${cfg.tiedHead}`);
  if (cfg.dModel % cfg.heads !== 0) {
    throw new PolicyConfigError(`dModel ${cfg.dModel} is not divisible by heads ${cfg.heads}`);
  }
}

/** Number of trainable parameters of a config (matches model.ts's parameter table). */
export function countParams(cfg: ModelConfig): number {
  const c = cfg.dModel;
  const block = 2 * c + (c * 3 * c + 3 * c) + (c * c + c) + 2 * c + (c * 4 * c + 4 * c) + (4 * c * c + c);
  return cfg.vocab * c + cfg.context * c + cfg.layers * block + 2 * c + (cfg.tiedHead ? 0 : c * cfg.vocab);
}

/** Name -> shape of every parameter, in a fixed order (the checkpoint order). */
export function parameterShapes(cfg: ModelConfig): [string, number[]][] {
  const c = cfg.dModel;
  const shapes: [string, number[]][] = [
    ["wte", [cfg.vocab, c]],
    ["wpe", [cfg.context, c]],
  ];
  for (let l = 0; l < cfg.layers; l++) {
    shapes.push(
      [`h${l}.ln1.g`, [c]], [`h${l}.ln1.b`, [c]],
      [`h${l}.attn.qkv.w`, [c, 3 * c]], [`h${l}.attn.qkv.b`, [3 * c]],
      [`h${l}.attn.proj.w`, [c, c]], [`h${l}.attn.proj.b`, [c]],
      [`h${l}.ln2.g`, [c]], [`h${l}.ln2.b`, [c]],
      [`h${l}.mlp.fc.w`, [c, 4 * c]], [`h${l}.mlp.fc.b`, [4 * c]],
      [`h${l}.mlp.proj.w`, [4 * c, c]], [`h${l}.mlp.proj.b`, [c]],
    );
  }
  shapes.push(["lnf.g", [c]], ["lnf.b", [c]]);
  if (!cfg.tiedHead) shapes.push(["head.w", [c, cfg.vocab]]);
  return shapes;
}
