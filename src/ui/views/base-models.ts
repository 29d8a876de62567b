/**
 * Settings > Base models: what the shipped base model is (manifest figures; one joint model every
 * player starts from) and pretraining it again in this browser from the shipped corpus
 * (src/browser/pretrain-here.ts), or from an imported task set's train tasks, with a progress bar, a stop button and the resulting checkpoint as a file. The job lives at module level, so leaving Settings
 * does not stop it or lose its result; a reload does (the page is its only holder).
 */
import { PretrainAbortedError } from "../../core/duel/pretrain.ts";
import type { BaseManifest, RebuiltBase } from "../../core/duel/pretrain.ts";
import type { BySplit } from "../../core/arena/metrics.ts";
import { h, replace } from "../dom.ts";
import type { PretrainHere, StoredTaskSet, TaskSetsIO } from "../deps.ts";

interface Job {
  progress: { done: number; total: number; text: string } | null;
  result: RebuiltBase | null;
  error: string | null;
  stop: { aborted: boolean };
  running: boolean;
}

let job: Job | null = null;
const listeners = new Set<() => void>();
const changed = () => listeners.forEach((f) => f());

function start(pretrain: PretrainHere, steps: number | null, set: StoredTaskSet | null): void {
  const current: Job = { progress: null, result: null, error: null, stop: { aborted: false }, running: true };
  job = current;
  changed();
  const opts = { steps, signal: current.stop, onProgress: (p: { done: number; total: number; text: string }) => { current.progress = p; changed(); } };
  (set && pretrain.runOnSet ? pretrain.runOnSet(set.file, opts) : pretrain.run(opts))
    .then(
      (r) => (current.result = r),
      (e: unknown) => (current.error = e instanceof PretrainAbortedError ? `Stopped: ${e.message}.` : `Pretraining failed: ${(e as Error).message}`),
    )
    .finally(() => {
      current.running = false;
      changed();
    });
}

const pct = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? "n/a" : `${x.toFixed(1)}%`);

function figuresTable(m: BaseManifest): HTMLElement {
  const f = m.figures;
  const rows: [string, BySplit | undefined][] = [
    ["Code plus-pass@1", f?.code?.plusPass1],
    ["Test validity", f?.test?.validity],
    ["Test bug detection", f?.test?.bugDetection],
  ];
  const splits: [keyof BySplit, string][] = [["train", "train"], ["heldout_compositional", "held-out (new combinations)"], ["heldout_family", "held-out (new primitive)"]];
  return h("table", { class: "data" },
    h("thead", {}, h("tr", {}, ["shipped base", ...splits.map(([, label]) => label)].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, rows.map(([name, b]) => h("tr", {}, h("td", {}, name), splits.map(([k]) => h("td", {}, pct(b?.[k])))))));
}

function resultView(r: RebuiltBase): HTMLElement {
  const url = URL.createObjectURL(new Blob([r.checkpoint], { type: "application/octet-stream" }));
  const same = r.sameAsShipped === null ? "not comparable with the shipped file (other steps or backend)" : r.sameAsShipped ? "byte-identical to the shipped file" : "differs from the shipped file";
  return h("p", { id: "pretrain-result" }, `Base model: ${r.steps} steps on ${r.backend}, final loss ${r.finalLoss.toFixed(3)}, sha256 ${r.sha256.slice(0, 16)}…, ${same}. `,
    h("a", { href: url, download: r.file }, `Download ${r.file}`));
}

/** The panel; call `destroy` when the view goes. */
export function baseModelsPanel(pretrain: PretrainHere | null, taskSets: TaskSetsIO | null = null): { element: HTMLElement; destroy(): void } {
  const element = h("section", { class: "panel", "aria-labelledby": "base-title" });
  let manifest: BaseManifest | null | undefined;
  let sets: StoredTaskSet[] = [];
  const corpusSelect = h("select", { id: "pretrain-corpus" }) as HTMLSelectElement;
  const listSets = () => {
    if (!taskSets || !pretrain?.runOnSet) return;
    taskSets.list().then((s) => {
      sets = s;
      const chosen = corpusSelect.value;
      replace(corpusSelect, h("option", { value: "" }, "the shipped corpus (arena-v2)"),
        sets.map((t) => h("option", { value: t.name, selected: t.name === chosen }, `${t.title}: ${t.tasks} imported tasks (${t.name})`)));
      render();
    }, () => undefined);
  };
  const stepsInput = h("input", { id: "pretrain-steps", type: "text", inputmode: "numeric", placeholder: "recipe", size: 8, "aria-describedby": "pretrain-steps-doc" }) as HTMLInputElement;
  function render() {
    const j = job;
    // A manifest without `base` (an older format) has no recipe to name.
    const recipe = manifest?.base ? `${manifest.base.options.steps} steps` : "the shipped recipe";
    replace(
      element,
      h("h2", { id: "base-title" }, "Base models"),
      h("p", {}, "Every player of every mode starts from one small pretrained model shipped with the app (recipe and figures: ", h("code", {}, "docs/BASE-MODELS.md"), "). ",
        "You can pretrain it again here, in a policy worker on tfjs wasm, from the corpus ", h("code", {}, "npm run pretrain-base"), " built: with the recipe's steps the result is the shipped file, byte for byte. ",
        "Or from an imported task set's train tasks (Task sets above; its code runs in the grader's sandbox to build the corpus): that model memorises those tasks' references and tests, it does not get better at tasks it has not seen."),
      manifest ? figuresTable(manifest) : manifest === null ? h("p", { class: "muted" }, "This build ships no base models.") : h("p", { class: "muted" }, "Loading the manifest…"),
      pretrain && manifest
        ? h("div", { class: "start-row" },
          sets.length ? h("label", { for: "pretrain-corpus" }, "Corpus") : null,
          sets.length ? corpusSelect : null,
          h("label", { for: "pretrain-steps" }, "Steps"),
          stepsInput,
          h("span", { id: "pretrain-steps-doc", class: "muted" }, `empty: the recipe (${recipe}; about half an hour on a laptop core)`),
          j?.running
            ? h("button", { id: "pretrain-stop", onclick: () => { j.stop.aborted = true; } }, "Stop")
            : h("button", { id: "pretrain-start", onclick: () => {
              const raw = stepsInput.value.trim();
              const steps = raw === "" ? null : Number(raw);
              if (steps !== null && !(Number.isInteger(steps) && steps >= 1)) {
                job = { progress: null, result: null, error: `Steps must be a positive whole number, got "${raw}".`, stop: { aborted: false }, running: false };
                render();
                return;
              }
              start(pretrain, steps, sets.find((t) => t.name === corpusSelect.value) ?? null);
            } }, "Pretrain here"))
        : null,
      j?.progress
        ? h("div", { id: "pretrain-progress" },
          h("progress", { max: j.progress.total || 1, value: j.progress.done, "aria-label": "pretraining the base model" }),
          h("p", { class: "muted", role: "status" }, j.progress.text))
        : null,
      j?.error ? h("p", { class: "error", role: "alert" }, j.error) : null,
      j?.result ? resultView(j.result) : null,
    );
  }
  listeners.add(render);
  render();
  listSets();
  if (pretrain) {
    pretrain.manifest().then((m) => { manifest = m; render(); }, () => { manifest = null; render(); });
  } else manifest = null;
  return { element, destroy: () => listeners.delete(render) };
}
