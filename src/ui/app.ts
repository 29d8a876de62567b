/**
 * The app shell: header (backend indicator, theme and type toggles), navigation, notices, and the
 * current view. Owns the one store; views get the state and the actions (app-types.ts). The
 * orchestrator, storage, bundles, grader and policies come in through AppDeps (deps.ts).
 *
 * What happens at launch:
 *  1. The URL's config (a share link) or the classroom preset becomes the config for Start.
 *  2. The stored runs are listed; unless `?safe=1`, the most recent run trained here (never an
 *     imported one) is opened, and if it was running when the page went away, or failed once in a
 *     way a retry may cure (a worker that hung or did not start), it is resumed through the
 *     trainer; one that failed or was interrupted the same way twice waits for the user (a reload
 *     never resumes straight into a hang; TrainerControl.autoResume).
 *  3. The trainer connects (deps.trainer); its events drive the run state (run-state.ts).
 */
import type { Config, PresetName } from "../core/config/index.ts";
import type { AutoResume, TrainerControl, TrainerEvent } from "../core/loop/events.ts";
import { ROUTES, ROUTE_TITLES, type Actions, type AppState, type Route, type View, type ViewFactory } from "./app-types.ts";
import { EMPTY_QUEUE, RunQueue, comparisonConfigs } from "./compare-plan.ts";
import type { AppDeps, RunData, TrainerLiveness } from "./deps.ts";
import { download, h, replace } from "./dom.ts";
import { gpuProbeText } from "./gpu-probe.ts";
import { applyPrefs, loadPrefs, savePrefs, toggledTheme, type Prefs } from "./prefs.ts";
import { IDLE_RUN, applyTrainerEvent, backendLabel, neighbourStep, resolveDuel, type RunState } from "./run-state.ts";
import { APP_FLAGS, launchSummary, readLaunch, shareUrl } from "./share.ts";
import { installShortcuts, SHORTCUTS } from "./shortcuts.ts";
import { createStore, type Store } from "./store.ts";
import { compareView } from "./views/compare.ts";
import { dashboardView } from "./views/dashboard.ts";
import { duelView } from "./views/duel.ts";
import { mistakeBookView } from "./views/mistake-book.ts";
import { playView } from "./views/play.ts";
import { settingsView } from "./views/settings.ts";

const VIEWS: Record<Route, ViewFactory> = {
  dashboard: dashboardView,
  duel: duelView,
  mistakes: mistakeBookView,
  compare: compareView,
  play: playView,
  settings: settingsView,
};

export function routeFromHash(hash: string): Route {
  const name = hash.replace(/^#\/?/, "");
  return (ROUTES as readonly string[]).includes(name) ? (name as Route) : "dashboard";
}

/** Errors whose message says what stopped the run and what to try (src/core/duel/watchdog.ts). */
const STOPPED_RUN = new Set(["PhaseStuckError", "PhaseFailedError"]);

export function runStateFromData(d: RunData): RunState {
  const status = d.run.status === "created" ? "paused" : d.run.status;
  // A stored failure is shown with the run until a step commits.
  const error = d.run.failure && d.run.failure.signature !== "interrupted" ? d.run.failure.message : null;
  return { ...IDLE_RUN, runId: d.run.id, status, step: d.run.step, steps: d.run.config.steps, metrics: d.metrics, duels: d.duels, mistakeBook: d.mistakeBook, error };
}

export interface App {
  store: Store<AppState>;
  actions: Actions;
  /** Resolves once launch (runs listed, trainer connected or given up) is done. */
  ready: Promise<void>;
  destroy(): void;
}

/** How often the page asks its trainer whether its thread still answers (`watchTrainer`). */
const TRAINER_PING_MS = 5_000;

export function createApp(root: HTMLElement, deps: AppDeps): App {
  const launch = readLaunch(deps.url.search);
  const prefs = loadPrefs(deps.storage);
  const store = createStore<AppState>({
    route: routeFromHash(deps.url.hash),
    config: launch.config,
    preset: launch.preset,
    prefs,
    safe: launch.safe,
    run: IDLE_RUN,
    runs: [],
    duel: {},
    queue: EMPTY_QUEUE,
    trainerReady: false,
    trainerMissing: deps.trainer ? null : "The training engine is not part of this build yet, so runs cannot be started here; stored and imported runs can still be browsed.",
    gpu: null,
    tasks: [],
    importing: null,
    notices: [
      ...(launch.error ? [{ kind: "error" as const, text: launch.error }] : []),
      ...(launch.fromUrl ? [{ kind: "info" as const, text: `Settings from the link applied (${launchSummary(launch.config, launch.preset)}). Press Start to run them.` }] : []),
      ...(launch.safe ? [{ kind: "info" as const, text: "Safe mode: nothing was resumed or opened. Stored runs are under Runs & Compare." }] : []),
    ],
  });
  let trainer: (TrainerControl & Partial<TrainerLiveness>) | null = null;
  let destroyed = false;
  let importAbort: AbortController | null = null;
  const queue = new RunQueue((c) => startRun(c), (q) => store.update({ queue: q }));

  // ---- shell ----
  const docRoot = root.ownerDocument.documentElement;
  const backend = h("span", { id: "backend", class: "pill backend", role: "status", "aria-live": "polite" });
  const themeBtn = h("button", { id: "theme-toggle", class: "icon", onclick: () => actions.setPrefs({ theme: toggledTheme(store.get().prefs.theme, deps.prefersDark()) }), title: "Switch light / dark (t)" }, "◐ Theme");
  const largeBtn = h("button", { id: "large-toggle", class: "icon", onclick: () => actions.setPrefs({ largeType: !store.get().prefs.largeType }), title: "Large type for projectors (l)" }, "A+ Large type");
  const helpBtn = h("button", { id: "help-toggle", class: "icon", onclick: () => toggleHelp(), title: "Keyboard shortcuts (?)", "aria-expanded": "false" }, "⌨ Keys");
  const nav = h("nav", { "aria-label": "Views" });
  const notices = h("div", { class: "notices", "aria-live": "polite" });
  const help = h("section", { class: "panel help", id: "help", hidden: true, "aria-label": "Keyboard shortcuts" },
    h("h2", {}, "Keyboard shortcuts"),
    h("dl", { class: "shortcuts" }, SHORTCUTS.flatMap((k) => [h("dt", {}, h("kbd", {}, k.key)), h("dd", {}, k.description)])));
  const main = h("main", { id: "main", tabindex: "-1" });
  replace(
    root,
    h("a", { href: "#main", class: "skip-link", onclick: (e: Event) => {
      e.preventDefault();
      main.focus();
    } }, "Skip to content"),
    h("header", { class: "top" }, h("h1", {}, "Code-A1 Arena"), backend, h("div", { class: "header-tools" }, themeBtn, largeBtn, helpBtn)),
    nav,
    help,
    notices,
    main,
  );

  function toggleHelp() {
    help.hidden = !help.hidden;
    helpBtn.setAttribute("aria-expanded", String(!help.hidden));
  }

  let view: View | null = null;
  let viewRoute: Route | null = null;

  function render(s: Readonly<AppState>) {
    applyPrefs(docRoot, s.prefs, deps.prefersDark());
    themeBtn.setAttribute("aria-pressed", String(docRoot.dataset.theme === "dark"));
    largeBtn.setAttribute("aria-pressed", String(s.prefs.largeType));
    backend.textContent = backendText(s);
    backend.className = `pill backend ${s.run.backends.code?.backend ?? (s.gpu?.adapter ? "webgpu" : s.gpu ? "fallback" : "")}`;
    replace(nav, h("ul", {}, ROUTES.map((r, i) => h("li", {}, h("a", { href: `#/${r}`, "aria-current": r === s.route ? "page" : undefined, title: `${ROUTE_TITLES[r]} (${i + 1})` }, ROUTE_TITLES[r])))));
    replace(notices, s.notices.map((n, i) => h("div", { class: `notice ${n.kind}`, role: n.kind === "error" ? "alert" : "status" }, h("span", {}, n.text), h("button", { class: "icon", "aria-label": "dismiss", onclick: () => actions.dismissNotice(i) }, "×"))));
    if (viewRoute !== s.route) {
      view?.destroy();
      main.replaceChildren();
      const section = h("div", { class: `view view-${s.route}` });
      main.append(section);
      view = VIEWS[s.route](section, { actions, deps });
      viewRoute = s.route;
      document.title = `${ROUTE_TITLES[s.route]} · Code-A1 Arena`;
    }
    withFocusKept(() => {
      main.querySelector(".view-error")?.remove();
      try {
        view!.update(s);
      } catch (e) {
        // A view never takes the app down with it: it says what it could not show.
        main.prepend(h("p", { class: "error view-error", role: "alert" }, `This view could not show part of run ${s.run.runId ?? ""}: ${(e as Error).message}. The other views and your stored runs are unaffected.`));
      }
    });
  }

  /** Views rebuild their DOM; keep focus (and the caret) on the element with the same id. */
  function withFocusKept(f: () => void) {
    const active = root.ownerDocument.activeElement as HTMLElement | null;
    const id = active?.id;
    const caret = active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement ? [active.selectionStart, active.selectionEnd] : null;
    f();
    if (!id || root.ownerDocument.activeElement === active) return;
    const again = root.ownerDocument.getElementById(id);
    if (again && again !== active) {
      again.focus();
      if (caret && (again instanceof HTMLInputElement || again instanceof HTMLTextAreaElement)) {
        try {
          again.setSelectionRange(caret[0], caret[1]);
        } catch {
          // number inputs have no selection
        }
      }
    }
  }

  function backendText(s: Readonly<AppState>): string {
    const { code, test } = s.run.backends;
    if (code || test) {
      const a = backendLabel(code ?? test);
      const b = code && test ? backendLabel(test) : a;
      return a === b ? `Backend: ${a}` : `Backend: code ${a} · test ${b}`;
    }
    if (!s.gpu) return "Backend: checking WebGPU…";
    return gpuProbeText(s.gpu, s.config.backend);
  }

  // ---- trainer ----
  const onEvent = (e: TrainerEvent) => {
    store.update((s) => ({ run: applyTrainerEvent(s.run, e, s.config.duel_records_kept || 20) }));
    if (e.type === "status") void refreshRuns();
    if (e.type === "error") actions.notify("error", STOPPED_RUN.has(e.name) ? `The run stopped: ${e.message}` : `${e.name}: ${e.message}`);
    void queue.onEvent(e);
  };

  async function connectTrainer(): Promise<void> {
    if (!deps.trainer) return;
    try {
      trainer = await deps.trainer();
      await trainer.subscribe(onEvent);
      store.update({ trainerReady: true, trainerMissing: null });
      // The Python sandbox and the task set get ready while the user reads (safe mode starts nothing more).
      if (!store.get().safe) void trainer.warm(store.get().config).catch(() => undefined);
      void watchTrainer(trainer);
    } catch (e) {
      store.update({ trainerReady: false, trainerMissing: `The training engine failed to start: ${(e as Error).message}` });
    }
  }

  /**
   * The trainer's own watchdog lives in its worker, so it cannot see that worker's thread stuck (seen
   * in Firefox: a run at step 0 for good, no event, Pause unanswered). The page asks it every few
   * seconds; one that does not answer within its limit (`alive`) is ended and a new one started, and
   * a run it was driving resumes from its last committed step (as after a reload).
   */
  async function watchTrainer(t: TrainerControl & Partial<TrainerLiveness>): Promise<void> {
    if (!t.alive || !t.close) return;
    while (!destroyed && trainer === t) {
      await new Promise((r) => setTimeout(r, TRAINER_PING_MS));
      if (destroyed || trainer !== t || (await t.alive()) || trainer !== t) continue;
      // The run the page shows, whatever the page last heard of it (a resumed run says "running" only
      // once it steps): storage knows whether it was left running, and autoResume goes by that.
      const runId = store.get().run.runId;
      t.close();
      trainer = null;
      store.update({ trainerReady: false, trainerMissing: "Restarting the training engine…" });
      await connectTrainer();
      const next = trainer as (TrainerControl & Partial<TrainerLiveness>) | null;
      let resumed: AutoResume = { resumed: false, note: null };
      if (runId && next) {
        try {
          resumed = await next.autoResume(runId, "the training engine stopped answering");
        } catch (e) {
          resumed = { resumed: false, note: `Could not resume run ${runId}: ${(e as Error).message}` };
        }
      }
      actions.notify("error", `The training engine stopped answering, so it was restarted${resumed.resumed ? `; run ${runId} resumes from its last committed step` : ""}.`);
      if (resumed.note) actions.notify(resumed.resumed ? "info" : "error", resumed.note);
      return;
    }
  }

  async function startRun(config: Config): Promise<string> {
    if (!trainer) throw new Error(store.get().trainerMissing ?? "the training engine is not connected");
    const id = await trainer.start(config);
    store.update((s) => ({ run: { ...IDLE_RUN, backends: s.run.backends, runId: id, status: "running", steps: config.steps }, duel: {} }));
    void refreshRuns();
    return id;
  }

  /** Say which stored records a run's views leave out (they render the rest). */
  function reportUnreadable(d: RunData): void {
    const problems = d.problems ?? [];
    if (problems.length > 0) actions.notify("error", `Run ${d.run.id}: ${problems.length} stored duel record(s) could not be read and are not shown (first: ${problems[0].slice(0, 200)}).`);
  }

  async function refreshRuns(): Promise<void> {
    if (!deps.runs) return;
    try {
      store.update({ runs: await deps.runs.list() });
    } catch (e) {
      actions.notify("error", `Could not read stored runs: ${(e as Error).message}`);
    }
  }

  const guard = (what: string, f: () => Promise<unknown>) => {
    f().catch((e) => actions.notify("error", `${what} failed: ${(e as Error).message}`));
  };
  const need = (): TrainerControl => {
    if (!trainer) throw new Error(store.get().trainerMissing ?? "the training engine is not connected");
    return trainer;
  };

  const actions: Actions = {
    navigate(route) {
      if (deps.url.hash !== `#/${route}`) location.hash = `#/${route}`;
      store.update({ route });
    },
    start() {
      savePrefs(deps.storage, { ...store.get().prefs, welcomed: true });
      store.update((s) => ({ prefs: { ...s.prefs, welcomed: true } }));
      guard("Start", () => startRun(store.get().config));
    },
    pause: () => guard("Pause", () => need().pause()),
    resume() {
      const id = store.get().run.runId;
      if (id) guard("Resume", () => need().resume(id));
    },
    stepOnce() {
      const id = store.get().run.runId;
      if (id) guard("Single step", () => need().stepOnce(id));
    },
    stop: () => guard("Stop", () => need().stop()),
    setConfig(config: Config, preset: PresetName | null) {
      store.update({ config, preset });
      const url = new URL(shareUrl(deps.url.origin + deps.url.pathname, config, preset));
      if (store.get().safe) url.searchParams.set("safe", "1");
      // Debugging flags stay for the session's reloads (they are not part of a shared config).
      for (const flag of APP_FLAGS.filter((f) => f.startsWith("debug_"))) {
        const v = deps.url.searchParams.get(flag);
        if (v !== null) url.searchParams.set(flag, v);
      }
      url.hash = location.hash;
      deps.replaceUrl(url.toString());
    },
    selectDuel(sel) {
      store.update({ duel: sel });
    },
    openRun(runId) {
      guard("Opening the run", async () => {
        if (!deps.runs) throw new Error("storage is unavailable");
        const data = await deps.runs.load(runId);
        reportUnreadable(data);
        store.update((s) => ({ run: { ...runStateFromData(data), backends: s.run.backends }, duel: {} }));
        actions.navigate("dashboard");
      });
    },
    deleteRun(runId) {
      guard("Deleting the run", async () => {
        await deps.runs?.delete(runId);
        if (store.get().run.runId === runId) store.update((s) => ({ run: { ...IDLE_RUN, backends: s.run.backends } }));
        await refreshRuns();
      });
    },
    rerun(runId) {
      guard("Re-run", async () => {
        const run = store.get().runs.find((r) => r.id === runId);
        if (!run) throw new Error(`run ${runId} is not stored`);
        const id = await startRun(run.config);
        actions.notify("info", `Re-running ${runId} as ${id} with the same config and seed; tick both under Runs & Compare to see whether the metrics reproduce.`);
      });
    },
    queueComparison() {
      guard("Queueing the comparison", () => queue.enqueue(comparisonConfigs(store.get().config)));
    },
    exportRun(runId) {
      guard("Export", async () => {
        if (!deps.bundles) throw new Error("run bundles are not available in this build");
        const { blob, fileName } = await deps.bundles.exportRun(runId);
        download(blob, fileName);
      });
    },
    importRun(file) {
      guard("Import", async () => {
        if (!deps.bundles) throw new Error("run bundles are not available in this build");
        if (importAbort) throw new Error(`${store.get().importing?.file ?? "another file"} is still being imported; wait for it or cancel it`);
        const abort = (importAbort = new AbortController());
        const before = new Set(store.get().runs.map((r) => r.id));
        store.update({ importing: { file: file.name, progress: null } });
        try {
          // A progress message still on its way from the worker when Cancel ended it must not bring the bar back.
          const id = await deps.bundles.importRun(file, (progress) => importAbort === abort && !abort.signal.aborted && store.update({ importing: { file: file.name, progress } }), abort.signal);
          await refreshRuns();
          actions.notify("info", `Imported ${file.name} as run ${id}. Use Re-run to train it again and overlay both in Compare.`);
          actions.openRun(id);
        } catch (e) {
          if (!abort.signal.aborted) throw e;
          // Cancel in the instant between the store's commit and the worker's answer: say so, not "nothing was stored".
          await refreshRuns();
          const late = store.get().runs.find((r) => r.imported && !before.has(r.id));
          if (!late) throw e;
          actions.notify("info", `Cancel came too late: ${file.name} was already stored as run ${late.id}; delete it in Runs & Compare if you do not want it.`);
        } finally {
          importAbort = null;
          store.update({ importing: null });
        }
      });
    },
    cancelImport() {
      importAbort?.abort();
    },
    setPrefs(patch: Partial<Prefs>) {
      const next = { ...store.get().prefs, ...patch };
      savePrefs(deps.storage, next);
      store.update({ prefs: next });
    },
    notify(kind, text) {
      store.update((s) => ({ notices: [...s.notices.slice(-4), { kind, text }] }));
    },
    dismissNotice(index) {
      store.update((s) => ({ notices: s.notices.filter((_, i) => i !== index) }));
    },
    shareLink() {
      const s = store.get();
      return shareUrl(deps.url.origin + deps.url.pathname, s.config, s.preset);
    },
  };

  // ---- wiring ----
  const unsubscribe = store.subscribe((s) => render(s));
  const onHash = () => store.update({ route: routeFromHash(location.hash) });
  window.addEventListener("hashchange", onHash);
  const mq = window.matchMedia?.("(prefers-color-scheme: dark)");
  const onScheme = () => render(store.get());
  mq?.addEventListener?.("change", onScheme);
  const uninstallKeys = installShortcuts({
    ...Object.fromEntries(ROUTES.map((r, i) => [String(i + 1), () => actions.navigate(r)])),
    p: () => (store.get().run.status === "running" ? actions.pause() : actions.resume()),
    n: () => actions.stepOnce(),
    "[": () => stepDuel(-1),
    "]": () => stepDuel(1),
    t: () => themeBtn.click(),
    l: () => largeBtn.click(),
    "?": () => toggleHelp(),
  });
  function stepDuel(dir: -1 | 1) {
    const s = store.get();
    const cur = resolveDuel(s.run.duels, s.duel);
    if (cur) actions.selectDuel({ step: neighbourStep(s.run.duels, cur.step, dir), task: cur.task });
  }
  render(store.get());

  const ready = (async () => {
    void deps.probeGpu().then((gpu) => store.update({ gpu }));
    void deps.tasks().then(
      (tasks) => store.update({ tasks }),
      (e) => actions.notify("error", `Could not load the task suite: ${(e as Error).message}`),
    );
    await Promise.all([refreshRuns(), connectTrainer()]);
    if (store.get().safe) return;
    // The user's own latest run: an imported one opens only when asked (Runs & Compare, or at import).
    const latest = store.get().runs.find((r) => !r.imported);
    if (!latest || !deps.runs) return;
    try {
      const data = await deps.runs.load(latest.id);
      reportUnreadable(data);
      store.update((s) => ({ run: { ...runStateFromData(data), backends: s.run.backends }, prefs: { ...s.prefs, welcomed: true } }));
      // A run that was training when the page went away (reload, crash), or that a watchdog stopped
      // once, continues; one stopped the same way twice waits for the user (autoResume says why).
      const t = trainer as TrainerControl | null;
      if ((latest.status === "running" || latest.status === "failed") && t) {
        const { resumed, note } = await t.autoResume(latest.id);
        if (note) actions.notify(resumed ? "info" : "error", note);
      }
    } catch (e) {
      actions.notify("error", `Could not reopen run ${latest.id}: ${(e as Error).message}. Open the app with ?safe=1 to skip it.`);
    }
  })();

  return {
    store,
    actions,
    ready,
    destroy() {
      destroyed = true;
      unsubscribe();
      uninstallKeys();
      window.removeEventListener("hashchange", onHash);
      mq?.removeEventListener?.("change", onScheme);
      view?.destroy();
      // Training is not stopped: the orchestrator outlives the view (a reload resumes it).
    },
  };
}
