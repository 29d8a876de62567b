/**
 * The app in real Chromium (built, served by vite preview): first visit, navigation and keys,
 * settings validation, share-link round trip, the verl export's download, pretraining the base models in the page (same bytes
 * as Node wasm), a stored run in every view (from IndexedDB, graded for real in app-fixture.ts),
 * themes, safe mode. Screenshots of each main view go to
 * test-artifacts/screenshots/.
 *
 * Not here yet (need the orchestrator, workers/trainer.worker.ts): start -> metrics, reload
 * mid-run resumes, export/clear/import, fallback backend training.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { presetConfig } from "../../src/core/config/index.ts";
import { createNodeGrader } from "../../src/node/grader.ts";
import { appUrl, launchBrowser, watchErrors } from "./browser.ts";
import { buildFixtureRun, type FixtureRun } from "./app-fixture.ts";
import { sha256Hex } from "../../src/core/bundle.ts";
import { arenaConstraints, arenaVocabulary } from "../../src/core/duel/contexts.ts";
import { jointSequences } from "../../src/core/duel/pretrain-corpus.ts";
import { BASE_CORPUS_FILE, parseCorpusFile, pretrainBase, pretrainOptions, type BaseManifest } from "../../src/core/duel/pretrain.ts";
import { PolicyService } from "../../src/core/policy/policy-service.ts";
import { useNodeBackend } from "../../src/node/tf-backend.ts";
import { tableFromIPC } from "apache-arrow";
import { readParquet } from "parquet-wasm/node";
import { strFromU8, unzipSync } from "fflate";
import { arenaV2 } from "../../src/core/arena/arena-v2.ts";
import { runTrainTasks } from "../../src/core/duel/task-order.ts";
import { bugCatches } from "../../src/ui/bug-catch.ts";
import { arenaV1 } from "../../src/core/arena/task-suite.ts";
import { CHARTS } from "../../src/ui/series.ts";
import { benchPlus, buildVerlExport } from "../../src/core/export/verl.ts";

const SHOTS = "test-artifacts/screenshots";
let browser: Browser;
let fixture: FixtureRun;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const grader = await createNodeGrader();
  try {
    fixture = await buildFixtureRun(grader);
  } finally {
    await grader.close();
  }
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

async function open(context: BrowserContext, path = "/"): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(appUrl(path));
  await page.waitForFunction(() => (window as unknown as { arena?: { ready: Promise<void> } }).arena?.ready.then(() => true));
  return { page, errors };
}

const newContext = (scheme: "light" | "dark" = "light") => browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: scheme });
/** A number key switches views, unless focus is in a text field: leave it first. */
async function press(page: Page, key: string): Promise<void> {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press(key);
}
const shot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });

/** Write a run into the app's IndexedDB the way src/storage stores it. */
async function storeRun(page: Page, run: FixtureRun): Promise<void> {
  await page.evaluate((r) => new Promise<void>((resolve, reject) => {
    const req = indexedDB.open("code-a1-arena");
    req.onerror = () => reject(req.error);
    req.onsuccess = () => {
      const db = req.result;
      const tx = db.transaction(["runs", "metrics", "duels", "mistakes"], "readwrite");
      const now = Date.now();
      tx.objectStore("runs").put({ id: r.id, name: "classroom (fixture)", config: r.config, status: "done", created: now, updated: now, step: r.metrics.length, rng_state: null, task_set_hash: "fixture", loop_state: null });
      for (const m of r.metrics) tx.objectStore("metrics").put({ run: r.id, step: m.step, metrics: m });
      for (const d of r.duels) tx.objectStore("duels").put({ run: r.id, step: d.step, records: d.records });
      for (const [task, entries] of Object.entries(r.mistakeBook.tasks)) for (const e of entries) tx.objectStore("mistakes").put({ ...e, run: r.id, task });
      tx.oncomplete = () => {
        db.close();
        resolve();
      };
      tx.onerror = () => reject(tx.error);
    };
  }), run);
}

describe("first visit", () => {
  it("explains the duel, selects the classroom preset, offers a big Start and shows the WebGPU adapter", async () => {
    const context = await newContext();
    const { page, errors } = await open(context);
    expect(await page.textContent("h1")).toBe("Code-A1 Arena");
    expect(await page.textContent(".first-visit .intro")).toMatch(/Code policy writes Python.*Test policy reads each function/);
    expect(await page.inputValue("#preset")).toBe("classroom");
    expect(await page.isVisible("button#start")).toBe(true);
    await expect.poll(() => page.textContent("#backend")).toMatch(/^WebGPU available: /);
    await shot(page, "first-visit");
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("offline", () => {
  it("works offline after the first visit (service worker cache), still cross-origin isolated", async () => {
    const context = await newContext();
    const { page, errors } = await open(context);
    // Everything the first load fetched is in the cache once the service worker took it over.
    await expect
      .poll(
        () => page.evaluate(async () => {
          const loaded = performance.getEntriesByType("resource").map((e) => e.name).filter((u) => new URL(u).origin === location.origin && !u.endsWith("/sw.js"));
          const cache = await caches.open("code-a1-arena-v1");
          const missing = [];
          for (const u of [location.origin + "/", ...loaded]) if (!(await cache.match(u, { ignoreVary: true }))) missing.push(u);
          return missing;
        }),
        { timeout: 30_000 },
      )
      .toEqual([]);
    await context.setOffline(true);
    await page.reload();
    await expect.poll(() => page.textContent("h1")).toBe("Code-A1 Arena");
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
    await expect.poll(() => page.locator(".first-visit .intro").count()).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("navigation and keyboard", () => {
  it("reaches every view by link and by number keys, with the current one marked", async () => {
    const context = await newContext();
    const { page, errors } = await open(context);
    const views = [["duel", "Duel"], ["mistakes", "Mistake Book"], ["compare", "Runs & Compare"], ["play", "Play"], ["settings", "Settings & Share"], ["dashboard", "Dashboard"]];
    for (const [route, title] of views) {
      await page.click(`nav a[href="#/${route}"]`);
      await expect.poll(() => page.getAttribute(`nav a[href="#/${route}"]`, "aria-current")).toBe("page");
      expect(await page.title()).toBe(`${title} · Code-A1 Arena`);
    }
    await page.keyboard.press("3");
    await expect.poll(() => page.evaluate(() => location.hash)).toBe("#/mistakes");
    await press(page, "6");
    await expect.poll(() => page.isVisible("#cfg-alpha")).toBe(true);
    // keys typed into a text field do not navigate
    await page.focus("#cfg-alpha");
    await page.keyboard.press("1");
    expect(await page.evaluate(() => location.hash)).toBe("#/settings");
    await page.keyboard.press("Escape");
    await page.evaluate(() => (document.activeElement as HTMLElement).blur());
    await page.keyboard.press("t");
    const theme1 = await page.evaluate(() => document.documentElement.dataset.theme);
    await page.keyboard.press("t");
    expect(theme1).toBe("dark");
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("light");
    await page.keyboard.press("?");
    expect(await page.isVisible("#help")).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("settings and sharing", () => {
  it("validates typed values with the field's error, and a share link reproduces the config", async () => {
    const context = await newContext();
    const { page, errors } = await open(context, "/#/settings");
    await page.fill("#cfg-alpha", "2");
    await page.press("#cfg-alpha", "Enter");
    await expect.poll(() => page.textContent("#cfg-alpha-err")).toBe("config.alpha: expected a value in [0, 1], got 2");
    expect(await page.getAttribute("#cfg-alpha", "aria-invalid")).toBe("true");
    await page.fill("#cfg-topvar_k", "9");
    await page.press("#cfg-topvar_k", "Enter");
    await expect.poll(() => page.textContent("#cfg-topvar_k-err")).toBe("config.topvar_k: must be at most num_generations (4), got 9");
    await page.fill("#cfg-topvar_k", "2");
    await page.press("#cfg-topvar_k", "Enter");
    await page.fill("#cfg-alpha", "0.25");
    await page.press("#cfg-alpha", "Enter");
    await page.fill("#cfg-seed", "42");
    await page.press("#cfg-seed", "Enter");
    await page.selectOption("#cfg-mistake_book", "false");
    await expect.poll(() => page.isVisible("#cfg-alpha-err")).toBe(false);
    const link = await page.inputValue("#share-link");
    expect(new URL(link).searchParams.get("alpha")).toBe("0.25");
    await shot(page, "settings");
    const expected = presetConfig("classroom", { alpha: 0.25, seed: 42, topvar_k: 2, mistake_book: false });

    const other = await newContext();
    const { page: opened, errors: errors2 } = await open(other, new URL(link).pathname + new URL(link).search);
    const config = await opened.evaluate(() => (window as unknown as { arena: { store: { get(): { config: unknown } } } }).arena.store.get().config);
    expect(config).toEqual(expected);
    expect(await opened.textContent(".notices")).toMatch(/Settings from the link applied .*seed 42/);
    await opened.click('nav a[href="#/settings"]');
    expect(await opened.inputValue("#cfg-alpha")).toBe("0.25");
    expect(errors).toEqual([]);
    expect(errors2).toEqual([]);
    await context.close();
    await other.close();
  });
  it("Export to verl downloads the run's files as a zip: Parquet the reference reads, its YAML with this config, the reward module", async () => {
    const context = await newContext();
    const { page, errors } = await open(context, "/#/settings");
    await page.fill("#cfg-alpha", "0.25");
    await page.press("#cfg-alpha", "Enter");
    await expect.poll(() => page.inputValue("#share-link")).toContain("alpha=0.25");
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#verl-export")]);
    expect(download.suggestedFilename()).toBe("verl-arena-v2-classroom-seed1.zip");
    const path = "test-artifacts/verl-export.zip";
    await download.saveAs(path);
    const files = unzipSync(new Uint8Array(readFileSync(path)));
    const dir = "verl-arena-v2-classroom-seed1";
    expect(Object.keys(files).sort()).toEqual(["README.md", "arena_reward.py", "code_a1_arena.yaml", "export.json", "train.parquet", "val.parquet"].map((f) => `${dir}/${f}`));
    // The same bytes as the Node export of this config (the browser's writer is the same library).
    const config = presetConfig("classroom", { alpha: 0.25 });
    const node = buildVerlExport({ file: arenaV2(), config, preset: "classroom", rewardModule: readFileSync("src/core/export/arena_reward.py", "utf8"),
      plus: (await benchPlus(arenaV2(), JSON.parse(readFileSync("public/bench/arena-v2.json", "utf8")))) ?? undefined });
    for (const f of Object.keys(node.files)) expect([f, Buffer.from(files[`${dir}/${f}`]).equals(Buffer.from(node.files[f]))]).toEqual([f, true]);
    const train = tableFromIPC(readParquet(files[`${dir}/train.parquet`]).intoIPCStream());
    expect(train.numRows).toBe(runTrainTasks(arenaV2(), config).length);
    expect(strFromU8(files[`${dir}/code_a1_arena.yaml`])).toContain("    alpha: 0.25\n");
    expect(await page.textContent("#verl-status")).toBe("Downloaded verl-arena-v2-classroom-seed1.zip.");
    // What the reference cannot run is refused with the field named.
    await page.selectOption("#cfg-mode", "golden-tests");
    await page.click("#verl-export");
    await expect.poll(() => page.textContent(".notices")).toMatch(/Export to verl: mode: the reference implementation trains code-a1 only/);
    expect(errors).toEqual([]);
    await context.close();
  });
  it("a bad link falls back to the defaults and names the field", async () => {
    const context = await newContext();
    const { page } = await open(context, "/?alpha=abc");
    expect(await page.textContent(".notices")).toMatch(/config\.alpha: expected a number, got "abc"/);
    expect(await page.inputValue("#preset")).toBe("classroom");
    await context.close();
  });
});

describe("base models", () => {
  it("pretrains the base model here with a progress bar, to the same bytes as Node wasm", async () => {
    // The same 2-step pretraining in Node (wasm), from the shipped corpus: the browser's worker must match it.
    await useNodeBackend("wasm");
    const vocab = arenaVocabulary();
    const corpus = parseCorpusFile(readFileSync(`public/checkpoints/${BASE_CORPUS_FILE}`));
    const manifest = JSON.parse(readFileSync("public/checkpoints/manifest.json", "utf8")) as BaseManifest;
    const service = new PolicyService(arenaConstraints(vocab));
    await service.init(["wasm"]);
    const r = await pretrainBase(service, jointSequences(corpus), { ...pretrainOptions({ ...manifest.base.options, steps: 2 }), vocab: vocab.size });
    const expected = (await sha256Hex(new Uint8Array(r.checkpoint))).slice(0, 16);
    service.dispose();

    const context = await newContext();
    const { page, errors } = await open(context, "/#/settings");
    await page.waitForSelector("#base-title");
    // The shipped figures come from the manifest.
    await page.waitForSelector("text=Test validity");
    // A manifest written without an evaluation (pretrain --no-eval) has none: the rows stay empty.
    const validity = manifest.figures?.test?.validity.train;
    if (validity !== undefined) expect(await page.textContent("section[aria-labelledby=base-title] table")).toContain(`${validity.toFixed(1)}%`);
    await page.fill("#pretrain-steps", "zero");
    await page.click("#pretrain-start");
    expect(await page.textContent("section[aria-labelledby=base-title] [role=alert]")).toContain('Steps must be a positive whole number, got "zero"');
    await page.fill("#pretrain-steps", "2");
    await page.click("#pretrain-start");
    await page.waitForSelector("#pretrain-result", { timeout: 120_000 });
    const progress = await page.$eval("#pretrain-progress progress", (p) => [(p as HTMLProgressElement).value, (p as HTMLProgressElement).max]);
    expect(progress).toEqual([2, 2]);
    const result = await page.textContent("#pretrain-result");
    expect(result).toContain(`Base model: 2 steps on wasm`);
    expect(result).toContain(`sha256 ${expected}`);
    expect(result).toContain("not comparable with the shipped file");
    expect(await page.getAttribute(`#pretrain-result a[download="${manifest.base.file}"]`, "href")).toMatch(/^blob:/);
    await shot(page, "settings-base-models");
    expect(errors).toEqual([]);
    await context.close();
  }, 240_000);
});

describe("a stored run in every view", () => {
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  beforeAll(async () => {
    context = await newContext();
    ({ page, errors } = await open(context));
    await storeRun(page, fixture);
    await page.reload();
    await page.waitForFunction(() => (window as unknown as { arena: { ready: Promise<void> } }).arena.ready.then(() => true));
  });
  afterAll(async () => {
    await context?.close();
  });

  it("dashboard: opens the latest run with its charts and headline numbers", async () => {
    await expect.poll(() => page.textContent(".run-head h2")).toBe(`Run ${fixture.id}`);
    await expect.poll(() => page.locator(".chart-card").count()).toBe(CHARTS.length);
    expect(await page.locator(".chart-card canvas").count()).toBe(CHARTS.length);
    // Bug detection on held-out suites over training, from the run's own evaluations, and as a headline.
    expect(await page.locator(".chart-card[data-chart='bug-detection'] h3").textContent()).toBe("Bug detection on held-out tasks");
    expect(await page.locator(".tile", { hasText: "Bug detection held-out" }).locator(".tile-value").textContent()).toBe("70.0 %");
    expect(await page.textContent(".progress-text")).toContain("step 12 / 12");
    await shot(page, "dashboard");
  });

  it("duel: heatmap of codes x suites, TopVar choice, per-line verdicts, stepping back", async () => {
    await press(page, "2");
    const rec = fixture.duels[fixture.duels.length - 1].records[0];
    await expect.poll(() => page.textContent(".duel-nav h2")).toBe(`Duel: ${rec.task}, step 12`);
    expect(await page.locator("table.heatmap tbody td[title^='code']").count()).toBe(rec.codes.length * rec.codes[0].suites.length);
    expect(await page.locator("table.heatmap tr.topvar").count()).toBe(rec.topvar.selected.length);
    const lines = rec.codes.flatMap((c) => c.suites.flatMap((s) => s.lines)).length + rec.codes.flatMap((c) => c.mistake_book_lines).length;
    expect(await page.locator("ol.lines .badge").count()).toBe(lines);
    expect(await page.locator(".tok-keyword").count()).toBeGreaterThan(0);
    // The bugs caught: each broken code's breaking line, the program beside the reference, both outputs.
    const catches = bugCatches(rec);
    expect(catches.length).toBeGreaterThan(0);
    expect(await page.locator(".bugs-caught details.bug-catch").count()).toBe(catches.length);
    const first = page.locator(".bugs-caught details.bug-catch").first();
    expect(await first.locator("table.bug-outputs").textContent()).toBe(`${catches[0].call}reference returned ${catches[0].reference}code ${catches[0].code + 1}: ${catches[0].program}`);
    // The reference beside the program comes with the built-in tasks, built in a worker after the page opens.
    await expect.poll(() => first.locator(".side-by-side pre").count(), { timeout: 60_000 }).toBe(2);
    expect(await first.locator(".side-by-side pre").nth(1).textContent()).toBe(arenaV1().tasks.find((t) => t.id === rec.task)!.reference);
    await shot(page, "duel");
    await page.screenshot({ path: `${SHOTS}/duel-viewport.png` });
    await press(page, "[");
    await expect.poll(() => page.textContent(".duel-nav h2")).toBe(`Duel: ${rec.task}, step 11`);
    await page.click("text=Step forward ▶");
    await expect.poll(() => page.textContent(".duel-nav h2")).toBe(`Duel: ${rec.task}, step 12`);
  });

  it("Mistake Book: lists the stored tests and filters by search", async () => {
    await press(page, "3");
    const all = Object.values(fixture.mistakeBook.tasks).flat();
    expect(all.length).toBeGreaterThan(0);
    await expect.poll(() => page.locator("table.mistakes tbody tr").count()).toBe(all.length);
    await shot(page, "mistake-book");
    await page.fill("#mb-search", "no test has this text");
    await expect.poll(() => page.locator("table.mistakes tbody tr").count()).toBe(0);
    await page.fill("#mb-search", all[0].test.slice(7, 14));
    await expect.poll(() => page.locator("table.mistakes tbody tr").count()).toBeGreaterThan(0);
  });

  it("Compare: lists the run and overlays its metrics", async () => {
    await press(page, "4");
    await page.check(`input[aria-label="compare ${fixture.id}"]`);
    await expect.poll(() => page.locator(".view-compare .chart-card canvas").count()).toBe(4);
  });

  it("Play: grades a hand-written solution against golden and Mistake Book tests, and hand-written tests against programs", async () => {
    await press(page, "5");
    await expect.poll(() => page.inputValue("#play-task")).toBe("sum-positive");
    expect(await page.inputValue("#play-editor")).toBe("def f(xs):\n    ");
    // sum(xs) forgets to drop the negatives: the golden test f([1, -2, 3]) == 4 breaks it
    await page.fill("#play-editor", "def f(xs):\n    return sum(xs)");
    await page.click("#play-run");
    // Attackers include 4 suites the Test policy writes reading this code (white-box, policy worker).
    await expect.poll(() => page.textContent("#play-results h3"), { timeout: 240_000 }).toMatch(/^[1-9]\d* of \d+ tests break your code$/);
    const golden = page.locator("#play-results tr", { hasText: "golden tests" }).filter({ hasText: "assert f([1, -2, 3]) == 4" });
    expect(await golden.locator(".badge").textContent()).toBe("fail");
    await shot(page, "play");
    await page.click("text=Attack: write the tests");
    await page.fill("#play-editor", "assert f([1, -1]) == 1\nassert f([2]) == 2");
    await page.click("#play-run");
    // Targets: 4 programs of the Code policy (base model, sampled in a policy worker), then the three
    // buggy variants and the duel's reference code. [1, -1] catches all three variants; the
    // reference survives.
    // Identical programs are listed once: the base Code policy often writes exactly a known buggy
    // variant or the reference, hence 4 to 8.
    expect(await page.textContent("body")).toContain("Targets: the trained Code policy (4 programs)");
    await expect.poll(() => page.textContent("#play-results h3"), { timeout: 240_000 }).toMatch(/^Your tests catch \d+ of [4-8] programs$/);
    expect(await page.textContent("#play-results")).toContain("All your tests agree with the reference solution.");
  });

  it("export, delete and import a run as a .a1run file", async () => {
    await press(page, "4");
    const [download] = await Promise.all([page.waitForEvent("download"), page.locator("table.runs tr", { hasText: fixture.id }).locator("text=Export").click()]);
    expect(download.suggestedFilename()).toBe(`${fixture.id}.a1run`);
    const file = "test-artifacts/fixture-run.a1run";
    await download.saveAs(file);
    page.once("dialog", (d) => void d.accept());
    await page.locator("table.runs tr", { hasText: fixture.id }).locator("text=Delete").click();
    await expect.poll(() => page.locator("table.runs").count()).toBe(0);
    await page.setInputFiles("#import-file", file);
    await expect.poll(() => page.textContent(".notices")).toMatch(/Imported fixture-run\.a1run as run /);
    await expect.poll(() => page.evaluate(() => (window as unknown as { arena: { store: { get(): { run: { metrics: { code_reward: number }[] } } } } }).arena.store.get().run.metrics.map((m) => m.code_reward))).toEqual(fixture.metrics.map((m) => m.code_reward));
    await expect.poll(() => page.locator(".chart-card canvas").count()).toBe(CHARTS.length);
    // Imported again, it is stored under a new id; ticking both checks reproduction.
    await press(page, "4");
    await page.setInputFiles("#import-file", file);
    await expect.poll(() => page.textContent(".notices")).toMatch(/as run fixture-run-2\./);
    await press(page, "4");
    await page.check('input[aria-label="compare fixture-run"]');
    await page.check('input[aria-label="compare fixture-run-2"]');
    await expect.poll(() => page.textContent("#reproduction")).toBe("Reproduction: fixture-run-2 reproduces fixture-run: identical metrics on all 12 common steps (timings aside).");
    await shot(page, "compare");
  });

  it("dark theme and large type stay readable (duel view, projector)", async () => {
    await press(page, "2");
    await page.click("#theme-toggle");
    await page.click("#large-toggle");
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).fontSize)).toBe("22px");
    await shot(page, "duel-dark-large");
    await page.click("#large-toggle");
    await press(page, "1");
    await shot(page, "dashboard-dark");
    expect(errors).toEqual([]);
  });

  it("safe mode opens without opening or resuming the stored run", async () => {
    const safe = await context.newPage();
    await safe.goto(appUrl("/?safe=1"));
    await safe.waitForFunction(() => (window as unknown as { arena?: { ready: Promise<void> } }).arena?.ready.then(() => true));
    expect(await safe.textContent(".notices")).toMatch(/Safe mode: nothing was resumed/);
    expect(await safe.locator(".run-head").count()).toBe(0);
    await safe.click('nav a[href="#/compare"]');
    // the fixture, imported twice by the export/import test
    await expect.poll(() => safe.locator("table.runs tbody tr").count()).toBe(2);
  });
});
