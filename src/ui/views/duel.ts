/**
 * Duel view: one task at one step. The code x suite reward heatmap first (the whole duel at a
 * glance), then the bugs the suites caught (the breaking test line, the buggy program beside the
 * reference and what each returned for it: bug-catch.ts), then each code with its suites and
 * per-line verdicts, TopVar's choice, and what entered or left the Mistake Book.
 */
import type { LineResult } from "../../core/grader/types.ts";
import type { DuelCode, DuelRecord } from "../../core/loop/types.ts";
import { rewardMatrix } from "../../core/loop/types.ts";
import { h, replace } from "../dom.ts";
import { formatNumber } from "../format.ts";
import { matrixRange, rewardColour } from "../heatmap.ts";
import { duelSteps, neighbourStep, resolveDuel } from "../run-state.ts";
import { taskLabel, taskLabelById } from "../task-label.ts";
import { bugCatches } from "../bug-catch.ts";
import type { Task } from "../../core/arena/task.ts";
import { codeStatusBadge, lineBadge, suiteCounts } from "../verdicts.ts";
import type { AppState, View, ViewContext } from "../app-types.ts";
import { badge } from "./badges.ts";
import { codeBlock, codeInline, clippedText } from "./code-block.ts";

export function duelView(root: HTMLElement, ctx: ViewContext): View {
  // The built-in tasks (a duel's prompt and reference) arrive from their worker after the page opens:
  // a view shown before them is drawn again when they come.
  let last: { duels: unknown; sel: unknown; large: boolean; tasks: unknown } | null = null;
  return {
    update(s) {
      if (last && last.duels === s.run.duels && last.sel === s.duel && last.large === s.prefs.largeType && last.tasks === s.tasks) return;
      last = { duels: s.run.duels, sel: s.duel, large: s.prefs.largeType, tasks: s.tasks };
      const record = resolveDuel(s.run.duels, s.duel);
      if (!record) {
        replace(root, h("section", { class: "panel" }, h("h2", {}, "Duel"), h("p", { class: "muted" }, "No duel recorded yet: start a run or open a stored one.")));
        return;
      }
      const task = s.tasks.find((t) => t.id === record.task);
      replace(root, duelNavigator(s, record, ctx), task ? h("p", { class: "task-prompt" }, h("strong", {}, `${taskLabel(task)}: `), task.prompt) : null, heatmap(record), caughtBugs(record, task), mistakeDelta(record), ...record.codes.map((c, i) => codeCard(record, c, i)));
    },
    destroy() {
      root.replaceChildren();
    },
  };
}

function duelNavigator(s: Readonly<AppState>, record: DuelRecord, ctx: ViewContext): HTMLElement {
  const { actions } = ctx;
  const steps = duelSteps(s.run.duels);
  const tasks = s.run.duels.filter((d) => d.step === record.step).map((d) => d.task);
  const prev = neighbourStep(s.run.duels, record.step, -1);
  const next = neighbourStep(s.run.duels, record.step, 1);
  return h(
    "section",
    { class: "panel duel-nav", "aria-label": "Choose the duel" },
    h("h2", {}, `Duel: ${record.task}, step ${record.step}`),
    h(
      "div",
      { class: "buttons" },
      h("button", { onclick: () => actions.selectDuel({ step: prev, task: record.task }), disabled: prev === record.step, title: "Previous recorded step ([)" }, "◀ Step back"),
      h("label", { for: "duel-step" }, "Step"),
      h(
        "select",
        { id: "duel-step", onchange: (e: Event) => actions.selectDuel({ step: Number((e.target as HTMLSelectElement).value), task: record.task }) },
        steps.map((st) => h("option", { value: st, selected: st === record.step }, String(st))),
      ),
      h("button", { onclick: () => actions.selectDuel({ step: next, task: record.task }), disabled: next === record.step, title: "Next recorded step (])" }, "Step forward ▶"),
      h("label", { for: "duel-task" }, "Task"),
      h(
        "select",
        { id: "duel-task", onchange: (e: Event) => actions.selectDuel({ step: record.step, task: (e.target as HTMLSelectElement).value }) },
        tasks.map((t) => h("option", { value: t, selected: t === record.task }, taskLabelById(s.tasks, t))),
      ),
    ),
  );
}

function heatmap(record: DuelRecord): HTMLElement {
  const m = rewardMatrix(record);
  const { min, max } = matrixRange(m);
  const nSuites = Math.max(0, ...m.map((r) => r.length));
  const chosen = new Set(record.topvar.selected);
  const table = h(
    "table",
    { class: "heatmap", "aria-label": "Test reward R_T of each suite (columns) written against each code (rows)" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "code \\ suite"), Array.from({ length: nSuites }, (_, j) => h("th", { scope: "col" }, `S${j + 1}`)), h("th", { scope: "col" }, "R_C"), h("th", { scope: "col" }, "std R_T"))),
    h(
      "tbody",
      {},
      m.map((row, i) =>
        h(
          "tr",
          { class: chosen.has(i) ? "topvar" : "" },
          h("th", { scope: "row" }, h("a", { href: `#code-${i}` }, `code ${i + 1}`), chosen.has(i) ? h("span", { class: "topvar-mark", title: "TopVar chose this code: its suites train the Test policy" }, " ★ TopVar") : null),
          row.map((v, j) => {
            const c = rewardColour(v, min, max);
            return h("td", { style: `background:${c.background};color:${c.text}`, title: `code ${i + 1}, suite ${j + 1}: R_T = ${formatNumber(v)}` }, v.toFixed(2));
          }),
          h("td", { class: "num" }, formatNumber(record.codes[i].reward, 2)),
          h("td", { class: "num" }, formatNumber(record.topvar.std[i] ?? NaN, 2)),
        ),
      ),
    ),
  );
  const legend = h(
    "div",
    { class: "legend", "aria-hidden": "true" },
    h("span", {}, formatNumber(min, 2)),
    h("span", { class: "ramp", style: `background:linear-gradient(to right, ${[0, 0.25, 0.5, 0.75, 1].map((t) => rewardColour(min + t * (max - min), min, max).background).join(", ")})` }),
    h("span", {}, formatNumber(max, 2)),
  );
  return h(
    "section",
    { class: "panel" },
    h("h3", {}, "Reward matrix R_T (code × suite)"),
    h("p", { class: "muted" }, "Each cell: how well one suite scored against one code (validity and bugs exposed). TopVar trains the Test policy on the suites of the code whose row varies most."),
    h("div", { class: "scroll-x" }, table),
    legend,
  );
}

/** Each broken code's first breaking line: the program beside the reference, and what each returned. */
function caughtBugs(record: DuelRecord, task: Task | undefined): HTMLElement {
  const catches = bugCatches(record);
  const loaded = record.codes.filter((c) => c.status === "ok").length;
  return h(
    "section",
    { class: "panel bugs-caught", "aria-label": "Bugs the suites caught" },
    h("h3", {}, `Bugs caught: ${catches.length} of ${loaded} loaded codes broken by a suite`),
    catches.length === 0
      ? h("p", { class: "muted" }, "No suite broke a loaded code this step: every code passed every test written for it (correct, or the tests missed its bug).")
      : catches.map((b, n) =>
          h(
            "details",
            { class: "bug-catch", open: n === 0 },
            h("summary", {}, h("strong", {}, `Code ${b.code + 1}`), ` · suite ${b.suite + 1}, line ${b.line + 1} (${b.suitesBroke} of ${record.codes[b.code].suites.length} suites broke it)`),
            h("p", {}, "Test: ", codeInline(b.test)),
            h(
              "table",
              { class: "bug-outputs" },
              h("tr", {}, h("th", { scope: "row" }, codeInline(b.call)), h("td", {}, "reference returned ", codeInline(b.reference)), h("td", { class: "bug-value" }, `code ${b.code + 1}: `, codeInline(b.program))),
            ),
            h(
              "div",
              { class: "side-by-side" },
              h("figure", {}, h("figcaption", {}, `Code ${b.code + 1} (buggy)`), codeBlock(record.codes[b.code].text, `code ${b.code + 1}`)),
              h("figure", {}, h("figcaption", {}, "Reference"), task ? codeBlock(task.reference, "reference") : h("p", { class: "muted" }, "The task set of this run is not loaded here.")),
            ),
          ),
        ),
  );
}

function mistakeDelta(record: DuelRecord): HTMLElement {
  const d = record.mistake_book;
  const items = [
    ...d.added.map((e) => h("li", {}, h("span", { class: "badge badge-fail" }, "added"), " ", codeInline(e.test))),
    ...d.removed.map((t) => h("li", {}, h("span", { class: "badge badge-pass" }, "removed"), " ", codeInline(t))),
    ...d.changed.map((e) => h("li", {}, h("span", { class: "badge badge-skipped" }, `frequency ${e.frequency}`), " ", codeInline(e.test))),
  ];
  return h(
    "section",
    { class: "panel" },
    h("h3", {}, `Mistake Book this step: +${d.added.length} −${d.removed.length}`),
    items.length ? h("ul", { class: "plain" }, items) : h("p", { class: "muted" }, "No change for this task."),
    record.mistake_book_tests.length
      ? h("details", {}, h("summary", {}, `${record.mistake_book_tests.length} Mistake Book tests replayed to every code`), h("ul", { class: "plain" }, record.mistake_book_tests.map((t) => h("li", {}, codeInline(t)))))
      : null,
  );
}

function codeCard(record: DuelRecord, c: DuelCode, i: number): HTMLElement {
  const chosen = record.topvar.selected.includes(i);
  return h(
    "article",
    { class: `panel code-card${chosen ? " topvar" : ""}`, id: `code-${i}`, "aria-label": `code ${i + 1}` },
    h(
      "header",
      { class: "code-head" },
      h("h3", {}, `Code ${i + 1}`),
      badge(codeStatusBadge(c.status)),
      h("span", {}, `R_C = ${formatNumber(c.reward, 2)}`),
      chosen ? h("span", { class: "pill topvar-pill" }, "★ TopVar choice") : null,
    ),
    codeBlock(c.text, `code ${i + 1}`),
    c.mistake_book_lines.length
      ? h("div", { class: "suite" }, h("h4", {}, "Mistake Book tests"), lineList(record.mistake_book_tests, c.mistake_book_lines))
      : null,
    c.suites.map((su, j) => {
      const n = suiteCounts(su.lines);
      return h(
        "details",
        { class: "suite", open: chosen && j < 2 },
        h("summary", {}, h("strong", {}, `Suite ${j + 1}`), ` · R_T ${formatNumber(su.reward, 2)} ${su.r_val === null ? "(CURE's reward)" : `(R_val ${formatNumber(su.r_val, 2)}, R_adv ${formatNumber(su.r_adv, 2)})`} · ${n.broke} broke it, ${n.pass} passed, ${n.invalid} invalid`),
        lineList(su.text.split("\n"), su.lines),
      );
    }),
  );
}

function lineList(texts: readonly string[], lines: readonly LineResult[]): HTMLElement {
  return h(
    "ol",
    { class: "lines" },
    lines.map((l, k) => h("li", {}, badge(lineBadge(l)), " ", codeInline(texts[k] ?? ""), l.reason ? h("span", { class: "muted reason" }, ` ${clippedText(l.reason)}`) : null)),
  );
}
