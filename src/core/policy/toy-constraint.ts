/**
 * A small stand-in grammar for policy tests, the benchmark and the worker until the arena
 * grammars land: the same TokenConstraint contract, with a cost per step of O(vocabulary) like theirs.
 *
 * Vocabulary: 0 PAD, 1 BOS, 2 EOS, 3..V-1 symbols. A sentence is minLength..maxLength symbols,
 * never the same symbol twice in a row, then EOS.
 */
import type { TokenConstraint } from "../decoding.ts";

export const TOY_PAD = 0;
export const TOY_BOS = 1;
export const TOY_EOS = 2;

export interface ToyState {
  length: number;
  last: number;
  done: boolean;
}

export class ToyConstraint implements TokenConstraint<ToyState> {
  constructor(
    readonly vocabSize: number,
    readonly minLength = 1,
    readonly maxLength = 8,
  ) {
    if (!Number.isInteger(vocabSize) || vocabSize < 5) throw new RangeError(`toy vocabulary needs at least 5 tokens, got ${vocabSize}`);
    if (!(minLength >= 0 && maxLength >= Math.max(1, minLength))) throw new RangeError(`bad toy lengths ${minLength}..${maxLength}`);
  }

  start(): ToyState {
    return { length: 0, last: -1, done: false };
  }

  allowed(state: ToyState, mask: Uint8Array): void {
    mask.fill(0);
    if (state.done) return;
    if (state.length < this.maxLength) for (let t = 3; t < this.vocabSize; t++) mask[t] = t === state.last ? 0 : 1;
    if (state.length >= this.minLength) mask[TOY_EOS] = 1;
  }

  advance(state: ToyState, token: number): ToyState {
    if (state.done) throw new RangeError("toy sentence already ended");
    if (token === TOY_EOS && state.length >= this.minLength) return { length: state.length, last: token, done: true };
    if (token < 3 || token >= this.vocabSize || token === state.last || state.length >= this.maxLength) {
      throw new RangeError(`token ${token} is not allowed after ${state.length} symbols (last ${state.last})`);
    }
    return { length: state.length + 1, last: token, done: false };
  }

  isDone(state: ToyState): boolean {
    return state.done;
  }

  /** Whether a completion (ending in EOS) is a sentence of this grammar. */
  accepts(completion: readonly number[]): boolean {
    let s = this.start();
    const mask = new Uint8Array(this.vocabSize);
    for (const t of completion) {
      this.allowed(s, mask);
      if (!mask[t]) return false;
      s = this.advance(s, t);
    }
    return s.done;
  }
}
