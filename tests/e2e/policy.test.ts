/**
 * A policy in a real module Web Worker in Chromium: chooses webgpu (SwiftShader adapter) when the
 * browser offers it and falls back to wasm when it does not; either way it samples grammatical
 * sequences and a GRPO update moves it towards the rewarded ones.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { chromium, type Browser } from "playwright-core";
import type { ViteDevServer } from "vite";
import { callHarness, startPolicyDevServer } from "./policy-page.ts";
import { CHROMIUM_FLAGS, findChromium, launchBrowser, watchErrors } from "./browser.ts";
import { ToyConstraint } from "../../src/core/policy/toy-constraint.ts";
import type { BackendChoice } from "../../src/core/policy/backend.ts";
import type { DuelResult } from "./policy-harness.ts";

const VOCAB = 24;
let server: ViteDevServer;
let origin: string;

/** The dev server serves the worker and core modules from source, as `npm run dev` does. */
beforeAll(async () => {
  ({ server, origin } = await startPolicyDevServer());
});
afterAll(async () => {
  await server?.close();
});

/** Runs the duel of policy-harness.ts in a fresh page of `browser`. */
async function runInPage(browser: Browser, preference = "auto"): Promise<{ result: DuelResult; errors: string[] }> {
  const page = await browser.newPage();
  const errors = watchErrors(page);
  await page.goto(origin);
  const result = await callHarness<DuelResult>(page, `m.runDuel(${VOCAB}, ${JSON.stringify(preference)})`);
  await page.close();
  return { result, errors };
}

function expectWorkingPolicy(result: DuelResult): void {
  const grammar = new ToyConstraint(VOCAB, 1, 6);
  expect(result.completions).toHaveLength(8);
  for (const c of result.completions) expect(grammar.accepts(c)).toBe(true);
  expect(result.done.every(Boolean)).toBe(true);
  expect(result.advantages.some((a) => a !== 0)).toBe(true);
  expect(result.moved).toBeGreaterThan(0);
  expect(result.clipFraction).toBe(0); // first mini-batch of a fresh rollout: ratio 1 everywhere
  expect(result.gradNorm).toBeGreaterThan(0); // a kernel failing on the device shows up as a zero or NaN norm
  expect(Number.isFinite(result.gradNorm)).toBe(true);
  expect(result.checkpointBytes).toBeGreaterThan(100_000 * 4 * 3);
}

it("auto does not train on the SwiftShader adapter: wasm, and the reason names it", async () => {
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const errors = watchErrors(page);
    await page.goto(origin);
    const choice = await callHarness<BackendChoice>(page, `m.chooseOnly("auto")`);
    expect(choice.backend).toBe("wasm");
    // Chromium marks SwiftShader isFallbackAdapter; the name alone would also decide.
    expect(choice.reason).toMatch(/^wasm, because the WebGPU adapter \([^)]*swiftshader[^)]*\) is (a fallback adapter|SwiftShader)/i);
    expect(errors).toEqual([]);
  } finally {
    await browser.close();
  }
});

it("samples and updates on webgpu in a worker when forced (SwiftShader here)", async () => {
  const browser = await launchBrowser();
  try {
    const { result, errors } = await runInPage(browser, "webgpu");
    expect(result.backend).toBe("webgpu");
    expect(result.reason).toMatch(/forced by the backend setting/);
    expectWorkingPolicy(result);
    expect(errors).toEqual([]);
  } finally {
    await browser.close();
  }
});

it("falls back to wasm, and says why, when WebGPU is unavailable", async () => {
  const flags = CHROMIUM_FLAGS.filter((f) => f !== "--enable-unsafe-webgpu");
  const browser = await chromium.launch({ executablePath: findChromium(), args: [...flags, "--disable-features=WebGPU"], headless: true });
  try {
    const { result, errors } = await runInPage(browser);
    expect(result.backend).toBe("wasm");
    expect(result.reason).toMatch(/webgpu is unavailable/);
    expectWorkingPolicy(result);
    expect(errors).toEqual([]);
  } finally {
    await browser.close();
  }
});
