/**
 * The headless Chromium that the end-to-end tests and `npm run screenshots` drive (playwright-core,
 * no browser download): $CHROMIUM, else Debian's /usr/bin/chromium, with the flags that work here.
 */
import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";

/** Flags that work on these machines: SwiftShader WebGPU, no calls home (see README). */
export const CHROMIUM_FLAGS = [
  "--headless=new",
  "--no-sandbox",
  "--enable-unsafe-webgpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

export class BrowserNotFoundError extends Error {
  override name = "BrowserNotFoundError";
}

/** The browser to drive: $CHROMIUM, else Debian's /usr/bin/chromium. */
export function findChromium(): string {
  const candidates = [process.env.CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"].filter(
    (p): p is string => !!p,
  );
  const found = candidates.find((p) => existsSync(p));
  if (!found) {
    throw new BrowserNotFoundError(
      `No Chrome or Chromium found (looked at ${candidates.join(", ")}). ` +
        "Install one (Debian/Ubuntu: sudo apt-get install -y chromium) or point CHROMIUM at any Chrome/Chromium binary.",
    );
  }
  return found;
}

/** Headless Chromium with our flags; `webgpu: false` leaves WebGPU off (no adapter), for the fallback paths. */
export async function launchBrowser(opts: { webgpu?: boolean; args?: string[] } = {}): Promise<Browser> {
  const flags = opts.webgpu === false ? CHROMIUM_FLAGS.filter((f) => f !== "--enable-unsafe-webgpu") : CHROMIUM_FLAGS;
  return chromium.launch({ executablePath: findChromium(), args: [...flags, ...(opts.args ?? [])], headless: true });
}

/** Collect console errors and uncaught page errors, for assertions and debugging. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  return errors;
}
