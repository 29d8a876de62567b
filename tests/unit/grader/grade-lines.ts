/**
 * One task, one program, one suite: each line's `validity/verdict` (with the reason of an invalid
 * line), as the hostile rounds compare them with a clean CPython's truth (clean-python.ts).
 */
import type { SupervisedGrader } from "../../../src/core/grader/supervisor.ts";

type Graded = { validity: string; verdict: string; reason: string };
export const show = (l: Graded) => `${l.validity}/${l.verdict}${l.validity === "invalid" ? ": " + l.reason : ""}`;

/** `lines` as a generated suite of `code` (the reference itself by default). */
export async function gradeOne(grader: SupervisedGrader, entry: string, reference: string, lines: string[], code = reference): Promise<string[]> {
  const r = await grader.grade({
    tasks: [{ id: "t", entry_point: entry, reference }],
    codes: [{ task: "t", code }],
    suites: [{ code: 0, text: lines.join("\n") }],
    limits: { test_ms: 1000, max_lines: 8 },
  });
  return r.suites[0].map(show);
}

/** `lines` as a golden suite of `code` (taken as written: no reference runs them). */
export async function gradeGolden(grader: SupervisedGrader, entry: string, reference: string, lines: string[], code = reference): Promise<string[]> {
  const r = await grader.grade({
    tasks: [{ id: "t", entry_point: entry, reference }],
    codes: [{ task: "t", code }],
    golden: [{ code: 0, text: lines.join("\n") }],
    limits: { test_ms: 1000, max_lines: 8 },
  });
  return r.golden[0].map(show);
}
