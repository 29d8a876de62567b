/**
 * The app's service worker, built to /sw.js (vite.config.ts) as one classic script: its handlers
 * (isolation headers, the grader worker's CSP, offline cache) are in src/browser/service-worker.ts.
 */
import { serveApp } from "../src/browser/service-worker.ts";

serveApp(self as unknown as ServiceWorkerGlobalScope);
