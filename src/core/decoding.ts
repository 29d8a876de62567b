/**
 * The contract between the arena's grammars and the policies' samplers: a left-to-right token
 * constraint advanced one token at a time. The arena implements it (arena-Python for codes, the typed
 * literal grammar for suites); the policy's sampler applies `allowed` as a mask on the logits at every
 * decoding step. Advancing costs at most O(vocabulary): never a re-parse of the prefix.
 */
import type { Rng } from "./rng.ts";

export interface TokenConstraint<S> {
  /** Size of the shared vocabulary; masks have this length. */
  readonly vocabSize: number;
  /** State before the first generated token. */
  start(): S;
  /** Fill `mask` with 1 for tokens allowed next and 0 for the rest. At least one token is allowed until done. */
  allowed(state: S, mask: Uint8Array): void;
  /** State after `token`, which must be allowed. May reuse and return `state`. */
  advance(state: S, token: number): S;
  /** True when the sample is complete (the end token was taken); nothing more may follow. */
  isDone(state: S): boolean;
}

/** A constraint that allows no token before it is done: a grammar bug. */
export class ConstraintError extends Error {
  override name = "ConstraintError";
}

/**
 * Draws uniformly among the allowed tokens until the constraint is done: a grammar-random sample
 * (the pretraining corpus' noise programs, the grammar tests). `onStep` sees each state after its
 * mask is computed, before the draw.
 */
export function sampleUniform<S>(c: TokenConstraint<S>, rng: Rng, onStep?: (state: S) => void): number[] {
  const mask = new Uint8Array(c.vocabSize);
  const allowed: number[] = [];
  let s = c.start();
  const out: number[] = [];
  while (!c.isDone(s)) {
    c.allowed(s, mask);
    onStep?.(s);
    allowed.length = 0;
    for (let t = 0; t < mask.length; t++) if (mask[t]) allowed.push(t);
    if (allowed.length === 0) throw new ConstraintError(`grammar allowed no token after ${out.length} tokens`);
    const t = rng.pick(allowed);
    out.push(t);
    s = c.advance(s, t);
  }
  return out;
}

/** Whether `tokens` (ending with the end token) is a complete sample of `c`: every token allowed, done at the end. */
export function fitsConstraint<S>(c: TokenConstraint<S>, tokens: readonly number[]): boolean {
  const mask = new Uint8Array(c.vocabSize);
  let s = c.start();
  for (const t of tokens) {
    if (c.isDone(s)) return false;
    c.allowed(s, mask);
    if (!mask[t]) return false;
    s = c.advance(s, t);
  }
  return c.isDone(s);
}
