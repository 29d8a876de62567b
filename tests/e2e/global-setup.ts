import { build, preview, type PreviewServer } from "vite";
import type { TestProject } from "vitest/node";
import { findChromium } from "./browser.ts";

declare module "vitest" {
  export interface ProvidedContext {
    appUrl: string;
  }
}

let server: PreviewServer | undefined;

/** Build the app once and serve it with `vite preview`, the way a user gets it. */
export async function setup(project: TestProject): Promise<void> {
  findChromium(); // fail first, with instructions, when there is no browser
  await build({ logLevel: "warn" });
  server = await preview({ preview: { port: 0, host: "127.0.0.1" }, logLevel: "warn" });
  const url = server.resolvedUrls?.local[0];
  if (!url) throw new Error("vite preview did not report a URL");
  project.provide("appUrl", url);
}

export async function teardown(): Promise<void> {
  await server?.close();
}
