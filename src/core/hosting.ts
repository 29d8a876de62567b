/**
 * The response headers the app needs from whatever serves it, defined once. Vite's dev and preview
 * servers send them (vite.config.ts); the service worker (workers/service-worker.ts, built to
 * /sw.js) adds them to every same-origin response it serves, so that a plain static host with no
 * header configuration works too (README, "Deploy").
 *
 *  - Cross-origin isolation (COOP + COEP) gives SharedArrayBuffer, which the grader uses to
 *    interrupt runaway Python (Pyodide's interrupt buffer) without killing its worker. Under
 *    COEP require-corp every subresource must opt in: same-origin ones carry CORP too.
 *  - The grader sandbox worker gets its own Content-Security-Policy: defence in depth under the
 *    worker's lockdown (docs/SECURITY.md).
 */

export const ISOLATION_HEADERS: Readonly<Record<string, string>> = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
};

export const RESOURCE_POLICY_HEADERS: Readonly<Record<string, string>> = {
  "Cross-Origin-Resource-Policy": "same-origin",
};

/** Where the app serves Pyodide's files from (vite.config.ts, LOCAL_ASSETS). */
export const PYODIDE_PATH = "/pyodide/";

/**
 * The grader sandbox's script (workers/grader.worker.ts): its dev URL, or its built name
 * assets/grader.worker-<hash>.js. `pathname` is a URL's path, without query.
 */
export function isGraderWorkerScript(pathname: string): boolean {
  return /^\/(workers\/grader\.worker\.ts|assets\/grader\.worker-[\w-]+\.js)$/.test(pathname);
}

/**
 * Folders Vite's dev server serves the grader worker's own modules from (its imports are separate
 * modules there, one bundled file once built). Firefox checks a module worker's static imports
 * against `worker-src` (Chromium against `script-src`), so in dev `worker-src` must admit them.
 */
export const DEV_MODULE_PATHS = ["/src/core/", "/node_modules/", "/@vite/"] as const;

/**
 * Content-Security-Policy of the grader sandbox worker, served from `origin` ("http://host:port"):
 * scripts from this origin only, wasm compilation, network access to the Pyodide assets and
 * nothing else, no nested workers. The same policy holds in Chromium and Firefox (both tested,
 * tests/e2e/engines.test.ts); `dev: true` (Vite's dev server) lets Firefox load the worker's
 * unbundled imports (DEV_MODULE_PATHS) and nothing else more.
 */
export function graderWorkerCsp(origin: string, opts: { dev?: boolean } = {}): string {
  const workers = opts.dev ? DEV_MODULE_PATHS.map((p) => origin + p).join(" ") : "'none'";
  return `default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src ${origin}${PYODIDE_PATH}; worker-src ${workers}`;
}

/**
 * Whether a response to this request needs the hosting headers at all: documents (isolation),
 * worker scripts (a worker's own COEP, and the grader's CSP) and any load of the grader worker's
 * script. Every other same-origin response works without them, and is best left as it came: a
 * rebuilt Response has no URL, and Firefox refuses such a response to a worker whose CSP names a
 * path (connect-src .../pyodide/), so Pyodide would never start there.
 */
export function needsHostingHeaders(request: { url: string; mode: string; destination: string }): boolean {
  return request.mode === "navigate" || HEADED_DESTINATIONS.has(request.destination) || isGraderWorkerScript(new URL(request.url).pathname);
}

const HEADED_DESTINATIONS = new Set(["document", "iframe", "frame", "worker", "sharedworker"]);

/** Every header the app needs on the same-origin response for `url`. */
export function hostingHeaders(url: URL): Record<string, string> {
  const headers: Record<string, string> = { ...ISOLATION_HEADERS, ...RESOURCE_POLICY_HEADERS };
  if (isGraderWorkerScript(url.pathname)) headers["Content-Security-Policy"] = graderWorkerCsp(url.origin);
  return headers;
}

/**
 * `response` with the hosting headers for `url` set (replacing what the server sent for those
 * names). Only same-origin responses (type "basic", or "default" for ones built in a worker) are
 * rewritten; opaque, CORS and error responses pass through unchanged. Call it only where
 * needsHostingHeaders says so.
 */
export function withHostingHeaders(response: Response, url: URL): Response {
  if ((response.type !== "basic" && response.type !== "default") || response.status === 0) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(hostingHeaders(url))) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
