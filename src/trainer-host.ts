/**
 * The browser's TrainerHost: each policy in its own module worker (src/policy-client.ts), runs in
 * IndexedDB, base checkpoints fetched from the app's own /checkpoints/, and the grader given by the
 * caller (the sandbox worker's client). Used by workers/trainer.worker.ts; all sequencing is in
 * src/core/duel/trainer-service.ts.
 */
import { arenaV1 } from "./core/arena/task-suite.ts";
import { taskSetHash } from "./core/bundle.ts";
import { arenaVocabulary } from "./core/duel/contexts.ts";
import type { HostedPlayer, TrainerHost } from "./core/duel/trainer-service.ts";
import type { Grader } from "./core/grader/types.ts";
import { startPolicyWorker } from "./policy-client.ts";
import { openArenaDb } from "./storage/db.ts";
import { indexedDbRepository } from "./storage/run-repository.ts";

/** Name of the WebGPU adapter, for the backend badge ("SwiftShader", a GPU's description...). */
async function adapterName(): Promise<string | null> {
  type Adapter = { info?: Record<string, string> };
  const gpu = (navigator as unknown as { gpu?: { requestAdapter(): Promise<Adapter | null> } }).gpu;
  const info = (await gpu?.requestAdapter().catch(() => null))?.info;
  if (!info) return null;
  return [info.vendor, info.architecture, info.description, info.device].filter((x) => x).join(" ") || "unnamed adapter";
}

export async function createBrowserTrainerHost(grader: Grader): Promise<TrainerHost> {
  const tasks = arenaV1();
  const db = await openArenaDb();
  return {
    tasks,
    vocab: arenaVocabulary(),
    grader,
    repo: indexedDbRepository(db, await taskSetHash(tasks)),
    async player(role, init, train): Promise<HostedPlayer> {
      const w = startPolicyWorker(`${role} policy`);
      try {
        const choice = await w.policy.init();
        if ("checkpoint" in init) {
          await w.policy.load(init.checkpoint, train);
          if (init.freezeReference) await w.policy.setReference();
        } else await w.policy.create({ ...init.fresh, train });
        const adapter = choice.backend === "webgpu" ? await adapterName() : null;
        return {
          sample: (prompts, spec, opts) => w.policy.sample(prompts, spec, opts),
          update: (samples, rngState) => w.policy.update(samples, rngState),
          save: () => w.policy.save(),
          dispose: () => w.close(),
          backend: { backend: choice.backend, reason: choice.reason, adapter },
        };
      } catch (e) {
        w.close();
        throw e;
      }
    },
    async baseCheckpoint(role, size) {
      const response = await fetch(new URL(`/checkpoints/${role}-${size}.bin`, self.location.origin));
      // A missing file is a 404, or the SPA fallback page from a dev/preview server.
      if (response.status === 404 || (response.headers.get("content-type") ?? "").includes("text/html")) return null;
      if (!response.ok) throw new Error(`could not load the base ${role} policy (${response.status} ${response.statusText}): rebuild it with npm run pretrain`);
      return response.arrayBuffer();
    },
  };
}
