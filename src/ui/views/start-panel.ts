/**
 * The first thing a visitor reads: what the duel is, the preset (classroom selected), and a big
 * Start. After the first run it shrinks to the preset picker and Start.
 */
import { PRESETS, PRESET_NAMES, presetConfig, type PresetName } from "../../core/config/index.ts";
import { h } from "../dom.ts";
import type { AppState, ViewContext } from "../app-types.ts";

export const INTRO =
  "Two small language models duel in your browser. The Code policy writes Python functions for small programming tasks; " +
  "the Test policy reads each function and writes assert-tests meant to break it. Every program and test runs in a Python " +
  "sandbox, and both models learn from the outcome: code is rewarded for passing valid tests, tests for being correct and " +
  "for exposing bugs. Tests that catch a bug go into a Mistake Book and come back later. Press Start and watch both improve.";

export function startPanel(s: Readonly<AppState>, ctx: ViewContext): HTMLElement {
  const { actions } = ctx;
  const first = !s.prefs.welcomed;
  const presetSelect = h(
    "select",
    {
      id: "preset",
      onchange: (e: Event) => {
        const name = (e.target as HTMLSelectElement).value as PresetName;
        actions.setConfig(presetConfig(name, { seed: s.config.seed }), name);
      },
    },
    PRESET_NAMES.map((n) => h("option", { value: n, selected: n === s.preset }, n)),
  );
  if (!s.preset) presetSelect.append(h("option", { value: "", selected: true, disabled: true }, "custom (Settings)"));
  const blocked = !s.trainerReady;
  return h(
    "section",
    { class: first ? "panel start-panel first-visit" : "panel start-panel", "aria-labelledby": "start-title" },
    h("h2", { id: "start-title" }, first ? "Watch two models learn by fighting" : "Start a run"),
    first ? h("p", { class: "intro" }, INTRO) : null,
    h(
      "div",
      { class: "start-row" },
      h("label", { for: "preset" }, "Preset"),
      presetSelect,
      h("span", { class: "muted preset-desc" }, s.preset ? PRESETS[s.preset].description : "Your own settings."),
    ),
    h(
      "div",
      { class: "start-row" },
      h(
        "button",
        { class: "big primary", id: "start", onclick: () => actions.start(), disabled: blocked, "aria-describedby": blocked ? "start-why" : undefined },
        "Start",
      ),
      h("span", { class: "muted" }, `mode ${s.config.mode} · seed ${s.config.seed} · ${s.config.steps} steps`),
      first ? h("button", { class: "link", onclick: () => actions.setPrefs({ welcomed: true }) }, "Hide introduction") : null,
    ),
    blocked ? h("p", { id: "start-why", class: "warn" }, s.trainerMissing ?? "Connecting to the training engine…") : null,
  );
}
