/**
 * Settings & Share: every CONFIG_FIELDS entry with its documentation, validated as typed
 * (settings-form.ts), the preset, the share link (config + seed in the URL), display options and
 * the keyboard shortcuts; task sets imported here (task-sets.ts); and the base models
 * (base-models.ts): their figures, pretraining them here.
 */
import { PRESETS, PRESET_NAMES, configDiff, presetConfig, type Config, type ConfigKey, type PresetName } from "../../core/config/index.ts";
import { download, h, replace } from "../dom.ts";
import { applyFieldEdit, fieldText, fieldViews, type FieldView } from "../settings-form.ts";
import { GROUP_TITLES } from "../../core/config/docs.ts";
import { SHORTCUTS } from "../shortcuts.ts";
import type { AppState, View, ViewContext } from "../app-types.ts";
import { baseModelsPanel } from "./base-models.ts";
import { taskSetsPanel } from "./task-sets.ts";

export function settingsView(root: HTMLElement, ctx: ViewContext): View {
  const { actions } = ctx;
  const views = fieldViews();
  const sharePanel = h("section", { class: "panel", "aria-labelledby": "share-title" });
  const displayPanel = h("section", { class: "panel", "aria-labelledby": "display-title" });
  const configPanel = h("section", { class: "panel", "aria-labelledby": "config-title" });
  const keysPanel = h("section", { class: "panel", "aria-labelledby": "keys-title" });
  const verlPanel = h("section", { class: "panel", "aria-labelledby": "verl-title" });
  const basePanel = baseModelsPanel(ctx.deps.pretrain, ctx.deps.taskSets);
  let latest: Readonly<AppState> | null = null;
  const setsPanel = taskSetsPanel(ctx.deps.taskSets, (name) => {
    if (!latest) return;
    const r = applyFieldEdit(latest.config, "task_set", name);
    if (r.ok) actions.setConfig(r.config, latest.preset);
    else actions.notify("error", r.message);
  });
  root.append(sharePanel, setsPanel.element, configPanel, verlPanel, basePanel.element, displayPanel, keysPanel);
  /** Text being edited that does not validate yet, by field: kept across re-renders. */
  const drafts = new Map<ConfigKey, { text: string; error: string }>();
  let last: { config: Config; preset: PresetName | null; large: boolean; theme: string } | null = null;

  function edit(key: ConfigKey, text: string, s: Readonly<AppState>) {
    const r = applyFieldEdit(s.config, key, text);
    if (r.ok) {
      drafts.delete(key);
      // The preset stays the base: the link reads `preset=classroom&alpha=0.25` (TF Playground style).
      actions.setConfig(r.config, s.preset);
    } else {
      drafts.set(key, { text, error: r.message });
      renderConfig(s);
    }
  }

  function input(f: FieldView, s: Readonly<AppState>): HTMLElement {
    const id = `cfg-${f.key}`;
    const draft = drafts.get(f.key);
    const described = `${id}-doc${draft ? ` ${id}-err` : ""}`;
    const common = { id, name: f.key, "aria-describedby": described, "aria-invalid": draft ? "true" : undefined };
    if (f.kind === "enum" || f.kind === "bool") {
      // A value the pattern admits (an imported task set) is offered too once chosen.
      const current = fieldText(s.config[f.key]);
      const options = f.kind === "bool" ? ["true", "false"] : f.options.includes(current) ? f.options : [...f.options, current];
      return h("select", { ...common, onchange: (e: Event) => edit(f.key, (e.target as HTMLSelectElement).value, s) }, options.map((o) => h("option", { value: o, selected: o === fieldText(s.config[f.key]) }, o)));
    }
    return h("input", {
      ...common,
      type: "text",
      inputmode: "decimal",
      spellcheck: "false",
      autocomplete: "off",
      value: draft?.text ?? fieldText(s.config[f.key]),
      onchange: (e: Event) => edit(f.key, (e.target as HTMLInputElement).value, s),
      onkeydown: (e: Event) => {
        if ((e as KeyboardEvent).key === "Enter") edit(f.key, (e.target as HTMLInputElement).value, s);
      },
    });
  }

  function renderConfig(s: Readonly<AppState>) {
    const groups = [...new Set(views.map((v) => v.group))];
    const diff = s.preset ? configDiff(s.config, presetConfig(s.preset)) : configDiff(s.config);
    replace(
      configPanel,
      h("h2", { id: "config-title" }, "Configuration"),
      h(
        "div",
        { class: "start-row" },
        h("label", { for: "settings-preset" }, "Preset"),
        h(
          "select",
          { id: "settings-preset", onchange: (e: Event) => {
            const name = (e.target as HTMLSelectElement).value as PresetName;
            drafts.clear();
            actions.setConfig(presetConfig(name, { seed: s.config.seed }), name);
          } },
          !s.preset ? h("option", { value: "", selected: true, disabled: true }, "custom") : null,
          PRESET_NAMES.map((n) => h("option", { value: n, selected: n === s.preset }, n)),
        ),
        h("span", { class: "muted" }, s.preset ? PRESETS[s.preset].description : "Custom settings (no preset)."),
      ),
      h("p", { class: "muted" }, Object.keys(diff).length ? `Changed: ${Object.entries(diff).map(([k, v]) => `${k} = ${v}`).join(", ")}` : "Nothing changed from the preset."),
      groups.map((g) =>
        h(
          "fieldset",
          { class: "config-group" },
          h("legend", {}, GROUP_TITLES[g]),
          views.filter((v) => v.group === g).map((f) => {
            const draft = drafts.get(f.key);
            return h(
              "div",
              { class: `field${draft ? " invalid" : ""}`, "data-field": f.key },
              h("label", { for: `cfg-${f.key}` }, h("code", {}, f.key), f.trl ? h("span", { class: "pill small", title: "Same name and meaning as TRL's GRPOConfig" }, "TRL") : null),
              input(f, s),
              h("div", { class: "doc", id: `cfg-${f.key}-doc` }, h("span", {}, f.effect), " ", h("span", { class: "muted" }, `When: ${f.when}`), " ", h("span", { class: "muted" }, `Default ${f.default}${f.range ? `, range ${f.range}` : ""}.`)),
              draft ? h("div", { class: "error", id: `cfg-${f.key}-err`, role: "alert" }, draft.error) : null,
            );
          }),
        ),
      ),
    );
  }

  function renderShare(s: Readonly<AppState>) {
    const link = actions.shareLink();
    const field = h("input", { id: "share-link", type: "text", readonly: true, value: link, "aria-label": "share link", class: "wide" });
    replace(
      sharePanel,
      h("h2", { id: "share-title" }, "Share"),
      h("p", {}, "This link carries the full configuration and the seed: opening it sets up the same run (same seed and backend give the same run)."),
      h(
        "div",
        { class: "start-row" },
        field,
        h("button", { id: "copy-link", onclick: async () => {
          field.select();
          try {
            await navigator.clipboard.writeText(link);
            actions.notify("info", "Link copied.");
          } catch {
            actions.notify("info", "Select the link and copy it (the browser blocked clipboard access).");
          }
        } }, "Copy link"),
      ),
      h("p", { class: "muted" }, "Add ", h("code", {}, "safe=1"), " to the URL to open the app without resuming any stored run (for a run that misbehaves).", s.safe ? h("strong", {}, " Safe mode is on now.") : null),
    );
  }

  function renderVerl(s: Readonly<AppState>) {
    const verl = ctx.deps.verl;
    const status = h("span", { id: "verl-status", class: "muted", role: "status" });
    replace(
      verlPanel,
      h("h2", { id: "verl-title" }, "Export to verl"),
      h("p", {}, "The same experiment on real code LLMs: this configuration and the arena-v1 tasks as the files the reference implementation of Code-A1 runs from on verl and Ray (Parquet data, its YAML config, the arena's reward module, a README with the cluster commands). What maps to what, and what differs: docs/SCALING.md."),
      verl
        ? h("div", { class: "start-row" }, h("button", { id: "verl-export", onclick: async (e: Event) => {
          const button = e.currentTarget as HTMLButtonElement;
          button.disabled = true;
          status.textContent = "Writing the files...";
          try {
            const { blob, fileName } = await verl(s.config, s.preset);
            download(blob, fileName);
            status.textContent = `Downloaded ${fileName}.`;
          } catch (err) {
            status.textContent = "";
            actions.notify("error", `Export to verl: ${err instanceof Error ? err.message : String(err)}`);
          } finally {
            button.disabled = false;
          }
        } }, "Download for verl (.zip)"), status)
        : h("p", { class: "muted" }, "This build has no verl export."),
    );
  }

  function renderDisplay(s: Readonly<AppState>) {
    replace(
      displayPanel,
      h("h2", { id: "display-title" }, "Display"),
      h(
        "div",
        { class: "start-row" },
        h("label", { for: "theme" }, "Theme"),
        h("select", { id: "theme", onchange: (e: Event) => actions.setPrefs({ theme: (e.target as HTMLSelectElement).value as "auto" }) },
          (["auto", "light", "dark"] as const).map((t) => h("option", { value: t, selected: s.prefs.theme === t }, t === "auto" ? "follow the system" : t))),
        h("label", { class: "check" }, h("input", { type: "checkbox", id: "large-type", checked: s.prefs.largeType, onchange: (e: Event) => actions.setPrefs({ largeType: (e.target as HTMLInputElement).checked }) }), " Large type (projector)"),
      ),
    );
  }

  replace(
    keysPanel,
    h("h2", { id: "keys-title" }, "Keyboard"),
    h("p", { class: "muted" }, "Everything is reachable with Tab and Enter. These keys work anywhere outside a text field; in the Play editor, Tab indents, Esc then Tab leaves it."),
    h("dl", { class: "shortcuts" }, SHORTCUTS.flatMap((k) => [h("dt", {}, h("kbd", {}, k.key)), h("dd", {}, k.description)])),
  );

  return {
    update(s) {
      latest = s;
      setsPanel.update(s.config.task_set);
      const now = { config: s.config, preset: s.preset, large: s.prefs.largeType, theme: s.prefs.theme };
      if (last && last.config === now.config && last.preset === now.preset && last.large === now.large && last.theme === now.theme) return;
      last = now;
      renderShare(s);
      renderConfig(s);
      renderVerl(s);
      renderDisplay(s);
    },
    destroy() {
      basePanel.destroy();
      setsPanel.destroy();
      root.replaceChildren();
    },
  };
}
