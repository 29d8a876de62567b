/**
 * Per-line verdict badges of the duel view and Play. A line's grading has two parts
 * (src/core/grader/types.ts): its validity on the reference and its verdict on the candidate; the
 * badge shows the one a reader needs first.
 */
import type { CodeStatus, LineResult } from "../core/grader/types.ts";

export type BadgeKind = "pass" | "fail" | "wrong-answer" | "invalid" | "timeout" | "error" | "skipped";

export interface Badge {
  kind: BadgeKind;
  /** Short text on the badge (never colour alone, for colour-blind readers and projectors). */
  label: string;
  /** Longer explanation for the tooltip / screen readers. */
  title: string;
}

/**
 * - invalid: the line was not run (malformed, raises on the reference, or a repeat).
 * - timeout / error / fail / pass: the candidate's verdict on a valid line.
 * - wrong-answer: the test's expected value was wrong; it was reference-corrected and run, and the
 *   label adds the candidate's verdict ("wrong answer · fail").
 */
export function lineBadge(line: LineResult): Badge {
  const why = line.reason ? `: ${line.reason}` : "";
  if (line.validity === "invalid") return { kind: "invalid", label: "invalid", title: `invalid test, not run${why}` };
  if (line.verdict === "timeout") return { kind: "timeout", label: "timeout", title: `the code ran past the time limit${why}` };
  if (line.validity === "wrong-answer") {
    return {
      kind: "wrong-answer",
      label: `wrong answer · ${line.verdict}`,
      title: `the test's expected value disagrees with the reference; judged on the corrected line (${line.verdict})${why}`,
    };
  }
  switch (line.verdict) {
    case "pass":
      return { kind: "pass", label: "pass", title: "the code passes this test" };
    case "fail":
      return { kind: "fail", label: "fail", title: `the test breaks the code${why}` };
    case "error":
      return { kind: "error", label: "error", title: `the code raised an exception${why}` };
    default:
      return { kind: "skipped", label: "skipped", title: `not run on this code${why}` };
  }
}

/** Whether a line exposes a bug in the code: executable (not invalid) and not passed. */
export function exposesBug(line: LineResult): boolean {
  return line.validity !== "invalid" && line.verdict !== "pass" && line.verdict !== "skipped";
}

export interface SuiteCounts {
  total: number;
  pass: number;
  broke: number;
  invalid: number;
  wrongAnswer: number;
}

export function suiteCounts(lines: readonly LineResult[]): SuiteCounts {
  return {
    total: lines.length,
    pass: lines.filter((l) => l.validity !== "invalid" && l.verdict === "pass").length,
    broke: lines.filter(exposesBug).length,
    invalid: lines.filter((l) => l.validity === "invalid").length,
    wrongAnswer: lines.filter((l) => l.validity === "wrong-answer").length,
  };
}

/** The code's load status as a badge. */
export function codeStatusBadge(status: CodeStatus, reason = ""): Badge {
  const why = reason ? `: ${reason}` : "";
  switch (status) {
    case "ok":
      return { kind: "pass", label: "loads", title: "the code loads" };
    case "syntax-error":
      return { kind: "invalid", label: "syntax error", title: `the code does not parse${why}` };
    case "load-error":
      return { kind: "error", label: "load error", title: `the code raised while loading${why}` };
    case "timeout":
      return { kind: "timeout", label: "load timeout", title: `the code ran past the load limit${why}` };
  }
}
