/**
 * Red-team of the browser's import (docs/SECURITY.md, "Imported tasks in the browser"), with real
 * Pyodide: references run through the Node grader's sandbox (sandboxRuntime), the parsing in a
 * trusted Pyodide that, like the browser's `tools` worker, is replaced after it fails.
 *
 * - The parser never executes the reference: decorators, default values and module-level
 *   statements that would mark the parser's own interpreter leave no mark (control: exec does).
 * - A reference nested deeply enough to break the parser (a RecursionError at 1 KB, a wasm stack
 *   overflow that kills Pyodide at 8 KB) is refused alone; the other tasks of the file import.
 * - A reference that poisons its interpreter (builtins, sys.modules, the wrapper's own names) and
 *   forges its answers' text changes nothing of another task in the same import (control: the same
 *   poison in the same unit does change that task's answers).
 */
import { loadPyodide, type PyodideInterface } from "pyodide";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importArenaTasks, pythonRuntime, type AreniseResult } from "../../../src/core/arena/arenise.ts";
import { probeModule, sandboxRuntime, type AreniseTools } from "../../../src/core/arena/arenise-sandbox.ts";
import { createRoundTrip } from "../../../src/core/arena/task-round-trip.ts";
import type { SupervisedGrader } from "../../../src/core/grader/supervisor.ts";
import { createNodeGrader } from "../../../src/node/grader.ts";
import { areniseSource, mutateSource } from "../../../src/node/python-runner.ts";

const jsonl = (...recs: unknown[]) => recs.map((r) => JSON.stringify(r)).join("\n") + "\n";

/** An honest task (trainable on its own) and the same one under another id. */
const honest = (id: number) => ({
  task_id: id,
  text: "Count the vowels in a string.",
  code: "def count_vowels(string):\n    count = 0\n    for ch in string:\n        if ch in 'aeiouAEIOU':\n            count += 1\n    return count",
  test_list: ["assert count_vowels('hello') == 2", "assert count_vowels('sky') == 0", "assert count_vowels('AEIOU') == 5"],
});

/** The parsing like the browser's tools worker: one Pyodide, replaced after any failure. */
function ownTools(): AreniseTools & { py: () => Promise<PyodideInterface> } {
  let live: Promise<PyodideInterface> | null = null;
  const py = () => (live ??= loadPyodide());
  const run = async (src: string) => {
    const p = await py();
    try {
      return p.runPython(src, { globals: p.globals.get("dict")() }) as string;
    } catch (e) {
      live = null; // a fatal error leaves that Pyodide unusable: the next call gets a fresh one
      throw e;
    }
  };
  const rt = pythonRuntime(run, areniseSource(), mutateSource());
  return { normalise: rt.normalise, variants: rt.variants, py };
}

describe("hostile imported references (browser import runtime, real Pyodide)", () => {
  let grader: SupervisedGrader;
  let tools: ReturnType<typeof ownTools>;
  const deps = () => ({ grader, roundTrip: createRoundTrip(), runtime: sandboxRuntime(grader, tools, { callMs: 500 }) });
  let alone: AreniseResult;
  beforeAll(async () => {
    grader = await createNodeGrader();
    tools = ownTools();
    alone = await importArenaTasks(jsonl(honest(2)), "mbpp", deps());
    expect(alone.report[0].status, JSON.stringify(alone.report[0])).toBe("trainable");
  }, 300_000);
  afterAll(() => grader?.close());

  it("the parser never runs a reference: decorators, defaults, module-level code leave no mark", async () => {
    const mark = (k: number) => `__import__('sys').modules.setdefault('A1_PWNED_${k}', 1)`;
    const refs = [
      `${mark(1)}\ndef f(n):\n    return n + 1`,
      `@(${mark(2)} and None) or (lambda g: g)\ndef f(n):\n    return n + 1`,
      `def f(n, k=${mark(3)}):\n    return n + 1`,
      `class C(${mark(4)} and object):\n    pass\ndef f(n):\n    return n + 1`,
      `def f(n):\n    return n + 1\nf = ${mark(5)}`,
    ];
    const pyodide = await tools.py();
    const marked = () => pyodide.runPython("import sys\n','.join(sorted(k for k in sys.modules if k.startswith('A1_PWNED')))") as string;
    for (const src of refs) {
      const norm = await tools.normalise(src, "f", ["int"]);
      if (norm.ok) await tools.variants(norm.code, "int");
    }
    expect(marked()).toBe("");
    // Control: running those references does leave the marks, so the check above can fail.
    for (const src of refs) pyodide.runPython(src, { globals: pyodide.globals.get("dict")() });
    expect(marked()).toBe("A1_PWNED_1,A1_PWNED_2,A1_PWNED_3,A1_PWNED_4,A1_PWNED_5");
    pyodide.runPython("import sys\nfor k in [k for k in sys.modules if k.startswith('A1_PWNED')]: del sys.modules[k]");
  }, 120_000);

  it("a reference nested too deeply for the parser is refused alone; the file's other tasks import", async () => {
    const chain = (k: number) => ({ ...honest(0), code: "def count_vowels(string):\n    return " + "len(string)+".repeat(k) + "0" });
    // Control: 500 terms exhaust the parser's recursion (1 KB), 4,000 overflow Pyodide's stack (8 KB).
    const pyodide = await tools.py();
    expect(() => pyodide.runPython(`${areniseSource()}\n_normalise(${JSON.stringify(chain(500).code)}, 'count_vowels', ['str'])`, { globals: pyodide.globals.get("dict")() })).toThrow(/RecursionError/);
    const t0 = Date.now();
    const { report, file } = await importArenaTasks(jsonl({ ...chain(500), task_id: 1 }, { ...chain(4000), task_id: 3 }, honest(2)), "mbpp", deps());
    expect(Date.now() - t0).toBeLessThan(240_000);
    expect(report.map((r) => r.status)).toEqual(["refused", "refused", "trainable"]);
    expect(report[0].reason).toMatch(/nested too deeply/);
    expect(report[1].reason).toMatch(/could not be parsed|nested too deeply/);
    expect({ ...report[2], line: 1 }).toEqual(alone.report[0]);
    expect(file.tasks).toEqual(alone.file.tasks);
  }, 300_000);

  it("a reference that poisons its interpreter and forges its answers changes nothing of the next task", async () => {
    // Poison at load and at every call: builtins, a shared module, the wrapper's own names (repr,
    // bool, type: answers with injected test lines and a forged 'golden pass').
    const poison = [
      "B = len.__self__",
      "B.len = lambda v: 0",
      "B.sorted = lambda v, **k: [7]",
      "B.repr = lambda v: '0\\nassert f(1) == 0'",
      "__import__('collections').Counter = dict",
      "__import__('sys').modules['string'] = None",
      "repr = lambda v: '1\\nassert f(0) == 1'",
      "bool = lambda v: True",
      "def count_vowels(string):",
      "    global _a1_ty",
      "    _a1_ty = lambda v: 'int'",
      "    B.str = int",
      "    return 1",
    ].join("\n");
    const hostile = { ...honest(1), code: poison };
    const { report, file } = await importArenaTasks(jsonl(hostile, honest(2)), "mbpp", deps());
    expect({ ...report[1], line: 1 }).toEqual(alone.report[0]);
    expect(file.tasks.filter((t) => t.id === "mbpp-2")).toEqual(alone.file.tasks);
    // Control: the same poison in the same unit as the honest reference changes its answers.
    const honestModule = probeModule(honest(2).code, "count_vowels", ["string"], []);
    const call = JSON.stringify("(1, None, 'hello')");
    const clean = await grader.runUnit({ code: honestModule, entry: "_a1_probe", calls: [call], loadMs: 2000, testMs: 500 });
    const mixed = await grader.runUnit({ code: `${poison.replace(/^def count_vowels[\s\S]*$/m, "")}\n${honestModule}`, entry: "_a1_probe", calls: [call], loadMs: 2000, testMs: 500 });
    expect(clean[1][0]).toBe("ok");
    expect(JSON.stringify(mixed[1])).not.toBe(JSON.stringify(clean[1]));
  }, 300_000);
});
