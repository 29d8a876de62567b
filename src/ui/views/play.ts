/**
 * Play: pick a task, then either defend (write a solution; the Test policy attacks it white-box,
 * with the task's golden tests and this run's Mistake Book tests) or attack (write tests; see which
 * of the Code policy's programs, the recorded duel codes and the task's known buggy variants they
 * catch). Graded by the same grader as training.
 */
import type { Task } from "../../core/arena/task.ts";
import type { GradeTask, Grader } from "../../core/grader/types.ts";
import { taskEntries } from "../../core/loop/mistake-book.ts";
import { h, replace } from "../dom.ts";
import { attackPrograms, attackReport, attackRequest, defendReport, defendRequest, parseUserTests, PlayInputError, type AttackSuite, type Program } from "../play-logic.ts";
import { codeStatusBadge, lineBadge } from "../verdicts.ts";
import { SPLIT_LABELS, taskLabel, tasksBySplit } from "../task-label.ts";
import type { AppState, View, ViewContext } from "../app-types.ts";
import { badge } from "./badges.ts";
import { codeBlock, codeInline } from "./code-block.ts";

type Game = "defend" | "attack";
const POLICY_SAMPLES = 4;

/** `def f(xs, k):` plus an indented first line: where a solution starts. */
export function solutionStub(task: Task): string {
  return `def ${task.entry_point}(${task.params.map((p) => p.name).join(", ")}):\n    `;
}

/** A textarea where Tab indents by four spaces; Esc then Tab moves focus on (no keyboard trap). */
function editor(id: string, value: string, label: string, rows: number): HTMLTextAreaElement {
  let escaped = false;
  const ta = h("textarea", { id, rows, spellcheck: "false", autocomplete: "off", "aria-label": label, class: "editor" });
  ta.value = value;
  ta.addEventListener("keydown", (e) => {
    if (e.key === "Escape") {
      escaped = true;
      return;
    }
    if (e.key === "Tab" && !e.shiftKey && !escaped) {
      e.preventDefault();
      ta.setRangeText("    ", ta.selectionStart, ta.selectionEnd, "end");
    }
    if (e.key !== "Tab") escaped = false;
  });
  return ta;
}

export function playView(root: HTMLElement, ctx: ViewContext): View {
  const { deps } = ctx;
  let game: Game = "defend";
  let taskId = "";
  let state: Readonly<AppState> | null = null;
  let grader: Promise<Grader> | null = null;
  const drafts = new Map<string, string>();
  const head = h("section", { class: "panel" });
  const work = h("section", { class: "panel" });
  const results = h("section", { class: "panel", "aria-live": "polite", id: "play-results" });
  root.append(head, work, results);

  const getGrader = () => {
    if (!deps.grader) throw new PlayInputError("The Python grader is not available in this build, so Play cannot run code.");
    return (grader ??= deps.grader().catch((e) => {
      grader = null;
      throw e;
    }));
  };

  function task(): Task | undefined {
    return state?.tasks.find((t) => t.id === taskId);
  }

  function renderHead(s: Readonly<AppState>) {
    const t = task();
    replace(
      head,
      h("h2", {}, "Play against the policies"),
      s.tasks.length === 0
        ? h("p", { class: "muted" }, "Loading the task suite…")
        : h(
            "div",
            { class: "start-row" },
            h("label", { for: "play-task" }, "Task"),
            h("select", { id: "play-task", onchange: (e: Event) => {
              taskId = (e.target as HTMLSelectElement).value;
              replace(results);
              render();
            } }, tasksBySplit(s.tasks).map((g) => h("optgroup", { label: g.label }, g.tasks.map((x) => h("option", { value: x.id, selected: x.id === taskId }, taskLabel(x)))))),
            h("div", { role: "radiogroup", "aria-label": "game", class: "segmented" },
              (["defend", "attack"] as const).map((g) =>
                h("button", { role: "radio", "aria-checked": String(game === g), class: game === g ? "on" : "", onclick: () => {
                  game = g;
                  replace(results);
                  render();
                } }, g === "defend" ? "Defend: write the code" : "Attack: write the tests"),
              )),
          ),
      t ? h("p", { class: "task-prompt" }, h("strong", {}, `${t.title}. `), t.prompt, " ", h("code", {}, `${t.entry_point}(${t.params.map((p) => `${p.name}: ${p.type}`).join(", ")}) -> ${t.returns}`),
        " ", h("span", { class: "muted", id: "play-task-split" }, [t.family, SPLIT_LABELS[t.split]].filter(Boolean).join(", "))) : null,
    );
  }

  function renderWork() {
    const t = task();
    if (!t) return replace(work);
    const key = `${game}:${t.id}`;
    const initial = drafts.get(key) ?? (game === "defend" ? solutionStub(t) : `assert ${t.entry_point}(...) == ...`);
    const ta = editor("play-editor", initial, game === "defend" ? "your solution" : "your tests", game === "defend" ? 10 : 8);
    ta.addEventListener("input", () => drafts.set(key, ta.value));
    const run = h("button", { class: "primary", id: "play-run", onclick: () => void (game === "defend" ? defend(t, ta.value) : attack(t, ta.value)) }, game === "defend" ? "Attack my code" : "Run my tests");
    replace(
      work,
      h("label", { for: "play-editor" }, game === "defend" ? `Your solution: define ${t.entry_point}` : "Your tests: one assert per line, at most 8"),
      ta,
      h("div", { class: "buttons" }, run),
      h("p", { class: "muted" }, game === "defend"
        ? `Attackers: ${deps.policies ? `the trained Test policy (${POLICY_SAMPLES} suites, reading your code), ` : ""}the task's golden tests and this run's Mistake Book tests.`
        : `Targets: ${deps.policies ? `the trained Code policy (${POLICY_SAMPLES} programs), ` : ""}the task's known buggy variants and the codes of recorded duels.`),
    );
  }

  function gradeTask(t: Task): GradeTask {
    return { id: t.id, entry_point: t.entry_point, reference: t.reference };
  }

  async function busy<T>(f: () => Promise<T>): Promise<T | undefined> {
    replace(results, h("p", { class: "muted" }, "Grading in the Python sandbox…"));
    try {
      return await f();
    } catch (e) {
      replace(results, h("p", { class: "error", role: "alert" }, (e as Error).message));
      return undefined;
    }
  }

  async function defend(t: Task, code: string) {
    await busy(async () => {
      const suites: AttackSuite[] = [{ source: "golden tests", text: t.golden_tests.join("\n") }];
      const book = state ? taskEntries(state.run.mistakeBook, t.id) : [];
      for (let i = 0; i < book.length; i += 8) suites.push({ source: "Mistake Book", text: book.slice(i, i + 8).map((e) => e.test).join("\n") });
      if (deps.policies) {
        const texts = await deps.policies.attackSuites(t, code, POLICY_SAMPLES);
        texts.forEach((text, i) => suites.push({ source: `Test policy #${i + 1}`, text }));
      }
      const report = defendReport(suites, await (await getGrader()).grade(defendRequest(gradeTask(t), code, suites)));
      replace(
        results,
        h("h3", {}, `${report.broken} of ${report.executable} tests break your code`),
        h("p", {}, badge(codeStatusBadge(report.codeStatus.status, report.codeStatus.reason)), report.codeStatus.reason ? ` ${report.codeStatus.reason}` : ""),
        h("table", { class: "data" },
          h("thead", {}, h("tr", {}, ["from", "test", "verdict", "why"].map((c) => h("th", { scope: "col" }, c)))),
          h("tbody", {}, report.lines.map((l) => h("tr", { class: l.broke ? "broke" : "" }, h("td", {}, l.source), h("td", {}, codeInline(l.test)), h("td", {}, badge(lineBadge(l.line))), h("td", { class: "muted" }, l.line.reason))))),
      );
    });
  }

  async function attack(t: Task, text: string) {
    await busy(async () => {
      const tests = parseUserTests(text);
      const candidates: Program[] = t.buggy_variants.map((v) => ({ label: `buggy variant: ${v.bug}`, code: v.code }));
      for (const d of state?.run.duels ?? []) if (d.task === t.id) d.codes.forEach((c, i) => candidates.push({ label: `duel step ${d.step}, code ${i + 1}`, code: c.text }));
      if (deps.policies) (await deps.policies.samplePrograms(t, POLICY_SAMPLES)).forEach((code, i) => candidates.push({ label: `Code policy #${i + 1}`, code }));
      const programs = attackPrograms(candidates);
      const report = attackReport(programs, tests, await (await getGrader()).grade(attackRequest(gradeTask(t), programs, tests)));
      const invalid = report.tests.filter((x) => x.validity !== "valid");
      replace(
        results,
        h("h3", {}, `Your tests catch ${report.caught} of ${report.programs.length} programs`),
        invalid.length
          ? h("ul", { class: "plain" }, invalid.map((x) => h("li", {}, badge(lineBadge({ validity: x.validity, verdict: "skipped", reason: x.reason })), " ", codeInline(x.test), h("span", { class: "muted" }, ` ${x.reason}`))))
          : h("p", {}, "All your tests agree with the reference solution."),
        report.programs.map((p) =>
          h("details", { class: `suite${p.caught ? " caught" : ""}` },
            h("summary", {}, h("span", { class: `badge badge-${p.caught ? "fail" : "pass"}` }, p.caught ? "caught" : "survived"), ` ${p.label}`),
            codeBlock(p.code),
            h("ol", { class: "lines" }, p.lines.map((l, k) => h("li", {}, badge(lineBadge(l)), " ", codeInline(tests[k] ?? ""))))),
        ),
      );
    });
  }

  function render() {
    if (!state) return;
    renderHead(state);
    renderWork();
  }

  return {
    update(s) {
      const first = state === null || state.tasks !== s.tasks;
      state = s;
      if (!taskId && s.tasks.length) taskId = s.tasks[0].id;
      if (first) render();
    },
    destroy() {
      root.replaceChildren();
    },
  };
}
