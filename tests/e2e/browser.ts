/** Helpers of the end-to-end tests: the shared Chromium (src/node/chromium.ts) and the served app's URL. */
import { inject } from "vitest";

export { BrowserNotFoundError, CHROMIUM_FLAGS, findChromium, launchBrowser, watchErrors } from "../../src/node/chromium.ts";

/** Base URL of the built app served by `vite preview` (started in global-setup.ts). */
export function appUrl(path = "/"): string {
  return new URL(path, inject("appUrl")).toString();
}
