/**
 * Settings > Base models: what the shipped base players are (manifest figures) and pretraining them
 * again in this browser from the shipped corpus (src/pretrain-here.ts), with a progress bar, a stop
 * button and the resulting checkpoints as files. The job lives at module level, so leaving Settings
 * does not stop it or lose its result; a reload does (the page is its only holder).
 */
import { PretrainAbortedError } from "../../core/duel/pretrain.ts";
import type { BaseManifest, RebuiltBases } from "../../core/duel/pretrain.ts";
import { h, replace } from "../dom.ts";
import type { PretrainHere } from "../deps.ts";

interface Job {
  progress: { policy: string; done: number; total: number; text: string } | null;
  result: RebuiltBases | null;
  error: string | null;
  stop: { aborted: boolean };
  running: boolean;
}

let job: Job | null = null;
const listeners = new Set<() => void>();
const changed = () => listeners.forEach((f) => f());

function start(pretrain: PretrainHere, steps: number | null): void {
  const current: Job = { progress: null, result: null, error: null, stop: { aborted: false }, running: true };
  job = current;
  changed();
  pretrain
    .run({ steps, signal: current.stop, onProgress: (p) => { current.progress = p; changed(); } })
    .then(
      (r) => (current.result = r),
      (e: unknown) => (current.error = e instanceof PretrainAbortedError ? `Stopped: ${e.message}.` : `Pretraining failed: ${(e as Error).message}`),
    )
    .finally(() => {
      current.running = false;
      changed();
    });
}

const pct = (x: number | undefined) => (x === undefined ? "n/a" : `${x.toFixed(1)}%`);

function figuresTable(m: BaseManifest): HTMLElement {
  const f = m.figures;
  const rows: [string, { train: number; heldout: number } | undefined][] = [
    ["Code plus-pass@1", f?.code?.plusPass1],
    ["Test validity", f?.test?.validity],
    ["Test bug detection", f?.test?.bugDetection],
  ];
  return h("table", { class: "data" },
    h("thead", {}, h("tr", {}, ["shipped base", "train", "held-out"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, rows.map(([name, b]) => h("tr", {}, h("td", {}, name), h("td", {}, pct(b?.train)), h("td", {}, pct(b?.heldout))))));
}

function resultView(r: RebuiltBases): HTMLElement {
  return h("ul", { id: "pretrain-result" }, Object.entries(r.policies).map(([policy, p]) => {
    const url = URL.createObjectURL(new Blob([p.checkpoint], { type: "application/octet-stream" }));
    const same = p.sameAsShipped === null ? "not comparable with the shipped file (other steps or backend)" : p.sameAsShipped ? "byte-identical to the shipped file" : "differs from the shipped file";
    return h("li", {}, `${policy} policy: ${p.steps} steps on ${r.backend}, final loss ${p.finalLoss.toFixed(3)}, sha256 ${p.sha256.slice(0, 16)}…, ${same}. `,
      h("a", { href: url, download: p.file }, `Download ${p.file}`));
  }));
}

/** The panel; call `destroy` when the view goes. */
export function baseModelsPanel(pretrain: PretrainHere | null): { element: HTMLElement; destroy(): void } {
  const element = h("section", { class: "panel", "aria-labelledby": "base-title" });
  let manifest: BaseManifest | null | undefined;
  const stepsInput = h("input", { id: "pretrain-steps", type: "text", inputmode: "numeric", placeholder: "recipe", size: 8, "aria-describedby": "pretrain-steps-doc" }) as HTMLInputElement;
  function render() {
    const j = job;
    const recipe = manifest ? `${manifest.policies.code?.options.steps ?? "?"} + ${manifest.policies.test?.options.steps ?? "?"} steps` : "";
    replace(
      element,
      h("h2", { id: "base-title" }, "Base models"),
      h("p", {}, "Runs start from two small pretrained players shipped with the app (recipe and figures: ", h("code", {}, "docs/BASE-MODELS.md"), "). ",
        "You can pretrain them again here, in a policy worker on tfjs wasm, from the corpus ", h("code", {}, "npm run pretrain"), " built: with the recipe's steps the result is the shipped file, byte for byte."),
      manifest ? figuresTable(manifest) : manifest === null ? h("p", { class: "muted" }, "This build ships no base models.") : h("p", { class: "muted" }, "Loading the manifest…"),
      pretrain && manifest
        ? h("div", { class: "start-row" },
          h("label", { for: "pretrain-steps" }, "Steps per policy"),
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
              start(pretrain, steps);
            } }, "Pretrain here"))
        : null,
      j?.progress
        ? h("div", { id: "pretrain-progress" },
          h("progress", { max: j.progress.total || 1, value: j.progress.done, "aria-label": `pretraining the ${j.progress.policy} policy` }),
          h("p", { class: "muted", role: "status" }, j.progress.text))
        : null,
      j?.error ? h("p", { class: "error", role: "alert" }, j.error) : null,
      j?.result ? resultView(j.result) : null,
    );
  }
  listeners.add(render);
  render();
  if (pretrain) {
    pretrain.manifest().then((m) => { manifest = m; render(); }, () => { manifest = null; render(); });
  } else manifest = null;
  return { element, destroy: () => listeners.delete(render) };
}
