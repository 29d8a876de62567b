/**
 * Runs & Compare: the stored runs (open, export, delete, import), an overlay of several runs'
 * metrics on shared axes, and one button that queues the paper's comparison with one seed.
 */
import { h, replace } from "../dom.ts";
import { createLineChart, type LineChart } from "../chart.ts";
import { CHARTS, overlayData, type MetricKey, type RunSeries } from "../series.ts";
import { PAPER_COMPARISON, compareMetrics } from "../compare-plan.ts";
import { formatNumber } from "../format.ts";
import type { RunData } from "../deps.ts";
import type { AppState, View, ViewContext } from "../app-types.ts";

const METRICS: { key: MetricKey; label: string }[] = CHARTS.flatMap((c) => c.series.map((s) => ({ key: s.key, label: `${s.label} (${c.title})` })));
const DEFAULT_METRICS: MetricKey[] = ["code_reward", "plus_pass_heldout", "test_validity", "mul"];

export function compareView(root: HTMLElement, ctx: ViewContext): View {
  const { actions, deps } = ctx;
  const selected = new Set<string>();
  const metrics = new Set<MetricKey>(DEFAULT_METRICS);
  const loaded = new Map<string, RunData>();
  const runsPanel = h("section", { class: "panel" });
  const queuePanel = h("section", { class: "panel" });
  const chartsPanel = h("section", { class: "panel" });
  root.append(queuePanel, runsPanel, chartsPanel);
  let charts: LineChart[] = [];
  let state: Readonly<AppState> | null = null;
  let lastRuns: unknown = null;
  let lastImporting: unknown = null;
  let lastLook = "";

  async function toggleRun(id: string, on: boolean) {
    if (on) {
      selected.add(id);
      if (!loaded.has(id) && deps.runs) {
        try {
          loaded.set(id, await deps.runs.load(id));
        } catch (e) {
          selected.delete(id);
          actions.notify("error", `Could not load run ${id}: ${(e as Error).message}`);
        }
      }
    } else selected.delete(id);
    renderCharts();
  }

  function renderQueue(s: Readonly<AppState>) {
    const q = s.queue;
    replace(
      queuePanel,
      h("h2", {}, "The paper's comparison"),
      h("p", {}, `Queue ${PAPER_COMPARISON.join(", ")} with the current settings and seed ${s.config.seed}; they train one after another, then tick them below to overlay their curves.`),
      h("button", { class: "primary", id: "queue-comparison", onclick: () => actions.queueComparison(), disabled: !s.trainerReady || q.current !== null }, "Queue base, golden-tests, self-play, code-a1"),
      q.current || q.pending.length || q.started.length
        ? h("p", { class: "muted", id: "queue-status" }, `running: ${q.current ?? "none"} · waiting: ${q.pending.map((c) => c.mode).join(", ") || "none"} · started: ${q.started.join(", ") || "none"}`)
        : null,
      q.error ? h("p", { class: "error" }, q.error) : null,
      !s.trainerReady ? h("p", { class: "warn" }, s.trainerMissing ?? "Connecting to the training engine…") : null,
    );
  }

  function renderRuns(s: Readonly<AppState>) {
    const bundles = deps.bundles;
    const importInput = h("input", {
      type: "file", accept: ".a1run", id: "import-file", class: "visually-hidden",
      onchange: (e: Event) => {
        const f = (e.target as HTMLInputElement).files?.[0];
        if (f) actions.importRun(f);
      },
    });
    replace(
      runsPanel,
      h("h2", {}, "Stored runs"),
      h(
        "div",
        { class: "buttons" },
        importInput,
        h("button", { onclick: () => importInput.click(), disabled: !bundles || s.importing !== null, title: bundles ? "Import a run bundle" : "Run bundles are not available in this build" }, "Import .a1run…"),
      ),
      s.importing
        ? h("div", { id: "import-progress" },
          h("progress", { max: s.importing.progress?.total || 1, value: s.importing.progress?.done ?? 0, "aria-label": `importing ${s.importing.file}` }),
          h("p", { class: "muted", role: "status" }, `Importing ${s.importing.file}: ${s.importing.progress?.text ?? "starting"}… (checked in a worker; the page stays usable)`),
          h("button", { id: "import-cancel", onclick: () => actions.cancelImport() }, "Cancel import"))
        : null,
      s.runs.length === 0
        ? h("p", { class: "muted" }, deps.runs ? "No stored runs yet." : "Storage is unavailable in this browser (IndexedDB).")
        : h(
            "table",
            { class: "data runs" },
            h("thead", {}, h("tr", {}, ["compare", "run", "mode", "seed", "steps", "status", "updated", ""].map((c) => h("th", { scope: "col" }, c)))),
            h(
              "tbody",
              {},
              s.runs.map((r) =>
                h(
                  "tr",
                  { class: r.id === s.run.runId ? "current" : "" },
                  h("td", {}, h("input", { type: "checkbox", "aria-label": `compare ${r.id}`, checked: selected.has(r.id), onchange: (e: Event) => void toggleRun(r.id, (e.target as HTMLInputElement).checked) })),
                  h("td", {}, r.name && r.name !== r.id ? `${r.name} (${r.id})` : r.id, r.imported ? h("span", { class: "pill", title: "Imported from an .a1run file: opened only when you ask" }, " imported") : null),
                  h("td", {}, r.config.mode),
                  h("td", { class: "num" }, String(r.config.seed)),
                  h("td", { class: "num" }, `${r.step} / ${r.config.steps}`),
                  h("td", {}, h("span", { class: `pill status-${r.status}` }, r.status)),
                  h("td", {}, new Date(r.updated).toLocaleString()),
                  h(
                    "td",
                    {},
                    h(
                      "div",
                      { class: "buttons nowrap" },
                    h("button", { onclick: () => actions.openRun(r.id) }, "Open"),
                    h("button", { onclick: () => actions.rerun(r.id), disabled: !s.trainerReady, title: "Train the same config and seed again; overlay both to check reproduction" }, "Re-run"),
                    h("button", { onclick: () => actions.exportRun(r.id), disabled: !bundles }, "Export"),
                    h("button", { class: "danger", onclick: () => confirm(`Delete run ${r.id} and all its data?`) && actions.deleteRun(r.id) }, "Delete"),
                    ),
                  ),
                ),
              ),
            ),
          ),
    );
  }

  function renderCharts() {
    for (const c of charts) c.destroy();
    charts = [];
    const runs: RunSeries[] = [...selected].flatMap((id) => {
      const d = loaded.get(id);
      return d ? [{ label: `${d.run.config.mode} · ${id}`, metrics: d.metrics }] : [];
    });
    const picker = h(
      "fieldset",
      { class: "metric-picker" },
      h("legend", {}, "Metrics"),
      METRICS.map((m) =>
        h("label", { class: "check" }, h("input", { type: "checkbox", checked: metrics.has(m.key), onchange: (e: Event) => {
          if ((e.target as HTMLInputElement).checked) metrics.add(m.key);
          else metrics.delete(m.key);
          renderCharts();
        } }), ` ${m.label}`),
      ),
    );
    const grid = h("div", { class: "chart-grid" });
    replace(chartsPanel, h("h2", {}, "Overlay"), reproduction(), picker, runs.length ? grid : h("p", { class: "muted" }, "Tick runs above to overlay their metrics."));
    if (!runs.length) return;
    for (const key of METRICS.filter((m) => metrics.has(m.key))) {
      const plot = h("div", { class: "chart" });
      grid.append(h("figure", { class: "chart-card", "data-metric": key.key }, h("figcaption", {}, h("h3", {}, key.label)), plot));
      const spec = CHARTS.find((c) => c.series.some((x) => x.key === key.key))!;
      charts.push(createLineChart(plot, overlayData(runs, key.key), { labels: runs.map((r) => r.label), unit: spec.unit, height: state?.prefs.largeType ? 300 : 220, ariaLabel: `${key.label} of ${runs.length} runs` }));
    }
  }

  /** With two runs ticked: does the second reproduce the first (same seed, same backend)? */
  function reproduction(): HTMLElement | null {
    const pair = [...selected].map((id) => loaded.get(id)).filter((d): d is RunData => !!d);
    if (pair.length !== 2) return null;
    const [a, b] = pair;
    const r = compareMetrics(a.metrics, b.metrics);
    const same = JSON.stringify({ ...a.run.config }) === JSON.stringify({ ...b.run.config });
    const d = r.firstDifference;
    const text = r.reproduced
      ? `${b.run.id} reproduces ${a.run.id}: identical metrics on all ${r.steps} common steps (timings aside).`
      : d
        ? `${b.run.id} does not reproduce ${a.run.id}: first difference at step ${d.step}, ${d.key} ${formatNumber(d.a, 6)} vs ${formatNumber(d.b, 6)}.`
        : `${a.run.id} and ${b.run.id} have no step in common yet.`;
    return h("p", { id: "reproduction", class: r.reproduced ? "" : "warn" }, h("strong", {}, "Reproduction: "), text, same ? "" : " (their configurations differ)");
  }

  return {
    update(s) {
      state = s;
      renderQueue(s);
      if (lastRuns !== s.runs || s.run.runId || lastImporting !== s.importing) {
        lastRuns = s.runs;
        lastImporting = s.importing;
        renderRuns(s);
      }
      const look = `${s.prefs.largeType}:${document.documentElement.dataset.theme}`;
      if (look !== lastLook || chartsPanel.childElementCount === 0) {
        lastLook = look;
        renderCharts();
      }
    },
    destroy() {
      for (const c of charts) c.destroy();
      root.replaceChildren();
    },
  };
}
