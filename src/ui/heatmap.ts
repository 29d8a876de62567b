/**
 * Colour scale of the code x suite reward heatmap. Rewards R_T lie in [0, 1]; the scale runs
 * through fixed stops of a perceptually ordered, colour-blind-safe ramp (stops sampled from
 * matplotlib's "cividis"), so a projector or a grey-scale print still orders the cells.
 */

const CIVIDIS: readonly [number, number, number][] = [
  [0, 34, 78],
  [54, 66, 108],
  [108, 110, 114],
  [164, 157, 117],
  [226, 208, 94],
  [253, 234, 69],
];

export interface CellColour {
  background: string;
  /** Black or white, whichever contrasts more with the background (WCAG relative luminance). */
  text: string;
}

/** Colour of value `v` on [min, max]; values outside are clamped, NaN is grey. */
export function rewardColour(v: number, min = 0, max = 1): CellColour {
  if (!Number.isFinite(v)) return { background: "rgb(128, 128, 128)", text: "#000" };
  if (!(max > min)) throw new RangeError(`heatmap range must have max > min, got [${min}, ${max}]`);
  const t = Math.min(1, Math.max(0, (v - min) / (max - min))) * (CIVIDIS.length - 1);
  const i = Math.min(CIVIDIS.length - 2, Math.floor(t));
  const f = t - i;
  const [r, g, b] = CIVIDIS[i].map((c, k) => Math.round(c + f * (CIVIDIS[i + 1][k] - c)));
  return { background: `rgb(${r}, ${g}, ${b})`, text: relativeLuminance(r, g, b) > 0.179 ? "#000" : "#fff" };
}

/** WCAG 2 relative luminance of an sRGB colour (0..255 channels). */
export function relativeLuminance(r: number, g: number, b: number): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** Range of a matrix for the legend; [0, 1] when empty or constant at the ends of that range. */
export function matrixRange(m: readonly (readonly number[])[]): { min: number; max: number } {
  const vals = m.flat().filter(Number.isFinite);
  const lo = Math.min(0, ...vals);
  const hi = Math.max(1, ...vals);
  return { min: lo, max: hi };
}
