/**
 * Settings > Task sets: import a JSONL of MBPP- or HumanEval-format tasks (file picker or drag and
 * drop), see the per-task report (trainable, or refused with the line and column of what stops
 * it; preconditions; weak golden), and train on a stored set (config task_set `imported:HASH16`).
 * The import runs in src/browser/task-set-import.ts (references only in the grader's sandbox). The job lives
 * at module level, so leaving Settings does not lose it; a reload does (stored sets stay).
 */
import type { TaskReport } from "../../core/arena/importers/arenise.ts";
import type { ImportFormat } from "../../core/arena/importers/import.ts";
import { ImportError } from "../../core/arena/importers/import.ts";
import { h, replace } from "../dom.ts";
import type { StoredTaskSet, TaskSetsIO } from "../deps.ts";

interface Job {
  file: string;
  progress: { done: number; total: number; text: string } | null;
  report: TaskReport[] | null;
  set: StoredTaskSet | null;
  /** A malformed file: one line per bad line; nothing stored. */
  problems: string[] | null;
  error: string | null;
  running: boolean;
}

let job: Job | null = null;
const listeners = new Set<() => void>();
const changed = () => listeners.forEach((f) => f());

function start(io: TaskSetsIO, file: File, format: ImportFormat): void {
  const current: Job = { file: file.name, progress: null, report: null, set: null, problems: null, error: null, running: true };
  job = current;
  changed();
  io.importFile(file, format, (p) => { current.progress = p; changed(); })
    .then(
      (r) => { current.report = r.report; current.set = r.set; },
      (e: unknown) => {
        if (e instanceof ImportError) current.problems = e.problems;
        else current.error = `Import failed: ${(e as Error).message}`;
      },
    )
    .finally(() => {
      current.running = false;
      changed();
    });
}

/** What the report says of one task, in words. */
function detail(r: TaskReport): HTMLElement {
  if (r.status === "refused") return h("td", {}, r.reason ?? "");
  const renames = Object.entries(r.renames ?? {}).filter(([a, b]) => a !== b).map(([a, b]) => `${a}->${b}`).join(" ");
  const pre = (r.preconditions ?? []).map((p) => `${p.expr} (excludes ${p.excluded}/${p.drawn} drawn inputs; e.g. ${p.example})`);
  return h("td", {},
    renames ? h("div", {}, `renamed ${renames}`) : null,
    h("div", {}, `same outputs on ${r.checkedInputs} inputs; ${r.variants} buggy variants of ${r.mutants} mutants`),
    pre.length ? h("div", { class: "preconditions" }, `preconditions: ${pre.join("; ")}`) : null);
}

function reportTable(report: TaskReport[]): HTMLElement {
  const trainable = report.filter((r) => r.status === "trainable").length;
  return h("div", { id: "taskset-report" },
    h("p", { role: "status" }, `${trainable} of ${report.length} tasks trainable, ${report.length - trainable} refused, ${report.filter((r) => r.weakGolden).length} weak golden.`),
    h("table", { class: "data" },
      h("thead", {}, h("tr", {}, ["task", "line", "status", "what the import found"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, report.map((r) => h("tr", { "data-status": r.status },
        h("td", {}, r.id),
        h("td", {}, String(r.line)),
        h("td", {}, r.status === "trainable" ? (r.weakGolden ? "trainable, weak golden" : "trainable") : "refused"),
        detail(r))))));
}

/** The panel; `update` marks the set the config trains on; call `destroy` when the view goes. */
export function taskSetsPanel(io: TaskSetsIO | null, use: (name: string) => void): { element: HTMLElement; update(current: string): void; destroy(): void } {
  const element = h("section", { class: "panel", "aria-labelledby": "tasksets-title" });
  let sets: StoredTaskSet[] = [];
  let current = "";
  const format = h("select", { id: "taskset-format" }, h("option", { value: "mbpp" }, "MBPP (task_id, text, code, test_list)"), h("option", { value: "humaneval" }, "HumanEval (prompt, canonical_solution, test, entry_point)")) as HTMLSelectElement;
  const take = (file: File | undefined) => {
    if (!io || !file || job?.running) return;
    start(io, file, format.value as ImportFormat);
  };
  const input = h("input", { id: "taskset-file", type: "file", accept: ".jsonl,.json,application/jsonl,application/json", onchange: (e: Event) => {
    const el = e.target as HTMLInputElement;
    take(el.files?.[0]);
    el.value = "";
  } }) as HTMLInputElement;
  const drop = h("div", {
    id: "taskset-drop", class: "dropzone", tabindex: "0", role: "button", "aria-label": "Drop a JSONL task file here, or press Enter to choose one",
    onclick: () => input.click(),
    onkeydown: (e: Event) => { if ((e as KeyboardEvent).key === "Enter") input.click(); },
    ondragover: (e: Event) => { e.preventDefault(); drop.classList.add("over"); },
    ondragleave: () => drop.classList.remove("over"),
    ondrop: (e: Event) => {
      e.preventDefault();
      drop.classList.remove("over");
      take((e as DragEvent).dataTransfer?.files?.[0]);
    },
  }, "Drop a .jsonl file here, or click to choose one");

  function refresh() {
    if (!io) return;
    io.list().then((s) => { sets = s; render(); }, () => undefined);
  }

  function render() {
    const j = job;
    replace(
      element,
      h("h2", { id: "tasksets-title" }, "Task sets"),
      h("p", {}, "Import your own tasks (one JSON record per line, MBPP or HumanEval format) to train on them. Each task is renamed into arena-Python by parsing, gets an input spec, preconditions where its reference raises, and buggy variants from mutants, or is refused with the line and column of what stops it (docs/TASKS.md). ",
        "Your code runs only in the grader's sandbox workers. The set is stored in this browser by its hash; runs on it skip the live evaluation (no plus-test bench ships for it)."),
      io
        ? h("div", { class: "start-row" },
          h("label", { for: "taskset-format" }, "Format"), format,
          h("label", { for: "taskset-file" }, "File"), input)
        : h("p", { class: "muted" }, "This build cannot import task sets (no grader or no storage)."),
      io ? drop : null,
      j?.running && j.progress
        ? h("div", { id: "taskset-progress" },
          h("progress", { max: j.progress.total || 1, value: j.progress.done, "aria-label": `importing ${j.file}` }),
          h("p", { class: "muted", role: "status" }, j.progress.text))
        : j?.running ? h("p", { class: "muted", role: "status" }, `Reading ${j.file}…`) : null,
      j?.problems
        ? h("div", { id: "taskset-problems", class: "error", role: "alert" },
          h("p", {}, `${j.file} is malformed: nothing was imported or stored.`),
          h("ul", {}, j.problems.map((p) => h("li", {}, p))))
        : null,
      j?.error ? h("p", { class: "error", role: "alert" }, j.error) : null,
      j?.report ? reportTable(j.report) : null,
      j && !j.running && j.report && !j.set ? h("p", { class: "error", role: "alert" }, "No task is trainable: nothing was stored.") : null,
      sets.length
        ? h("table", { class: "data", id: "taskset-list" },
          h("thead", {}, h("tr", {}, ["stored set", "tasks", "config task_set", ""].map((c) => h("th", { scope: "col" }, c)))),
          h("tbody", {}, sets.map((s) => h("tr", {},
            h("td", {}, s.title),
            h("td", {}, String(s.tasks)),
            h("td", {}, h("code", {}, s.name)),
            h("td", {}, s.name === current
              ? h("span", { class: "muted" }, "training on this set")
              : h("button", { class: "taskset-use", "data-set": s.name, onclick: () => use(s.name) }, "Train on this set"))))))
        : io ? h("p", { class: "muted" }, "No task set stored yet.") : null,
    );
  }
  let wasRunning = job?.running ?? false;
  const onJob = () => {
    // A finished import may have stored a set: list again.
    if (wasRunning && !job?.running) refresh();
    wasRunning = job?.running ?? false;
    render();
  };
  listeners.add(onJob);
  render();
  refresh();
  return {
    element,
    update(name) {
      if (name === current) return;
      current = name;
      render();
    },
    destroy: () => listeners.delete(onJob),
  };
}
