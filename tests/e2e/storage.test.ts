import { afterAll, beforeAll, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { build } from "vite";
import { appUrl, launchBrowser, watchErrors } from "./browser.ts";
import type { StorageHarness } from "./storage-harness.ts";

declare global {
  interface Window {
    arenaStorage: StorageHarness;
    tookOver?: boolean;
  }
}

let browser: Browser;
let context: BrowserContext;
let harness: string;

/** Bundle the real storage code for the page (no test-only code in the app itself). */
async function buildHarness(): Promise<string> {
  const out = await build({
    configFile: false,
    logLevel: "warn",
    build: {
      write: false,
      minify: false,
      emptyOutDir: false,
      lib: { entry: "tests/e2e/storage-harness.ts", formats: ["es"], fileName: "storage-harness" },
    },
  });
  const outputs = (Array.isArray(out) ? out : [out]).flatMap((o) => ("output" in o ? o.output : []));
  const chunk = outputs.find((o) => o.type === "chunk");
  if (!chunk || chunk.type !== "chunk") throw new Error("storage harness build produced no chunk");
  return chunk.code;
}

async function openPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(appUrl());
  await page.addScriptTag({ content: harness, type: "module" });
  await page.waitForFunction(() => !!window.arenaStorage);
  return { page, errors };
}

beforeAll(async () => {
  harness = await buildHarness();
  browser = await launchBrowser();
  context = await browser.newContext();
});
afterAll(async () => {
  await browser?.close();
});

it("one tab drives a run (Web Locks), the other sees it read-only and takes over when it closes", async () => {
  const a = await openPage();
  const b = await openPage();

  expect(await a.page.evaluate(() => window.arenaStorage.tryLock("r1"))).toBe(true);
  expect(await b.page.evaluate(() => window.arenaStorage.tryLock("r1"))).toBe(false);
  expect(await b.page.evaluate(() => window.arenaStorage.isLocked("r1"))).toBe(true);

  // The driver trains; the viewer sees every committed step.
  await a.page.evaluate(async () => {
    await window.arenaStorage.createRun("r1");
    await window.arenaStorage.commit("r1", 1);
    await window.arenaStorage.commit("r1", 2);
  });
  expect(await b.page.evaluate(() => window.arenaStorage.view("r1"))).toEqual({ runs: ["r1"], step: 2, metrics: [1, 2] });

  // The viewer waits for the lock; closing the driver's tab hands it over.
  await b.page.evaluate(() => {
    window.tookOver = false;
    void window.arenaStorage.waitLock("r1").then(() => (window.tookOver = true));
  });
  await new Promise((r) => setTimeout(r, 300));
  expect(await b.page.evaluate(() => window.tookOver)).toBe(false);
  await a.page.close();
  await expect.poll(() => b.page.evaluate(() => window.tookOver), { timeout: 10_000 }).toBe(true);

  await b.page.evaluate(() => window.arenaStorage.commit("r1", 3));
  expect(await b.page.evaluate(() => window.arenaStorage.view("r1"))).toEqual({ runs: ["r1"], step: 3, metrics: [1, 2, 3] });
  expect(a.errors).toEqual([]);
  expect(b.errors).toEqual([]);
});

it("in real IndexedDB, a failed step leaves nothing half-written, a repeated step is refused, a reload finds the run", async () => {
  const { page, errors } = await openPage();
  const result = await page.evaluate(async () => {
    const s = window.arenaStorage;
    await s.createRun("r2");
    await s.commit("r2", 1);
    const failures: string[] = [];
    for (const attempt of [() => s.commit("r2", 2, true), () => s.commit("r2", 1)]) {
      try {
        await attempt();
      } catch (e) {
        failures.push((e as Error).name);
      }
    }
    await s.commit("r2", 2);
    return { failures, view: await s.view("r2") };
  });
  expect(result.failures).toEqual(["DataCloneError", "StepOrderError"]);
  expect(result.view.step).toBe(2);
  expect(result.view.metrics).toEqual([1, 2]);
  // A reload finds the run where it was.
  await page.reload();
  await page.addScriptTag({ content: harness, type: "module" });
  await page.waitForFunction(() => !!window.arenaStorage);
  expect(await page.evaluate(() => window.arenaStorage.view("r2"))).toEqual({ runs: ["r2", "r1"], step: 2, metrics: [1, 2] }) // most recently updated first;
  expect(errors).toEqual([]);
});
