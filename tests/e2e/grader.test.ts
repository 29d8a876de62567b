/**
 * The grader in real Chromium: the sandbox is a module Web Worker (workers/grader.worker.ts) with
 * Pyodide, supervised from the page (src/browser/grader-client.ts). It grades a batch; candidate code
 * cannot reach fetch, IndexedDB or the page; an uninterruptible loop is killed while the page's
 * own timer keeps ticking.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { openGraderPage, type GraderPage } from "./grader-page.ts";
import type { GraderRun } from "./grader-harness.ts";
import type { GradeRequest } from "../../src/core/grader/types.ts";
import { SYS, WALK } from "../hostile-python.ts";

let opened: GraderPage;
let page: Page;
let errors: string[];

beforeAll(async () => {
  opened = await openGraderPage();
  ({ page, errors } = opened);
});
afterAll(() => opened?.close());

const TASK = { id: "max", entry_point: "f", reference: "def f(xs):\n    return max(xs)" };
const GOOD = "def f(xs):\n    return sorted(xs)[-1]";
const run = (request: GradeRequest) =>
  page.evaluate(`import("/tests/e2e/grader-harness.ts").then((m) => m.gradeWithCounter(${JSON.stringify(request)}))`) as Promise<GraderRun>;
// One grader for the batches that do not count its runner starts (each start is seconds of Pyodide):
// each also meets what the batches before it left.
const runShared = (request: GradeRequest) =>
  page.evaluate(`import("/tests/e2e/grader-harness.ts").then((m) => m.gradeOnShared(${JSON.stringify(request)}))`) as Promise<GraderRun>;

it("grades a batch in the sandbox worker", async () => {
  const { result, crossOriginIsolated } = await runShared({
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

it("runners load Python's start from a base snapshot the first judge made, kept in Cache Storage for the next visit", async () => {
  type State = { made: number; loaded: number; fresh: number; cached: string[] };
  const state = () => page.evaluate(`import("/tests/e2e/grader-harness.ts").then((m) => m.snapshotState())`) as Promise<State>;
  // The first test's batch started a judge (from scratch: it made the snapshot of its own start) and
  // a sandbox (from that snapshot).
  const first = await state();
  expect(first).toMatchObject({ made: 1, fresh: 1 });
  expect(first.loaded).toBeGreaterThanOrEqual(1);
  await expect.poll(async () => (await state()).cached).toEqual([expect.stringMatching(/^\/pyodide\/base-.*\.snapshot$/)]);
  // A restart after a kill loads it too.
  const killed = await run({ tasks: [TASK], codes: [{ task: "max", code: "def f(xs):\n    while True:\n        pass" }], suites: [{ code: 0, text: "assert f([1]) == 1" }], limits: { test_ms: 300, load_ms: 10_000 } });
  expect(killed.result.suites[0].map((l) => l.verdict)).toEqual(["timeout"]);
  const after = await state();
  expect(after).toMatchObject({ made: 1, fresh: 1 });
  expect(after.loaded).toBeGreaterThan(first.loaded);
  // The next visit: no snapshot made, every runner from the cached one, and grading as before.
  await page.reload();
  const graded = await run({ tasks: [TASK], codes: [{ task: "max", code: GOOD }], suites: [{ code: 0, text: "assert f([3, 9]) == 9\nassert f([2]) == 3" }], limits: { test_ms: 5000, load_ms: 10_000 } });
  expect(graded.result.suites[0].map((l) => `${l.validity}/${l.verdict}`)).toEqual(["valid/pass", "wrong-answer/pass"]);
  const revisit = await state();
  expect(revisit).toMatchObject({ made: 0, fresh: 0 });
  expect(revisit.loaded).toBeGreaterThanOrEqual(2);
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
  const { result } = await runShared({
    tasks: [TASK],
    codes: [...escapes, GOOD].map((code) => ({ task: "max", code })),
    suites: [...escapes, GOOD].map((_, i) => ({ code: i, text: "assert f([1, 5]) == 5" })),
  });
  expect(result.codes.map((c) => c.status)).toEqual(["load-error", "ok", "ok", "ok", "ok", "ok"]);
  expect(result.codes[0].reason).toContain("blocked by the grader sandbox: import js");
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
  expect(spawns).toBe(2); // the first sandbox + one after the one kill (the candidate's second line is not run)
  // The page was never blocked: its 10 ms timer ran for most of the batch.
  expect(ticks).toBeGreaterThan((ms / 10) * 0.5);
});

it("nothing JavaScript is reachable from a candidate in the worker: the bridge walk finds no JsProxy", async () => {
  const walk = `def f(xs):\n${WALK}    return len(found)`;
  const control = "class JsProxyLookalike:\n    pass\nkeep = JsProxyLookalike()\n" + walk;
  const { result } = await runShared({
    tasks: [TASK],
    codes: [walk, control].map((code) => ({ task: "max", code })),
    golden: [0, 1].map((code) => ({ code, text: "assert f([1]) == 0" })),
    limits: { test_ms: 120_000, load_ms: 10_000 },
  });
  expect(result.golden.map((s) => s[0].verdict), JSON.stringify(result)).toEqual(["pass", "fail"]);
});

it("a write to the interpreter's heap through the Pyodide API cannot happen, and cannot forge a verdict", async () => {
  // Every road to pyodide_js (the API object, whose _module.HEAPU8 is the interpreter's memory).
  const roads = [
    "    import pyodide_js\n    api = pyodide_js",
    "    api = len.__self__.__import__('pyodide_js')",
    `${SYS}    api = sys.modules['pyodide_js']`,
    "    c = [c for c in object.__subclasses__() if c.__name__ == 'JsFinder'][0]\n    api = c.find_spec.__globals__['jsfinder'].jsproxies['pyodide_js']",
  ];
  const forge = "    api._module.HEAPU8.fill(0, 1024, 4096)\n    return max(xs)";
  const codes = [...roads.map((r) => `def f(xs):\n${r}\n${forge}`), GOOD, "def f(xs):\n    return xs[0]"];
  const { result } = await runShared({
    tasks: [TASK],
    codes: codes.map((code) => ({ task: "max", code })),
    suites: codes.map((_, code) => ({ code, text: "assert f([1, 5]) == 5" })),
  });
  expect(result.suites.map((s) => s[0].verdict), JSON.stringify(result)).toEqual(["error", "error", "error", "error", "pass", "fail"]);
});

it("a callback scheduled on the worker's event loop cannot hang the next batch", async () => {
  const schedulers = [
    `${SYS}    aio = sys.modules['asyncio']\n    aio.get_event_loop().call_soon(lambda: [0 for _ in iter(int, 1)])\n    return max(xs)`,
    `${SYS}    aio = sys.modules['asyncio']\n    aio.ensure_future(aio.sleep(0))\n    return max(xs)`,
    "    import js\n    js.setTimeout(lambda: [0 for _ in iter(int, 1)], 0)\n    return max(xs)",
    `${SYS}    gc = sys.modules['gc']\n    loops = [o for o in gc.get_objects() if type(o).__name__ == 'WebLoop']\n    for loop in loops:\n        loop.call_later(0.01, lambda: [0 for _ in iter(int, 1)])\n    return max(xs)`,
  ];
  const codes = schedulers.map((s) => `def f(xs):\n${s}`);
  await runShared({ tasks: [TASK], codes: codes.map((code) => ({ task: "max", code })), suites: codes.map((_, code) => ({ code, text: "assert f([1, 5]) == 5" })) });
  const next = await runShared({ tasks: [TASK], codes: [{ task: "max", code: GOOD }], suites: [{ code: 0, text: "assert f([1, 5]) == 5" }], limits: { test_ms: 5000 } });
  expect(next.result.suites[0][0].verdict).toBe("pass");
  expect(next.ms).toBeLessThan(60_000);
});
