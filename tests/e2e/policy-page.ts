/**
 * Node-side helpers for driving policy-harness.ts in a page served by a vite dev server (the policy
 * e2e test and `npm run bench -- policy`).
 */
import type { Page } from "playwright-core";
import { createServer, type ViteDevServer } from "vite";

/**
 * A dev server on a free port with the tfjs and comlink bundles prepared up front, in its own
 * dependency cache: dev servers sharing node_modules/.vite overwrite each other's optimised bundles,
 * and each overwrite reloads the page mid-run. No HMR: an edit to any source file the page imports
 * (by someone else, during a bench of many minutes) would reload the page and lose the measurement.
 */
export async function startPolicyDevServer(): Promise<{ server: ViteDevServer; origin: string }> {
  const server = await createServer({
    cacheDir: "node_modules/.vite-policy",
    server: { port: 0, host: "127.0.0.1", hmr: false },
    logLevel: "warn",
    optimizeDeps: { include: ["@tensorflow/tfjs", "@tensorflow/tfjs-backend-webgpu", "@tensorflow/tfjs-backend-wasm", "comlink"] },
  });
  await server.listen();
  const origin = server.resolvedUrls?.local[0];
  if (!origin) throw new Error("vite dev server did not report a URL");
  return { server, origin };
}

/**
 * Evaluate `call` (an expression on the harness module `m`) in the page. When the dev server
 * discovers a dependency late it re-optimises and reloads the page, destroying the evaluation:
 * then wait for the reload and run it again (at most 3 tries).
 */
export async function callHarness<T>(page: Page, call: string): Promise<T> {
  // A string, so the test runner's transform leaves the browser-side import alone.
  const expr = `import("/tests/e2e/policy-harness.ts").then((m) => ${call})`;
  for (let attempt = 1; ; attempt++) {
    try {
      return (await page.evaluate(expr)) as T;
    } catch (e) {
      const reloaded = /Execution context was destroyed|navigation/.test((e as Error).message);
      if (!reloaded || attempt >= 3) throw e;
      await page.waitForLoadState("load");
    }
  }
}
