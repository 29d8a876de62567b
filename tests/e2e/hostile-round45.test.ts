/**
 * Round 45: the BROWSER side of the grader (a stranger agent, ~35 minutes). Each test asserts the
 * truth first (a clean Pyodide as the unit rounds use, clean-python.ts, and the Node grader on the
 * same batch), then that the browser grader (grader worker, supervised from the page) gives it.
 * Tests here FAIL on the current code.
 *
 * A. The browser runners' environment and C locale are the browser's LANGUAGE, not RUNNER_ENV's.
 *    Emscripten's getEnvStrings (pyodide.asm.mjs) sets `LANG` to
 *    `(globalThis.navigator?.language ?? "C").replace("-", "_") + ".UTF-8"`: in Node 20 there is no
 *    navigator, so `C.UTF-8`; in a worker, WorkerNavigator.language is the user's UI language, so a
 *    stock Chromium gives `en_US.UTF-8`, a German one `de_DE.UTF-8`. CPython's start also sets
 *    LC_CTYPE from it (`_locale.setlocale(LC_CTYPE)`, `locale.getlocale()` answer `en_US.UTF-8` /
 *    `('en_US', 'UTF-8')` in the browser, `C.UTF-8` / `('C', 'UTF-8')` in Node and in the truth).
 *    `os` and `locale` are in sys.modules, reachable with no import and no audit event
 *    (`collections._sys.modules`). So the same batch gives different verdicts in the browser and in
 *    Node (a line `assert f() == 'C.UTF-8'` passes in Node, is `wrong-answer` in the browser and
 *    its corrected answer is `'en_US.UTF-8'`), and a verdict depends on the grading user's language
 *    settings (SECURITY.md: "The environment is the same everywhere: RUNNER_ENV pins the hash seed
 *    and `_`" -- it does not pin LANG). The cached base snapshot also keeps the LANG of the browser
 *    session that made it (its key has no language). Root cause (a guess): RUNNER_ENV (runner.js)
 *    pins PYTHONHASHSEED and `_` only; Emscripten fills the rest of the environment from its host
 *    (`LANG`: navigator.language). Fix: pin LANG (and the rest of getEnvStrings' defaults) in
 *    RUNNER_ENV, and raise BASE_SNAPSHOT_RECIPE.
 *
 * B. The runners' time zone is the host's (browser or Node), so a program's `time.timezone`,
 *    `time.localtime`, `time.tzname` (module `time` is in sys.modules) depend on where it is graded.
 *    Emscripten's `_tzset_js` reads `new Date().getTimezoneOffset()` of the JavaScript host. A user
 *    whose browser runs in Asia/Tokyo gets `time.timezone == -32400`, the Node grader on a UTC host
 *    0: the same batch, different verdicts (and two Node hosts in two zones differ too). Not a
 *    "timing precision" case: no clock is read, only the zone. Root cause (a guess): nothing pins
 *    TZ (Emscripten has no TZ switch; the runner would have to set `TZ=UTC` in RUNNER_ENV so musl's
 *    tzset uses it, or override `_tzset_js`/`_localtime_js`).
 *
 * Fixed: RUNNER_ENV pins LANG (C.UTF-8) and TZ (UTC); runner.js `pinLocalTime` makes the runner's
 * own Date one whose local time is UTC before Python starts (Emscripten's tzset, localtime and mktime
 * read the zone from Date; TZ alone moves nothing in a browser), in every runner, the base snapshot
 * (its recipe raised, so no cached one of another zone or language is loaded) and the truth
 * interpreters. B now asserts UTC with the browser in Asia/Tokyo AND the Node runners started with
 * TZ=Asia/Tokyo (this file's process sets it before its grader starts).
 *
 * What held (tried, no find): probing the worker's global scope after the lockdown; `os.cpu_count()`
 * (1 in both), `os.uname()`, `os.getpid()`, HOME/USER/PATH/`_` (the same in both); sys.modules is
 * the same list in both runners; the base snapshot is made by the judge before any harness or
 * program (no candidate state can reach it; a candidate never runs in the judge) and a forged
 * Uint8Array after ready, a non-JSON message or a message before ready ends the worker
 * (grader-client's port handler); the worker posts only through a port captured before Pyodide
 * loads, and every event goes through encodeEvent (no toJSON, field by field).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContextOptions, Page } from "playwright-core";
import { openGraderPage, type GraderPage } from "./grader-page.ts";
import type { GraderRun } from "./grader-harness.ts";
import type { GradeRequest } from "../../src/core/grader/types.ts";
import { cleanPython } from "../unit/grader/clean-python.ts";
import { sharedNodeGrader } from "../unit/node-grader.ts";
import { show } from "../unit/grader/grade-lines.ts";

// The Node runners (child processes) inherit this zone: they must grade as UTC all the same.
process.env.TZ = "Asia/Tokyo";

let opened: GraderPage;
let page: Page;
let errors: string[];

beforeAll(async () => {
  opened = await openGraderPage();
  ({ page, errors } = opened);
});
afterAll(() => opened?.close());

/** `run` on a grader page of a browser context of its own (another language, another zone). */
async function inContext<T>(options: BrowserContextOptions, run: (p: Page) => Promise<T>): Promise<T> {
  const context = await opened.browser.newContext(options);
  try {
    const p = await context.newPage();
    await p.goto(opened.url);
    return await run(p);
  } finally {
    await context.close();
  }
}

const { holds } = cleanPython();
const node = sharedNodeGrader();

const onPage = (p: Page, request: GradeRequest) =>
  p.evaluate(`import("/tests/e2e/grader-harness.ts").then((m) => m.gradeOnShared(${JSON.stringify(request)}))`) as Promise<GraderRun>;

const batch = (code: string, lines: string[], reference = code): GradeRequest => ({
  tasks: [{ id: "t", entry_point: "f", reference }],
  codes: [{ task: "t", code }],
  suites: [{ code: 0, text: lines.join("\n") }],
  limits: { test_ms: 5000, load_ms: 10_000, max_lines: 8 },
});

const LANG = [
  "import collections",
  "def f():",
  "    return collections._sys.modules['os'].environ.get('LANG')",
].join("\n");

const LOCALE = [
  "import collections",
  "def f():",
  "    return collections._sys.modules['locale'].getlocale()",
].join("\n");

const TZ = [
  "import collections",
  "def f():",
  "    return collections._sys.modules['time'].timezone",
].join("\n");

/** The same batch in Node and in the browser page `p`: each line's validity/verdict. */
async function both(p: Page, code: string, lines: string[]) {
  const n = (await node.grade(batch(code, lines))).suites[0].map(show);
  const b = (await onPage(p, batch(code, lines))).result.suites[0];
  return { node: n, browser: b.map(show), corrected: b.map((l) => l.corrected ?? "") };
}

describe("A: the environment's LANG and the C locale are the browser's UI language", () => {
  it("A1: os.environ['LANG'] is C.UTF-8 (RUNNER_ENV's interpreter, Node, the truth), not navigator.language", async () => {
    const line = "assert f() == 'C.UTF-8'";
    expect(holds(LANG, line)).toBe(true);
    const r = await both(page, LANG, [line]);
    expect(r.node).toEqual(["valid/pass"]);
    expect(r.browser, r.corrected.join()).toEqual(r.node); // browser: wrong-answer, corrected to 'en_US.UTF-8'
    expect(errors).toEqual([]);
  });

  it("A2: locale.getlocale() (LC_CTYPE, set from LANG at start) is ('C', 'UTF-8') as in Node and the truth", async () => {
    const line = "assert f() == ('C', 'UTF-8')";
    expect(holds(LOCALE, line)).toBe(true);
    const r = await both(page, LOCALE, [line]);
    expect(r.node).toEqual(["valid/pass"]);
    expect(r.browser, r.corrected.join()).toEqual(r.node); // browser: ('en_US', 'UTF-8')
  });

  it("A3: a browser whose language is German grades the same batch as one in English (and as Node)", () =>
    inContext({ locale: "de-DE" }, async (de) => {
      const r = await both(de, LANG, ["assert f() == 'C.UTF-8'"]);
      expect(r.browser, r.corrected.join()).toEqual(r.node); // before the fix: corrected to 'de_DE.UTF-8'
    }));
});

const CLOCK = [
  "import collections",
  "def f(t):",
  "    time = collections._sys.modules['time']",
  "    return [time.timezone, time.altzone, time.daylight, list(time.localtime(t)[:6]), time.mktime((2020, 6, 1, 12, 0, 0, 0, 0, -1))]",
].join("\n");

describe("B: the time zone is UTC in every runner, whatever the host's", () => {
  it("B1: a browser in Asia/Tokyo and Node runners started in Asia/Tokyo grade time.timezone as UTC", () =>
    inContext({ timezoneId: "Asia/Tokyo" }, async (tokyo) => {
      expect(new Intl.DateTimeFormat().resolvedOptions().timeZone).toBe("Asia/Tokyo"); // this process's zone, which its runner processes inherit
      const lines = ["assert f() == 0"];
      expect(holds(TZ, lines[0])).toBe(true);
      const r = await both(tokyo, TZ, lines);
      expect(r.node).toEqual(["valid/pass"]); // before the fix: -32400 on a Tokyo host
      expect(r.browser, r.corrected.join()).toEqual(r.node); // before the fix: corrected to -32400
    }));

  it("B2: localtime and mktime are UTC's too (the zone's offset, no daylight saving)", () =>
    inContext({ timezoneId: "America/New_York" }, async (ny) => {
      const line = "assert f(0) == [0, 0, 0, [1970, 1, 1, 0, 0, 0], 1591012800.0]";
      expect(holds(CLOCK, line)).toBe(true);
      const r = await both(ny, CLOCK, [line]);
      expect(r.node).toEqual(["valid/pass"]);
      expect(r.browser, r.corrected.join()).toEqual(r.node);
    }));
});
