/**
 * Your own tasks in the real app, in real Chromium: Settings > Task sets imports the 12 typical MBPP
 * tasks through the file input (references run in the grader's sandbox workers, parsing in its
 * tools worker), shows the per-task report, stores the set in IndexedDB, trains a 1-step run on it,
 * pretrains a base model on its train tasks (Settings > Base models, 2 steps), and the set is still
 * there after a reload. A malformed file, dropped on the drop zone, is refused naming each bad line,
 * and nothing is stored.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { configToQuery, presetConfig } from "../../src/core/config/index.ts";
import { appUrl, launchBrowser, watchErrors } from "./browser.ts";

const SHOTS = "test-artifacts/screenshots";
const FIXTURE = fileURLToPath(new URL("../fixtures/mbpp-typical-12.jsonl", import.meta.url));
const tiny = presetConfig("classroom", { steps: 1, seed: 4, tasks_per_step: 1, num_generations: 2, suites_per_code: 2, tests_per_suite: 2, eval_every: 0, backend: "wasm" });

const own = (errors: string[]) => errors.filter((e) => !/favicon/.test(e));

let browser: Browser;
beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchBrowser({ webgpu: false });
});
afterAll(async () => {
  await browser?.close();
});

async function open(page: Page, path: string): Promise<void> {
  await page.goto(appUrl(path));
  await page.waitForFunction(() => (window as unknown as { arena?: { ready: Promise<void> } }).arena?.ready.then(() => true));
}

/** The task_sets store and the runs, straight from the app's IndexedDB. */
function stored(page: Page): Promise<{ sets: { hash: string; name: string; tasks: number }[]; runs: { id: string; status: string; step: number; task_set_hash: string; task_set: string }[] }> {
  return page.evaluate(() => new Promise((resolve, reject) => {
    const req = indexedDB.open("code-a1-arena");
    req.onerror = () => reject(req.error);
    req.onsuccess = () => {
      const tx = req.result.transaction(["task_sets", "runs"], "readonly");
      const sets = tx.objectStore("task_sets").getAll();
      const runs = tx.objectStore("runs").getAll();
      tx.oncomplete = () => {
        req.result.close();
        resolve({
          sets: sets.result.map((s: { hash: string; name: string; file: { tasks: unknown[] } }) => ({ hash: s.hash, name: s.name, tasks: s.file.tasks.length })),
          runs: runs.result.map((r: { id: string; status: string; step: number; task_set_hash: string; config: { task_set: string } }) => ({ id: r.id, status: r.status, step: r.step, task_set_hash: r.task_set_hash, task_set: r.config.task_set })),
        });
      };
    };
  }));
}

describe("importing your own tasks in the app", () => {
  it("refuses a malformed file naming each bad line, and stores nothing", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = watchErrors(page);
    await open(page, "/#/settings");
    const bad = "test-artifacts/malformed.jsonl";
    writeFileSync(bad, [
      JSON.stringify({ task_id: 1, text: "Double n.", code: "def double(n):\n    return n * 2", test_list: ["assert double(2) == 4", "assert double(3) == 6"] }),
      "{not json",
      JSON.stringify({ task_id: 3, text: "No code." , test_list: ["assert g(1) == 1"] }),
    ].join("\n") + "\n");
    // Dropped on the drop zone this time (the fixture below goes through the file input).
    const text = readFileSync(bad, "utf8");
    await page.evaluate((t) => {
      const dt = new DataTransfer();
      dt.items.add(new File([t], "malformed.jsonl", { type: "application/jsonl" }));
      document.querySelector("#taskset-drop")!.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, text);
    await expect.poll(() => page.textContent("#taskset-problems"), { timeout: 60_000 }).toMatch(/nothing was imported or stored/);
    const items = await page.locator("#taskset-problems li").allTextContents();
    expect(items.length).toBeGreaterThanOrEqual(2);
    expect(items.some((t) => /^line 2: /.test(t))).toBe(true);
    expect(items.some((t) => /^line 3: /.test(t))).toBe(true);
    expect(items.some((t) => /^line 1: /.test(t))).toBe(false);
    expect((await stored(page)).sets).toEqual([]);
    expect(own(errors)).toEqual([]);
    await page.close();
  }, 120_000);

  it("imports the 12 typical MBPP tasks, shows the report, trains on the set, pretrains a base model on it, and keeps it after a reload", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = watchErrors(page);
    await open(page, `/?${configToQuery(tiny)}#/settings`);
    const t0 = Date.now();
    await page.setInputFiles("#taskset-file", FIXTURE);
    await expect.poll(() => page.locator("#taskset-report").count(), { timeout: 420_000, interval: 2000 }).toBe(1);
    const seconds = (Date.now() - t0) / 1000;
    const summary = (await page.textContent("#taskset-report p"))!;
    const trainable = Number(/^(\d+) of 12 tasks trainable/.exec(summary)?.[1]);
    console.log(`import in the browser: ${summary} (${seconds.toFixed(0)} s)`);
    expect(trainable).toBeGreaterThanOrEqual(10);
    const rows = await page.locator("#taskset-report tbody tr").allTextContents();
    expect(rows).toHaveLength(12);
    expect(rows.find((r) => r.startsWith("mbpp-9001"))).toMatch(/trainable.*renamed largest_gap->f nums->xs.*preconditions: len\(xs\) >= 1/);
    await page.screenshot({ path: `${SHOTS}/settings-task-import.png`, fullPage: true });

    const { sets } = await stored(page);
    expect(sets).toEqual([{ hash: expect.stringMatching(/^[0-9a-f]{64}$/), name: "mbpp-typical-12", tasks: trainable }]);
    const name = `imported:${sets[0].hash.slice(0, 16)}`;
    await page.click(`button.taskset-use[data-set="${name}"]`);
    await expect.poll(() => page.locator("#cfg-task_set").inputValue()).toBe(name);

    await page.click('nav a[href="#/dashboard"]');
    await page.getByRole("button", { name: "Start", exact: true }).click();
    const deadline = Date.now() + 420_000;
    let run: Awaited<ReturnType<typeof stored>>["runs"][number] | undefined;
    while (!(run = (await stored(page)).runs.find((r) => r.status === "done"))) {
      if (Date.now() > deadline) throw new Error(`the run did not finish: ${JSON.stringify((await stored(page)).runs)}`);
      await page.waitForTimeout(1000);
    }
    expect(run).toMatchObject({ step: 1, task_set: name, task_set_hash: sets[0].hash });
    // It trained on an imported task: the duel's prompts are the imported set's.
    await page.click('nav a[href="#/duel"]');
    await expect.poll(() => page.textContent("body"), { timeout: 30_000 }).toMatch(/mbpp-90\d\d/);

    // Settings > Base models pretrains on the set's train tasks (2 steps: the corpus is the point).
    await page.click('nav a[href="#/settings"]');
    await page.selectOption("#pretrain-corpus", name);
    await page.fill("#pretrain-steps", "2");
    await page.click("#pretrain-start");
    await expect.poll(() => page.textContent("#pretrain-result"), { timeout: 300_000, interval: 2000 }).toMatch(new RegExp(`Base model: 2 steps on wasm, final loss \\d+\\.\\d+.*Download base-tiny-mbpp-typical-12\\.bin`));

    await page.reload();
    await page.waitForFunction(() => (window as unknown as { arena?: { ready: Promise<void> } }).arena?.ready.then(() => true));
    await page.click('nav a[href="#/settings"]');
    await expect.poll(() => page.textContent("#taskset-list")).toContain(name);
    expect((await stored(page)).sets.map((s) => s.hash)).toEqual([sets[0].hash]);
    expect(own(errors)).toEqual([]);
    await page.close();
  }, 900_000);
});
