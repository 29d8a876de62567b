/*
 * Offline support: after the first visit the app works without a network. Everything the app
 * loads comes from its own origin (Vite bundles, /pyodide/, /tfjs-wasm/), so a same-origin
 * runtime cache is enough:
 *  - page loads (navigations): network first, so a deploy is picked up at once; the cache when
 *    offline.
 *  - the files `npm run pretrain` and the bench rebuild in place (/checkpoints/, /bench/: not
 *    content-hashed): network first too, so a new build's base models are picked up.
 *  - everything else: cache first (bundles are content-hashed; Pyodide and wasm are pinned).
 * Cached responses keep their headers, so cross-origin isolation (COOP/COEP) holds offline too.
 * Bump VERSION to drop old caches.
 */
const VERSION = "code-a1-arena-v1";

self.addEventListener("install", () => self.skipWaiting());

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) if (key !== VERSION) await caches.delete(key);
      await self.clients.claim();
    })(),
  );
});

async function networkFirst(request) {
  const cache = await caches.open(VERSION);
  try {
    const response = await fetch(request);
    if (response.ok) await cache.put(request, response.clone());
    return response;
  } catch (e) {
    const cached = (await cache.match(request, { ignoreSearch: true, ignoreVary: true })) ||
      (request.mode === "navigate" ? await cache.match("/", { ignoreSearch: true, ignoreVary: true }) : undefined);
    if (cached) return cached;
    throw e;
  }
}

async function cacheFirst(request) {
  const cache = await caches.open(VERSION);
  const cached = await cache.match(request, { ignoreVary: true });
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok && response.type === "basic") await cache.put(request, response.clone());
  return response;
}

// The page's first load happens before this worker controls it: the page sends the URLs it
// already loaded (same origin), so that they are cached too and the next visit works offline.
self.addEventListener("message", (event) => {
  const data = event.data;
  if (!data || data.type !== "cache-urls" || !Array.isArray(data.urls)) return;
  event.waitUntil(
    (async () => {
      const cache = await caches.open(VERSION);
      for (const url of data.urls) {
        if (new URL(url, self.location.origin).origin !== self.location.origin || (await cache.match(url, { ignoreVary: true }))) continue;
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

const REBUILT_IN_PLACE = ["/checkpoints/", "/bench/"];

self.addEventListener("fetch", (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  const fresh = request.mode === "navigate" || REBUILT_IN_PLACE.some((p) => url.pathname.startsWith(p));
  event.respondWith(fresh ? networkFirst(request) : cacheFirst(request));
});
