/**
 * Play: a person against a trained policy, graded by the same batch grader as training
 * (src/core/grader/types.ts). Two games:
 *  - defend: your solution, attacked by suites (the Test policy's, white-box, plus the task's golden
 *    tests); which lines break it?
 *  - attack: your tests against programs (the Code policy's samples, or the task's buggy
 *    variants); which programs do they catch, and are your tests right on the reference?
 * Building requests and reading results is pure and tested; the view only wires the clients.
 */
import type { GradeRequest, GradeResult, GradeTask, LineResult } from "../core/grader/types.ts";
import { suiteLines } from "../core/grader/verdicts.ts";
import { exposesBug } from "./verdicts.ts";

export class PlayInputError extends Error {
  override name = "PlayInputError";
}

/**
 * A suite as typed: its lines as the grader reads them (`suiteLines`: Python's line breaks, blank
 * lines dropped), so each test is paired with its own line's verdict; each must be an `assert`.
 */
export function parseUserTests(text: string, maxLines = 8): string[] {
  const lines = suiteLines(text).map((l) => l.trim());
  if (lines.length === 0) throw new PlayInputError("Write at least one test line, e.g. assert f([1, 2]) == 3");
  const bad = lines.findIndex((l) => !/^assert\s/.test(l));
  if (bad >= 0) throw new PlayInputError(`Line ${bad + 1} is not a test: every line must start with "assert ", got ${JSON.stringify(lines[bad])}`);
  if (lines.length > maxLines) throw new PlayInputError(`At most ${maxLines} test lines are graded (N = tests_per_suite); you wrote ${lines.length}`);
  return lines;
}

/** Your code must define the task's entry point. */
export function checkUserCode(code: string, entryPoint: string): void {
  if (code.trim() === "") throw new PlayInputError(`Write a solution defining ${entryPoint}(...)`);
  if (!new RegExp(`^def\\s+${entryPoint}\\s*\\(`, "m").test(code)) {
    throw new PlayInputError(`Your solution must define the entry point: def ${entryPoint}(...)`);
  }
}

export interface AttackSuite {
  /** Where the suite came from: "Test policy #2", "golden tests". */
  source: string;
  text: string;
}

/** Defend: one code (yours), several suites against it. */
export function defendRequest(task: GradeTask, code: string, suites: readonly AttackSuite[], maxLines = 8): GradeRequest {
  checkUserCode(code, task.entry_point);
  return {
    tasks: [task],
    codes: [{ task: task.id, code }],
    suites: suites.map((s) => ({ code: 0, text: s.text })),
    // A Test policy's suite holds at most N lines; the golden tests are shown whole (round 46).
    limits: { max_lines: Math.max(maxLines, ...suites.map((s) => suiteLines(s.text).length)) },
  };
}

export interface PlayLine {
  source: string;
  test: string;
  line: LineResult;
  /** The line exposes a bug in the code. */
  broke: boolean;
}

export interface DefendReport {
  codeStatus: GradeResult["codes"][number];
  lines: PlayLine[];
  /** Executable lines that break your code. */
  broken: number;
  /** Executable (non-invalid) lines. */
  executable: number;
}

export function defendReport(suites: readonly AttackSuite[], result: GradeResult): DefendReport {
  if (result.suites.length !== suites.length) throw new Error(`grader returned ${result.suites.length} suites for ${suites.length}`);
  const lines = suites.flatMap((s, i) => {
    const texts = s.text.split("\n");
    return result.suites[i].map((line, j) => ({ source: s.source, test: texts[j] ?? "", line, broke: exposesBug(line) }));
  });
  return {
    codeStatus: result.codes[0],
    lines,
    broken: lines.filter((l) => l.broke).length,
    executable: lines.filter((l) => l.line.validity !== "invalid").length,
  };
}

export interface Program {
  /** "Code policy #3", "buggy variant: off-by-one". */
  label: string;
  code: string;
}

/**
 * The programs an attack grades, in the order given: each distinct code once (its first label), and
 * a label that repeats numbered (two buggy variants may share a bug text: one per operator and line).
 */
export function attackPrograms(candidates: readonly Program[]): Program[] {
  const seen = new Set<string>();
  const labels = new Map<string, number>();
  const programs: Program[] = [];
  for (const { label, code } of candidates) {
    if (seen.has(code)) continue;
    seen.add(code);
    const n = (labels.get(label) ?? 0) + 1;
    labels.set(label, n);
    programs.push({ label: n > 1 ? `${label} (#${n})` : label, code });
  }
  return programs;
}

/** Attack: your tests, as one suite against each program. */
export function attackRequest(task: GradeTask, programs: readonly Program[], tests: readonly string[]): GradeRequest {
  if (programs.length === 0) throw new PlayInputError("No programs to attack yet: train a run or pick a task with buggy variants");
  const text = tests.join("\n");
  return {
    tasks: [task],
    codes: programs.map((p) => ({ task: task.id, code: p.code })),
    suites: programs.map((_, i) => ({ code: i, text })),
    limits: { max_lines: Math.max(1, suiteLines(text).length) },
  };
}

export interface AttackReport {
  /** Per test line: its validity on the reference (same for every program). */
  tests: { test: string; validity: LineResult["validity"]; reason: string }[];
  /** Per program, in the order given: its own label and code beside its verdicts (labels may repeat). */
  programs: { label: string; code: string; status: string; caught: boolean; lines: LineResult[] }[];
  caught: number;
}

export function attackReport(programs: readonly Program[], tests: readonly string[], result: GradeResult): AttackReport {
  const first = result.suites[0] ?? [];
  const rows = programs.map((p, i) => {
    const lines = result.suites[i] ?? [];
    const status = result.codes[i]?.status ?? "ok";
    // A program that does not load is caught by any test (it cannot pass anything).
    return { label: p.label, code: p.code, status, caught: status !== "ok" || lines.some(exposesBug), lines };
  });
  return {
    tests: tests.map((test, j) => ({ test, validity: first[j]?.validity ?? "invalid", reason: first[j]?.reason ?? "" })),
    programs: rows,
    caught: rows.filter((r) => r.caught).length,
  };
}
