/**
 * Training in the real app, in real Chromium: the trainer worker drives both policy workers and the
 * grader's sandbox workers, and commits every step to IndexedDB.
 *  - WebGPU forced (SwiftShader, slow): one step of a tiny run; the backend badge names the adapter; the
 *    metrics and the duel appear.
 *  - backend auto with the SwiftShader adapter: trains on wasm and says why; a reload during the first
 *    step (nothing committed yet) resumes the run to the end.
 *  - WebGPU unavailable (Chromium without --enable-unsafe-webgpu): the fallback is shown and
 *    trains; a reload mid-run resumes from the last complete step and reaches the same metrics as
 *    a run never interrupted.
 */
import { mkdirSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { configToQuery, presetConfig } from "../../src/core/config/index.ts";
import { STEP_METRIC_KEYS, type StepMetrics } from "../../src/core/loop/types.ts";
import { appUrl, launchBrowser, storedRuns, watchErrors } from "./browser.ts";

const SHOTS = "test-artifacts/screenshots";
mkdirSync(SHOTS, { recursive: true });

// The smallest duel that still has every part: 1 task x 2 programs x 2 suites of 2 tests.
const tiny = (steps: number, seed: number) =>
  presetConfig("classroom", { steps, seed, tasks_per_step: 1, num_generations: 2, suites_per_code: 2, tests_per_suite: 2, eval_every: 0 });

const browsers: Browser[] = [];
afterAll(async () => {
  for (const b of browsers) await b.close();
});

async function openApp(browser: Browser, query: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(appUrl(`/?${query}`));
  await page.waitForFunction(() => (window as unknown as { arena?: { ready: Promise<void> } }).arena?.ready.then(() => true));
  return { page, errors };
}

async function waitForRun(page: Page, predicate: (r: { id: string; step: number; status: string }) => boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const runs = await storedRuns(page);
    const hit = runs.find(predicate);
    if (hit) return hit;
    if (Date.now() > deadline) throw new Error(`no run reached the expected state in ${timeoutMs / 1000} s: ${JSON.stringify(runs.map((r) => [r.id, r.step, r.status]))}`);
    await page.waitForTimeout(1000);
  }
}

const withoutTimes = (m: StepMetrics) => Object.fromEntries(STEP_METRIC_KEYS.filter((k) => !k.startsWith("time_")).map((k) => [k, m[k]]));

describe("training in the browser", () => {
  it("trains on WebGPU (SwiftShader): backend badge, metrics and a duel appear", async () => {
    const browser = await launchBrowser();
    browsers.push(browser);
    // SwiftShader: auto would choose wasm, so the WebGPU path is forced (?backend=webgpu). Each decoding
    // step costs about a second on SwiftShader: the shortest completions the grammars allow (32 tokens).
    const { page, errors } = await openApp(browser, configToQuery({ ...tiny(1, 3), backend: "webgpu", max_completion_length: 32 }));
    await page.getByRole("button", { name: "Start", exact: true }).click();
    await expect.poll(() => page.textContent("body"), { timeout: 120_000 }).toMatch(/webgpu \([^)]*swiftshader[^)]*\)/i);
    const run = await waitForRun(page, (r) => r.status === "done", 420_000);
    expect(run.step).toBe(1);
    await expect.poll(() => page.textContent("main, body")).toMatch(/Code reward/);
    await page.getByRole("link", { name: "Duel" }).or(page.getByRole("tab", { name: "Duel" })).or(page.getByRole("button", { name: "Duel" })).first().click();
    await expect.poll(() => page.textContent("body"), { timeout: 30_000 }).toMatch(/def f\(/);
    await page.screenshot({ path: `${SHOTS}/train-webgpu-duel.png`, fullPage: true });
    expect(errors.filter((e) => !/favicon/.test(e))).toEqual([]);
  }, 600_000);

  it("evaluates in the app on schedule: plus-pass, golden-pass and Mul land in the step's metrics", async () => {
    const browser = await launchBrowser({ webgpu: false });
    browsers.push(browser);
    const config = presetConfig("classroom", { steps: 1, seed: 11, tasks_per_step: 1, num_generations: 2, suites_per_code: 2, tests_per_suite: 2, eval_every: 1 });
    const { page, errors } = await openApp(browser, configToQuery(config));
    await page.getByRole("button", { name: "Start", exact: true }).click();
    const run = await waitForRun(page, (r) => r.status === "done", 420_000);
    const [m] = run.metrics;
    for (const k of ["plus_pass_train", "plus_pass_heldout", "golden_pass", "test_pass_k", "test_mut_k", "mul"] as const) {
      expect(m[k], k).not.toBeNull();
      expect(m[k]!, k).toBeGreaterThanOrEqual(0);
    }
    // The shipped base Code policy solves some train tasks (docs/BASE-MODELS.md: 34% plus-pass@1 at temperature 0.7).
    expect(m.plus_pass_train!).toBeGreaterThan(0);
    expect(errors.filter((e) => !/favicon/.test(e))).toEqual([]);
  }, 600_000);

  it("auto on SwiftShader trains on wasm, and a reload during the first step resumes the run", async () => {
    const browser = await launchBrowser(); // WebGPU on: the SwiftShader adapter is offered, auto declines it
    browsers.push(browser);
    const { page, errors } = await openApp(browser, configToQuery(tiny(2, 7)));
    await page.getByRole("button", { name: "Start", exact: true }).click();
    await expect.poll(() => page.textContent("#backend"), { timeout: 120_000 }).toMatch(/Backend: wasm, because the WebGPU adapter \([^)]*swiftshader[^)]*\) is /i);
    // Reload while step 1 is in flight: nothing committed yet.
    const started = await waitForRun(page, (r) => r.status === "running", 60_000);
    expect(started.step).toBe(0);
    await page.reload();
    await page.waitForFunction(() => (window as unknown as { arena?: { ready: Promise<void> } }).arena?.ready.then(() => true));
    const resumed = await waitForRun(page, (r) => r.id === started.id && r.status === "done", 420_000);
    expect(resumed.metrics.map((m) => m.step)).toEqual([1, 2]);
    expect(errors.filter((e) => !/favicon/.test(e))).toEqual([]);
  }, 600_000);

  it("falls back without WebGPU, and a reload mid-run resumes to the same metrics as an uninterrupted run", async () => {
    // Chromium without --enable-unsafe-webgpu: navigator.gpu offers no adapter here.
    const noGpu = await launchBrowser({ webgpu: false });
    browsers.push(noGpu);
    const config = tiny(4, 5);

    // Uninterrupted reference run.
    const first = await openApp(noGpu, configToQuery(config));
    await first.page.getByRole("button", { name: "Start", exact: true }).click();
    await expect.poll(() => first.page.textContent("body"), { timeout: 120_000 }).toMatch(/wasm, because webgpu is unavailable/i);
    const reference = await waitForRun(first.page, (r) => r.status === "done", 420_000);
    expect(reference.metrics.map((m) => m.step)).toEqual([1, 2, 3, 4]);
    await first.page.screenshot({ path: `${SHOTS}/train-fallback-dashboard.png`, fullPage: true });
    await first.page.close();

    // Same config and seed, reloaded after its first committed step.
    const second = await openApp(noGpu, configToQuery(config));
    await second.page.getByRole("button", { name: "Start", exact: true }).click();
    const interrupted = await waitForRun(second.page, (r) => r.id !== reference.id && r.step >= 1, 300_000);
    await second.page.reload();
    // The reload really interrupted the run: steps were still to come.
    expect(interrupted.status).not.toBe("done");
    expect(interrupted.step).toBeLessThan(config.steps);
    const resumed = await waitForRun(second.page, (r) => r.id === interrupted.id && r.status === "done", 420_000);
    expect(resumed.metrics.map((m) => m.step)).toEqual([1, 2, 3, 4]);
    expect(resumed.metrics.map(withoutTimes)).toEqual(reference.metrics.map(withoutTimes));
    expect(second.errors.filter((e) => !/favicon/.test(e))).toEqual([]);
  }, 1_200_000);
});
