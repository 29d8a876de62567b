import { describe, expect, it } from "vitest";
import { matrixRange, relativeLuminance, rewardColour } from "../../../src/ui/heatmap.ts";

describe("heatmap colour scale", () => {
  it("maps the ends of the range to the ramp's ends and clamps outside", () => {
    expect(rewardColour(0).background).toBe("rgb(0, 34, 78)");
    expect(rewardColour(1).background).toBe("rgb(253, 234, 69)");
    expect(rewardColour(-5).background).toBe(rewardColour(0).background);
    expect(rewardColour(7).background).toBe(rewardColour(1).background);
  });
  it("is ordered by luminance, so it reads in grey scale", () => {
    const lum = [0, 0.2, 0.4, 0.6, 0.8, 1].map((v) => {
      const [r, g, b] = rewardColour(v).background.match(/\d+/g)!.map(Number);
      return relativeLuminance(r, g, b);
    });
    for (let i = 1; i < lum.length; i++) expect(lum[i]).toBeGreaterThan(lum[i - 1]);
  });
  it("picks readable text: white on the dark end, black on the bright end", () => {
    expect(rewardColour(0).text).toBe("#fff");
    expect(rewardColour(1).text).toBe("#000");
  });
  it("rejects an empty range and widens the legend to include [0, 1]", () => {
    expect(() => rewardColour(0.5, 1, 1)).toThrow(/max > min/);
    expect(matrixRange([[0.2, 0.4]])).toEqual({ min: 0, max: 1 });
    expect(matrixRange([[-0.5, 2]])).toEqual({ min: -0.5, max: 2 });
  });
});
