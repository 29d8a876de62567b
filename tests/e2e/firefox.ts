/**
 * Headless Firefox for the end-to-end tests: Debian's Firefox ESR (or $FIREFOX) driven by
 * puppeteer-core over WebDriver BiDi. No browser download: puppeteer-core ships none.
 */
import { existsSync } from "node:fs";
import puppeteer, { type Browser } from "puppeteer-core";
import { BrowserNotFoundError } from "./browser.ts";

export function findFirefox(): string {
  const candidates = [process.env.FIREFOX, "/usr/lib/firefox-esr/firefox-esr", "/usr/bin/firefox-esr", "/usr/bin/firefox"].filter((p): p is string => !!p);
  const found = candidates.find((p) => existsSync(p));
  if (!found) {
    throw new BrowserNotFoundError(
      `No Firefox found (looked at ${candidates.join(", ")}). Install one (Debian/Ubuntu: sudo apt-get install -y firefox-esr) or point FIREFOX at a Firefox binary.`,
    );
  }
  return found;
}

export function launchFirefox(): Promise<Browser> {
  // Calls into the page may run as long as a test's own deadline (a training run): puppeteer's
  // default of 180 s would cut them short with a protocol error instead of the test's message.
  // Firefox's slow-script limit (10 s of one script on the page) asks the user whether to stop it; a
  // headless browser has no one to answer, and on a loaded machine a page's start can pass it: off, as
  // test runners do for Firefox (the app keeps long work off the page's thread: the task worker).
  return puppeteer.launch({
    browser: "firefox",
    executablePath: findFirefox(),
    headless: true,
    protocolTimeout: 600_000,
    extraPrefsFirefox: { "dom.max_script_run_time": 0, "dom.max_chrome_script_run_time": 0 },
  });
}
