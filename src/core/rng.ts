/**
 * Seeded pseudo-random numbers: every random choice in the project takes an Rng, never Math.random().
 *
 * xoshiro128** (Blackman & Vigna) on four uint32 words, seeded through splitmix32. The state is four
 * numbers, so a run can save it and resume exactly (`state()` / `Rng.fromState`). `fork(label)`
 * derives an independent stream by hashing the label into the seed, so that adding a random draw in
 * one component does not shift the numbers another component sees.
 */
export type RngState = readonly [number, number, number, number];

/** FNV-1a hash of a string to uint32, to turn labels and string seeds into numbers. */
export function hashString(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function splitmix32(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

export class Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number | string) {
    const sm = splitmix32(typeof seed === "string" ? hashString(seed) : seed >>> 0 ^ Math.floor(seed / 2 ** 32));
    this.s0 = sm();
    this.s1 = sm();
    this.s2 = sm();
    this.s3 = sm();
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  static fromState(state: RngState): Rng {
    const r = new Rng(0);
    [r.s0, r.s1, r.s2, r.s3] = state.map((v) => v >>> 0) as unknown as [number, number, number, number];
    return r;
  }

  state(): RngState {
    return [this.s0, this.s1, this.s2, this.s3];
  }

  /** Next uint32. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5) >>> 0, 7), 9) >>> 0;
    const t = (this.s1 << 9) >>> 0;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    this.s0 >>>= 0;
    this.s1 >>>= 0;
    this.s2 >>>= 0;
    return result;
  }

  /** Uniform float in [0, 1) with 32 bits of randomness. */
  next(): number {
    return this.nextU32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    if (!(n > 0) || !Number.isInteger(n)) throw new RangeError(`Rng.int needs a positive integer, got ${n}`);
    return Math.floor(this.next() * n);
  }

  /** Uniform integer in [lo, hi] (inclusive). */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  pick<T>(xs: readonly T[]): T {
    if (xs.length === 0) throw new RangeError("Rng.pick on an empty array");
    return xs[this.int(xs.length)];
  }

  /** Fisher-Yates shuffle of a copy. */
  shuffle<T>(xs: readonly T[]): T[] {
    const a = xs.slice();
    for (let i = a.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [a[i], a[j]] = [a[j], a[i]];
    }
    return a;
  }

  /** An independent stream named by `label`; does not advance this one. */
  fork(label: string): Rng {
    return new Rng(hashString(label, this.s0 ^ this.s1 ^ this.s2 ^ this.s3));
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
