/** Helpers of the end-to-end tests: the shared Chromium (src/node/chromium.ts), the served app's URL, its stored runs. */
import type { Page } from "playwright-core";
import { inject } from "vitest";

export { BrowserNotFoundError, CHROMIUM_FLAGS, findChromium, launchBrowser, watchErrors } from "../../src/node/chromium.ts";

/** Base URL of the built app served by `vite preview` (started in global-setup.ts). */
export function appUrl(path = "/"): string {
  return new URL(path, inject("appUrl")).toString();
}

/** Runs in the app's IndexedDB: id, last complete step, status. */
export function storedRuns(page: Page): Promise<{ id: string; step: number; status: string }[]> {
  return page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const req = indexedDB.open("code-a1-arena");
        req.onerror = () => reject(req.error);
        req.onsuccess = () => {
          const all = req.result.transaction("runs", "readonly").objectStore("runs").getAll();
          all.onsuccess = () => {
            req.result.close();
            resolve(all.result.map((r: { id: string; step: number; status: string }) => ({ id: r.id, step: r.step, status: r.status })));
          };
          all.onerror = () => reject(all.error);
        };
      }),
  );
}
