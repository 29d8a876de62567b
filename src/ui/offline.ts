/**
 * Offline after the first visit (public/sw.js). The service worker only sees requests made after it
 * controls the page, so: (1) the page tells it which same-origin URLs the first load already
 * fetched, and (2) workers (trainer, policies, grader) are started only once the page is
 * controlled, so that their scripts, wasm and Pyodide files are cached as they load.
 */

const CONTROL_WAIT_MS = 3000;

/** Register the worker; resolves when the page is controlled (or after a short wait, or at once without support). */
export function registerOffline(nav: Navigator, page: { origin: string; pathname: string }, perf: Performance): Promise<void> {
  if (!("serviceWorker" in nav)) return Promise.resolve();
  const sw = nav.serviceWorker;
  const controlled = new Promise<void>((resolve) => {
    if (sw.controller) return resolve();
    sw.addEventListener("controllerchange", () => resolve(), { once: true });
    setTimeout(resolve, CONTROL_WAIT_MS); // never hold the app back for offline support
  });
  sw.register("/sw.js")
    .then(() => sw.ready)
    .then(async (reg) => {
      await controlled;
      const loaded = perf.getEntriesByType("resource").map((e) => e.name).filter((u) => new URL(u).origin === page.origin);
      reg.active?.postMessage({ type: "cache-urls", urls: [page.pathname, ...loaded] });
    })
    .catch((e) => console.warn(`offline support unavailable: ${(e as Error).message}`));
  return controlled;
}
