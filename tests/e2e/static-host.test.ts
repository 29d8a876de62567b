/**
 * The production build on a plain static host: `dist/` (built by global-setup.ts) served by
 * `python3 -m http.server`, which sends no COOP, COEP or CSP headers. The app's service worker
 * must supply them: the first visit reloads once under it and is then cross-origin isolated, the
 * grader worker's script carries its CSP, training runs a step and Play grades code in the real
 * Pyodide sandbox; with the server gone, the cached app is still isolated and still grades.
 */
import type { ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { configToQuery, presetConfig } from "../../src/core/config/index.ts";
import { graderWorkerCsp } from "../../src/core/hosting.ts";
import { RELOAD_MARK } from "../../src/ui/offline.ts";
import { launchBrowser, storedRuns, watchErrors } from "./browser.ts";
import { serveStatic } from "../../src/node/serve-app.ts";

const SHOTS = "test-artifacts/screenshots";
mkdirSync(SHOTS, { recursive: true });

const LOADS = "static-host-test-loads";
let server: ChildProcess | undefined;
let origin = "";
let browser: Browser;

beforeAll(async () => {
  ({ child: server, origin } = await serveStatic("dist"));
  browser = await launchBrowser({ webgpu: false }); // the wasm fallback: one step in seconds, not minutes
});
afterAll(async () => {
  await browser?.close();
  server?.kill();
});

describe("static hosting (python3 -m http.server, no custom headers)", () => {
  it("the server itself sends no isolation or CSP headers", async () => {
    const page = await fetch(`${origin}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("cross-origin-opener-policy")).toBeNull();
    expect(page.headers.get("cross-origin-embedder-policy")).toBeNull();
    const sw = await fetch(`${origin}/sw.js`);
    expect(sw.status).toBe(200);
    expect(sw.headers.get("content-type")).toMatch(/javascript/);
  });

  it("reloads once into cross-origin isolation, serves the grader worker with its CSP, trains a step and grades code in Play", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors = watchErrors(page);
    // Each document load records whether it was isolated, before any app code runs.
    await context.addInitScript((key) => {
      sessionStorage.setItem(key, JSON.stringify([...JSON.parse(sessionStorage.getItem(key) ?? "[]"), crossOriginIsolated]));
    }, LOADS);
    const loads = () => page.evaluate((key) => JSON.parse(sessionStorage.getItem(key) ?? "[]") as boolean[], LOADS).catch(() => null);
    const graderScripts: { url: string; csp: string | undefined; fromServiceWorker: boolean }[] = [];
    page.on("response", (r) => {
      if (/\/assets\/grader\.worker-[\w-]+\.js$/.test(new URL(r.url()).pathname)) {
        graderScripts.push({ url: r.url(), csp: r.headers()["content-security-policy"], fromServiceWorker: r.fromServiceWorker() });
      }
    });

    // The smallest duel that still has every part (as train.test.ts): 1 task x 2 programs x 2 suites of 2 tests.
    const config = presetConfig("classroom", { steps: 1, seed: 3, tasks_per_step: 1, num_generations: 2, suites_per_code: 2, tests_per_suite: 2, eval_every: 0 });
    const t0 = Date.now();
    await page.goto(`${origin}/?${configToQuery(config)}`);
    // The first load is not isolated (the host sends nothing); one reload under the service
    // worker is, and no further reload follows.
    await expect.poll(loads, { timeout: 30_000 }).toEqual([false, true]);
    await page.waitForFunction(() => crossOriginIsolated && (window as unknown as { arena?: { ready: Promise<void> } }).arena?.ready.then(() => true), null, { timeout: 120_000 });
    const isolatedAfterMs = Date.now() - t0;
    const state = await page.evaluate((mark) => ({ isolated: crossOriginIsolated, controlled: !!navigator.serviceWorker.controller, mark: sessionStorage.getItem(mark), query: location.search }), RELOAD_MARK);
    expect(state).toEqual({ isolated: true, controlled: true, mark: null, query: `?${configToQuery(config)}` });
    await page.waitForTimeout(2000);
    expect(await loads()).toEqual([false, true]);
    expect(await page.textContent(".notices")).not.toMatch(/cross-origin isolated/);

    // Train one step (wasm fallback), committed to IndexedDB.
    await page.getByRole("button", { name: "Start", exact: true }).click();
    const deadline = Date.now() + 420_000;
    let runs = await storedRuns(page);
    while (!runs.some((r) => r.status === "done")) {
      if (Date.now() > deadline) throw new Error(`no run finished in 420 s: ${JSON.stringify(runs)}`);
      await page.waitForTimeout(1000);
      runs = await storedRuns(page);
    }
    expect(runs.find((r) => r.status === "done")!.step).toBe(1);
    const trainedAfterMs = Date.now() - t0;

    // Play: the grader sandbox in a page worker grades a hand-written solution. sum(xs) forgets to
    // drop the negatives: the golden test f([1, -2, 3]) == 4 breaks it.
    await page.click('nav a[href="#/play"]');
    await page.waitForSelector("#play-task");
    await page.selectOption("#play-task", "sum-positive");
    await page.fill("#play-editor", "def f(xs):\n    return sum(xs)");
    await page.click("#play-run");
    await expect.poll(() => page.textContent("#play-results"), { timeout: 240_000 }).toMatch(/\d+ of \d+ tests break your code/);
    const golden = page.locator("#play-results tr", { hasText: "golden tests" }).filter({ hasText: "assert f([1, -2, 3]) == 4" });
    expect(await golden.locator(".badge").textContent()).toBe("fail");
    await page.screenshot({ path: `${SHOTS}/static-host-play.png`, fullPage: true });

    // The grader worker's script came through the service worker with its CSP.
    expect(graderScripts.length).toBeGreaterThan(0);
    for (const s of graderScripts) expect(s).toEqual({ url: s.url, csp: graderWorkerCsp(origin), fromServiceWorker: true });
    // And so does any fetch of it from the page (the header is the worker's, not the server's).
    const fetched = await page.evaluate(async (url) => (await fetch(url)).headers.get("content-security-policy"), graderScripts[0].url);
    expect(fetched).toBe(graderWorkerCsp(origin));
    const direct = await fetch(graderScripts[0].url);
    expect(direct.headers.get("content-security-policy")).toBeNull();

    const playedAfterMs = Date.now() - t0;
    expect(errors.filter((e) => !/favicon/.test(e))).toEqual([]);

    // Offline for real (the server is gone): the cached responses get the headers too, so the page
    // is still isolated and Play still grades.
    server!.kill();
    await new Promise((resolve) => server!.once("exit", resolve));
    await page.reload();
    await page.waitForFunction(() => (window as unknown as { arena?: { ready: Promise<void> } }).arena?.ready.then(() => true), null, { timeout: 120_000 });
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
    await page.click('nav a[href="#/play"]');
    await page.selectOption("#play-task", "sum-positive");
    await page.fill("#play-editor", "def f(xs):\n    return sum(x for x in xs if x > 0)");
    await page.click("#play-run");
    await expect.poll(() => page.textContent("#play-results"), { timeout: 240_000 }).toMatch(/\d+ of \d+ tests break your code/);
    expect(await golden.locator(".badge").textContent()).toBe("pass");
    expect(await loads()).toEqual([false, true, true]);

    console.log(`static host: isolated after ${(isolatedAfterMs / 1000).toFixed(1)} s, one step trained after ${(trainedAfterMs / 1000).toFixed(1)} s, Play graded after ${(playedAfterMs / 1000).toFixed(1)} s, offline Play graded after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    await context.close();
  }, 600_000);
});
