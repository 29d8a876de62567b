/**
 * Rule 3 of docs/SECURITY.md, JavaScript side: what a sandbox unit can change outside the wasm
 * memory is put back before the next unit, or retires the runner. The harness's own wall (the
 * audit hook, os.close and friends replaced) is assumed fallen here: before the lockdown, the test
 * hands candidates the raw posix calls (`math.raw`), and drives one real runner (runner.js, real
 * Pyodide) in this process, unit after unit, as its host does.
 */
import { readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { beforeAll, describe, expect, it } from "vitest";
import { loadPyodide } from "pyodide";
import { HARNESS_PATH } from "../../../src/node/grader.ts";
import { RUNNER_ENV, startRunner, type RunnerEvent } from "../../../src/core/grader/runner.js";
import { SYS } from "../../hostile-python.ts";

// JavaScript's garbage collector on demand (a PyProxy is released when the collector finds it).
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

let runner: ReturnType<typeof startRunner>;
let nextId = 1;

/** A fresh sandbox runner whose candidates get the raw posix calls (`math.raw`). */
async function freshRunner(): Promise<ReturnType<typeof startRunner>> {
  const pyodide = await loadPyodide({ env: { ...RUNNER_ENV } });
  pyodide.runPython("import math, posix\nmath.raw = {k: getattr(posix, k) for k in ('close', 'dup', 'dup2', 'lseek', 'pipe', 'write', 'set_blocking')}");
  return startRunner(pyodide, readFileSync(HARNESS_PATH, "utf8"), "sandbox");
}

beforeAll(async () => {
  runner = await freshRunner();
}, 120_000);

/** One unit of `code` (entry point f, called once with no arguments): its step results and whether the runner stays fit. */
function unit(code: string): { steps: string[]; fit: boolean; why: string } {
  const events: RunnerEvent[] = [];
  runner.handle({ type: "unit", id: nextId++, unit: { code, entry: "f", calls: ['["t",[]]'], loadMs: 5000, testMs: 5000, literal: false } }, (e) => events.push(e));
  const done = events.find((e) => e.type === "done");
  if (!done || done.type !== "done") throw new Error(`no done event: ${JSON.stringify(events)}`);
  return { steps: events.flatMap((e) => (e.type === "step" ? [e.result] : [])), fit: done.fit, why: done.why };
}

/** An honest candidate that prints to both streams (through sys, as print and logging do) and returns 7. */
const PRINTER = `def f():\n${SYS}    print('sentinel ' * 50)\n    sys.stderr.write('to stderr\\n')\n    sys.stdout.flush()\n    sys.stderr.flush()\n    return 7`;
const SEVEN = '["ok",["i","0x7"],""]';

describe("file descriptors and std streams", () => {
  it("the raw calls work inside their own unit (control: closing fd 1 breaks that unit's prints)", () => {
    const own = unit(`import math\ndef f():\n    math.raw['close'](1)\n    print('x')\n    return 1`);
    expect(own.steps[1]).toMatch(/^\["error", ?"raised OSError/);
  });

  it.each([
    ["closes fd 1 and 2", "math.raw['close'](1)\n    math.raw['close'](2)"],
    ["closes fd 0, 1 and 2", "math.raw['close'](0)\n    math.raw['close'](1)\n    math.raw['close'](2)"],
    ["puts stdin on fd 1 and 2 (dup2)", "math.raw['dup2'](0, 1)\n    math.raw['dup2'](0, 2)"],
    ["duplicates fd 1, then closes both", "n = math.raw['dup'](1)\n    math.raw['close'](n)\n    math.raw['close'](1)"],
    ["unblocks the streams and leaves half a line", "math.raw['set_blocking'](1, False)\n    math.raw['set_blocking'](2, False)\n    math.raw['write'](2, b'partial line without newline')"],
  ])("a unit that %s leaves the next one printing as usual", (_name, attack) => {
    const hostile = unit(`import math\ndef f():\n    ${attack}\n    return 1`);
    expect(hostile.steps).toEqual(['["ok",""]', '["ok",["i","0x1"],""]']);
    expect(hostile.fit).toBe(true);
    const next = unit(PRINTER);
    expect(next.steps).toEqual(['["ok",""]', SEVEN]);
    expect(unit(PRINTER).steps[1]).toBe(SEVEN);
  });

  it("a unit that makes a pipe (new file-system nodes) retires the runner: a snapshot cannot take them back", () => {
    const hostile = unit("import math\ndef f():\n    r, w = math.raw['pipe']()\n    return r");
    expect(hostile.fit).toBe(false);
    expect(hostile.why).toBe("the file system changed");
  });

  it.each([
    ["replaces sys.stdout with a writer that raises", "class W:\n        def write(self, s):\n            raise OSError('gone')\n        def flush(self):\n            pass\n    sys.stdout = sys.stderr = W()"],
    ["closes sys.stdout and sys.__stdout__", "sys.stdout.close()\n    sys.stderr.close()\n    sys.__stdout__.close()"],
    ["empties the module table", "sys.modules.clear()"],
    ["replaces print in the real builtins", "len.__self__.print = None"],
  ])("a unit that %s (Python objects: the memory restore) leaves the next one printing", (_name, attack) => {
    const hostile = unit(`def f():\n${SYS}    ${attack}\n    return 1`);
    expect(hostile.steps[0]).toBe('["ok",""]');
    expect(unit(PRINTER).steps).toEqual(['["ok",""]', SEVEN]);
  });
});

describe("Python references held by JavaScript (round 3 of issue 27)", () => {
  // A runner of its own: one retired by a test above restores before each unit instead of after,
  // which would hide a release that lands between units.
  beforeAll(async () => {
    runner = await freshRunner();
  }, 120_000);

  // The candidate rebinds the harness's own `call` (its code object) to return a harness object:
  // the value reaches JavaScript as a PyProxy, which Pyodide would release with a Py_DecRef when
  // JavaScript's collector finds it, i.e. after the restore, on the pristine interpreter's memory
  // (here: freeing the harness's `_state`, so the next candidate's load crashed).
  const returns = (what: string) =>
    `def f():\n    return 1\ndef _rebind():\n${SYS}    call = sys._getframe(2).f_globals['call']\n` +
    `    call.__code__ = (lambda args_text, literal: ${what}).__code__\n_rebind()`;

  // How many references the pristine interpreter holds to the harness's `_state` (read by a candidate).
  // Up the frames to the harness's (the line's own frame has the program's globals, as in CPython).
  const STATE_REFS = `def f():\n${SYS}    g = sys._getframe(1)\n    while '_state' not in g.f_globals:\n        g = g.f_back\n    return sys.getrefcount(g.f_globals['_state'])`;

  it.each([
    ["the harness's state dict", "_state"],
    ["the harness's builtins", "_state['builtins']"],
    ["a fresh list", "[1, 2, 3]"],
    ["a function of the candidate", "(lambda: 0)"],
  ])("a step that hands JavaScript %s is an error of its own, and nothing is released later on the next candidate's memory", async (_name, what) => {
    const before = unit(STATE_REFS).steps[1];
    expect(before).toMatch(/^\["ok",\["i","0x[0-9a-f]+"\],""\]$/);
    const hostile = unit(returns(what));
    expect(hostile.steps).toEqual(['["ok",""]', '["error","the step\'s result is not text"]']);
    for (let i = 0; i < 5; i++) {
      collectGarbage();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(unit(STATE_REFS).steps[1]).toBe(before);
    expect(unit(PRINTER).steps).toEqual(['["ok",""]', SEVEN]);
  });
});

describe("memory beyond the snapshot (round 3 of issue 27)", () => {
  beforeAll(async () => {
    runner = await freshRunner();
  }, 120_000);

  it("a unit that grows the heap by 100 MiB retires its runner: later units would each pay to zero it", () => {
    expect(unit("def f():\n    return 1").fit).toBe(true);
    const grown = unit("def f():\n    x = bytearray(100 * 2 ** 20)\n    return len(x) > 0");
    expect(grown.steps[1]).toBe('["ok",["b",true],""]');
    expect(grown.fit).toBe(false);
    expect(grown.why).toMatch(/^the heap grew to \d+ MiB$/);
  });
});
