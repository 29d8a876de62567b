/**
 * Play mode's players: the Code and Test policies of the most recent run (its latest checkpoint),
 * or the shipped base models when no run has one, each in its own policy worker, started on first
 * use. The Test policy reads the user's program white-box when it is arena-Python, and the task
 * alone (black-box) when it is not.
 */
import { decodeCode, decodeSuite, encodeCode } from "./core/arena/tokenizer.ts";
import { taskSignature, type Task } from "./core/arena/task.ts";
import { arenaVocabulary, codeContext, codeSpec, suiteSpec, testContext, CODE_MAX_TOKENS, SUITE_MAX_TOKENS } from "./core/duel/contexts.ts";
import { Rng, hashString } from "./core/rng.ts";
import { startPolicyWorker, type PolicyWorker } from "./policy-client.ts";
import { fetchBaseCheckpoint } from "./app-files.ts";
import type { ArenaDatabase } from "./storage/db.ts";
import { listCheckpoints, listRuns, loadCheckpoint } from "./storage/runs.ts";
import type { PlayPolicies } from "./ui/deps.ts";

type Role = "code" | "test";

async function latestPolicies(db: ArenaDatabase): Promise<Record<string, ArrayBuffer> | null> {
  const runs = (await listRuns(db)).sort((a, b) => b.updated - a.updated);
  for (const run of runs) {
    const steps = (await listCheckpoints(db, run.id)).map((c) => c.step).sort((a, b) => b - a);
    if (steps.length) return (await loadCheckpoint(db, run.id, steps[0]))?.policies ?? null;
  }
  return null;
}

export function createPlayPolicies(db: () => Promise<ArenaDatabase>): PlayPolicies {
  const vocab = arenaVocabulary();
  const workers = new Map<Role, Promise<PolicyWorker>>();
  const player = (role: Role) => {
    let w = workers.get(role);
    if (!w) {
      w = (async () => {
        const saved = await latestPolicies(await db()).catch(() => null);
        const checkpoint = saved?.[role] ?? saved?.shared ?? (await fetchBaseCheckpoint(role, "tiny"));
        const worker = startPolicyWorker(`play ${role} policy`);
        // Play samples 4 sequences at a time: dispatch latency dominates, and tfjs wasm beats
        // WebGPU there (and beats software WebGPU by far); training keeps WebGPU.
        await worker.policy.init(["wasm", "cpu"]);
        if (checkpoint) await worker.policy.load(checkpoint);
        else await worker.policy.create({ size: "tiny", vocab: vocab.size, seed: role === "code" ? 1 : 2 });
        return worker;
      })();
      workers.set(role, w);
    }
    return w;
  };
  // Same request, same answer: the seed comes from what was asked.
  const rng = (...parts: string[]) => new Rng(hashString(parts.join("\u0000"))).state();
  return {
    async attackSuites(task: Task, code: string, count: number) {
      let program: number[] | null = null;
      try {
        program = encodeCode(vocab, code, taskSignature(task));
      } catch {
        program = null; // not arena-Python: the Test policy reads the task only
      }
      const { policy } = await player("test");
      const prompts = Array.from({ length: count }, () => testContext(vocab, task, program));
      const { rollout } = await policy.sample(prompts, suiteSpec(task, 8), { maxNewTokens: SUITE_MAX_TOKENS, rngState: rng("attack", task.id, code) });
      return rollout.completions.map((t) => decodeSuite(vocab, t));
    },
    async samplePrograms(task: Task, count: number) {
      const { policy } = await player("code");
      const prompts = Array.from({ length: count }, () => codeContext(vocab, task));
      const { rollout } = await policy.sample(prompts, codeSpec(task), { maxNewTokens: CODE_MAX_TOKENS, rngState: rng("programs", task.id) });
      return rollout.completions.map((t) => decodeCode(vocab, t));
    },
  };
}
