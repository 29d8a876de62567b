/**
 * Pretraining the base model in this browser (docs/BASE-MODELS.md): fetches the manifest and the
 * corpus `npm run pretrain` shipped (building the corpus needs Python) and runs rebuildBase
 * (src/core/duel/pretrain.ts) against a policy worker on tfjs wasm, the backend the shipped
 * checkpoints were made on, so at the recipe's steps the bytes can be compared with them. Nothing is
 * installed: the checkpoints come back to the caller (the Settings view offers them as files).
 */
import { arenaVocabulary } from "./core/duel/contexts.ts";
import { BASE_CORPUS_FILE, BASE_MANIFEST_FILE, parseCorpusFile, rebuildBase, type BaseManifest } from "./core/duel/pretrain.ts";
import { fetchCheckpointsFile, fetchCheckpointsJson } from "./app-files.ts";
import { startPolicyWorker } from "./policy-client.ts";
import type { PretrainHere } from "./ui/deps.ts";

export function createPretrainHere(): PretrainHere {
  return {
    manifest: () => fetchCheckpointsJson<BaseManifest>(BASE_MANIFEST_FILE),
    async run(opts) {
      const manifest = await fetchCheckpointsJson<BaseManifest>(BASE_MANIFEST_FILE);
      const file = await fetchCheckpointsFile(BASE_CORPUS_FILE);
      if (!manifest || !file) throw new Error(`this build ships no base-model corpus (run npm run pretrain to make public/checkpoints/${BASE_CORPUS_FILE})`);
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
  };
}
