/**
 * `npm run bench -- newcomer [--json] [--no-build] [--steps N] [--visits N]`
 *
 * A newcomer's minute: the production build (`vite build` into dist/, unless --no-build) on a plain
 * static host (`python3 -m http.server`, no headers of its own), opened in a fresh headless Chromium
 * context (empty cache and storage, the wasm fallback: SwiftShader's WebGPU is declined anyway). The
 * page's first visit reloads once under the service worker into cross-origin isolation; then Start is
 * pressed as soon as it is enabled, with the default (classroom) configuration, and the run's steps are
 * read from IndexedDB as they are committed. Times are seconds from opening the page:
 *   ready_s        the app ready (window.arena.ready: runs listed, trainer connected), Start enabled;
 *   first_step_s   the first step committed to IndexedDB;
 *   run_s          the run done (`--steps`, default the preset's 36);
 *   step_s         the median time per step after the first.
 * `--visits 2` then opens the page again in the same context (the app, its wasm and Pyodide in the
 * service worker's cache) and times a second run the same way: keys with the prefix `warm_`.
 * Every figure is a median over the visits of its kind when run with --reps (default 1).
 * `--record` writes the first visit's figures, with the machine and browser, to
 * src/core/config/measured-times.json: the classroom preset's description quotes them (presets.ts),
 * so the times the app states are the last measurement's, never typed by hand.
 * Targets (issue 28): first_step_s <= 8 and run_s <= 45 on a 2-core machine.
 */
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import type { BrowserContext, Page } from "playwright-core";
import type { MeasuredTimes } from "../../src/core/config/measured-times.ts";
import { build } from "vite";
import { launchBrowser, storedRuns, watchErrors } from "../../tests/e2e/browser.ts";
import { serveStatic } from "../../src/node/serve-app.ts";
import { configToQuery, presetConfig } from "../../src/core/config/index.ts";
import { CliError, parseArgs, type FlagSpec } from "../../src/node/cli.ts";
import { median } from "../../src/core/policy/bench-workload.ts";

const FLAGS: Record<string, FlagSpec> = {
  json: { kind: "bool", help: "print exactly one JSON line" },
  "no-build": { kind: "bool", help: "serve the dist/ already there" },
  steps: { kind: "int", min: 1, help: "steps of the run (default: the classroom preset's)" },
  visits: { kind: "int", min: 1, help: "1: a first visit only; 2: then a second visit with the caches warm (default 1)" },
  reps: { kind: "int", min: 1, help: "fresh browser contexts, each with its visits; medians reported (default 1)" },
  record: { kind: "bool", help: "write the figures to src/core/config/measured-times.json (the preset texts quote them); the classroom preset's own length only" },
};

/** Longest wait for one run, start to done. */
const RUN_TIMEOUT_MS = 15 * 60_000;

interface VisitTimes {
  ready_s: number;
  first_step_s: number;
  run_s: number;
  step_s: number | null;
  steps: number;
  /** Each progress phase's first appearance, seconds from opening (the first step's split). */
  phases: [string, number][];
}

/** One visit: open, wait for Start, press it, poll the stored run until done. */
async function visit(context: BrowserContext, url: string): Promise<VisitTimes> {
  const page: Page = await context.newPage();
  const errors = watchErrors(page);
  const t0 = performance.now();
  const since = () => (performance.now() - t0) / 1000;
  await page.goto(url);
  await page.waitForFunction(() => crossOriginIsolated && (window as unknown as { arena?: { ready: Promise<void> } }).arena?.ready.then(() => true), null, { timeout: 120_000 });
  const start = page.getByRole("button", { name: "Start", exact: true });
  await start.waitFor({ state: "visible", timeout: 60_000 });
  while (await start.isDisabled()) await page.waitForTimeout(50);
  const ready = since();
  const before = new Set((await storedRuns(page)).map((r) => r.id));
  // Where the first step's time goes: when each progress phase of the run first shows, from opening.
  await page.evaluate((opened) => {
    type Progress = { phase: string; text: string } | null;
    const w = window as unknown as { arena: { store: { subscribe(l: (s: { run: { progress: Progress } }) => void): () => void } }; __phases?: [string, number][] };
    const seen = (w.__phases = [] as [string, number][]);
    const t0 = performance.timeOrigin + performance.now() - opened;
    w.arena.store.subscribe((s) => {
      const p = s.run.progress;
      const label = p ? `${p.phase}: ${p.text.replace(/ \(.*$|\d+\/\d+.*$/, "").trim()}` : "";
      if (p && (seen.length === 0 || seen[seen.length - 1][0] !== label) && !seen.some(([l]) => l === label)) seen.push([label, (performance.timeOrigin + performance.now() - t0) / 1000]);
    });
  }, since() * 1000);
  await start.click();
  const stepAt: number[] = [];
  const deadline = performance.now() + RUN_TIMEOUT_MS;
  for (;;) {
    const runs = await storedRuns(page);
    const run = runs.find((r) => !before.has(r.id));
    const now = since();
    if (run) while (stepAt.length < run.step) stepAt.push(now);
    if (run?.status === "done") break;
    if (run && (run.status === "failed" || run.status === "stopped")) {
      const notices = await page.locator(".notices").innerText().catch(() => "");
      throw new Error(`the run ended as ${run.status} after step ${run.step}: ${[notices, ...errors].filter(Boolean).join("; ")}`);
    }
    if (performance.now() > deadline) throw new Error(`no run finished in ${RUN_TIMEOUT_MS / 1000} s: ${JSON.stringify(runs)}`);
    await page.waitForTimeout(100);
  }
  const phases = await page.evaluate(() => (window as unknown as { __phases: [string, number][] }).__phases);
  await page.close();
  const gaps = stepAt.slice(1).map((t, i) => t - stepAt[i]);
  return { ready_s: ready, first_step_s: stepAt[0], run_s: stepAt[stepAt.length - 1], step_s: gaps.length ? median(gaps) : null, steps: stepAt.length, phases };
}

export async function main(argv: string[]): Promise<void> {
  const { flags } = parseArgs(argv, FLAGS, 0);
  const json = flags.json === true;
  const visits = (flags.visits as number | undefined) ?? 1;
  const reps = (flags.reps as number | undefined) ?? 1;
  if (visits > 2) throw new CliError(`--visits is 1 or 2, got ${visits}`);
  const log = (line: string) => {
    if (!json) console.log(line);
  };
  if (flags["no-build"] !== true) {
    log("newcomer: vite build ...");
    await build({ logLevel: "warn" });
  }
  const steps = flags.steps as number | undefined;
  const config = presetConfig("classroom", steps !== undefined ? { steps } : {});
  const { child, origin } = await serveStatic("dist");
  if (flags.record === true && steps !== undefined) throw new CliError("--record measures the classroom preset as a newcomer gets it: leave --steps out");
  const browser = await launchBrowser({ webgpu: false });
  const browserVersion = browser.version();
  const loadBefore = loadavg()[0];
  const cold: VisitTimes[] = [];
  const warm: VisitTimes[] = [];
  try {
    // A newcomer's link carries no configuration; --steps needs one in the URL (the same classroom preset otherwise).
    const url = steps !== undefined ? `${origin}/?${configToQuery(config)}` : `${origin}/`;
    for (let rep = 0; rep < reps; rep++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      try {
        for (let v = 0; v < visits; v++) {
          const times = await visit(context, url);
          (v === 0 ? cold : warm).push(times);
          log(`${v === 0 ? "first visit" : "second visit"} ${rep + 1}/${reps}: Start enabled ${times.ready_s.toFixed(1)} s, first step committed ${times.first_step_s.toFixed(1)} s, ${times.steps} steps done ${times.run_s.toFixed(1)} s after opening; ${times.step_s?.toFixed(2) ?? "-"} s per later step`);
          log(`  phases: ${times.phases.filter(([, t]) => t <= times.first_step_s + 1).map(([l, t]) => `${t.toFixed(1)} ${l}`).join(" | ")}`);
        }
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
    child.kill();
  }
  const figures: Record<string, number | null> = { steps: config.steps };
  const put = (prefix: string, runs: VisitTimes[]) => {
    if (!runs.length) return;
    for (const k of ["ready_s", "first_step_s", "run_s", "step_s"] as const) {
      const xs = runs.map((r) => r[k]).filter((x): x is number => x !== null);
      figures[`${prefix}${k}`] = xs.length ? Math.round(median(xs) * 100) / 100 : null;
    }
  };
  put("", cold);
  put("warm_", warm);
  figures.first_step_target_met = figures.first_step_s !== null && figures.first_step_s! <= 8 ? 1 : 0;
  figures.run_target_met = figures.run_s !== null && figures.run_s! <= 45 ? 1 : 0;
  if (flags.record === true && cold.length) {
    const median2 = (k: "ready_s" | "first_step_s" | "run_s") => Math.round(median(cold.map((r) => r[k])) * 10) / 10;
    const stepS = cold.map((r) => r.step_s).filter((x): x is number => x !== null);
    const record: MeasuredTimes = {
      command: "npm run bench -- newcomer --record",
      date: new Date().toISOString().slice(0, 10),
      where: `headless Chromium ${browserVersion} (wasm) from a static host, ${cpus().length} CPU cores at load average ${loadBefore.toFixed(1)}`,
      classroom: { steps: config.steps, ready_s: median2("ready_s"), first_step_s: median2("first_step_s"), run_s: median2("run_s"), step_s: stepS.length ? Math.round(median(stepS) * 100) / 100 : null },
    };
    writeFileSync("src/core/config/measured-times.json", JSON.stringify(record, null, 2) + "\n");
    log("newcomer: wrote src/core/config/measured-times.json");
  }
  if (json) console.log(JSON.stringify(figures));
  else log(`newcomer (median of ${reps}): first step ${figures.first_step_s} s (target 8), whole run ${figures.run_s} s (target 45)`);
}
