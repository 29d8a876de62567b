/** Shared helpers for the arena grammar tests: random signatures (uniform sampling is decoding.ts sampleUniform). */
import { ARENA_TYPES, type Signature } from "../../../src/core/arena/types.ts";
import { PARAM_NAMES } from "../../../src/core/arena/vocab.ts";
import type { Rng } from "../../../src/core/rng.ts";

/** A random signature: 0-3 distinct parameters from the pool, random arena types. */
export function randomSignature(rng: Rng): Signature {
  const names = rng.shuffle(PARAM_NAMES).slice(0, rng.range(0, 3));
  return { entry_point: "f", params: names.map((name) => ({ name, type: rng.pick(ARENA_TYPES) })), returns: rng.pick(ARENA_TYPES) };
}
