/**
 * Line charts with uPlot: one wrapper so every chart shares the palette (colour-blind safe,
 * Okabe-Ito), theme-aware axis colours, point markers on sparse (eval-only) series, and resizing.
 */
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { ChartUnit } from "./series.ts";
import { formatMs, formatNumber, formatTick } from "./format.ts";

/** Okabe & Ito (2008), readable for the common colour-vision deficiencies. */
export const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#8a7a00", "#777777"];
/** The same hues lightened for dark backgrounds (blue and vermillion are too dark there). */
export const PALETTE_DARK = ["#56B4E9", "#E69F00", "#2BD19A", "#E59BC9", "#FF8A50", "#9AD3F5", "#F0E442", "#BBBBBB"];

export interface LineChartOptions {
  labels: string[];
  unit: ChartUnit;
  height: number;
  /** Fill between stacked bands (time split). */
  stacked?: boolean;
  /** Accessible description of the chart. */
  ariaLabel: string;
}

export interface LineChart {
  setData(data: (number | null)[][]): void;
  destroy(): void;
}

function tickFormat(unit: ChartUnit): (v: number, step: number) => string {
  if (unit === "ms") return formatMs;
  if (unit === "count") return (v) => (Number.isInteger(v) ? String(v) : "");
  return formatTick;
}

function themeColours(el: HTMLElement): { axis: string; grid: string } {
  const cs = getComputedStyle(el);
  return { axis: cs.getPropertyValue("--fg-muted").trim() || "#555", grid: cs.getPropertyValue("--grid").trim() || "#ddd" };
}

export function createLineChart(container: HTMLElement, data: (number | null)[][], o: LineChartOptions): LineChart {
  container.setAttribute("role", "img");
  container.setAttribute("aria-label", o.ariaLabel);
  const { axis, grid } = themeColours(container);
  const palette = container.ownerDocument.documentElement.dataset.theme === "dark" ? PALETTE_DARK : PALETTE;
  const fmt = tickFormat(o.unit);
  const font = getComputedStyle(container).fontSize;
  const axisFont = `${font} system-ui, sans-serif`;
  // Wide enough for the longest tick label ("0.0015", "1.2 s") at this type size, never narrower than 48 px.
  const axisWidth = (_u: uPlot, values: string[] | null) => Math.max(48, Math.ceil(Math.max(3, ...(values ?? []).map((v) => String(v ?? "").length)) * 0.62 * (parseFloat(font) || 12)) + 20);
  const width = () => Math.max(240, Math.floor(container.clientWidth || 480));
  const opts: uPlot.Options = {
    width: width(),
    height: o.height,
    scales: { x: { time: false } },
    legend: { show: true, live: true },
    cursor: { drag: { x: false, y: false } },
    axes: [
      { stroke: axis, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, font: axisFont, label: "step", labelFont: axisFont, values: (_u, vs) => vs.map((v) => (Number.isInteger(v) ? String(v) : "")) },
      { stroke: axis, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, font: axisFont, size: axisWidth, values: (_u, vs, _axis, _space, step) => vs.map((v) => fmt(v, step)) },
    ],
    series: [
      { label: "step", value: (_u, v) => (v === null ? "–" : String(v)) },
      ...o.labels.map((label, i) => ({
        label,
        stroke: palette[i % palette.length],
        width: 2,
        spanGaps: true,
        points: { show: (u: uPlot, si: number) => sparse(u.data[si] as (number | null)[]), size: 7 },
        fill: o.stacked ? `${palette[i % palette.length]}33` : undefined,
        value: (_u: uPlot, v: number | null) => (v === null ? "–" : o.unit === "ms" ? formatMs(v) : formatNumber(v, 2)),
      })),
    ],
  };
  const plot = new uPlot(opts, data as uPlot.AlignedData, container);
  const ro = new ResizeObserver(() => plot.setSize({ width: width(), height: o.height }));
  ro.observe(container);
  return {
    setData: (d) => plot.setData(d as uPlot.AlignedData),
    destroy: () => {
      ro.disconnect();
      plot.destroy();
    },
  };
}

/** Eval metrics have a value every few steps: draw markers so lone points show. */
function sparse(col: readonly (number | null)[] | undefined): boolean {
  if (!col) return false;
  const n = col.filter((v) => v !== null).length;
  return n > 0 && n <= Math.max(20, col.length / 3);
}
