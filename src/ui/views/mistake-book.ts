/** Mistake Book browser: per task, the stored failing tests with frequency, steps and the program that failed. */
import { own } from "../../core/own.ts";
import { h, replace } from "../dom.ts";
import { filterMistakes, mistakeRows, mistakeTasks, type MistakeFilter, type MistakeSort } from "../mistake-filter.ts";
import type { View, ViewContext } from "../app-types.ts";
import { codeBlock, codeInline } from "./code-block.ts";
import { taskLabelById } from "../task-label.ts";
import type { Task } from "../../core/arena/task.ts";

const SORTS: { value: MistakeSort; label: string }[] = [
  { value: "frequency", label: "frequency" },
  { value: "last_step", label: "most recent" },
  { value: "first_step", label: "oldest" },
  { value: "task", label: "task" },
];
const MAX_ROWS = 200;

export function mistakeBookView(root: HTMLElement, _ctx: ViewContext): View {
  // Filter state is local to the view: it is not part of the run and not shared.
  const filter: MistakeFilter = { task: "", query: "", minFrequency: 1, sort: "frequency" };
  const head = h("section", { class: "panel" });
  const body = h("section", { class: "panel", "aria-live": "polite" });
  root.append(head, body);
  let book = { tasks: {} } as import("../../core/loop/mistake-book.ts").MistakeBook;
  let builtFor: unknown = null;
  let known: readonly Task[] = [];

  function renderHead() {
    const tasks = mistakeTasks(book);
    const total = tasks.reduce((a, t) => a + t.count, 0);
    replace(
      head,
      h("h2", {}, "Mistake Book"),
      h("p", { class: "muted" }, `${total} tests over ${tasks.length} tasks. A test enters when it breaks a code (corrected to the reference's answer) and leaves when codes keep passing it.`),
      h(
        "div",
        { class: "filters" },
        h("label", { for: "mb-task" }, "Task"),
        h(
          "select",
          { id: "mb-task", onchange: (e: Event) => set({ task: (e.target as HTMLSelectElement).value }) },
          h("option", { value: "" }, "all tasks"),
          tasks.map((t) => h("option", { value: t.task, selected: t.task === filter.task }, `${taskLabelById(known, t.task)}: ${t.count}`)),
        ),
        h("label", { for: "mb-search" }, "Search"),
        h("input", { id: "mb-search", type: "search", value: filter.query ?? "", placeholder: "test, program or task", oninput: (e: Event) => set({ query: (e.target as HTMLInputElement).value }, false) }),
        h("label", { for: "mb-min" }, "Min. frequency"),
        h("input", { id: "mb-min", type: "number", min: 1, value: filter.minFrequency ?? 1, class: "narrow", oninput: (e: Event) => set({ minFrequency: Number((e.target as HTMLInputElement).value) || 0 }, false) }),
        h("label", { for: "mb-sort" }, "Sort by"),
        h("select", { id: "mb-sort", onchange: (e: Event) => set({ sort: (e.target as HTMLSelectElement).value as MistakeSort }) }, SORTS.map((o) => h("option", { value: o.value, selected: o.value === filter.sort }, o.label))),
      ),
    );
  }

  function renderBody() {
    const rows = filterMistakes(mistakeRows(book), filter);
    if (rows.length === 0) {
      replace(body, h("p", { class: "muted" }, Object.keys(book.tasks).length ? "No test matches the filter." : "The Mistake Book is empty: no test has broken a code yet."));
      return;
    }
    replace(
      body,
      h("p", { class: "muted", id: "mb-count" }, rows.length > MAX_ROWS ? `Showing ${MAX_ROWS} of ${rows.length} tests.` : `${rows.length} tests.`),
      h(
        "div",
        { class: "scroll-x" },
        h(
          "table",
          { class: "data mistakes" },
          h("thead", {}, h("tr", {}, ["task", "test", "frequency", "first step", "last step", "program that failed it"].map((c) => h("th", { scope: "col" }, c)))),
          h(
            "tbody",
            {},
            rows.slice(0, MAX_ROWS).map((r) =>
              h(
                "tr",
                {},
                h("td", {}, r.task),
                h("td", {}, codeInline(r.test)),
                h("td", { class: "num" }, String(r.frequency)),
                h("td", { class: "num" }, String(r.first_step)),
                h("td", { class: "num" }, String(r.last_step)),
                h("td", {}, h("details", {}, h("summary", {}, "show program"), codeBlock(r.failed_code, "failing program"))),
              ),
            ),
          ),
        ),
      ),
    );
  }

  function set(patch: Partial<MistakeFilter>, rerenderHead = true) {
    Object.assign(filter, patch);
    if (rerenderHead) renderHead();
    renderBody();
  }

  return {
    update(s) {
      if (builtFor === s.run.mistakeBook && known === s.tasks) return;
      builtFor = book = s.run.mistakeBook;
      known = s.tasks;
      if (filter.task && !own(book.tasks, filter.task)) filter.task = "";
      renderHead();
      renderBody();
    },
    destroy() {
      root.replaceChildren();
    },
  };
}
