/**
 * Round 53: the BROWSER side (a stranger agent, ~35 minutes): the grader worker and its restarts,
 * Cache Storage and the base snapshot, the messages between page, trainer and runners, and Play.
 * Each test asserts the truth first (a clean Pyodide, clean-python.ts, or the rule the app
 * promises), then the app's behaviour. Tests under "A" FAIL on the current code; "held" pass.
 *
 * A. Play's attack view shows a program's verdict beside ANOTHER program's code. attack()
 *    (src/ui/views/play.ts) labels a buggy variant `buggy variant: ${v.bug}` and renders each result
 *    row with `codeBlock(programs.find((x) => x.label === p.label)!.code)`: a lookup by label, not by
 *    the row's index. Two variants whose `bug` text is the same (any crafted task file; and the
 *    browser's own import makes them: arenise.ts `bugText(operator, line)` gives one text per operator
 *    kind and line, e.g. two `unary` drops or two constant changes on one line) with different code
 *    are two programs, graded separately and correctly, but the second row shows the first's code.
 *    Test: sum-positive, variant CAUGHT (`x > 1`) and SURVIVES (`x > -1`), one bug text, the user's
 *    line `assert f([1]) == 1`. Truth: CAUGHT fails the line, SURVIVES passes it; the grader agrees
 *    (row 1 caught, row 2 survived). The app: row 2 reads "survived" above CAUGHT's code, a program
 *    that the line catches: the user is shown a surviving program that is in fact caught. Root
 *    cause: play.ts attack(), the code block found by label (`programs.find`); task.ts validateTask
 *    does not refuse duplicate bug texts, and `add` dedups by code only. Fix: render
 *    `programs[i].code` by the row's index (attackReport's rows are in `programs` order), or keep the
 *    code in AttackReport's rows; optionally make labels unique (append `#2`).
 *
 * Held (tried, no find):
 *  - H1: a program identical to its reference passes every corrected line of a probe of
 *    environment, flags, sys.path, argv/executable, cwd, stream ttys and encodings, limits, ids,
 *    uname, clocks and zone, warning filters, hooks, locale, platform, loaded modules' names,
 *    stat of /, /lib, /tmp, /home/pyodide, isatty of fds 0-5, sysconf, int_info, with the judge started
 *    fresh (it made the base snapshot) and the sandbox loaded from it: no difference between a fresh and
 *    a snapshot start a program can read, except the home directory's st_mtime (a clock: the start's time).
 *  - By reading: the base snapshot is posted only by a judge with `makeSnapshot` before its ready
 *    event (a Uint8Array after ready ends the worker), the tools role never makes or loads one, and its
 *    key is same-origin /pyodide/ (indexURL's origin is checked, the worker CSP limits connect-src);
 *    the service worker caches only same-origin `basic` OK responses and its activate handler deletes
 *    every cache but its own (the base snapshot cache too: it is made again, not poisoned); runner
 *    stdout/stderr are discarded; events are JSON parsed and checked by the supervisor (parseStep);
 *    Play's defend view pairs lines by `split("\n")` while the grader drops blank lines, but golden
 *    tests start with `assert f(`, Mistake Book tests are one line each (isOneTestLine) and policy
 *    lines are filtered non-blank, so they stay aligned; a user's tests go through a textarea (no CR).
 *
 * Not reached: tab-level memory pressure from a sandbox growing toward 4 GiB beside the judge and a
 * warm spare (known open class "Memory within a unit"; not run on a shared machine), the trainer
 * worker's remote spawner under kills, late events after a watchdog halt in the trainer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { openGraderPage, type GraderPage } from "./grader-page.ts";
import type { GraderRun } from "./grader-harness.ts";
import type { GradeRequest } from "../../src/core/grader/types.ts";
import { cleanPython } from "../unit/grader/clean-python.ts";

const { holds } = cleanPython();

let opened: GraderPage;
let page: Page;
beforeAll(async () => {
  opened = await openGraderPage();
  ({ page } = opened);
});
afterAll(() => opened?.close());

const onPage = (p: Page, request: GradeRequest) =>
  p.evaluate(`import("/tests/e2e/grader-harness.ts").then((m) => m.gradeOnShared(${JSON.stringify(request)}))`) as Promise<GraderRun>;

const PROBE = String.raw`
import collections
def f(k):
    sys = collections._sys
    m = sys.modules
    os = m['os']
    try:
        if k == 'modules': return repr(sorted(m))
        if k == 'env': return repr(sorted(os.environ.items()))
        if k == 'flags': return repr(sys.flags)
        if k == 'path': return repr(sys.path)
        if k == 'argv': return repr((sys.argv, sys.orig_argv, sys.executable, sys.prefix, sys.exec_prefix, sys.base_prefix))
        if k == 'cwd': return os.getcwd()
        if k == 'tty': return repr((sys.stdout.isatty(), sys.stderr.isatty(), sys.stdin.isatty(), sys.stdout.encoding, sys.stdout.line_buffering, sys.stdin.encoding, sys.stdout.errors))
        if k == 'limits': return repr((sys.getrecursionlimit(), sys.getswitchinterval(), m['gc'].get_threshold() if 'gc' in m else None, sys.get_int_max_str_digits()))
        if k == 'ids': return repr((os.getpid(), os.getppid(), os.getuid(), os.getgid(), os.geteuid(), os.cpu_count()))
        if k == 'uname': return repr(os.uname())
        if k == 'time': t = m['time']; return repr((t.tzname, t.timezone, t.get_clock_info('monotonic'), t.get_clock_info('time')))
        if k == 'warn': return repr(m['warnings'].filters)
        if k == 'xopt': return repr((sys._xoptions, sys.warnoptions, sys.dont_write_bytecode, sys.pycache_prefix))
        if k == 'hooks': return repr((sys.excepthook, sys.displayhook, sys.unraisablehook, sys.breakpointhook))
        if k == 'fs': return repr((sys.getfilesystemencoding(), sys.getdefaultencoding(), os.device_encoding(1), os.isatty(0), os.isatty(1)))
        if k == 'locale': return repr((m['locale'].getlocale(), m['locale'].setlocale(0) if False else None))
        if k == 'platform': return repr((sys.platform, sys.byteorder, sys.maxsize, sys.implementation.name, sys.version))
        if k == 'randmod': return repr([n for n in m if 'rand' in n])
        if k == 'umaskless': return repr(os.get_terminal_size())
        if k == 'stat': s = os.stat('/'); return repr((s.st_mode, s.st_nlink, s.st_uid))
        if k == 'statlib': s = os.stat('/lib'); return repr((s.st_mode, s.st_nlink, s.st_uid, s.st_size))
        if k == 'stattmp': s = os.stat('/tmp'); return repr((s.st_mode, s.st_nlink, s.st_uid, s.st_size))
        if k == 'stathome': s = os.stat('/home/pyodide'); return repr((s.st_mode, s.st_nlink, s.st_uid, s.st_size))
        if k == 'mtimehome': return repr(os.stat('/home/pyodide').st_mtime)
        if k == 'fds': return repr([os.isatty(i) for i in range(6)])
        if k == 'sysconf': return repr(os.sysconf('SC_PAGE_SIZE'))
        if k == 'site': return repr(('site' in m, sys.flags.no_site))
        if k == 'ints': return repr(sys.int_info)
    except BaseException as e:
        return 'EXC ' + type(e).__name__ + ' ' + str(e)[:200]
    return 'unknown'
`;
const KEYS = ["env", "flags", "path", "argv", "cwd", "tty", "limits", "ids", "uname", "time", "warn", "xopt", "hooks", "fs", "locale", "platform", "randmod", "umaskless", "stat", "statlib", "stattmp", "stathome", "fds", "sysconf", "site", "ints"];

const batch = (lines: string[]): GradeRequest => ({
  tasks: [{ id: "t", entry_point: "f", reference: PROBE }],
  codes: [{ task: "t", code: PROBE }],
  suites: lines.map((l) => ({ code: 0, text: l })),
  limits: { test_ms: 5000, load_ms: 10_000, max_lines: 8 },
});

describe("held: the judge (fresh start, which makes the base snapshot) and a sandbox (loaded from it) show a program the same interpreter", () => {
  it("H1: a program identical to its reference passes every line its reference's corrected answer wrote (environment, flags, paths, streams, limits, ids, clocks, locale, stat)", async () => {
    const r1 = await onPage(page, batch(KEYS.map((k) => `assert f(${JSON.stringify(k)}) == 0`)));
    const corrected = r1.result.suites.map((s) => s[0].corrected ?? "");
    expect(corrected.every(Boolean)).toBe(true);
    const r2 = await onPage(page, batch(corrected));
    expect(r2.result.suites.map((s) => `${s[0].validity}/${s[0].verdict}`)).toEqual(KEYS.map(() => "valid/pass"));
    const stats = (await page.evaluate(`import("/tests/e2e/grader-harness.ts").then((m) => m.snapshotState())`)) as { made: number; loaded: number; fresh: number };
    expect(stats.made).toBe(1); // the judge started fresh and made it
    expect(stats.loaded).toBeGreaterThanOrEqual(1); // the sandbox loaded it
  }, 300_000);
});

/** Two buggy variants of sum-positive whose bug text is the same (arenise's bugText gives one text per operator and line). */
const SUM = "def f(xs):\n    return sum(x for x in xs if x > 0)";
const CAUGHT = "def f(xs):\n    return sum(x for x in xs if x > 1)"; // f([1]) == 0
const SURVIVES = "def f(xs):\n    return sum(x for x in xs if x > -1)"; // f([1]) == 1, as the reference
const LABEL = "off by one: a constant 0->1 (line 2)";
const TEST = "assert f([1]) == 1";

describe("A: Play's attack view shows each program's verdict beside another program's code", () => {
  it("A1: two buggy variants with one bug text: each row shows the program it graded", async () => {
    expect(holds(SUM, TEST)).toBe(true);
    expect(holds(CAUGHT, TEST)).toBe(false);
    expect(holds(SURVIVES, TEST)).toBe(true);
    const task = { id: "dup", title: "Sum positive", prompt: "Sum the positive numbers.", entry_point: "f", params: [{ name: "xs", type: "list[int]" }], returns: "int",
      reference: SUM, golden_tests: ["assert f([1, -2, 3]) == 4", "assert f([]) == 0"], input_spec: {},
      buggy_variants: [{ code: CAUGHT, bug: LABEL }, { code: SURVIVES, bug: LABEL }], split: "train", tags: [] };
    const rows = (await page.evaluate(`(async () => {
      const { playView } = await import("/src/ui/views/play.ts");
      const { createBrowserGrader } = await import("/src/browser/grader-client.ts");
      const root = document.createElement("div");
      document.body.append(root);
      const view = playView(root, { actions: {}, deps: { grader: async () => createBrowserGrader() } });
      view.update({ tasks: [${JSON.stringify(task)}], run: { mistakeBook: { tasks: {} }, duels: [] } });
      [...root.querySelectorAll("button[role=radio]")].find((b) => b.textContent.startsWith("Attack")).click();
      root.querySelector("#play-editor").value = ${JSON.stringify(TEST)};
      root.querySelector("#play-run").click();
      for (let i = 0; i < 1200 && !/catch/.test(root.querySelector("#play-results h3")?.textContent ?? ""); i++) await new Promise((r) => setTimeout(r, 100));
      return [...root.querySelectorAll("#play-results details")].map((d) => ({ summary: d.querySelector("summary").textContent, code: d.querySelector("pre, code")?.textContent ?? d.textContent }));
    })()`)) as { summary: string; code: string }[];
    expect(rows.length).toBe(2);
    // The rule: a row's badge is the verdict of the program it shows. CAUGHT is caught, SURVIVES survives.
    const shown = rows.map((r) => ({ caught: r.summary.startsWith("caught"), code: r.code.includes("x > 1") ? "CAUGHT" : r.code.includes("x > -1") ? "SURVIVES" : "?" }));
    expect(shown).toEqual([{ caught: true, code: "CAUGHT" }, { caught: false, code: "SURVIVES" }]); // the app: the second row shows CAUGHT's code, marked survived
  }, 300_000);
});
