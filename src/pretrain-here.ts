/**
 * Pretraining the base models in this browser (docs/BASE-MODELS.md): the corpus `npm run pretrain`
 * built and shipped (public/checkpoints/corpus.json, checked against the manifest's corpusHash and
 * vocabHash, since the corpus itself needs Python to build), then both policies trained with the
 * shipped recipe in a policy worker, with progress. The worker runs tfjs wasm, the backend the
 * shipped checkpoints were made on, so at the recipe's step counts the result can be compared byte
 * for byte with them (`sameAsShipped`). Nothing is installed: the checkpoints come back to the
 * caller (the Settings view offers them as files).
 */
import { arenaVocabulary } from "./core/duel/contexts.ts";
import { corpusHash, vocabHash, type PretrainCorpus } from "./core/duel/pretrain-corpus.ts";
import {
  BASE_CORPUS_FILE, BASE_MANIFEST_FILE, BASE_RECIPE, baseCheckpointFile, pretrainBase, pretrainOptions,
  type BaseManifest, type BasePolicyName, type PretrainProgress,
} from "./core/duel/pretrain.ts";
import { sha256Hex } from "./core/bundle.ts";
import { fetchAppFile } from "./app-files.ts";
import { startPolicyWorker } from "./policy-client.ts";
import type { PretrainHere, PretrainHereResult } from "./ui/deps.ts";

const POLICIES: BasePolicyName[] = ["code", "test"];

async function appJson<T>(file: string): Promise<T | null> {
  const response = await fetchAppFile(`/checkpoints/${file}`);
  return response ? ((await response.json()) as T) : null;
}

export function createPretrainHere(): PretrainHere {
  return {
    manifest: () => appJson<BaseManifest>(BASE_MANIFEST_FILE),
    async run({ steps, signal, onProgress }) {
      const manifest = await appJson<BaseManifest>(BASE_MANIFEST_FILE);
      const corpus = await appJson<PretrainCorpus>(BASE_CORPUS_FILE);
      if (!manifest || !corpus) throw new Error("this build ships no base-model corpus (run npm run pretrain to make public/checkpoints/corpus.json)");
      const vocab = arenaVocabulary();
      if ((await vocabHash(vocab)) !== manifest.vocabHash) throw new Error("the shipped base models were built for another vocabulary than this app's: rebuild them with npm run pretrain");
      if ((await corpusHash(corpus)) !== manifest.corpusHash) throw new Error("corpus.json does not match the manifest's corpusHash: rebuild both with npm run pretrain");
      const worker = startPolicyWorker("pretrain policy");
      try {
        // wasm, as the shipped checkpoints (webgpu would give other bytes, and on a software adapter take hours).
        const backend = await worker.policy.init(["wasm", "cpu"]);
        const result: PretrainHereResult = { backend: backend.backend, policies: {} };
        for (const policy of POLICIES) {
          const options = pretrainOptions({ ...BASE_RECIPE[policy], size: manifest.size, seed: manifest.seed, ...(steps ? { steps } : {}) });
          const trained = await pretrainBase(worker.policy, corpus[policy], { ...options, vocab: vocab.size, label: `${policy} policy`, signal }, (e: PretrainProgress) =>
            onProgress({ policy, done: e.done, total: e.total, text: e.text }));
          const sha256 = await sha256Hex(new Uint8Array(trained.checkpoint));
          const shipped = manifest.policies[policy];
          result.policies[policy] = {
            file: baseCheckpointFile(policy, manifest.size),
            checkpoint: trained.checkpoint,
            sha256,
            steps: options.steps,
            finalLoss: trained.losses[trained.losses.length - 1],
            // Comparable only for the same recipe on the same backend.
            sameAsShipped: shipped && options.steps === shipped.options.steps && backend.backend === manifest.backend ? sha256 === shipped.sha256 : null,
          };
        }
        return result;
      } finally {
        worker.close();
      }
    },
  };
}
