/** Shared helpers for the arena grammar tests: uniform constrained sampling and random signatures. */
import type { TokenConstraint } from "../../../src/core/decoding.ts";
import { ARENA_TYPES, type Signature } from "../../../src/core/arena/types.ts";
import { PARAM_NAMES } from "../../../src/core/arena/vocab.ts";
import type { Rng } from "../../../src/core/rng.ts";

/** Sample uniformly over the allowed tokens until done; throws if a state allows nothing. */
export function sampleUniform<S>(c: TokenConstraint<S>, rng: Rng, onStep?: (s: S) => void): number[] {
  const mask = new Uint8Array(c.vocabSize);
  const allowed: number[] = [];
  const s = c.start();
  const out: number[] = [];
  while (!c.isDone(s)) {
    c.allowed(s, mask);
    onStep?.(s);
    allowed.length = 0;
    for (let t = 0; t < mask.length; t++) if (mask[t]) allowed.push(t);
    if (allowed.length === 0) throw new Error(`no token allowed after ${out.length} tokens`);
    const t = rng.pick(allowed);
    out.push(t);
    c.advance(s, t);
  }
  return out;
}

/** A random signature: 0-3 distinct parameters from the pool, random arena types. */
export function randomSignature(rng: Rng): Signature {
  const names = rng.shuffle(PARAM_NAMES).slice(0, rng.range(0, 3));
  return { entry_point: "f", params: names.map((name) => ({ name, type: rng.pick(ARENA_TYPES) })), returns: rng.pick(ARENA_TYPES) };
}
