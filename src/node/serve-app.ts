/**
 * The built app served the way a user gets it: `vite build`, then `vite preview` on a free local port.
 * Used by the end-to-end tests (tests/e2e/global-setup.ts) and `npm run screenshots`.
 */
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
