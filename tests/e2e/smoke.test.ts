import { afterAll, beforeAll, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { appUrl, launchBrowser, watchErrors } from "./browser.ts";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

it("serves the app cross-origin isolated, with Pyodide from its own origin and a WebGPU adapter", async () => {
  const page = await browser.newPage();
  const errors = watchErrors(page);
  await page.goto(appUrl());
  await expect.poll(() => page.textContent("h1")).toBe("Code-A1 Arena");
  const probe = await page.evaluate(async () => {
    const wasm = await fetch("/pyodide/pyodide.asm.wasm");
    const gpu = (navigator as Navigator & { gpu?: { requestAdapter(): Promise<unknown> } }).gpu;
    const adapter = gpu ? await gpu.requestAdapter() : null;
    return { isolated: crossOriginIsolated, wasmStatus: wasm.status, wasmType: wasm.headers.get("content-type"), adapter: !!adapter };
  });
  expect(probe).toEqual({ isolated: true, wasmStatus: 200, wasmType: "application/wasm", adapter: true });
  expect(errors).toEqual([]);
});
