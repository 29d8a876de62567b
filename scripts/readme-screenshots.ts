/**
 * `npm run screenshots -- runs/x.a1run [--out-dir docs/screenshots] [--skip-build]`
 * The README's pictures from a real run: checks the bundle is a run the software trained (metrics
 * with timings, trained checkpoints, duel records; anything else is refused), prints the
 * `npm run train` command that made it (from its config), builds and serves the app as the e2e tests
 * do, imports the bundle through Runs > Import in headless Chromium (real IndexedDB), and writes
 * the Dashboard (full page, 1280 wide) and the Duel view (1280 x 900) as dashboard.png and duel.png.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Page } from "playwright-core";
import { BundleError } from "../src/core/bundle.ts";
import { CliError, parseArgs, usage, type FlagSpec } from "../src/node/cli.ts";
import { BrowserNotFoundError, launchBrowser, watchErrors } from "../src/node/chromium.ts";
import { assertRealRun, NotARealRunError, trainCommand } from "../src/node/readme-run.ts";
import { readRunFile } from "../src/node/run-files.ts";
import { serveBuiltApp } from "../src/node/serve-app.ts";

const FLAGS: Record<string, FlagSpec> = {
  "out-dir": { kind: "string", help: "where dashboard.png and duel.png go (default docs/screenshots)" },
  "skip-build": { kind: "bool", help: "serve the dist/ already built instead of building it again" },
};
const USAGE = usage("screenshots", "<run.a1run> [flags]", FLAGS);
const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");
const VIEWPORT = { width: 1280, height: 900 };
const TIMEOUT_MS = 120_000;

const log = (s: string) => process.stdout.write(s + "\n");

/** Width and height from a PNG's IHDR chunk. */
function pngSize(path: string): string {
  const b = readFileSync(path);
  return `${b.readUInt32BE(16)} x ${b.readUInt32BE(20)}`;
}

/** The texts of the app's notices, all and the error ones. */
async function notices(page: Page): Promise<{ errors: string[]; all: string[] }> {
  // $$eval with plain callbacks: tsx names inner functions with a helper the page does not have.
  const all = await page.$$eval(".notices .notice > span", (spans) => spans.map((s) => s.textContent ?? ""));
  const errors = await page.$$eval(".notices .notice.error > span", (spans) => spans.map((s) => s.textContent ?? ""));
  return { errors, all };
}

async function importRun(page: Page, file: string): Promise<string> {
  await page.click('nav a[href="#/compare"]');
  await page.setInputFiles("#import-file", file);
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const n = await notices(page);
    if (n.errors.length > 0) throw new Error(`the app refused the bundle: ${n.errors.join(" | ")}`);
    const imported = n.all.map((t) => /^Imported .* as run (.+?)\. /.exec(t)).find((m) => m);
    if (imported) return imported[1];
    if (Date.now() > deadline) throw new Error(`the app did not report the import within ${TIMEOUT_MS / 1000} s (notices: ${n.all.join(" | ") || "none"})`);
    await page.waitForTimeout(200);
  }
}

async function main(argv: string[]): Promise<void> {
  const { flags, positional } = parseArgs(argv, FLAGS, 1);
  const file = positional[0];
  if (!file) throw new CliError("give the run's .a1run bundle");
  const bundle = resolve(file);
  const outDir = resolve((flags["out-dir"] as string | undefined) ?? join(ROOT, "docs/screenshots"));

  const snapshot = await readRunFile(bundle);
  assertRealRun(snapshot, file);
  const { command } = trainCommand(snapshot.config, file, snapshot.task_set ? `${snapshot.task_set.name}.json` : undefined);
  const evals = snapshot.metrics.filter((m) => m.plus_pass_train !== null).length;
  log(`run ${snapshot.run.id}: ${snapshot.config.mode} on ${snapshot.task_set?.name ?? snapshot.config.task_set}, seed ${snapshot.config.seed}, ${snapshot.run.step} of ${snapshot.config.steps} steps (${snapshot.run.status}), ${evals} evaluation points`);
  log(`made by: ${command}`);
  if (snapshot.task_set) log(`  (it trained on the imported task set ${snapshot.task_set.name}: --tasks names that set's file; the bundle carries the set, not its path)`);
  if (evals > 0) log("  (evaluation options --eval-samples, --eval-task-limit and --eval-train-tasks are not stored in a bundle: add them if the run used them)");

  process.chdir(ROOT); // vite reads its config from the repository root
  log(flags["skip-build"] ? "serving the dist/ already built" : "building the app (vite build)");
  const app = await serveBuiltApp({ build: !flags["skip-build"] });
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext({ viewport: VIEWPORT, colorScheme: "light" });
    const page = await context.newPage();
    page.setDefaultTimeout(TIMEOUT_MS);
    const errors = watchErrors(page);
    await page.goto(app.url);
    await page.waitForFunction(() => (window as unknown as { arena?: { ready: Promise<void> } }).arena?.ready.then(() => true));
    // As a returning visitor sees it: the first visit's introduction hidden (a stored preference).
    const hide = page.locator("button", { hasText: "Hide introduction" });
    if ((await hide.count()) > 0) await hide.click();
    const id = await importRun(page, bundle);
    log(`imported through Runs > Import as run ${id}`);
    // The import notice has done its job; the pictures show the views alone.
    while ((await page.locator(".notices button[aria-label=dismiss]").count()) > 0) await page.locator(".notices button[aria-label=dismiss]").first().click();
    mkdirSync(outDir, { recursive: true });

    await page.click('nav a[href="#/dashboard"]');
    await page.waitForFunction((want) => document.querySelector(".run-head h2")?.textContent === want, `Run ${id}`);
    await page.waitForFunction((step) => document.querySelector(".progress-text")?.textContent?.includes(`step ${step} /`), snapshot.run.step);
    await page.waitForFunction(() => {
      const cards = document.querySelectorAll(".chart-card").length;
      return cards > 0 && document.querySelectorAll(".chart-card canvas").length === cards;
    });
    await page.evaluate(() => document.fonts.ready.then(() => undefined));
    const dashboard = join(outDir, "dashboard.png");
    await page.screenshot({ path: dashboard, fullPage: true });
    log(`wrote ${dashboard} (${pngSize(dashboard)})`);

    const lastDuel = Math.max(...snapshot.duels.filter((d) => d.records.length > 0).map((d) => d.step));
    await page.click('nav a[href="#/duel"]');
    await page.waitForFunction((step) => document.querySelector(".duel-nav h2")?.textContent?.endsWith(`, step ${step}`), lastDuel);
    await page.waitForSelector("table.heatmap");
    await page.evaluate(() => window.scrollTo(0, 0));
    const duel = join(outDir, "duel.png");
    await page.screenshot({ path: duel });
    log(`wrote ${duel} (${pngSize(duel)}): ${await page.textContent(".duel-nav h2")}`);

    if (errors.length > 0) throw new Error(`the page reported errors, so the pictures may not show the app working:\n  ${errors.join("\n  ")}`);
    await context.close();
  } finally {
    await browser.close();
    await app.close();
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  if (e instanceof CliError) {
    process.stderr.write(`screenshots: ${e.message}\n${USAGE}\n`);
    process.exitCode = 2;
  } else if (e instanceof NotARealRunError || e instanceof BundleError || e instanceof BrowserNotFoundError || (e instanceof Error && e.name === "RunFileError")) {
    process.stderr.write(`screenshots: ${e.message}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`screenshots: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  }
});
