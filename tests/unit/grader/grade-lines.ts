/**
 * One task, one program, one suite: each line's `validity/verdict` (with the reason of an invalid
 * line), as the hostile rounds compare them with a clean CPython's truth (clean-python.ts).
 */
import { expect } from "vitest";
import type { SupervisedGrader } from "../../../src/core/grader/supervisor.ts";

type Graded = { validity: string; verdict: string; reason: string };
export const show = (l: Graded) => `${l.validity}/${l.verdict}${l.validity === "invalid" ? ": " + l.reason : ""}`;

async function grade(grader: SupervisedGrader, kind: "suites" | "golden", entry: string, reference: string, lines: string[], code: string): Promise<string[]> {
  const r = await grader.grade({
    tasks: [{ id: "t", entry_point: entry, reference }],
    codes: [{ task: "t", code }],
    [kind]: [{ code: 0, text: lines.join("\n") }],
    limits: { test_ms: 1000, max_lines: 8 },
  });
  return r[kind][0].map(show);
}

/** `lines` as a generated suite of `code` (the reference itself by default). */
export const gradeOne = (grader: SupervisedGrader, entry: string, reference: string, lines: string[], code = reference) =>
  grade(grader, "suites", entry, reference, lines, code);

/** `lines` as a golden suite of `code` (taken as written: no reference runs them). */
export const gradeGolden = (grader: SupervisedGrader, entry: string, reference: string, lines: string[], code = reference) =>
  grade(grader, "golden", entry, reference, lines, code);

/** A verdict a clean CPython does not contradict where its line holds: a pass, or a refusal. */
export const OK_PASS = /^valid\/pass$|^invalid\/|^valid\/error/;
/** A verdict a clean CPython does not contradict where its line fails: a fail, or a refusal. */
export const OK_FAIL = /^valid\/fail$|^invalid\/|^valid\/error/;
/** A line that puts the warnings machinery back, for a truth interpreter its test file shares. */
export const UNWARN = "import warnings; warnings.simplefilter('ignore'); warnings.showwarning = warnings._showwarning_orig if hasattr(warnings, '_showwarning_orig') else warnings.showwarning";

/**
 * A program that returns `bad` for f(0) and its argument otherwise (`prelude` before it): CPython
 * fails the suite's first line and holds the next two; the grader must say so in a generated and in a
 * golden suite (a value the canonical form does not read cuts nothing where it is builtin through and
 * through: rounds 43 and 49).
 */
export async function expectOnlyFirstLineFails(grader: SupervisedGrader, suiteTruth: (code: string, lines: string[]) => boolean[], bad: string, prelude = ""): Promise<void> {
  const reference = "def f(x):\n    return x";
  const lines = ["assert f(0) == 0", "assert f(1) == 1", "assert f(2) == 2"];
  const program = `${prelude}def f(x):\n    return ${bad} if x == 0 else x`;
  expect(suiteTruth(program, lines)).toEqual([false, true, true]);
  for (const got of [await gradeOne(grader, "f", reference, lines, program), await gradeGolden(grader, "f", reference, lines, program)]) {
    expect(got, got.join(" | ")).toEqual(["valid/fail", "valid/pass", "valid/pass"]); // before the fix: valid/fail | valid/error | valid/error
  }
}

/**
 * A program's head (rounds 55, 57) whose f(1) grows the wasm heap by ~3.8 GiB without touching it, in
 * a millisecond: bytearray.extend allocates the iterator's length hint up front (no memset), and the
 * nested extend holds the first buffer while it allocates the second. The caller adds f's other lines.
 */
export const GROW_UNTOUCHED_HEAD = [
  "class H:",
  "    def __init__(self, n, inner=None):",
  "        self.n, self.inner = n, inner",
  "    def __length_hint__(self):",
  "        return self.n",
  "    def __iter__(self):",
  "        return self",
  "    def __next__(self):",
  "        if self.inner is not None:",
  "            inner, self.inner = self.inner, None",
  "            bytearray().extend(inner)",
  "        raise StopIteration",
  "def f(x):",
  "    if x == 1:",
  "        bytearray().extend(H(1900 * 2 ** 20, H(1900 * 2 ** 20)))",
];
