/**
 * The pretraining loop on real tfjs math (Node wasm), a few tiny steps only: progress events,
 * the loss on completions only, byte-identical checkpoints for the same seed, a loss that falls,
 * base checkpoints that load, sample arena programs and take an RL update; and the shipped
 * checkpoints match their manifest.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { arenaV1 } from "../../../src/core/arena/task-suite.ts";
import { decodeCode, encodeCode } from "../../../src/core/arena/tokenizer.ts";
import { taskSignature } from "../../../src/core/arena/task.ts";
import { arenaConstraints, codeContext, codeSpec, taskVocabulary } from "../../../src/core/duel/contexts.ts";
import { corpusHash, jointSequences, vocabHash, type CorpusSequence, type PretrainCorpus } from "../../../src/core/duel/pretrain-corpus.ts";
import {
  BASE_CORPUS_FILE, BASE_MANIFEST_FILE, BASE_MANIFEST_FORMAT, baseCheckpoint, corpusFileBytes, epochBatches, parseCorpusFile, rebuildBase, pretrainBase, pretrainOptions, PretrainAbortedError, PretrainError,
  type BaseManifest, type PretrainHost, type PretrainProgress,
} from "../../../src/core/duel/pretrain.ts";
import { samplePrograms } from "../../../src/core/duel/evaluate.ts";
import { decodeCheckpoint } from "../../../src/core/policy/checkpoint.ts";
import { PolicyService } from "../../../src/core/policy/policy-service.ts";
import { rolloutSamples } from "../../../src/core/policy/batch.ts";
import { Rng } from "../../../src/core/rng.ts";
import { setupBackend } from "../policy/helpers.ts";

const file = arenaV1();
const vocab = taskVocabulary(file);
const tasks = file.tasks.filter((t) => ["sum-positive", "count-evens", "is-palindrome"].includes(t.id));

/** A real (hand-made, small) corpus: each task's reference and variants after its code context. */
const corpus: CorpusSequence[] = tasks.flatMap((t) =>
  [t.reference, ...t.buggy_variants.map((v) => v.code)].map((src) => {
    const context = codeContext(vocab, t);
    return { task: t.id, tokens: [...context, ...encodeCode(vocab, src, taskSignature(t))], completionStart: context.length };
  }),
);

async function service(): Promise<PolicyService> {
  const s = new PolicyService(arenaConstraints(vocab));
  await s.init(["wasm"]);
  return s;
}

beforeAll(setupBackend);

describe("pretrainBase", () => {
  it("reports progress, scores completions only and gives byte-identical checkpoints for one seed", async () => {
    const events: PretrainProgress[] = [];
    const starts: number[][] = [];
    const host = await service();
    const recording: PretrainHost = {
      create: (o) => host.create(o),
      save: () => host.save(),
      pretrainStep: (seqs, cs) => {
        starts.push(cs!);
        return host.pretrainStep(seqs, cs);
      },
    };
    const opts = { vocab: vocab.size, seed: 3, steps: 3, batchSize: 4, progressEvery: 2 };
    const a = await pretrainBase(recording, corpus, opts, (e) => events.push(e));
    expect(events.map((e) => [e.type, e.phase, e.done, e.total])).toEqual([
      ["progress", "pretrain", 0, 3],
      ["progress", "pretrain", 2, 3],
      ["progress", "pretrain", 3, 3],
    ]);
    expect(events[2].text).toMatch(/step 3\/3, loss \d+\.\d{3}/);
    // Every batch row's loss starts at its own context length: the prompt is never a target.
    expect(starts).toHaveLength(3);
    const contextLengths = new Set(corpus.map((s) => s.completionStart));
    for (const row of starts.flat()) expect(contextLengths.has(row)).toBe(true);
    expect(a.info.config.layers).toBe(2); // tiny
    expect(a.losses).toHaveLength(2);

    const b = await pretrainBase(await service(), corpus, opts);
    const c = await pretrainBase(await service(), corpus, { ...opts, seed: 4 });
    expect(Buffer.from(b.checkpoint).equals(Buffer.from(a.checkpoint))).toBe(true);
    expect(Buffer.from(c.checkpoint).equals(Buffer.from(a.checkpoint))).toBe(false);
  });

  it("lowers the completion loss within a few steps", async () => {
    const r = await pretrainBase(await service(), corpus, { vocab: vocab.size, seed: 1, steps: 12, batchSize: 6, lr: 1e-2, warmupSteps: 2, progressEvery: 4 });
    expect(r.losses).toHaveLength(3);
    expect(r.losses[2]).toBeLessThan(r.losses[0] - 0.5);
  });

  it("writes a base checkpoint: weights only in effect, loadable, sampling valid programs, ready for RL", async () => {
    const r = await pretrainBase(await service(), corpus, { vocab: vocab.size, seed: 2, steps: 2, batchSize: 4 });
    const d = decodeCheckpoint(r.checkpoint);
    expect(d.optimizerStep).toBe(0);
    expect(d.reference).toBeNull();
    expect(d.m.every((m) => m.every((x) => x === 0))).toBe(true);
    expect(d.train.klCoef).toBeGreaterThan(0); // the RL defaults, not the pretraining knobs
    expect(d.weights.some((w) => w.some((x) => x !== 0))).toBe(true);
    expect(baseCheckpoint(r.checkpoint).byteLength).toBe(r.checkpoint.byteLength);

    const loaded = await service();
    await loaded.load(r.checkpoint);
    const codes = (await samplePrograms(loaded, tasks, { vocab, samples: 2, temperature: 1, seed: 1 })).texts;
    for (const t of tasks) {
      expect(codes[t.id]).toHaveLength(2);
      for (const src of codes[t.id]) expect(decodeCode(vocab, encodeCode(vocab, src, taskSignature(t)))).toBe(src);
    }
    // RL starts from it: freeze the base as the KL reference, then a GRPO update runs.
    await loaded.setReference();
    const { rollout } = await loaded.sample([codeContext(vocab, tasks[0]), codeContext(vocab, tasks[0])], codeSpec(tasks[0]), { maxNewTokens: 96, rngState: new Rng(5).state() });
    const { metrics } = await loaded.update(rolloutSamples(rollout, [1, -1]), new Rng(6).state());
    expect(Number.isFinite(metrics.loss)).toBe(true);
  });

  it("stops when aborted and rejects bad options", async () => {
    const signal = { aborted: true };
    await expect(pretrainBase(await service(), corpus, { vocab: vocab.size, seed: 1, steps: 2, signal })).rejects.toThrow(PretrainAbortedError);
    await expect(pretrainBase(await service(), [], { vocab: vocab.size, seed: 1 })).rejects.toThrow(/corpus is empty/);
    expect(() => pretrainOptions({ seed: 1, steps: 0 })).toThrow(/steps must be a positive integer/);
    expect(() => pretrainOptions({ seed: 1, lr: -1 })).toThrow(/lr must be a positive number/);
    expect(() => pretrainOptions({ seed: 1, epochs: 2 } as never)).toThrow(PretrainError);
  });

  it("batches every sequence once per epoch, similar lengths together", () => {
    const batches = epochBatches(corpus, 4, new Rng(1));
    expect(batches.flat().sort((a, b) => a - b)).toEqual(corpus.map((_, i) => i));
    expect(epochBatches(corpus, 4, new Rng(1))).toEqual(batches);
  });
});

describe("shipped base checkpoint", () => {
  const dir = new URL("../../../public/checkpoints/", import.meta.url);
  const manifestUrl = new URL(BASE_MANIFEST_FILE, dir);
  const shippedCorpus = () => parseCorpusFile(readFileSync(new URL(BASE_CORPUS_FILE, dir)));
  it.runIf(existsSync(manifestUrl))("matches its manifest: bytes, sha256, vocabulary, size under 3 MB, the corpus it was trained on", async () => {
    const manifest = JSON.parse(readFileSync(manifestUrl, "utf8")) as BaseManifest;
    expect(manifest.format).toBe(BASE_MANIFEST_FORMAT);
    expect(manifest.vocabSize).toBe(vocab.size);
    expect(manifest.vocabHash).toBe(await vocabHash(vocab));
    const entry = manifest.base;
    const bytes = readFileSync(new URL(entry.file, dir));
    expect(bytes.byteLength).toBe(entry.bytes);
    expect(bytes.byteLength).toBeLessThan(3 * 1024 * 1024);
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(entry.sha256);
    const d = decodeCheckpoint(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    expect(d.config.vocab).toBe(vocab.size);
    // The corpus the app pretrains from in the browser is the one it was trained on.
    const corpus = shippedCorpus();
    expect(await corpusHash(corpus)).toBe(manifest.corpusHash);
    expect(corpus.options).toEqual(manifest.corpus);
  });

  it("parseCorpusFile reads the gzipped file and plain JSON (a server that decoded it), and refuses anything else", () => {
    const small = { options: { seed: 1 }, tasks: ["a"], code: [], test: [] } as unknown as PretrainCorpus;
    expect(parseCorpusFile(corpusFileBytes(small))).toEqual(small);
    expect(parseCorpusFile(new TextEncoder().encode(JSON.stringify(small)))).toEqual(small);
    expect(() => parseCorpusFile(new TextEncoder().encode("<html>"))).toThrow(/not JSON/);
    expect(() => parseCorpusFile(new TextEncoder().encode("[1, 2]"))).toThrow(/not a pretraining corpus/);
  });

  it.runIf(existsSync(manifestUrl))("rebuildBase: pretrains from the shipped corpus, compares only the recipe's steps, refuses a foreign corpus or vocabulary", async () => {
    const manifest = JSON.parse(readFileSync(manifestUrl, "utf8")) as BaseManifest;
    const shipped = shippedCorpus();
    const progress: string[] = [];
    const r = await rebuildBase(await service(), "wasm", manifest, shipped, vocab, { steps: 1, onProgress: (p) => progress.push(`${p.done}/${p.total}`) });
    expect(progress).toContain("1/1");
    // The same one step, directly on the joint sequences: same bytes.
    const direct = await pretrainBase(await service(), jointSequences(shipped), { ...pretrainOptions({ ...manifest.base.options, steps: 1 }), vocab: vocab.size });
    expect(r.sha256).toBe(createHash("sha256").update(new Uint8Array(direct.checkpoint)).digest("hex"));
    expect(r.file).toBe(manifest.base.file);
    expect(r.sameAsShipped).toBeNull(); // 1 step is not the recipe
    // At the recipe's step count the bytes are compared: a manifest saying "1 step, these bytes" matches.
    const oneStep = { ...manifest, base: { ...manifest.base, options: { ...manifest.base.options, steps: 1 }, sha256: r.sha256 } };
    expect((await rebuildBase(await service(), "wasm", oneStep, shipped, vocab, { steps: 1 })).sameAsShipped).toBe(true);
    expect((await rebuildBase(await service(), "webgpu", oneStep, shipped, vocab, { steps: 1 })).sameAsShipped).toBeNull();
    const tampered = { ...shipped, code: shipped.code.slice(1) };
    await expect(rebuildBase(await service(), "wasm", manifest, tampered, vocab, { steps: 1 })).rejects.toThrow(/does not match the manifest's corpusHash/);
    await expect(rebuildBase(await service(), "wasm", { ...manifest, vocabHash: "0".repeat(64) }, shipped, vocab, { steps: 1 })).rejects.toThrow(/another vocabulary/);
  });
});
