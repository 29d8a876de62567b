/**
 * Round 51 (issue 27): state a program's load or one suite leaves for the NEXT suite of the same
 * candidate's unit (each suite reloads the program: runner.js `fresh`, harness `load`), and the warm
 * spare. Truth is a clean Pyodide (clean-python.ts, `freshTruth`): the program exec'd, then ONE
 * suite's lines in its namespace, in an interpreter nothing ran in before, as CPython runs a suite
 * after the program.
 *
 * Class A (found, FAILS on 574fd0c): a refusal made by the previous suite's garbage is charged to
 * the next suite's load. A reload (`_load`) drops the previous module's namespace
 * (`_state["ns"] = None`); the namespace is a cycle (its functions' `__globals__`), so it is freed by
 * the next full collection, whenever an allocation triggers one: in the next suite's module body (or
 * its calls). Its objects' finalizers run there. A finalizer that meets a refusal (here `import os`
 * inside `try/except ImportError`, a cleanup idiom; CPython imports os and goes on) appends to the
 * harness's `_REFUSED`, and `load` turns any refusal during the step into a load error: every line of
 * the next suite is `error` ("blocked by the grader sandbox: import os"), where a clean CPython runs
 * that suite alone and passes every line. It cascades: that suite's refused load drops its own fresh
 * namespace, whose finalizer is charged to the suite after. The program needs no introspection: a
 * module body that builds many containers (300,000 small objects) is enough to run the collection in
 * the reload. The first suite is graded right (its finalizer never runs in its own steps). Root
 * cause: the refusal mark (`_REFUSED`, round 31: "a collection between two steps") is read per step
 * and attributed to the step that ran the collection, but a previous SUITE's garbage is not part of
 * the next suite's program in CPython, where each suite runs on its own process. A fix would collect
 * (gc.collect) the dropped namespace right after the last call of a suite, as part of that suite's
 * last step (or drop it and collect before the reload, charging the refusal to the previous suite),
 * so the next suite's load starts with no garbage of the previous one.
 * Related, not a verdict: after a failed reload the runner still calls the suite's next lines on
 * `_state["ns"] = None`, whose reason is the harness's own "'NoneType' object has no attribute
 * 'items'" (the verdict, `error`, is what a failed load gives anyway).
 * Round 39 listed "finalizers across suites" as known (round 15's open class: state kept outside
 * the module crosses suites); this one crosses through the grader's refusal bookkeeping, not
 * through anything the program reads, and needs no refusal-seeking or state-keeping code.
 *
 * What held (no verdict moved): the same finalizer with a small module body (no full collection
 * runs in the reload, so the refusal is never charged: 20,000 one-item lists in the body, or 3,000
 * per call, did not trigger one; the second test below). The same refusal forced into the reload by
 * `gc.collect()` (through `collections._sys.modules['gc']`) or into the next suite's first call moves
 * that suite the same way (the first call's line `error`, the rest "not graded"): one class.
 * Not reached in this round's time: the warm spare and restarts (`warmSpare`), `atexit`, `gc.callbacks`
 * and profile/trace hooks across suites (these last are round 15's and 27's known classes).
 *
 * Left open (`it.fails`): found with too little of the session left for a fix and a full CI run. The
 * fix named in SECURITY.md: a reload drops the last suite's namespace and collects it before the new
 * load, discarding what its finalizers met (it was never the next suite's), measured against the
 * executor bench (a full collection per reload has a cost).
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { freshTruth } from "./clean-python.ts";
import { show } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const REF = "def f(x):\n    return x + 1";

/** A correct program whose module keeps an object with a cleanup finalizer and builds a big table. */
const CLEANUP = [
  "class Cleanup:",
  "    def __del__(self):",
  "        try:",
  "            import os",
  "        except ImportError:",
  "            pass",
  "KEEP = Cleanup()",
  "class Node:",
  "    pass",
  "TABLE = []",
  "for i in range(300000):",
  "    n = Node()",
  "    n.me = n",
  "    TABLE.append(n)",
  "def f(x):",
  "    return x + 1",
].join("\n");
const SMALL = "class Cleanup:\n    def __del__(self):\n        try:\n            import os\n        except ImportError:\n            pass\nKEEP = Cleanup()\ndef f(x):\n    return x + 1";

const SUITES = [["assert f(1) == 2", "assert f(2) == 3"], ["assert f(3) == 4", "assert f(4) == 5"], ["assert f(5) == 6"]];

async function gradeSuites(code: string): Promise<string[][]> {
  const r = await grader.grade({
    tasks: [{ id: "t", entry_point: "f", reference: REF }],
    codes: [{ task: "t", code }],
    suites: SUITES.map((lines) => ({ code: 0, text: lines.join("\n") })),
    limits: { test_ms: 1000, max_lines: 8 },
  });
  return r.suites.map((s) => s.map(show));
}

describe("a previous suite's garbage is not the next suite's program", () => {
  it("charges no refusal of suite 1's finalizer to suite 2's load (every line passes in CPython)", async () => {
    for (const lines of SUITES) expect(await freshTruth(CLEANUP, lines)).toEqual(lines.map(() => true));
    const got = await gradeSuites(CLEANUP);
    // On 574fd0c: [pass, pass] | [error (blocked: import os), error (AttributeError 'NoneType'...)] | [error (blocked: import os)]
    expect(got, JSON.stringify(got)).toEqual(SUITES.map((lines) => lines.map(() => "valid/pass")));
  }, 300_000);

  it("holds where the reload runs no full collection (a small module body)", async () => {
    for (const lines of SUITES) expect(await freshTruth(SMALL, lines)).toEqual(lines.map(() => true));
    const got = await gradeSuites(SMALL);
    expect(got, JSON.stringify(got)).toEqual(SUITES.map((lines) => lines.map(() => "valid/pass")));
  }, 300_000);

  it("grades each suite on the program as CPython loads it, whatever an earlier suite left outside the module", async () => {
    // State kept outside the module (round 15's class) made the second load raise while suites shared
    // a unit (and its lines were then calls made on no program, whose reason was the harness's own
    // AttributeError). Since round 52 each suite is a unit of its own: CPython's truth, every line passes.
    const once = "import collections\nif getattr(collections, 'seen_by_round51', 0):\n    raise ValueError('loaded twice')\ncollections.seen_by_round51 = 1\ndef f(x):\n    return x + 1";
    for (const lines of SUITES) expect(await freshTruth(once, lines)).toEqual(lines.map(() => true));
    expect(await gradeSuites(once)).toEqual(SUITES.map((lines) => lines.map(() => "valid/pass")));
  }, 300_000);
});
