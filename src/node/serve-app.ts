/**
 * The built app served the way a user gets it: `vite build`, then `vite preview` on a free local port
 * (the end-to-end tests, tests/e2e/global-setup.ts, and `npm run screenshots`), or dist/ on a plain
 * static host that sends no headers of its own (tests/e2e/static-host.test.ts, `npm run bench -- newcomer`).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { build, preview } from "vite";

export interface ServedApp {
  /** Base URL, e.g. http://127.0.0.1:4173/ */
  url: string;
  close(): Promise<void>;
}

/** Build the app into dist/ (unless `build: false`, which serves the dist/ already there) and serve it. */
export async function serveBuiltApp(opts: { build?: boolean } = {}): Promise<ServedApp> {
  if (opts.build !== false) await build({ logLevel: "warn" });
  const server = await preview({ preview: { port: 0, host: "127.0.0.1" }, logLevel: "warn" });
  const url = server.resolvedUrls?.local[0];
  if (!url) {
    await server.close();
    throw new Error("vite preview did not report a URL");
  }
  return { url, close: () => server.close() };
}

/** `python3 -m http.server` on a free loopback port serving `dir`: no COOP, COEP or CSP headers. */
export function serveStatic(dir: string): Promise<{ child: ChildProcess; origin: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("python3", ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", dir], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const port = /port (\d+)/.exec(out)?.[1];
      if (port) {
        child.stdout!.off("data", onData);
        resolve({ child, origin: `http://127.0.0.1:${port}` });
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.resume(); // the request log: drained, not needed
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`python3 -m http.server exited (${code}) before serving: ${out}`)));
  });
}
