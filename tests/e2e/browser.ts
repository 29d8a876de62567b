/** Helpers of the end-to-end tests: the shared Chromium (src/node/chromium.ts), the served app's URL, its stored runs. */
import type { Page } from "playwright-core";
import { inject } from "vitest";
import type { StepMetrics } from "../../src/core/loop/types.ts";

export { BrowserNotFoundError, CHROMIUM_FLAGS, findChromium, launchBrowser, watchErrors } from "../../src/node/chromium.ts";

/** Base URL of the built app served by `vite preview` (started in global-setup.ts). */
export function appUrl(path = "/"): string {
  return new URL(path, inject("appUrl")).toString();
}

/** Runs in the app's IndexedDB: id, last complete step, status, and the metrics of its committed steps. */
export function storedRuns(page: Page): Promise<{ id: string; step: number; status: string; metrics: StepMetrics[] }[]> {
  return page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const req = indexedDB.open("code-a1-arena");
        req.onerror = () => reject(req.error);
        req.onsuccess = () => {
          const tx = req.result.transaction(["runs", "metrics"], "readonly");
          const runs = tx.objectStore("runs").getAll();
          const metrics = tx.objectStore("metrics").getAll();
          tx.onerror = () => reject(tx.error);
          tx.oncomplete = () => {
            req.result.close();
            resolve(
              runs.result.map((r: { id: string; step: number; status: string }) => ({
                id: r.id,
                step: r.step,
                status: r.status,
                metrics: metrics.result.filter((m: { run: string }) => m.run === r.id).map((m: { metrics: StepMetrics }) => m.metrics),
              })),
            );
          };
        };
      }),
  );
}
