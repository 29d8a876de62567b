/**
 * The same seeded run is the same run in every engine: one short classroom run trained from
 * dist/ on a plain static host (python3 -m http.server: isolation and the grader's CSP come from
 * the service worker) in Chromium (playwright-core) and in Firefox ESR (puppeteer-core, WebDriver
 * BiDi), and by `npm run train` in Node. Every non-timing step metric and every checkpoint's bytes
 * (the policies' weights and optimiser state, the Mistake Book, the generator state) must agree.
 * Both browsers run the wasm backend (Chromium without WebGPU), as Node does.
 */
import { execFileSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configToQuery, presetConfig } from "../../src/core/config/index.ts";
import { readRunFile } from "../../src/node/run-files.ts";
import { exportBundle, type RunSnapshot } from "../../src/core/bundle.ts";
import { launchBrowser } from "./browser.ts";
import type { ElementHandle, Page } from "puppeteer-core";
import { launchFirefox } from "./firefox.ts";
import { serveStatic } from "../../src/node/serve-app.ts";

// Small enough to add about a minute per engine, big enough to update, grade and replay: 2 steps,
// each kept as a checkpoint (so a run can be shared as it stood after step 1).
const CONFIG = presetConfig("classroom", { steps: 2, seed: 5, tasks_per_step: 2, num_generations: 2, suites_per_code: 2, tests_per_suite: 2, eval_every: 0, checkpoint_every: 1 });
const TIMING = /^time_/;

/** What one engine's run left in storage, reduced to comparable values. */
interface RunPrint {
  step: number;
  status: string;
  metrics: Record<string, unknown>[];
  checkpoints: { step: number; policies: Record<string, string>; rest: string }[];
}

let server: ChildProcess | undefined;
/** The Node run's bundle, read back: the replay test shares it, cut at step 1. */
let nodeRun: RunSnapshot | undefined;
let origin = "";
let work = "";

beforeAll(async () => {
  ({ child: server, origin } = await serveStatic("dist"));
  work = mkdtempSync(join(tmpdir(), "engines-"));
});
afterAll(() => {
  server?.kill();
  if (work) rmSync(work, { recursive: true, force: true });
});

const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/**
 * Runs in the page: waits for the app, presses Start (a new run) or Resume (the open run), waits
 * for a run to finish, then reads IndexedDB (the one run there). Checkpoint bytes are hashed in the page (SHA-256) so that only hashes cross over.
 * A plain function (no closures), so that both drivers can send it.
 */
async function trainInPage({ timeoutMs, press }: { timeoutMs: number; press: string }): Promise<unknown> {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const arena = () => (window as unknown as { arena?: { ready: Promise<void> } }).arena;
  while (!arena()) await sleep(200);
  await arena()!.ready;
  const button = () => [...document.querySelectorAll("button")].find((b) => b.textContent?.trim() === press && !b.disabled);
  for (let waited = 0; !button(); waited += 200) {
    if (waited > 30_000) throw new Error(`no enabled ${press} button`);
    await sleep(200);
  }
  // Resume: the app opens the imported run first (its head reads "paused"); a press while it is still
  // opening it can be lost, and a second press would restart a starting run. Press once, settled.
  if (press === "Resume") {
    for (let waited = 0; !/paused/.test(document.querySelector(".run-head")?.textContent ?? ""); waited += 200) {
      if (waited > 30_000) throw new Error("the imported run never opened as paused");
      await sleep(200);
    }
    await sleep(3000);
  }
  button()!.click();
  const open = () => new Promise<IDBDatabase>((resolve, reject) => {
    const req = indexedDB.open("code-a1-arena");
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  const all = <T,>(db: IDBDatabase, store: string) => new Promise<T[]>((resolve, reject) => {
    const req = db.transaction(store, "readonly").objectStore(store).getAll();
    req.onsuccess = () => resolve(req.result as T[]);
    req.onerror = () => reject(req.error);
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const db = await open();
    const runs = await all<{ id: string; step: number; status: string }>(db, "runs");
    if (runs.some((r) => r.status === "done" || r.status === "failed")) {
      const run = runs[0];
      const metrics = (await all<{ run: string; step: number; metrics: Record<string, unknown> }>(db, "metrics")).filter((m) => m.run === run.id).sort((a, b) => a.step - b.step).map((m) => m.metrics);
      const hex = async (buf: ArrayBuffer) => [...new Uint8Array(await crypto.subtle.digest("SHA-256", buf))].map((b) => b.toString(16).padStart(2, "0")).join("");
      const checkpoints = [];
      for (const c of (await all<{ run: string; step: number; policies: Record<string, ArrayBuffer>; mistake_book: unknown; rng_state: unknown; loop_state: unknown }>(db, "checkpoints")).filter((c) => c.run === run.id)) {
        const policies: Record<string, string> = {};
        for (const [name, buf] of Object.entries(c.policies)) policies[name] = await hex(buf);
        checkpoints.push({ step: c.step, policies, rest: JSON.stringify([c.mistake_book, c.rng_state, c.loop_state]) });
      }
      db.close();
      // A failed run says why on the page: kept for the test's message.
      const why = run.status === "failed" ? (document.querySelector(".notices")?.textContent ?? "") : undefined;
      return { step: run.step, status: run.status, metrics, checkpoints: checkpoints.sort((a, b) => a.step - b.step), ...(why === undefined ? {} : { why }) };
    }
    db.close();
    if (Date.now() > deadline) {
      // What the page says it is doing (the phase in flight, any notice): where a run hangs, not just that it did.
      const said = [".progress-text", ".notices"].map((s) => `${s}: ${document.querySelector(s)?.textContent ?? "(none)"}`).join("; ");
      throw new Error(`no run finished in ${timeoutMs / 1000} s (${said}): ${JSON.stringify(runs)}`);
    }
    await sleep(1000);
  }
}

function comparable(p: RunPrint) {
  return { ...p, metrics: p.metrics.map((m) => Object.fromEntries(Object.entries(m).filter(([k]) => !TIMING.test(k)))) };
}

function fromSnapshot(s: RunSnapshot): RunPrint {
  return {
    step: s.run.step,
    status: s.run.status,
    metrics: s.metrics as unknown as Record<string, unknown>[],
    checkpoints: s.checkpoints
      .map((c) => ({ step: c.step, policies: Object.fromEntries(Object.entries(c.policies).map(([n, b]) => [n, sha(b)])), rest: JSON.stringify([c.mistake_book, c.rng_state, c.loop_state]) }))
      .sort((a, b) => a.step - b.step),
  };
}

/** A Firefox page's console and uncaught errors, kept for a failure's message (a hang says what it last printed). */
function keepConsole(page: Page): (error: unknown) => never {
  const lines: string[] = [];
  page.on("console", (m) => lines.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => lines.push(`pageerror: ${String(e)}`));
  return (error) => {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\nthe page's console (last 40 lines):\n${lines.slice(-40).join("\n") || "(nothing)"}`);
  };
}

const URL_PATH = () => `${origin}/?${configToQuery(CONFIG)}`;
const TRAIN_MS = 360_000;

describe("one seeded run, every engine (static host, wasm backend)", () => {
  const prints: Record<string, RunPrint> = {};

  it("trains in Chromium", async () => {
    const browser = await launchBrowser({ webgpu: false });
    try {
      const page = await browser.newPage();
      await page.goto(URL_PATH());
      // The first load reloads once under the service worker; train in the isolated one.
      await page.waitForFunction(() => crossOriginIsolated && !!navigator.serviceWorker.controller, null, { timeout: 60_000 });
      prints.chromium = (await page.evaluate(trainInPage, { timeoutMs: TRAIN_MS, press: "Start" })) as RunPrint;
    } finally {
      await browser.close();
    }
    expect(prints.chromium.status).toBe("done");
    expect(prints.chromium.step).toBe(CONFIG.steps);
    expect(prints.chromium.checkpoints.map((c) => c.step)).toEqual([1, 2]);
  }, 480_000);

  it("trains in Firefox ESR, to the same metrics and checkpoint bytes", async () => {
    const browser = await launchFirefox();
    try {
      const page = await browser.newPage();
      const failWithConsole = keepConsole(page);
      await page.goto(URL_PATH());
      const deadline = Date.now() + 60_000;
      while (!(await page.evaluate(() => crossOriginIsolated && !!navigator.serviceWorker.controller).catch(() => false))) {
        if (Date.now() > deadline) throw new Error("Firefox: the page never became cross-origin isolated under the service worker");
        await new Promise((r) => setTimeout(r, 500));
      }
      prints.firefox = (await page.evaluate(trainInPage, { timeoutMs: TRAIN_MS, press: "Start" }).catch(failWithConsole)) as RunPrint;
    } finally {
      await browser.close();
    }
    expect(prints.firefox.status).toBe("done");
    expect(prints.chromium, "the Chromium run must have finished first").toBeDefined();
    expect(comparable(prints.firefox)).toEqual(comparable(prints.chromium));
  }, 480_000);

  it("trains in Node (npm run train) to the same metrics and checkpoint bytes", async () => {
    const out = join(work, "node.a1run");
    execFileSync("npx", ["tsx", "scripts/train.ts", "--preset", "classroom", "--out", out, ...Object.entries(CONFIG).flatMap(([k, v]) => [`--${k}`, String(v)])], { stdio: "ignore", timeout: TRAIN_MS });
    nodeRun = await readRunFile(out);
    const node = fromSnapshot(nodeRun);
    // A Node bundle also holds the starting players as a step-0 checkpoint (README); the app stores steps 1.. only.
    node.checkpoints = node.checkpoints.filter((c) => c.step > 0);
    expect(prints.chromium, "the Chromium run must have finished first").toBeDefined();
    expect(comparable(node)).toEqual(comparable(prints.chromium));
  }, 480_000);

  it("replays a run shared from Node, opened in Firefox at step 1, to the same step 2", async () => {
    expect(nodeRun, "the Node run must have finished first").toBeDefined();
    // The Node run as it stood after step 1, paused: what a user shares mid-run.
    const full = nodeRun!;
    const at1 = full.checkpoints.find((c) => c.step === 1);
    if (!at1) throw new Error(`the Node run kept no step-1 checkpoint (steps ${full.checkpoints.map((c) => c.step).join(", ")})`);
    const shared: RunSnapshot = {
      ...full,
      run: { ...full.run, id: "shared-at-1", name: "shared at step 1", status: "paused", step: 1, rng_state: at1.rng_state, loop_state: at1.loop_state },
      metrics: full.metrics.slice(0, 1),
      mistake_book: at1.mistake_book,
      checkpoints: full.checkpoints.filter((c) => c.step <= 1),
      duels: full.duels.filter((d) => d.step <= 1),
    };
    const file = join(work, "shared-at-1.a1run");
    writeFileSync(file, await exportBundle(shared));

    const browser = await launchFirefox();
    try {
      const page = await browser.newPage();
      const failWithConsole = keepConsole(page);
      await page.goto(`${origin}/#/compare`);
      const deadline = Date.now() + 60_000;
      while (!(await page.evaluate(() => crossOriginIsolated && !!navigator.serviceWorker.controller && !!document.querySelector("#import-file")).catch(() => false))) {
        if (Date.now() > deadline) throw new Error("Firefox: the Runs view never came up cross-origin isolated under the service worker");
        await new Promise((r) => setTimeout(r, 500));
      }
      const input = (await page.$("input#import-file")) as ElementHandle<HTMLInputElement> | null;
      await input!.uploadFile(file);
      await page.waitForFunction(() => /Imported shared-at-1\.a1run as run /.test(document.querySelector(".notices")?.textContent ?? ""), { timeout: 60_000 });
      await page.goto(`${origin}/#/`);
      prints.replayed = (await page.evaluate(trainInPage, { timeoutMs: TRAIN_MS, press: "Resume" }).catch(failWithConsole)) as RunPrint;
    } finally {
      await browser.close();
    }
    expect(prints.replayed.status, (prints.replayed as RunPrint & { why?: string }).why).toBe("done");
    expect(prints.chromium, "the Chromium run must have finished first").toBeDefined();
    // Step 1 came in the file; step 2 was trained in Firefox from the file's checkpoint. The file also
    // holds Node's step-0 checkpoint (the starting players), which the app keeps as it came.
    expect(prints.replayed.checkpoints.map((c) => c.step)).toEqual([0, 1, 2]);
    const replayed = { ...prints.replayed, checkpoints: prints.replayed.checkpoints.filter((c) => c.step > 0) };
    expect(comparable(replayed)).toEqual(comparable(prints.chromium));
  }, 480_000);
});
