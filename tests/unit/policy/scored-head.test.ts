/**
 * The head at scored positions only (policy.ts SCORED_HEAD_FLAG), and with it the last block's output
 * projection, MLP and residuals there (SCORED_LAST_BLOCK_FLAG), against the head at every position,
 * bit for bit on wasm: GRPO updates (with the KL reference pass, micro-batches, grammar masks, prompts
 * of mixed lengths, tied and untied heads) and pretraining steps reach the same checkpoint bytes and
 * the same metrics; the selected logits equal the full forward's rows.
 */
import * as tf from "@tensorflow/tfjs";
import { beforeAll, describe, expect, it } from "vitest";
import { rolloutSamples } from "../../../src/core/policy/batch.ts";
import { groupAdvantages } from "../../../src/core/policy/grpo.ts";
import type { ModelConfig } from "../../../src/core/policy/config.ts";
import { attentionBias, GptModel } from "../../../src/core/policy/model.ts";
import { Policy, POLICY_SPEEDUP_FLAGS, SCORED_HEAD_FLAG, SCORED_LAST_BLOCK_FLAG } from "../../../src/core/policy/policy.ts";
import { ToyConstraint, TOY_BOS } from "../../../src/core/policy/toy-constraint.ts";
import { Rng } from "../../../src/core/rng.ts";
import { differences, setupBackend } from "./helpers.ts";

beforeAll(setupBackend);

/** What runs at the scored positions alone: nothing past the last block ("full"), the head, or the last block's rest with it. */
type Scored = "full" | "head" | "lastBlock";

async function withFlag<T>(scored: Scored, f: () => Promise<T>): Promise<T> {
  tf.env().set(SCORED_HEAD_FLAG, scored !== "full");
  tf.env().set(SCORED_LAST_BLOCK_FLAG, scored === "lastBlock");
  try {
    return await f();
  } finally {
    for (const flag of POLICY_SPEEDUP_FLAGS) tf.env().set(flag, true);
  }
}

const SHAPES: { name: string; model: Partial<ModelConfig>; vocab: number; rows: number; micro: number }[] = [
  { name: "1 block, tied head", model: { layers: 1, heads: 2, dModel: 32, context: 64, tiedHead: true }, vocab: 16, rows: 8, micro: 4 },
  { name: "2 blocks, untied head", model: { layers: 2, heads: 4, dModel: 48, context: 96, tiedHead: false }, vocab: 40, rows: 6, micro: 6 },
  { name: "tiny's shape", model: { layers: 2, heads: 4, dModel: 64, context: 128, tiedHead: true }, vocab: 256, rows: 16, micro: 8 },
];

describe("head at scored positions only", () => {
  for (const shape of SHAPES) {
    it(`GRPO updates reach the same checkpoint bytes and metrics (${shape.name})`, async () => {
      const grammar = new ToyConstraint(shape.vocab, 2, 9);
      const run = (scored: Scored) =>
        withFlag(scored, async () => {
          const policy = Policy.create({
            model: shape.model,
            vocab: shape.vocab,
            seed: `scored-${shape.name}`,
            train: { warmupSteps: 0, lr: 1e-2, klCoef: 0.01, microBatchSize: shape.micro, miniBatches: 2 },
          });
          // Prompts of 5 to 40 tokens: completions start at different positions in every row.
          const prompts = Array.from({ length: shape.rows }, (_, i) => [TOY_BOS, ...Array.from({ length: 4 + ((i * 11) % 36) }, (_, j) => 3 + ((i + 2 * j) % (shape.vocab - 3)))]);
          const rng = new Rng(11);
          const metrics = [];
          for (let step = 0; step < 3; step++) {
            const rollout = await policy.sample(prompts, grammar, { maxNewTokens: 12, rng });
            metrics.push(await policy.update(rolloutSamples(rollout, groupAdvantages(rollout.completions.map((c) => c.length % 3), 2)), rng));
          }
          const bytes = new Uint8Array(await policy.save());
          policy.dispose();
          return { bytes, metrics };
        });
      const full = await run("full");
      expect(full.metrics[2].gradNorm).toBeGreaterThan(0);
      for (const scored of [await run("head"), await run("lastBlock")]) {
        expect(scored.bytes.length).toBeGreaterThan(10_000);
        expect(differences(scored.bytes, full.bytes)).toEqual({ count: 0, first: -1 });
        expect(scored.metrics).toEqual(full.metrics);
      }
    });
  }

  it("pretraining steps reach the same checkpoint bytes and losses, scored from a per-row start", async () => {
    const run = (scored: Scored) =>
      withFlag(scored, async () => {
        const policy = Policy.create({ model: SHAPES[1].model, vocab: 40, seed: "scored-pretrain", train: { warmupSteps: 0, lr: 3e-3, microBatchSize: 4 } });
        const rng = new Rng(3);
        const losses = [];
        for (let step = 0; step < 3; step++) {
          const seqs = Array.from({ length: 10 }, () => Array.from({ length: 6 + rng.int(50) }, () => rng.int(40)));
          // Row 0 scores from its first token on, the others from a start inside the sequence; one row scores nothing.
          const starts = seqs.map((s, i) => (i === 3 ? s.length : i === 0 ? 1 : 1 + rng.int(s.length - 1)));
          losses.push(await policy.pretrainStep(seqs, starts));
        }
        const bytes = new Uint8Array(await policy.save());
        policy.dispose();
        return { bytes, losses };
      });
    const full = await run("full");
    expect(full.losses[0].loss).toBeGreaterThan(1);
    for (const scored of [await run("head"), await run("lastBlock")]) {
      expect(differences(scored.bytes, full.bytes)).toEqual({ count: 0, first: -1 });
      expect(scored.losses).toEqual(full.losses);
    }
  });

  it("outputRows gives the full forward's logits at those rows, bit for bit", () => {
    const cfg: ModelConfig = { layers: 2, heads: 4, dModel: 48, context: 64, vocab: 30, tiedHead: false };
    const model = GptModel.init(cfg, new Rng(9).fork("init"));
    const [B, T] = [3, 20];
    const rng = new Rng(4);
    const tokens = tf.tensor2d(Array.from({ length: B * T }, () => rng.int(30)), [B, T], "int32");
    const positions = tf.tensor2d(Array.from({ length: B * T }, (_, i) => i % T), [B, T], "int32");
    const attnBias = attentionBias([0], T, T);
    const rows = [0, 5, 19, 20, 33, 41, 59];
    const full = tf.tidy(() => model.forward({ tokens, positions, attnBias, training: true }).logits.dataSync());
    const want = rows.flatMap((r) => Array.from(full.subarray(r * 30, (r + 1) * 30)));
    for (const outputRowsFromLastBlock of [false, true]) {
      const picked = tf.tidy(() => model.forward({ tokens, positions, attnBias, training: true, outputRows: tf.tensor1d(rows, "int32"), outputRowsFromLastBlock }).logits);
      expect(picked.shape).toEqual([1, rows.length, 30]);
      expect(differences(new Uint32Array(Float32Array.from(picked.dataSync()).buffer), new Uint32Array(Float32Array.from(want).buffer))).toEqual({ count: 0, first: -1 });
      picked.dispose();
    }
    tf.dispose([tokens, positions, attnBias]);
    model.dispose();
  });
});
