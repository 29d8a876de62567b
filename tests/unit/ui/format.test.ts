import { describe, expect, it } from "vitest";
import { clipText, estimateEta, formatDuration, formatMs, formatNumber, formatPercent, formatTick, hiddenNote, runProgress } from "../../../src/ui/format.ts";

describe("format", () => {
  it("formats numbers, missing values and extremes", () => {
    expect(formatNumber(null)).toBe("–");
    expect(formatNumber(Number.NaN)).toBe("–");
    expect(formatNumber(3)).toBe("3");
    expect(formatNumber(0.12345)).toBe("0.123");
    expect(formatNumber(0.00012)).toBe("1.20e-4");
    expect(formatNumber(Infinity)).toBe("∞");
    expect(formatPercent(0.425)).toBe("42.5 %");
    expect(formatPercent(null)).toBe("–");
  });
  it("formats durations for people", () => {
    expect(formatDuration(42.4)).toBe("42 s");
    expect(formatDuration(185)).toBe("3 min 05 s");
    expect(formatDuration(3720)).toBe("1 h 02 min");
    expect(formatDuration(null)).toBe("–");
    expect(formatMs(850)).toBe("850 ms");
    expect(formatMs(1234)).toBe("1.2 s");
  });
  it("computes progress and an ETA from recent step times", () => {
    expect(runProgress(3, 12, 90)).toEqual({ fraction: 0.25, label: "step 3 / 12", eta: "about 1 min 30 s left" });
    expect(runProgress(12, 12, 5).eta).toBe("");
    // last 2 of [100, 1000, 3000] ms: mean 2000 ms x 10 steps left = 20 s
    expect(estimateEta([100, 1000, 3000], 5, 15, 2)).toBe(20);
    expect(estimateEta([], 5, 15)).toBeNull();
    expect(estimateEta([1000], 15, 15)).toBeNull();
  });
});

describe("formatTick", () => {
  it("gives ticks as many decimals as their spacing needs, so neighbours never read the same", () => {
    // The PPO clip chart's axis: 0, 5e-4, 1e-3, ... used to read 0.00, 0.00, 0.00.
    expect([0, 0.0005, 0.001, 0.0015].map((v) => formatTick(v, 0.0005))).toEqual(["0.0000", "0.0005", "0.0010", "0.0015"]);
    expect([0, 0.25, 0.5, 0.75, 1].map((v) => formatTick(v, 0.25))).toEqual(["0.00", "0.25", "0.50", "0.75", "1.00"]);
    expect([0, 5, 10].map((v) => formatTick(v, 5))).toEqual(["0", "5", "10"]);
    expect([-0.2, 0, 0.2].map((v) => formatTick(v, 0.2))).toEqual(["-0.2", "0.0", "0.2"]);
    // Floating-point spacing (0.1 + 0.2) still reads as one decimal; a negative zero loses its sign.
    expect(formatTick(0.30000000000000004, 0.1)).toBe("0.3");
    expect(formatTick(-1e-12, 0.1)).toBe("0.0");
    expect(formatTick(1e-7, 1e-7)).toBe("0.000000");
  });
});

describe("clipText", () => {
  it("keeps a text within the limit whole and clips a longer one, saying how much is left out", () => {
    expect(clipText("def f(x):\n    return x", 100)).toEqual({ shown: "def f(x):\n    return x", hidden: 0 });
    const long = "x".repeat(1_000_000);
    const c = clipText(long, 20_000);
    expect(c.shown.length).toBe(20_000);
    expect(c.hidden).toBe(980_000);
    expect(hiddenNote(c.hidden)).toBe("… 980,000 more characters not shown");
  });

  it("never splits a surrogate pair", () => {
    const c = clipText("ab😀cd", 3);
    expect(c).toEqual({ shown: "ab", hidden: 4 });
    expect(c.shown + "😀cd").toBe("ab😀cd");
  });
});
