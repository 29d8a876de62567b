/**
 * Dashboard: the watched run's progress and controls, headline numbers and live charts of every
 * StepMetrics series (series.ts). Charts are created once and fed with setData on each step.
 */
import { h, replace } from "../dom.ts";
import { createLineChart, type LineChart } from "../chart.ts";
import { estimateEta, formatNumber, formatPercent, runProgress } from "../format.ts";
import { CHARTS, chartData, latestValue, type MetricKey } from "../series.ts";
import type { AppState, View, ViewContext } from "../app-types.ts";
import { startPanel } from "./start-panel.ts";

const HEADLINES: { key: MetricKey; label: string; percent: boolean }[] = [
  { key: "code_reward", label: "Code reward", percent: false },
  { key: "plus_pass_heldout", label: "Plus-pass@1 held-out", percent: true },
  { key: "test_validity", label: "Test validity", percent: true },
  { key: "bug_detection_heldout", label: "Bug detection held-out", percent: true },
  { key: "mistake_book_size", label: "Mistake Book", percent: false },
];

export function dashboardView(root: HTMLElement, ctx: ViewContext): View {
  const { actions } = ctx;
  const top = h("div");
  const controls = h("section", { class: "panel run-panel", "aria-label": "Run controls" });
  const tiles = h("div", { class: "tiles" });
  const grid = h("div", { class: "chart-grid" });
  root.append(top, controls, tiles, grid);
  const charts = new Map<string, LineChart>();
  let lastMetrics: unknown = null;
  /** Type size and theme the charts were drawn for: fonts, heights and colours follow them. */
  let lastLook: string | null = null;

  function renderControls(s: Readonly<AppState>) {
    const r = s.run;
    if (!r.runId) {
      replace(controls, h("p", { class: "muted" }, "No run is open. Start one above, or open a stored run under Runs & Compare."));
      return;
    }
    const steps = r.steps || s.config.steps;
    // The orchestrator's ETA wins; until it sends one, estimate from the recent steps' times, the
    // first step left out (it also pays for warm-up: the same rule as RunLoop's).
    const stepMs = r.metrics.filter((m) => m.step > 1).map((m) => m.time_sample_ms + m.time_grade_ms + m.time_update_ms);
    const p = runProgress(r.step, steps, r.status === "running" ? (r.eta_s ?? estimateEta(stepMs, r.step, steps)) : null);
    const running = r.status === "running";
    const can = s.trainerReady;
    replace(
      controls,
      h(
        "div",
        { class: "run-head" },
        h("h2", {}, `Run ${r.runId}`),
        h("span", { class: `pill status-${r.status}`, id: "run-status" }, r.status),
      ),
      h("progress", { max: 1, value: p.fraction, "aria-label": "run progress" }),
      h("p", { class: "progress-text" }, h("strong", {}, p.label), p.eta ? ` · ${p.eta}` : "", r.progress ? ` · ${r.progress.phase}: ${r.progress.text}` : ""),
      h(
        "div",
        { class: "buttons" },
        running
          ? h("button", { onclick: () => actions.pause(), disabled: !can, title: "Finish the current step, checkpoint, stop stepping (p)" }, "Pause")
          : h("button", { onclick: () => actions.resume(), disabled: !can || r.status === "done", title: "Continue from the last complete step (p)" }, "Resume"),
        h("button", { onclick: () => actions.stepOnce(), disabled: !can || running || r.status === "done", title: "Run exactly one step, then pause (n)" }, "Single step"),
        h("button", { onclick: () => actions.stop(), disabled: !can || !running, title: "Stop after the current step; the run stays stored" }, "Stop"),
      ),
      r.error ? h("p", { class: "error", role: "alert" }, r.error) : null,
    );
  }

  function renderTiles(s: Readonly<AppState>) {
    replace(
      tiles,
      HEADLINES.map(({ key, label, percent }) => {
        const v = latestValue(s.run.metrics, key);
        return h(
          "div",
          { class: "tile" },
          h("div", { class: "tile-label" }, label),
          h("div", { class: "tile-value" }, v === null ? "–" : percent ? formatPercent(v.value) : formatNumber(v.value)),
          h("div", { class: "tile-step muted" }, v === null ? "not measured yet" : `step ${v.step}`),
        );
      }),
    );
  }

  function renderCharts(s: Readonly<AppState>) {
    const large = s.prefs.largeType;
    const look = `${large}:${document.documentElement.dataset.theme}`;
    if (lastLook !== look) {
      for (const c of charts.values()) c.destroy();
      charts.clear();
      grid.replaceChildren();
      lastLook = look;
      lastMetrics = null;
    }
    // The run id is part of the key: a new run starts with the same empty array.
    const key = [s.run.runId, s.run.metrics];
    if (lastMetrics && (lastMetrics as unknown[])[0] === key[0] && (lastMetrics as unknown[])[1] === key[1]) return;
    lastMetrics = key;
    if (s.run.metrics.length === 0) {
      for (const c of charts.values()) c.destroy();
      charts.clear();
      replace(grid, h("p", { class: "muted empty" }, s.run.runId ? "Waiting for the first step…" : ""));
      return;
    }
    if (charts.size === 0) grid.replaceChildren();
    for (const spec of CHARTS) {
      const data = chartData(s.run.metrics, spec);
      const existing = charts.get(spec.id);
      if (existing) {
        existing.setData(data);
        continue;
      }
      const plot = h("div", { class: "chart" });
      grid.append(h("figure", { class: "panel chart-card", "data-chart": spec.id }, h("figcaption", {}, h("h3", {}, spec.title), h("p", { class: "muted" }, spec.help)), plot));
      charts.set(spec.id, createLineChart(plot, data, {
        labels: spec.series.map((x) => x.label),
        unit: spec.unit,
        height: large ? 300 : 220,
        stacked: spec.stacked,
        ariaLabel: `${spec.title}: ${spec.help}`,
      }));
    }
  }

  return {
    update(s) {
      replace(top, s.run.status === "running" ? null : startPanel(s, ctx));
      renderControls(s);
      renderTiles(s);
      renderCharts(s);
    },
    destroy() {
      for (const c of charts.values()) c.destroy();
      root.replaceChildren();
    },
  };
}
