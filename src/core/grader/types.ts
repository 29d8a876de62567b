/**
 * The grader's batch API: one source of truth for the request and result shapes, shared by the
 * Node executor, the browser sandbox worker, the `npm run grade` command line and every caller
 * (task checks, evaluation, the Code-A1 loop). Field names are snake_case because the same JSON
 * crosses into the Python harness and is documented in the README.
 *
 * Semantics follow ../shared/spec/code-a1.md, "What a test is and how it is judged".
 */

export interface GradeTask {
  id: string;
  entry_point: string;
  /** Ground-truth solution; trusted (written by people, not by a policy). */
  reference: string;
}

export interface GradeCode {
  /** Task id. */
  task: string;
  /** Untrusted Python defining the entry point. */
  code: string;
}

export interface GradeSuite {
  /** Index into `codes`. */
  code: number;
  /** Up to N lines, each `assert entry_point(literal args) == literal`. */
  text: string;
}

export interface GradeLimits {
  /** Wall-clock limit per test line (candidate or reference call), milliseconds. */
  test_ms?: number;
  /** Limit for loading (exec of the module body) of one candidate, milliseconds. */
  load_ms?: number;
  /**
   * Max lines read from one generated suite; its later lines are ignored (N in the spec, default 8).
   * Golden suites are read whole. verdicts.ts `suiteLines` gives a suite's lines as the grader reads them.
   */
  max_lines?: number;
}

export interface GradeRequest {
  tasks: GradeTask[];
  codes: GradeCode[];
  /** Generated suites: reference-corrected (see LineResult). */
  suites?: GradeSuite[];
  /** Human-written suites: run as written, no reference correction. */
  golden?: GradeSuite[];
  limits?: GradeLimits;
}

export const CODE_STATUSES = ["ok", "syntax-error", "load-error", "timeout"] as const;
export type CodeStatus = (typeof CODE_STATUSES)[number];

/**
 * - valid: parses as `assert CALL == ANSWER`, the reference runs, ANSWER equals its output, first
 *   occurrence of the line.
 * - wrong-answer: as valid, but ANSWER differs from the reference output; still run on the candidate
 *   with the reference output as the expected value ("reference-corrected").
 * - invalid: malformed, raises on the reference, or a repeat of an earlier line; not run.
 */
export const LINE_VALIDITIES = ["valid", "wrong-answer", "invalid"] as const;
export type Validity = (typeof LINE_VALIDITIES)[number];

/** skipped: the line was not run on the candidate (invalid line, or the code did not load). */
export const LINE_VERDICTS = ["pass", "fail", "error", "timeout", "skipped"] as const;
export type Verdict = (typeof LINE_VERDICTS)[number];

export interface LineResult {
  validity: Validity;
  /** Why the line is invalid / wrong / failed; empty when there is nothing to say. */
  reason: string;
  verdict: Verdict;
  /**
   * For executable lines (valid or wrong-answer): the line as the candidate was judged on it,
   * `assert CALL == REPR(reference output)`, in canonical form. This is what enters the Mistake
   * Book. Absent for invalid lines and for golden lines.
   */
  corrected?: string;
}

export interface CodeResult {
  status: CodeStatus;
  reason: string;
}

export interface GradeResult {
  /** One per request code, same order. */
  codes: CodeResult[];
  /** One per request suite, same order; one entry per line read. */
  suites: LineResult[][];
  /** One per request golden suite, same order. */
  golden: LineResult[][];
}

/** Progress of a long batch: a typed event, as in the rest of the app. */
export interface GradeProgress {
  phase: "load" | "grade";
  done: number;
  total: number;
  text: string;
}

/** Progress of a runner start (Grader.warm): runners ready of those asked for. */
export interface StartProgress {
  done: number;
  total: number;
  text: string;
}

/** The same interface in Node (worker_threads) and in the browser (a module Web Worker). */
export interface Grader {
  grade(request: GradeRequest, onProgress?: (p: GradeProgress) => void): Promise<GradeResult>;
  close(): Promise<void>;
  /** Start the Python runtimes now rather than inside the first batch (supervisor.ts). */
  warm?(onProgress?: (p: StartProgress) => void): Promise<void>;
  /** End the runtimes and fail the request in flight with `why`; the next request starts afresh (supervisor.ts). */
  halt?(why: string): Promise<void>;
}
