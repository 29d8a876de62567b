import { defineConfig, type Plugin } from "vite";
import { createReadStream, existsSync, readdirSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { extname, join, resolve } from "node:path";

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

/**
 * Cross-origin isolation gives SharedArrayBuffer, which the grader uses to interrupt runaway Python
 * (Pyodide's interrupt buffer) without killing the worker.
 */
export const ISOLATION_HEADERS = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
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
      res.setHeader("Cross-Origin-Resource-Policy", "same-origin");
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
 * Content-Security-Policy of the grader sandbox worker (workers/grader.worker.ts; dev URL
 * /workers/grader.worker.ts, built /assets/grader.worker-<hash>.js): scripts from this origin
 * only, wasm compilation, and network access to the Pyodide assets and nothing else. Defence in
 * depth under the worker's own lockdown (see docs/SECURITY.md).
 */
function graderSandboxCsp(): Plugin {
  const isSandboxScript = (url: string) => /^\/(workers\/grader\.worker\.ts|assets\/grader\.worker-[\w-]+\.js)$/.test(url);
  const middleware: Middleware = (req, res, next) => {
    const url = (req.url ?? "").split("?")[0];
    if (isSandboxScript(url)) {
      const origin = `http://${req.headers.host ?? "localhost"}`;
      res.setHeader(
        "Content-Security-Policy",
        `default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src ${origin}/pyodide/; worker-src 'none'`,
      );
    }
    next();
  };
  return serverMiddleware("code-a1-grader-csp", middleware);
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
  plugins: [localAssets(), graderSandboxCsp()],
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
