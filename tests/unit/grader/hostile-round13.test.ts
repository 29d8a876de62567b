/**
 * Round 12's open item (issue 27), closed as a class: a trusted reference that calls what its
 * arguments name (`getattr(value, name)(*args)`) lets a test line walk Python's introspection from
 * its own literals. Nothing it reaches may be the grader's own: no harness frame, global or builtin,
 * and no frame at all in the judge. Truth is a clean Pyodide (clean-python.ts): a line reaching the
 * harness there raises, so in the grader it must not be `valid` with an answer of the harness's; and
 * a line that changes what Python's builtins module holds changes nothing the grader computes.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";

const grader = sharedNodeGrader();
const { holds, suiteTruth } = cleanPython();

const APPLY = "def apply_ops(value, ops):\n    for name, args in ops:\n        value = getattr(value, name)(*args)\n    return value";
const PLAIN = "assert apply_ops('ab', [('upper', [])]) == 'AB'";
const step = (name: string, ...args: string[]) => `('${name}', [${args.join(", ")}])`;
const line = (start: string, steps: string[], answer: string) => `assert apply_ops(${start}, [${steps.join(", ")}]) == ${answer}`;

// From a str to the builtins module's __import__ (copyreg.__newobj__'s globals), then into that
// function's own globals: the judge's import hook held `frame` (sys._getframe) and from there the
// harness's `_state` (round 12). In a clean CPython __import__ is a C function: no __globals__.
const TO_IMPORT = [step("__reduce_ex__", "2"), step("__getitem__", "0"), step("__getattribute__", "'__globals__'"),
  step("__getitem__", "'__builtins__'"), step("__getitem__", "'__import__'"), step("__getattribute__", "'__globals__'")];
// copyreg's globals hold no sys; the builtins' `__spec__` (a ModuleSpec of importlib's bootstrap) has
// methods whose globals do (`_bootstrap`'s `sys`): from there a frame, or the collector.
const TO_SYS = [step("__reduce_ex__", "2"), step("__getitem__", "0"), step("__getattribute__", "'__globals__'"),
  step("__getitem__", "'__builtins__'"), step("__getitem__", "'__spec__'"), step("__getattribute__", "'__init__'"),
  step("__getattribute__", "'__func__'"), step("__getattribute__", "'__globals__'"), step("__getitem__", "'sys'")];
// The builtins module itself, from a list iterator's __reduce__ (`iter`'s __self__): overwrite `type`.
const POISON_TYPE = line("[]", [step("__iter__"), step("__reduce__"), step("__getitem__", "0"), step("__getattribute__", "'__self__'"),
  step("__getattribute__", "'__dict__'"), step("__setitem__", "'type'", "'x'")], "None");

async function judged(lines: string[][]) {
  const r = await grader.grade({
    tasks: [{ id: "ops", entry_point: "apply_ops", reference: APPLY }],
    codes: lines.map(() => ({ task: "ops", code: APPLY })),
    suites: lines.map((text, code) => ({ code, text: text.join("\n") })),
    limits: { test_ms: 1000 },
  });
  return r.suites.map((suite) => suite.map((l) => `${l.validity}/${l.verdict}`));
}

describe("a reference that calls what its arguments name, in the judge", () => {
  it("gives a line that walks into the import function's globals nothing of the harness's (round 12's line is invalid)", async () => {
    // Round 12's walk, on: `frame` (sys._getframe) is no longer there, and no frame would be given.
    const toFrame = line("''", [...TO_IMPORT, step("__getitem__", "'frame'"), step("__call__", "0"), step("__getattribute__", "'f_globals'"), step("__len__")], "40");
    expect(holds(APPLY, toFrame)).toBe(false);
    // The import function's own globals are the allow-list's (the same object in judge and sandbox, so a
    // correct program gets the judge's answer; a clean CPython's __import__ is a C function).
    const keys = line("''", [...TO_IMPORT, step("keys"), step("__len__")], "5");
    const [suite] = await judged([[toFrame, keys]]);
    expect(suite[0]).toMatch(/^invalid\//);
    expect(suite[1]).toBe("valid/pass");
  }, 300_000);

  it("refuses frames and the collector to a reference's call (no harness frame, global or object is reachable)", async () => {
    const lines = [
      line("''", [...TO_SYS, step("__getattribute__", "'_getframe'"), step("__call__", "0"), step("__getattribute__", "'f_back'"),
        step("__getattribute__", "'f_globals'"), step("__getitem__", "'_state'"), step("__getitem__", "'role'")], "'judge'"),
      line("''", [...TO_SYS, step("__getattribute__", "'modules'"), step("__getitem__", "'gc'"), step("__getattribute__", "'get_objects'"),
        step("__call__"), step("__len__"), step("__gt__", "0")], "True"),
    ];
    // Sanity: the walk itself works in a clean CPython (sys is reached; the frame has no harness above it).
    expect(holds(APPLY, line("''", [...TO_SYS, step("__getattribute__", "'__name__'")], "'sys'"))).toBe(true);
    const [suite] = await judged([lines]);
    expect(suite.every((v) => v.startsWith("invalid/")), suite.join(" ")).toBe(true);
  }, 300_000);

  it("keeps the grader's own code off the builtins module a line can overwrite", async () => {
    expect(suiteTruth(APPLY, [POISON_TYPE, PLAIN])).toEqual([true, true]);
    const [poisoned, other] = await judged([[POISON_TYPE, PLAIN], [PLAIN]]);
    expect(poisoned).toEqual(["valid/pass", "valid/pass"]);
    expect(other).toEqual(["valid/pass"]);
  }, 300_000);
});
