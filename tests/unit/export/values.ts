/** Seeded random canonical values for the parity tests (canonical.ts forms). */
import type { Canonical } from "../../../src/core/grader/canonical.ts";
import type { Rng } from "../../../src/core/rng.ts";

export const hex = (n: number) => (n < 0 ? `-0x${(-n).toString(16)}` : `0x${n.toString(16)}`);
export const FLOATS = [0.3, 0.1 + 0.2, 1, 0, -0, 1e-10, 2.5e-9, 1e16, 123.456, -7.25, 1e300];

export function randomValue(rng: Rng, depth: number): Canonical {
  switch (rng.int(depth >= 2 ? 5 : 9)) {
    case 0: return ["n"];
    case 1: return ["b", rng.next() < 0.5];
    case 2: return ["i", hex(rng.range(-5, 5))];
    case 3: return ["s", rng.pick(["", "a", "ab", "é", "A b"])];
    case 4: return ["f", rng.next() < 0.15 ? rng.pick(["inf", "-inf", "nan"]) : String(rng.pick(FLOATS))];
    case 5:
    case 6: return [rng.next() < 0.5 ? "l" : "t", Array.from({ length: rng.int(4) }, () => randomValue(rng, depth + 1))];
    case 7: return ["S", [...new Set(Array.from({ length: rng.int(4) }, () => rng.range(-3, 3)))].map((n): Canonical => ["i", hex(n)])];
    default: return ["d", [...new Set(Array.from({ length: rng.int(4) }, () => rng.pick(["a", "b", "c", "d"])))].map((k): [Canonical, Canonical] => [["s", k], randomValue(rng, depth + 1)])];
  }
}

/** A value near `v`: equal, or off by a float tolerance, a type, or an element. */
export function nearValue(v: Canonical, rng: Rng): Canonical {
  switch (v[0]) {
    case "f": {
      const x = Number(v[1]);
      if (!Number.isFinite(x)) return rng.next() < 0.5 ? v : ["f", "1e308"];
      return ["f", String(x + rng.pick([0, 3e-10, -3e-10, 3e-9]) * Math.max(1, Math.abs(x)))];
    }
    case "i": return rng.next() < 0.5 ? ["f", String(Number.parseInt(v[1], 16))] : ["b", v[1] !== "0x0"];
    case "b": return ["i", v[1] ? "0x1" : "0x0"];
    case "l":
    case "t": {
      if (rng.next() < 0.3) return [v[0] === "l" ? "t" : "l", v[1]];
      return [v[0], v[1].map((x) => (rng.next() < 0.5 ? nearValue(x, rng) : x))];
    }
    case "d": return ["d", v[1].map(([k, x]): [Canonical, Canonical] => [k, rng.next() < 0.5 ? nearValue(x, rng) : x])];
    default: return v;
  }
}

