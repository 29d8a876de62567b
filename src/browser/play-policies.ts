/**
 * Play mode's players: the Code and Test policies of the most recent run (its latest checkpoint),
 * or the shipped base models when no run has one, each in its own policy worker, started on first
 * use. The Test policy reads the user's program white-box when it is arena-Python, and the task
 * alone (black-box) when it is not.
 */
import { encodeCode } from "../core/arena/tokenizer.ts";
import { taskSignature, type Task } from "../core/arena/task.ts";
import { arenaVocabulary } from "../core/duel/contexts.ts";
import { samplePrograms, sampleSuites } from "../core/duel/evaluate.ts";
import { hashString } from "../core/rng.ts";
import { startPolicyWorker, type PolicyWorker } from "./policy-client.ts";
import { fetchBaseCheckpoint } from "./app-files.ts";
import type { ArenaDatabase } from "../storage/db.ts";
import { listCheckpoints, listRuns, loadCheckpoint } from "../storage/runs.ts";
import type { PlayPolicies } from "../ui/deps.ts";

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
        const checkpoint = saved?.[role] ?? saved?.shared ?? (await fetchBaseCheckpoint("tiny"));
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
  // Same request, same answer: the seed comes from what was asked. Temperature 1: the policies'
  // training distribution, so Play shows what the duel sees.
  const seed = (...parts: string[]) => hashString(parts.join("\u0000"));
  return {
    async attackSuites(task: Task, code: string, count: number) {
      let program: number[] | null = null;
      try {
        program = encodeCode(vocab, code, taskSignature(task));
      } catch {
        program = null; // not arena-Python: the Test policy reads the task only
      }
      const { policy } = await player("test");
      const suites = await sampleSuites(policy, [task], () => [program], count, "attack", { vocab, temperature: 1, seed: seed("attack", task.id, code) });
      return suites[task.id].map((lines) => lines.join("\n"));
    },
    async samplePrograms(task: Task, count: number) {
      const { policy } = await player("code");
      return (await samplePrograms(policy, [task], { vocab, samples: count, temperature: 1, seed: seed("programs", task.id) })).texts[task.id];
    },
  };
}
