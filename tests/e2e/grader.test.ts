/**
 * The grader in real Chromium: the sandbox is a module Web Worker (workers/grader.worker.ts) with
 * Pyodide, supervised from the page (src/grader-client.ts). It grades a batch; candidate code
 * cannot reach fetch, IndexedDB or the page; an uninterruptible loop is killed while the page's
 * own timer keeps ticking.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { createServer, type ViteDevServer } from "vite";
import { launchBrowser, watchErrors } from "./browser.ts";
import type { GraderRun } from "./grader-harness.ts";
import type { GradeRequest } from "../../src/core/grader/types.ts";

let server: ViteDevServer;
let browser: Browser;
let page: Page;
let errors: string[];

/** The dev server serves the worker and core modules from source, as `npm run dev` does. */
beforeAll(async () => {
  server = await createServer({ server: { port: 0, host: "127.0.0.1" }, logLevel: "warn", optimizeDeps: { include: ["comlink"] } });
  await server.listen();
  browser = await launchBrowser();
  page = await browser.newPage();
  errors = watchErrors(page);
  await page.goto(new URL("/tests/e2e/grader.html", server.resolvedUrls!.local[0]).href);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const TASK = { id: "max", entry_point: "f", reference: "def f(xs):\n    return max(xs)" };
const GOOD = "def f(xs):\n    return sorted(xs)[-1]";
const run = (request: GradeRequest) =>
  page.evaluate(`import("/tests/e2e/grader-harness.ts").then((m) => m.gradeWithCounter(${JSON.stringify(request)}))`) as Promise<GraderRun>;

it("grades a batch in the sandbox worker", async () => {
  const { result, crossOriginIsolated } = await run({
    tasks: [TASK],
    codes: [{ task: "max", code: GOOD }, { task: "max", code: "def f(xs):\n    return xs[0]" }, { task: "max", code: "def f(xs) return" }],
    suites: [
      { code: 0, text: "assert f([1, 5]) == 5\nassert f([2]) == 3\nassert f([]) == 0" },
      { code: 1, text: "assert f([1, 5]) == 5\nassert f([4, 1]) == 4" },
      { code: 2, text: "assert f([1]) == 1" },
    ],
    limits: { test_ms: 5000, load_ms: 10_000 }, // a loaded CI machine must not turn this into a timeout test
  });
  expect(crossOriginIsolated).toBe(true);
  expect(result.codes.map((c) => c.status), JSON.stringify(result)).toEqual(["ok", "ok", "syntax-error"]);
  expect(result.suites.map((s) => s.map((l) => `${l.validity}/${l.verdict}`))).toEqual([
    ["valid/pass", "wrong-answer/pass", "invalid/skipped"],
    ["valid/fail", "valid/pass"],
    ["valid/skipped"],
  ]);
  expect(errors, errors.join("\n")).toEqual([]);
});

it("candidates cannot reach fetch, IndexedDB or the page", async () => {
  const escapes = [
    "import js\ndef f(xs):\n    return js.fetch('/')",
    "def f(xs):\n    from js import indexedDB\n    return 0",
    "def f(xs):\n    import pyodide_js\n    return 0",
    "def f(xs):\n    len.__self__.__import__('js').postMessage('hi')\n    return 0",
    "def f(xs):\n    todo, seen = [object], []\n    while todo:\n        for s in type.__subclasses__(todo.pop()):\n            if s not in seen:\n                seen.append(s)\n                todo.append(s)\n" +
      "    exc = [c for c in seen if c.__name__ == 'JsException'][0]\n    return exc('E', 'x').js_error.constructor.constructor('return self.fetch')()",
  ];
  const { result } = await run({
    tasks: [TASK],
    codes: [...escapes, GOOD].map((code) => ({ task: "max", code })),
    suites: [...escapes, GOOD].map((_, i) => ({ code: i, text: "assert f([1, 5]) == 5" })),
  });
  expect(result.codes.map((c) => c.status)).toEqual(["load-error", "ok", "ok", "ok", "ok", "ok"]);
  expect(result.codes[0].reason).toContain("not allowed");
  expect(result.suites.slice(1).map((s) => s[0].verdict)).toEqual(["error", "error", "error", "error", "pass"]);

  // Below Python, the worker's own scope: nothing to reach even from JavaScript.
  const seen = (await page.evaluate(`import("/tests/e2e/grader-harness.ts").then((m) => m.probe())`)) as Record<string, string>;
  for (const [name, type] of Object.entries(seen)) expect([name, type]).toEqual([name, "undefined"]);
  const csp = (await page.evaluate(`import("/tests/e2e/grader-harness.ts").then((m) => m.sandboxCsp())`)) as string;
  expect(csp).toMatch(/connect-src http:\/\/[^ ;]+\/pyodide\/;/);
  expect(csp).toContain("default-src 'none'");
});

it("an uninterruptible loop is killed while the page keeps ticking", async () => {
  const { result, ticks, ms, spawns } = await run({
    tasks: [TASK],
    codes: [GOOD, "def f(xs):\n    return sum(range(10 ** 15))", GOOD].map((code) => ({ task: "max", code })),
    suites: [0, 1, 2].map((code) => ({ code, text: "assert f([1, 5]) == 5\nassert f([3]) == 3" })),
    limits: { test_ms: 200 },
  });
  expect(result.suites.map((s) => s.map((l) => l.verdict))).toEqual([["pass", "pass"], ["timeout", "timeout"], ["pass", "pass"]]);
  expect(spawns).toBe(4); // first start + its warm spare + one more per kill (two uninterruptible lines)
  // The page was never blocked: its 10 ms timer ran for most of the batch.
  expect(ticks).toBeGreaterThan((ms / 10) * 0.5);
});
