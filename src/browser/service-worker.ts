/**
 * The app's service worker, built to /sw.js (vite.config.ts) and registered by src/ui/offline.ts.
 * Two jobs:
 *
 * 1. Headers from the app itself: pages and worker scripts it serves get the cross-origin
 *    isolation headers, and the grader worker's script its CSP (src/core/hosting.ts, the same
 *    definitions Vite's servers send); every other response goes out as it came
 *    (needsHostingHeaders says why). So `dist/` on a plain static host is isolated from the
 *    second load on (the first one reloads once under this worker, see offline.ts).
 *
 * 2. Offline after the first visit. Everything the app loads comes from its own origin (Vite
 *    bundles, /pyodide/, /tfjs-wasm/), so a same-origin runtime cache is enough:
 *     - page loads (navigations): network first, so a deploy is picked up at once; the cache when
 *       offline.
 *     - the files `npm run pretrain-base` and the bench rebuild in place (/checkpoints/, /bench/: not
 *       content-hashed): network first too, so a new build's base models are picked up.
 *     - everything else: cache first (bundles are content-hashed; Pyodide and wasm are pinned).
 *    The cache keeps the server's responses as they came; the headers are added on the way out, so
 *    cached responses get them too, offline included. Bump VERSION to drop old caches.
 *
 * Built as a classic script with no imports (the build checks it): Firefox and older Safari do not
 * run module service workers.
 */
import { needsHostingHeaders, withHostingHeaders } from "../core/hosting.ts";

const VERSION = "code-a1-arena-v1";
const REBUILT_IN_PLACE = ["/checkpoints/", "/bench/"];

/** Register the service worker's handlers: call once, in the service worker's first evaluation. */
export function serveApp(sw: ServiceWorkerGlobalScope): void {

  sw.addEventListener("install", () => void sw.skipWaiting());

  sw.addEventListener("activate", (event) => {
    event.waitUntil(
      (async () => {
        for (const key of await caches.keys()) if (key !== VERSION) await caches.delete(key);
        await sw.clients.claim();
      })(),
    );
  });

  async function networkFirst(request: Request): Promise<Response> {
    const cache = await caches.open(VERSION);
    try {
      const response = await fetch(request);
      if (response.ok) await cache.put(request, response.clone());
      return response;
    } catch (e) {
      const cached = (await cache.match(request, { ignoreSearch: true, ignoreVary: true })) ??
        (request.mode === "navigate" ? await cache.match("/", { ignoreSearch: true, ignoreVary: true }) : undefined);
      if (cached) return cached;
      throw e;
    }
  }

  async function cacheFirst(request: Request): Promise<Response> {
    const cache = await caches.open(VERSION);
    const cached = await cache.match(request, { ignoreVary: true });
    if (cached) return cached;
    const response = await fetch(request);
    if (response.ok && response.type === "basic") await cache.put(request, response.clone());
    return response;
  }

  // The page's first load happens before this worker controls it: the page sends the URLs it
  // already loaded (same origin), so that they are cached too and the next visit works offline.
  sw.addEventListener("message", (event) => {
    const data = event.data as { type?: unknown; urls?: unknown } | null;
    if (!data || data.type !== "cache-urls" || !Array.isArray(data.urls)) return;
    const urls = data.urls.filter((u): u is string => typeof u === "string");
    event.waitUntil(
      (async () => {
        const cache = await caches.open(VERSION);
        for (const url of urls) {
          if (new URL(url, sw.location.origin).origin !== sw.location.origin || (await cache.match(url, { ignoreVary: true }))) continue;
          try {
            const response = await fetch(url);
            if (response.ok) await cache.put(url, response);
          } catch {
            // offline already: nothing to add
          }
        }
      })(),
    );
  });

  sw.addEventListener("fetch", (event) => {
    const { request } = event;
    const url = new URL(request.url);
    if (request.method !== "GET" || url.origin !== sw.location.origin) return;
    const fresh = request.mode === "navigate" || REBUILT_IN_PLACE.some((p) => url.pathname.startsWith(p));
    const served = fresh ? networkFirst(request) : cacheFirst(request);
    event.respondWith(needsHostingHeaders(request) ? served.then((response) => withHostingHeaders(response, url)) : served);
  });
}
