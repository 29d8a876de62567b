/**
 * Pretraining the base model in this browser (docs/BASE-MODELS.md): fetches the manifest and the
 * corpus `npm run pretrain-base` shipped (building the corpus needs Python) and runs rebuildBase
 * (src/core/duel/pretrain.ts) against a policy worker on tfjs wasm, the backend the shipped
 * checkpoints were made on, so at the recipe's steps the bytes can be compared with them. Nothing is
 * installed: the checkpoints come back to the caller (the Settings view offers them as files).
 *
 * `runOnSet` pretrains on an imported set's train tasks instead (as `npm run pretrain-base -- --tasks`):
 * the corpus is built here, with the set's references and buggy variants run in the grader's
 * sandbox (they are the user's code), then the shipped recipe trains a model on it.
 */
import { arenaVocabulary } from "../core/duel/contexts.ts";
import { BASE_CORPUS_FILE, BASE_MANIFEST_FILE, BASE_RECIPE, baseCheckpointFile, parseCorpusFile, pretrainBase, pretrainOptions, rebuildBase, type BaseManifest, type RebuiltBase } from "../core/duel/pretrain.ts";
import { buildCorpus, jointSequences } from "../core/duel/pretrain-corpus.ts";
import { sandboxRunReference } from "../core/arena/importers/arenise-sandbox.ts";
import { sha256Hex } from "../core/bundle.ts";
import { fetchCheckpointsFile, fetchCheckpointsJson } from "./app-files.ts";
import { startPolicyWorker } from "./policy-client.ts";
import type { PretrainHere } from "../ui/deps.ts";

type GraderClient = typeof import("./grader-client.ts");

export function createPretrainHere(grader: (() => Promise<GraderClient>) | null = null): PretrainHere {
  return {
    manifest: () => fetchCheckpointsJson<BaseManifest>(BASE_MANIFEST_FILE),
    async run(opts) {
      const manifest = await fetchCheckpointsJson<BaseManifest>(BASE_MANIFEST_FILE);
      const file = await fetchCheckpointsFile(BASE_CORPUS_FILE);
      if (!manifest || !file) throw new Error(`this build ships no base-model corpus (run npm run pretrain-base to make public/checkpoints/${BASE_CORPUS_FILE})`);
      const corpus = parseCorpusFile(file);
      const worker = startPolicyWorker("pretrain policy");
      try {
        // wasm, as the shipped checkpoints (webgpu would give other bytes, and on a software adapter take hours).
        const { backend } = await worker.policy.init(["wasm", "cpu"]);
        return await rebuildBase(worker.policy, backend, manifest, corpus, arenaVocabulary(), opts);
      } finally {
        worker.close();
      }
    },
    runOnSet: grader
      ? async (set, opts): Promise<RebuiltBase> => {
          // The shipped vocabulary whatever the set (words it lacks read as unk): checkpoints stay loadable.
          const vocab = arenaVocabulary();
          const g = (await grader()).createBrowserGrader();
          let corpus;
          try {
            opts.onProgress?.({ done: 0, total: 0, text: `building the corpus of ${set.name}: its references and buggy variants run in the grader's sandbox` });
            corpus = await buildCorpus(vocab, set, { runReference: sandboxRunReference(g) }, { seed: 0 });
          } finally {
            await g.close();
          }
          const worker = startPolicyWorker("pretrain policy");
          try {
            const { backend } = await worker.policy.init(["wasm", "cpu"]);
            const options = pretrainOptions({ ...BASE_RECIPE, seed: 0, ...(opts.steps ? { steps: opts.steps } : {}) });
            const trained = await pretrainBase(worker.policy, jointSequences(corpus), { ...options, vocab: vocab.size, label: "base model", signal: opts.signal }, (e) =>
              opts.onProgress?.({ done: e.done, total: e.total, text: e.text }));
            return {
              file: baseCheckpointFile(options.size).replace(/\.bin$/, `-${set.name}.bin`),
              backend,
              checkpoint: trained.checkpoint,
              sha256: await sha256Hex(new Uint8Array(trained.checkpoint)),
              steps: options.steps,
              finalLoss: trained.losses[trained.losses.length - 1],
              sameAsShipped: null,
            };
          } finally {
            worker.close();
          }
        }
      : null,
  };
}
