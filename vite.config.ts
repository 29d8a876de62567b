import { defineConfig, type Plugin } from "vite";
import { createReadStream, existsSync, readdirSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { extname, join, resolve } from "node:path";
import { graderWorkerCsp, isGraderWorkerScript, ISOLATION_HEADERS, RESOURCE_POLICY_HEADERS } from "./src/core/hosting.ts";

/**
 * Serve runtime assets that live in node_modules from the app's own origin, in dev, preview and
 * the production build, so the app works offline and never touches a CDN.
 *   /pyodide/   <- node_modules/pyodide (wasm, stdlib zip, lock file)
 *   /tfjs-wasm/ <- node_modules/@tensorflow/tfjs-backend-wasm/dist/*.wasm
 */
const LOCAL_ASSETS: { prefix: string; dir: string; include: (file: string) => boolean }[] = [
  {
    prefix: "/pyodide/",
    dir: "node_modules/pyodide",
    include: (f) => /\.(mjs|js|wasm|zip|json)$/.test(f) && !f.endsWith(".map") && f !== "package.json",
  },
  {
    prefix: "/tfjs-wasm/",
    dir: "node_modules/@tensorflow/tfjs-backend-wasm/dist",
    include: (f) => f.endsWith(".wasm"),
  },
];

const MIME: Record<string, string> = {
  ".wasm": "application/wasm",
  ".mjs": "text/javascript",
  ".js": "text/javascript",
  ".json": "application/json",
  ".zip": "application/zip",
};

function localAssets(): Plugin {
  const files = (dir: string, include: (f: string) => boolean) =>
    readdirSync(dir).filter((f) => include(f) && statSync(join(dir, f)).isFile());
  const middleware: Middleware = (req, res, next) => {
    const url = (req.url ?? "").split("?")[0];
    for (const asset of LOCAL_ASSETS) {
      if (!url.startsWith(asset.prefix)) continue;
      const name = url.slice(asset.prefix.length);
      const path = resolve(asset.dir, name);
      if (name.includes("/") || !asset.include(name) || !existsSync(path)) break;
      res.setHeader("Content-Type", MIME[extname(name)] ?? "application/octet-stream");
      for (const [name, value] of Object.entries(RESOURCE_POLICY_HEADERS)) res.setHeader(name, value);
      createReadStream(path).pipe(res);
      return;
    }
    next();
  };
  return {
    ...serverMiddleware("code-a1-local-assets", middleware),
    async generateBundle() {
      for (const asset of LOCAL_ASSETS) {
        for (const f of files(asset.dir, asset.include)) {
          this.emitFile({ type: "asset", fileName: asset.prefix.slice(1) + f, source: await readFile(join(asset.dir, f)) });
        }
      }
    },
  };
}

/**
 * Content-Security-Policy of the grader sandbox worker (src/core/hosting.ts), in dev and preview.
 * A static host gets it from the service worker instead. In dev the worker's imports are Vite's
 * separate modules, which Firefox checks against worker-src (graderWorkerCsp's `dev`).
 */
function graderSandboxCsp(): Plugin {
  const middleware = (dev: boolean): Middleware => (req, res, next) => {
    if (isGraderWorkerScript((req.url ?? "").split("?")[0])) {
      res.setHeader("Content-Security-Policy", graderWorkerCsp(`http://${req.headers.host ?? "localhost"}`, { dev }));
    }
    next();
  };
  return {
    name: "code-a1-grader-csp",
    configureServer(server) {
      server.middlewares.use(middleware(true));
    },
    configurePreviewServer(server) {
      server.middlewares.use(middleware(false));
    },
  };
}

/**
 * The service worker (workers/service-worker.ts) as /sw.js: one classic script (a service worker
 * registered without {type: "module"} cannot import), unhashed so that its URL stays the same.
 */
function serviceWorker(): Plugin {
  const SW_FILE = "sw.js";
  return {
    name: "code-a1-service-worker",
    apply: "build",
    buildStart() {
      this.emitFile({ type: "chunk", id: resolve("workers/service-worker.ts"), fileName: SW_FILE });
    },
    generateBundle(_options, bundle) {
      const sw = bundle[SW_FILE];
      if (sw?.type !== "chunk") this.error(`${SW_FILE} was not built`);
      else if (sw.imports.length > 0 || sw.dynamicImports.length > 0) {
        this.error(`${SW_FILE} must be self-contained, but imports ${[...sw.imports, ...sw.dynamicImports].join(", ")}: do not import its modules from the app`);
      }
    },
  };
}

type Middleware = (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse, next: () => void) => void;

/** A plugin that adds one middleware to both the dev and the preview server. */
function serverMiddleware(name: string, middleware: Middleware): Plugin {
  return {
    name,
    configureServer(server) {
      server.middlewares.use(middleware);
    },
    configurePreviewServer(server) {
      server.middlewares.use(middleware);
    },
  };
}

export default defineConfig({
  plugins: [localAssets(), graderSandboxCsp(), serviceWorker()],
  server: { headers: ISOLATION_HEADERS },
  preview: { headers: ISOLATION_HEADERS },
  worker: { format: "es" },
  optimizeDeps: {
    exclude: ["pyodide"],
    // Pre-bundle what the workers import, so `npm run dev` does not discover them mid-run and reload
    // the page (which kills the trainer's workers).
    include: ["@tensorflow/tfjs", "@tensorflow/tfjs-backend-webgpu", "@tensorflow/tfjs-backend-wasm", "comlink", "idb", "fflate", "uplot"],
  },
  build: { target: "es2022", chunkSizeWarningLimit: 4096 },
});
