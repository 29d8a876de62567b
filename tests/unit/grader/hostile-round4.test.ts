/**
 * Round 4 of issue 27 (a stranger's attack, 2026-12-06): two set displays that build one set with one
 * iteration order but tables of different sizes were one call to the grader (its key was the
 * arguments' values in iteration order), so the reference ran once, with the first line's display,
 * and a second suite's line was judged against another suite's output (its corrected line false in
 * CPython; a golden line run on the other display). A call is now its arguments as written for set
 * displays (verdicts.ts callKey, the harness's repeat check): each display runs as itself.
 * Expected values come from a clean Pyodide (the grader's CPython 3.14), not from the grader.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { loadPyodide, type PyodideInterface } from "pyodide";
import { sharedNodeGrader } from "../node-grader.ts";
import type { GradeRequest } from "../../../src/core/grader/types.ts";

const grader = sharedNodeGrader();
const ADD = "def f(s):\n    s.add(72)\n    return list(s)";
// 31 written elements (added one by one: a 32-slot table) and 6 (a folded constant merged: 16 slots).
const X = `{8, 46, 2, 5, 63, 10${", 8".repeat(25)}}`;
const Y = "{8, 46, 2, 5, 63, 10}";

let py: PyodideInterface;
/** `assert f(ARGS) == <what a clean interpreter returns>`, for the reference `code`. */
const trueLine = (code: string, args: string) => `assert f(${args}) == ${py.runPython(`${code}\nrepr(f(${args}))`) as string}`;

beforeAll(async () => {
  py = await loadPyodide();
}, 120_000);

describe("set displays of one set and iteration order, different table layouts", () => {
  it("differ for a clean interpreter (the premise of the attack)", () => {
    expect(trueLine(ADD, X)).not.toBe(trueLine(ADD, Y).replace(Y, X));
    expect(py.runPython(`list(${X}) == list(${Y})`)).toBe(true);
  });

  it("are two calls: each line is judged against its own display, in other suites, the same suite and golden lines", async () => {
    const shapes = [
      (d: string) => d, // the set itself
      (d: string) => `[${d}]`, // inside a list
    ];
    const task = { id: "addlist", entry_point: "f", reference: ADD };
    for (const shape of shapes) {
      const code = ADD.replace("def f(s):", "def f(s):\n    s = s[0] if type(s) is list else s");
      const ref = { ...task, reference: code };
      const lx = trueLine(code, shape(X));
      const ly = trueLine(code, shape(Y));
      const request: GradeRequest = {
        tasks: [ref],
        codes: [{ task: "addlist", code }, { task: "addlist", code }, { task: "addlist", code }],
        suites: [
          { code: 0, text: lx },
          { code: 1, text: ly },
          { code: 2, text: `${lx}\n${ly}` },
        ],
        golden: [{ code: 0, text: ly }, { code: 1, text: lx }],
        limits: { test_ms: 1000 },
      };
      for (let batch = 0; batch < 2; batch++) {
        const r = await grader.grade(request);
        expect(r.suites.flat().map((l) => `${l.validity}/${l.verdict}`), JSON.stringify(r.suites)).toEqual(Array(4).fill("valid/pass"));
        expect(r.golden.flat().map((l) => l.verdict), JSON.stringify(r.golden)).toEqual(["pass", "pass"]);
      }
    }
  }, 300_000);

  it("a display written twice the same way is still one call (a repeat in its suite)", async () => {
    const line = trueLine(ADD, Y);
    const r = await grader.grade({ tasks: [{ id: "addlist", entry_point: "f", reference: ADD }], codes: [{ task: "addlist", code: ADD }], suites: [{ code: 0, text: `${line}\n${line}` }], limits: { test_ms: 1000 } });
    expect(r.suites[0].map((l) => l.validity)).toEqual(["valid", "invalid"]);
    expect(r.suites[0][1].reason).toMatch(/repeats the call of line 1/);
  }, 120_000);
});
