/**
 * The grader in a page, as the end-to-end grader files open it: a Vite dev server serving the worker
 * and core modules from source (as `npm run dev` does), headless Chromium, and a page on
 * tests/e2e/grader.html, where tests/e2e/grader-harness.ts grades batches.
 */
import type { Browser, Page } from "playwright-core";
import { createServer, type ViteDevServer } from "vite";
import { launchBrowser, watchErrors } from "./browser.ts";

export interface GraderPage {
  server: ViteDevServer;
  browser: Browser;
  page: Page;
  /** The page's console errors and uncaught exceptions. */
  errors: string[];
  /** The grader page's address (another context's page opens it too). */
  url: string;
  close(): Promise<void>;
}

export async function openGraderPage(): Promise<GraderPage> {
  const server = await createServer({ server: { port: 0, host: "127.0.0.1" }, logLevel: "warn", optimizeDeps: { include: ["comlink"] } });
  await server.listen();
  const browser = await launchBrowser();
  const page = await browser.newPage();
  const errors = watchErrors(page);
  const url = new URL("/tests/e2e/grader.html", server.resolvedUrls!.local[0]).href;
  await page.goto(url);
  return { server, browser, page, errors, url, close: async () => { await browser.close(); await server.close(); } };
}
