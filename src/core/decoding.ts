/**
 * The contract between the arena's grammars and the policies' samplers: a left-to-right token
 * constraint advanced one token at a time. The arena implements it (arena-Python for codes, the typed
 * literal grammar for suites); the policy's sampler applies `allowed` as a mask on the logits at every
 * decoding step. Advancing costs at most O(vocabulary): never a re-parse of the prefix.
 */
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
