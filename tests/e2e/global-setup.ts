import type { TestProject } from "vitest/node";
import { findChromium } from "../../src/node/chromium.ts";
import { serveBuiltApp, type ServedApp } from "../../src/node/serve-app.ts";

declare module "vitest" {
  export interface ProvidedContext {
    appUrl: string;
  }
}

let app: ServedApp | undefined;

/** Build the app once and serve it with `vite preview`, the way a user gets it. */
export async function setup(project: TestProject): Promise<void> {
  findChromium(); // fail first, with instructions, when there is no browser
  app = await serveBuiltApp();
  project.provide("appUrl", app.url);
}

export async function teardown(): Promise<void> {
  await app?.close();
}
