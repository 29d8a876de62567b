import { describe, expect, it } from "vitest";
import { Rng } from "../../src/core/rng.ts";

describe("Rng", () => {
  it("gives the same stream for the same seed and different streams for different seeds", () => {
    const a = new Rng(42), b = new Rng(42), c = new Rng(43);
    const xa = Array.from({ length: 5 }, () => a.nextU32());
    expect(Array.from({ length: 5 }, () => b.nextU32())).toEqual(xa);
    expect(Array.from({ length: 5 }, () => c.nextU32())).not.toEqual(xa);
  });

  it("resumes exactly from a saved state", () => {
    const a = new Rng("run-1");
    a.next();
    const saved = a.state();
    const expected = [a.next(), a.next(), a.int(1000)];
    const b = Rng.fromState(saved);
    expect([b.next(), b.next(), b.int(1000)]).toEqual(expected);
  });

  it("is roughly uniform and stays in range", () => {
    const r = new Rng(7);
    const counts = new Array(10).fill(0);
    for (let i = 0; i < 20000; i++) counts[r.int(10)]++;
    for (const c of counts) expect(Math.abs(c - 2000)).toBeLessThan(200);
    for (let i = 0; i < 1000; i++) {
      const x = r.range(-3, 3);
      expect(x).toBeGreaterThanOrEqual(-3);
      expect(x).toBeLessThanOrEqual(3);
    }
  });

  it("forks independent streams without advancing the parent", () => {
    const r = new Rng(1);
    const before = r.state();
    const f1 = r.fork("code"), f2 = r.fork("test");
    expect(r.state()).toEqual(before);
    expect(f1.nextU32()).not.toEqual(f2.nextU32());
    expect(new Rng(1).fork("code").nextU32()).toEqual(new Rng(1).fork("code").nextU32());
  });
});
