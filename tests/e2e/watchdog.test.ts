/**
 * No silent hang, in real Chromium: the app is served through a proxy in front of `vite preview`
 * that never answers under /stall/, and opened with `?debug_pyodide=/stall/pyodide/`, so the
 * grader's sandbox workers wait for Pyodide files that never arrive (how a deployment behind a
 * stuck proxy or CDN fails). With `debug_watchdog_s` short:
 *  - the sandbox's start is shown as its own phase, and Pause during it returns the run to paused;
 *    the backend badge names the backend once;
 *  - Resume: the watchdog fails the run with a message that says what failed and what to try;
 *  - a reload resumes the once-failed run, which fails the same way again; the next reload does
 *    not resume it: it says why and waits for the user.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { configToQuery, presetConfig } from "../../src/core/config/index.ts";
import { appUrl, launchBrowser, storedRuns } from "./browser.ts";

const WATCHDOG_S = 6;

let proxy: Server;
let origin = "";
const sockets = new Set<Socket>();
let browser: Browser | undefined;

beforeAll(async () => {
  const upstream = new URL(appUrl("/"));
  proxy = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith("/stall/")) return; // never answered
    const forward = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: { ...req.headers, host: upstream.host } }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });
  proxy.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await browser?.close();
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => proxy?.close(resolve));
});

async function ready(page: Page): Promise<void> {
  await page.waitForFunction(() => (window as unknown as { arena?: { ready: Promise<void> } }).arena?.ready.then(() => true));
}

const notices = (page: Page) => page.locator(".notices").innerText();

async function runState(page: Page, id: string, want: string, ms: number) {
  await expect.poll(async () => (await storedRuns(page)).find((r) => r.id === id)?.status, { timeout: ms, interval: 250 }).toBe(want);
}

it("a sandbox that never starts: Pause works while it is stuck, the watchdog says what failed, and two failures wait for the user", async () => {
  browser = await launchBrowser({ webgpu: false });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const config = presetConfig("classroom", { steps: 2, seed: 5, tasks_per_step: 1, num_generations: 2, suites_per_code: 2, tests_per_suite: 2, eval_every: 0 });
  const url = `${origin}/?${configToQuery(config)}&debug_pyodide=/stall/pyodide/&debug_watchdog_s=${WATCHDOG_S}`;
  await page.goto(url);
  await ready(page);

  // 1. Start: the sandbox's start is its own phase; Pause while it hangs returns the run to paused.
  await page.getByRole("button", { name: "Start", exact: true }).click();
  await expect.poll(() => page.locator(".progress-text").innerText().catch(() => ""), { timeout: 60_000, interval: 100 }).toMatch(/sandbox: starting the Python sandbox/);
  // The players have reported their backend by now: the badge names it once ("wasm, because ...").
  await expect.poll(() => page.textContent("#backend")).toMatch(/^Backend: wasm\b/);
  expect(await page.textContent("#backend")).not.toMatch(/\b(\w+): \1\b/);
  const [run] = await storedRuns(page);
  await page.getByRole("button", { name: "Pause", exact: true }).click();
  await runState(page, run.id, "paused", 5_000);
  await expect.poll(() => page.getByRole("button", { name: "Resume", exact: true }).isVisible()).toBe(true);

  // 2. Resume: stuck again, the watchdog fails the run and the notice says what failed and what to try.
  await page.getByRole("button", { name: "Resume", exact: true }).click();
  await runState(page, run.id, "failed", 60_000);
  await expect.poll(() => notices(page), { timeout: 5_000 }).toMatch(new RegExp(`The run stopped: The Python sandbox did not start: nothing within ${WATCHDOG_S} s\\. The Python sandbox \\(Pyodide`));
  await expect.poll(() => page.locator("main").innerText()).toMatch(/check that the app's files are all served, reload the page/);
  expect((await storedRuns(page)).find((r) => r.id === run.id)?.step).toBe(0);

  // 3. A reload tries the once-failed run again (and says so); it fails the same way.
  await page.reload();
  await ready(page);
  await expect.poll(() => notices(page)).toMatch(/failed once .*trying again from step 0/);
  await expect.poll(() => page.locator(".progress-text").innerText().catch(() => ""), { timeout: 60_000, interval: 100 }).toMatch(/starting the Python sandbox/);
  await runState(page, run.id, "failed", 60_000);

  // 4. The next reload does not resume into the same hang: it says why, and the run waits.
  await page.reload();
  await ready(page);
  await expect.poll(() => notices(page)).toMatch(new RegExp(`Run ${run.id} was not resumed, so that it does not hang again: it failed the same way twice`));
  await page.waitForTimeout(1500);
  expect((await storedRuns(page)).find((r) => r.id === run.id)?.status).toBe("failed");
  expect(await page.locator(".progress-text").innerText().catch(() => "")).not.toMatch(/starting/);
  await expect.poll(() => page.getByRole("button", { name: "Resume", exact: true }).isEnabled()).toBe(true);
}, 240_000);

it("a trainer whose worker thread is stuck: the page restarts it and the run it resumed goes on to its end", async () => {
  // `debug_stall_trainer`: the first trainer worker blocks its thread for good once it has started
  // or resumed a run (no event, no answer: what a deadlocked worker looks like); the page gives it
  // 20 s. The run here is resumed, not started: the page shows it paused until it steps, and the
  // restart must still resume it (storage says it was left running).
  browser ??= await launchBrowser({ webgpu: false });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const config = presetConfig("classroom", { steps: 2, seed: 7, tasks_per_step: 1, num_generations: 2, suites_per_code: 2, tests_per_suite: 2, eval_every: 0 });
  await page.goto(`${origin}/?${configToQuery(config)}`);
  await ready(page);
  await page.getByRole("button", { name: "Start", exact: true }).click();
  await expect.poll(async () => (await storedRuns(page)).length, { timeout: 30_000 }).toBe(1);
  const [run] = await storedRuns(page);
  await page.getByRole("button", { name: "Pause", exact: true }).click();
  await runState(page, run.id, "paused", 60_000);
  await page.goto(`${origin}/?${configToQuery(config)}&debug_stall_trainer=20`);
  await ready(page);
  await expect.poll(() => page.getByRole("button", { name: "Resume", exact: true }).isEnabled()).toBe(true);
  await page.getByRole("button", { name: "Resume", exact: true }).click();
  await expect.poll(() => notices(page), { timeout: 90_000 }).toMatch(new RegExp(`The training engine stopped answering, so it was restarted; run ${run.id} resumes from its last committed step`));
  await runState(page, run.id, "done", 180_000);
  expect((await storedRuns(page)).find((r) => r.id === run.id)?.step).toBe(2);
}, 300_000);
