/** What TrainerService tests share: real players (tfjs wasm policies) and waiting for an event. */
import type { TrainerHost } from "../../../src/core/duel/trainer-service.ts";
import { arenaConstraints, arenaVocabulary } from "../../../src/core/duel/contexts.ts";
import type { TrainerEvent } from "../../../src/core/loop/events.ts";
import { PolicyService } from "../../../src/core/policy/policy-service.ts";

/** A real policy on tfjs wasm, as a host's `player` starts one (the caller set the wasm backend up). */
export async function realPlayer(init: Parameters<TrainerHost["player"]>[1], train: Parameters<TrainerHost["player"]>[2]): Promise<PolicyService> {
  const s = new PolicyService(arenaConstraints(arenaVocabulary()));
  await s.init(["wasm"]);
  if ("checkpoint" in init) await s.load(init.checkpoint, train);
  else await s.create({ ...init.fresh, train });
  return s;
}

/** The first event `pick` accepts, polling `events` as they arrive; rejects after `ms`. */
export function until<T>(events: TrainerEvent[], pick: (e: TrainerEvent) => T | undefined, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const look = () => {
      for (const e of events) {
        const hit = pick(e);
        if (hit !== undefined) return resolve(hit);
      }
      if (Date.now() > deadline) return reject(new Error(`no such event in ${ms} ms: ${JSON.stringify(events.map((e) => e.type))}`));
      setTimeout(look, 20);
    };
    look();
  });
}
