/**
 * Red-team of the browser's import (docs/SECURITY.md, "Imported tasks in the browser"), with real
 * Pyodide: references run through the Node grader's sandbox (sandboxRuntime), the parsing in a
 * trusted Pyodide that, like the browser's `tools` worker, is replaced after it fails.
 *
 * - The parser never executes the reference: decorators, default values and module-level
 *   statements that would mark the parser's own interpreter leave no mark (control: exec does).
 * - A reference nested deeply enough to break the parser (a RecursionError at 1 KB, a wasm stack
 *   overflow that kills Pyodide at 8 KB) is refused alone; the other tasks of the file import.
 * - A reference that answers every input just under the call limit costs at most its run budget
 *   per run (it held the import for minutes per task); the rest of its inputs count as timeouts.
 * - A reference whose errors or answers are huge (it shadows `str`, `repr`) cannot grow the stored
 *   report (150 KB per task from a 300-byte record before).
 * - A reference that poisons its interpreter (builtins, sys.modules, the wrapper's own names) and
 *   forges its answers' text changes nothing of another task in the same import (control: the same
 *   poison in the same unit does change that task's answers).
 */
import { loadPyodide, type PyodideInterface } from "pyodide";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importArenaTasks, pythonRuntime, type AreniseResult } from "../../../../src/core/arena/importers/arenise.ts";
import { probeModule, sandboxRuntime, type AreniseTools } from "../../../../src/core/arena/importers/arenise-sandbox.ts";
import { createRoundTrip } from "../../../../src/core/arena/task-round-trip.ts";
import type { SupervisedGrader } from "../../../../src/core/grader/supervisor.ts";
import { createNodeGrader } from "../../../../src/node/grader.ts";
import { areniseSource, mutateSource } from "../../../../src/node/python-runner.ts";

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

  // The entry function must be arena-Python (normalise refuses anything else before the reference
  // runs), but the ORIGINAL reference runs in the sandbox, module-level statements included: those
  // that do not name anything the entry uses are only dropped from the stored code.
  it("a reference that poisons its interpreter and forges its answers changes nothing of the next task", async () => {
    // Poison at load: builtins (the wrapper's repr, bool, type, len), a shared module, and the
    // wrapper's names in the reference's own module (which the import then drops as unused).
    const poison = [
      "B = abs.__self__",
      "B.repr = lambda v: 'A1FORGED'",
      "B.bool = lambda v: True",
      "B.len = lambda v: 0",
      "__import__('collections').Counter = dict",
    ].join("\n");
    const forge = "repr = lambda v: 'A1FORGED'\nbool = lambda v: True";
    const recs = [{ ...honest(1), code: `${poison}\n${honest(1).code}` }, { ...honest(3), code: `${forge}\n${honest(3).code}` }, honest(2)];
    const { report, file } = await importArenaTasks(jsonl(...recs), "mbpp", deps());
    // The builtins module's poison reaches nothing the grader computes (the harness has its own
    // builtins): the first reference's answers are its honest ones, as the third's alone. Nor does
    // the second's: the reference runs in a namespace of its own (round 48; before, its `repr` and
    // `bool` were the wrapper's, and it was refused with its forged answers).
    expect(report.map((r) => r.status)).toEqual(["trainable", "trainable", "trainable"]);
    const kept = ({ status, mutants, variants, renames, weakGolden }: (typeof report)[0]) => ({ status, mutants, variants, renames, weakGolden });
    expect(kept(report[0])).toEqual(kept(alone.report[0]));
    expect(report[0].rewrites).toContain("line 2: unused module-level statement dropped");
    expect(JSON.stringify(report[1])).not.toMatch(/A1FORGED/);
    expect({ ...report[2], line: 1 }).toEqual(alone.report[0]);
    expect(file.tasks.filter((t) => t.id === "mbpp-2")).toEqual(alone.file.tasks);
    // Control: the same poison in the same unit as the honest reference: what changes its answers.
    const honestModule = probeModule(honest(2).code, "count_vowels", ["string"], []);
    const call = JSON.stringify("(1, None, 'hello')");
    const clean = await grader.runUnit({ code: honestModule, entry: "_a1_probe", calls: [call], loadMs: 2000, testMs: 500 });
    expect(clean[1]).toEqual(["ok", ["l", [["b", true], ["s", "2"], ["s", "int"], ["b", false]]], ""]);
    // (The wrapper's own names, rebound in its module ahead of it, do; the builtins module's and the
    // reference's own module-level names, no longer.)
    const mixed = (p: string) => grader.runUnit({ code: `${p}\n${honestModule}`, entry: "_a1_probe", calls: [call], loadMs: 2000, testMs: 500 });
    expect(JSON.stringify((await mixed(forge))[1])).not.toBe(JSON.stringify(clean[1]));
    expect((await mixed(poison))[1]).toEqual(clean[1]);
  }, 300_000);

  it("a reference that answers just under the call limit every time costs its run budget, not minutes", async () => {
    // `sum` made slow at load by statements that names nothing the entry uses (so it is only dropped).
    const code = [
      `Z = [g['sys'] for q in object.__subclasses__() for fn in vars(q).values() if type(fn).__name__ == 'function' for g in [fn.__globals__] if type(g.get('sys')).__name__ == 'module'][0]`,
      "T = Z.modules['time']",
      "O = abs.__self__.sum",
      "def W(it):",
      "    e = T.monotonic() + 0.3",
      "    while T.monotonic() < e:",
      "        pass",
      "    return O(it)",
      "globals()['sum'] = W",
      "def count_vowels(string):",
      "    return sum(1 for ch in string if ch in 'aeiouAEIOU')",
    ].join("\n");
    const slow = { ...honest(1), code };
    // Control: without a run budget, 40 inputs take 40 x 0.3 s (so the ~300 of a probe took minutes).
    const task = { id: "slow", title: "t", prompt: "t", entry_point: "count_vowels", params: [{ name: "string", type: "str" as const }], returns: "int" as const, reference: code, golden_tests: ["assert count_vowels('a') == 1", "assert count_vowels('b') == 0"], buggy_variants: [], split: "train" as const, tags: [] };
    const inputs = Array.from({ length: 40 }, (_, i) => [{ t: "str" as const, v: "a".repeat(i) }]);
    let t0 = Date.now();
    const unbounded = await sandboxRuntime(grader, tools, { callMs: 500, runMs: 1e9 }).probe(task, inputs, []);
    expect(Date.now() - t0).toBeGreaterThan(40 * 300);
    // Each call answers right, or (a 0.3 s call on a loaded machine can pass 500 ms) is a timeout.
    unbounded.results.forEach((r, i) => expect(r.ok ?? r.err, `input ${i}`).toMatch(r.ok === undefined ? /^TimeoutError/ : new RegExp(`^${i}$`)));
    expect(unbounded.results.filter((r) => r.ok !== undefined).length).toBeGreaterThanOrEqual(30);
    t0 = Date.now();
    const { report, file } = await importArenaTasks(jsonl(slow, honest(2)), "mbpp", deps());
    expect(Date.now() - t0).toBeLessThan(90_000);
    expect(report[0].status).toBe("refused");
    expect(report[0].reason).toMatch(/TimeoutError/); // inputs past its budget (or a call slowed past 500 ms)
    expect({ ...report[1], line: 1 }).toEqual(alone.report[0]);
    expect(file.tasks).toEqual(alone.file.tasks);
  }, 400_000);

  it("a reference cannot grow the stored report: its error texts and answers are cut to size", async () => {
    // An answer of 150,000 characters, and an error text as long (the wrapper cuts that one to 80).
    const raising = { ...honest(1), code: "def count_vowels(string):\n    raise ValueError('E' * 150000)" };
    const huge = { ...honest(3), code: "def count_vowels(string):\n    return 'R' * 150000" };
    // Control: the sandbox does carry the answer whole.
    const step = await grader.runUnit({ code: probeModule(huge.code, "count_vowels", ["string"], []), entry: "_a1_probe", calls: [JSON.stringify("(1, None, 'a')")], loadMs: 2000, testMs: 500 });
    expect(JSON.stringify(step).length).toBeGreaterThan(150_000);
    const { report } = await importArenaTasks(jsonl(raising, huge, honest(2)), "mbpp", deps());
    expect(report.map((r) => r.status)).toEqual(["refused", "refused", "trainable"]);
    expect(JSON.stringify(report).length).toBeLessThan(10_000);
  }, 300_000);
});
