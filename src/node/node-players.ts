/**
 * How Node starts a player for the TrainerService's startPlayers (trainer-service.ts): an in-thread
 * PolicyService on the wasm backend (cpu if wasm fails; webgpu only where the config asks for it and
 * Dawn's binding is there, src/node/dawn.ts), base checkpoints from public/checkpoints/.
 * Training (node-host.ts) and evaluation (evaluate-run.ts) both start players this way.
 */
import { readFileSync } from "node:fs";
import type { Vocabulary } from "../core/arena/vocab.ts";
import type { Config } from "../core/config/index.ts";
import { arenaConstraints } from "../core/duel/contexts.ts";
import type { HostedPlayer, TrainerHost } from "../core/duel/trainer-service.ts";
import { PolicyService } from "../core/policy/policy-service.ts";
import { baseCheckpointPath, RunFileError } from "./run-files.ts";
import { useNodeBackend } from "./tf-backend.ts";

/** A player as the Node host starts it: an in-thread PolicyService. */
export function nodePlayer(vocab: Vocabulary): TrainerHost["player"] {
  return async (role, init, train, backend): Promise<HostedPlayer> => {
    // Node trains on wasm; `backend: webgpu` asks for Dawn's WebGPU (dawn.ts) and falls back to wasm, saying why.
    const picked = await useNodeBackend(backend === "webgpu" ? "webgpu" : "wasm");
    const service = new PolicyService(arenaConstraints(vocab));
    const choice = await service.init(picked.backend === "webgpu" ? ["webgpu"] : ["wasm", "cpu"]);
    try {
      if ("checkpoint" in init) {
        const info = await service.load(init.checkpoint, train);
        if (info.config.vocab !== vocab.size) {
          throw new RunFileError(`the ${role} checkpoint was trained for a vocabulary of ${info.config.vocab}, this app's has ${vocab.size}: rebuild the base models with npm run pretrain-base`);
        }
        // Base checkpoints carry no reference (pretrain.ts baseCheckpoint): the KL term anchors at the base.
        if (init.freezeReference) await service.setReference();
      } else await service.create({ ...init.fresh, train });
    } catch (e) {
      service.dispose();
      throw e;
    }
    return Object.assign(service, { backend: { backend: choice.backend, reason: picked.reason } });
  };
}

/** The shipped base checkpoint of a size (public/checkpoints/, or `dir`), or null: fresh weights. */
export async function nodeBaseCheckpoint(size: Config["code_model"], dir?: string): Promise<ArrayBuffer | null> {
  const path = baseCheckpointPath(size, dir);
  if (!path) return null;
  const bytes = readFileSync(path);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
}
