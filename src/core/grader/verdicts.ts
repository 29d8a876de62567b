/**
 * From what the runners return to a GradeResult: the grader's semantics, decided here, in
 * TypeScript, where no candidate code runs (spec: "What a test is and how it is judged").
 * Pure functions, shared by the supervised grader and the native-python baseline.
 *
 *   1. the judge plans: every suite line parsed (harness `plan`), nothing run;
 *   2. each task's reference runs once per distinct argument tuple of its generated lines;
 *   3. a generated line is valid when its answer equals the reference output, wrong-answer
 *      (reference-corrected) otherwise, invalid when it does not parse, repeats a call, or the
 *      reference fails on it; golden lines are taken as written;
 *   4. each candidate runs once per distinct argument tuple of its executable lines, and each line's
 *      verdict compares the expected value with the candidate's; an invalid line whose call CPython
 *      still makes is called too, in its place (its result read by no line).
 */
import { checkCanonical, sameValue, showValue, type ArgsDisplay, type Canonical } from "./canonical.ts";
import type { CodeResult, GradeLimits, GradeRequest, GradeResult, LineResult } from "./types.ts";

/**
 * A parsed line (harness `plan`): [validity, reason, args, answer, call source, argv]. args are the
 * call's arguments as the line wrote them (dict order and the sign of zero kept): two lines are the
 * same call only when their args are the same canonical text. argv is what runners call with: the
 * args again, or, where they hold a set display (whose iteration order depends on how CPython
 * builds it), the arguments as written (ArgsDisplay). The call source is the entry point's name and
 * each argument's own text (the corrected line's left side).
 */
export type PlanLine =
  | ["valid" | "invalid", string, Canonical | null, Canonical | null, string | null, ArgsDisplay | null]
  | ["invalid", string, Canonical | null, Canonical | null, string | null, ArgsDisplay | null, 1];

/**
 * Whether a plan line is OPAQUE: refused, and it may do in CPython what candidates do not do in its
 * place (bind a name, make another call, run a program's method: harness `_opaque`). Every later
 * line of its suite is refused (`cutAfterOpaque`): its verdict would not be CPython's.
 */
export const isOpaque = (line: PlanLine): boolean => line[6] === 1;

/** Refuses (in place) every line after the first opaque one of a suite's plan lines. */
export function cutAfterOpaque(lines: PlanLine[]): void {
  const at = lines.findIndex(isOpaque);
  for (let n = at + 1; at >= 0 && n < lines.length; n++) {
    lines[n] = ["invalid", `after line ${at + 1}, which the grader does not run as CPython would (it may bind a name or make a call this line then sees)`, null, null, null, null];
  }
}
export interface Plan {
  /** Generated suites, in request order. */
  s: PlanLine[][];
  /** Golden suites, in request order. */
  g: PlanLine[][];
}

/**
 * One step's result (harness `load` / `call`, or the runner and supervisor for time and crashes):
 * ok carries the canonical value and, for references, its Python literal. An error or fail with a
 * third element 1 left the program in a state CPython would not (its own object's methods not run,
 * its own `set` not called): the rest of that suite is refused for that candidate (`judgeCandidate`).
 */
export type StepResult =
  | ["ok", Canonical | "", string?]
  | ["syntax" | "load" | "error" | "fail" | "timeout", string]
  | ["error" | "fail", string, 1];

const REASON_OUTCOMES = new Set(["syntax", "load", "error", "fail", "timeout"]);

/**
 * A step's result as a runner sent it (JSON text), checked against what that step can answer: null
 * when it is not a well-formed StepResult of its kind (a runner that ran untrusted code may send
 * anything). A load and a compile-only line answer `["ok",""]`, a call its value: a call's
 * `["ok",""]` would reach the verdicts as a value that is none (round 36: the batch was lost).
 */
export function parseStep(text: unknown, kind: "load" | "call"): StepResult | null {
  if (typeof text !== "string") return null;
  let step: unknown;
  try {
    step = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(step)) return null;
  if (step[0] === "ok") {
    const ok = kind === "load"
      ? step.length === 2 && step[1] === ""
      : step.length === 3 && checkCanonical(step[1]) !== null && typeof step[2] === "string";
    return ok ? (step as StepResult) : null;
  }
  if (step.length === 3 && step[2] === 1 && (step[0] === "error" || step[0] === "fail") && typeof step[1] === "string") return [step[0], step[1].slice(0, 500), 1];
  return step.length === 2 && REASON_OUTCOMES.has(step[0]) && typeof step[1] === "string" ? [step[0], step[1].slice(0, 500)] as StepResult : null;
}

/** A plan as the judge sent it, checked against the request's suites; null when malformed. */
export function parsePlan(text: unknown, suites: number, golden: number): Plan | null {
  let plan: unknown;
  try {
    plan = typeof text === "string" ? JSON.parse(text) : null;
  } catch {
    return null;
  }
  const p = plan as Plan | null;
  const lineOk = (l: unknown) => {
    if (!Array.isArray(l) || (l[0] !== "valid" && l[0] !== "invalid") || typeof l[1] !== "string") return false;
    if (l.length !== 6 && !(l.length === 7 && l[6] === 1 && l[0] === "invalid")) return false;
    if (l[2] === null) return l[0] === "invalid";
    const argvOk = checkCanonical(l[5], undefined, 0, true) !== null;
    // An invalid line may carry its call alone (CPython still makes it): no answer then.
    const answerOk = l[3] === null ? l[0] === "invalid" : checkCanonical(l[3]) !== null;
    return checkCanonical(l[2]) !== null && answerOk && (l[4] === null || typeof l[4] === "string") && argvOk;
  };
  const groupsOk = (g: unknown, n: number) => Array.isArray(g) && g.length === n && g.every((lines) => Array.isArray(lines) && lines.every(lineOk));
  return p && typeof p === "object" && groupsOk(p.s, suites) && groupsOk(p.g, golden) ? p : null;
}

/** Steps of one unit: [load, call 0, call 1, ...]; a step not run is missing. */
export type UnitSteps = StepResult[];

/** The key of an argument tuple: its canonical text. */
export const argsKey = (args: Canonical): string => JSON.stringify(args);

/**
 * The identity of a line's call: its arguments as the runners rebuild them (PlanLine argv: the
 * canonical args, or for arguments holding a set display the display as written). Not the values:
 * two set displays of one set and one iteration order can build tables of different sizes, and a
 * call that adds to its set then sees different orders, so they are two calls, each run as written.
 */
const callKey = (line: PlanLine): string => JSON.stringify(line[5] ?? line[2]);

type Limits = Required<GradeLimits>;

/**
 * One distinct call: its identity (callKey), the arguments to pass (PlanLine argv) and the line's
 * text, which the runner compiles in the program's interpreter first (interning its constants, the
 * answer's strs too, as CPython's compile does).
 */
export interface Call {
  key: string;
  /** The arguments; null for a line the candidate only compiles (`compileOnly`). */
  argv: ArgsDisplay | null;
  /** The line's own text: the runner compiles it as CPython would, in the program's interpreter (harness `call`). */
  src: string;
  /** How many times the line writes set() (an empty set, in its arguments or answer): each a load of the name `set`. */
  sets?: number;
}

/** How many empty sets a canonical value (or arguments as written) holds: a line writes each as set(). */
function emptySets(c: Canonical | ArgsDisplay | null): number {
  if (!c) return 0;
  if (c[0] === "S" && c[1].length === 0) return 1;
  if (c[0] === "d") return (c[1] as [Canonical, ArgsDisplay][]).reduce((n, [k, v]) => n + emptySets(k) + emptySets(v), 0);
  if (c[0] === "l" || c[0] === "t" || c[0] === "S" || c[0] === "F" || c[0] === "D") return (c[1] as ArgsDisplay[]).reduce((n, x) => n + emptySets(x), 0);
  return 0;
}

/**
 * Whether a reference's call returned (in time): with a value, or with one the harness cannot write
 * down (no literal form, past the size bound, not a builtin: round 41; a builtin value no literal writes:
 * round 43). Only a raise, a timeout or no
 * run at all spares candidates the call CPython makes.
 */
function returned(step: StepResult | undefined): boolean {
  if (!step) return false;
  return step[0] === "ok" || (step[0] === "error" && step[1].startsWith("output has no literal form: ")) ||
    (step[0] === "fail" && (step[1].startsWith("returned a non-builtin value: ") || step[1].startsWith("returned a value with no literal form: ")));
}

/** The suite line a plan line stands for: the plan's lines are the suite's non-blank lines (harness `plan`, `suiteLines`), one per line. */
const lineText = (key: string, src: string | undefined): string => {
  if (src === undefined) throw new Error(`internal: a plan line with no suite line (call ${key})`);
  return src;
};

/** A line's call: its identity, its arguments, its text, and what the runner does around it. */
const callOf = (key: string, line: PlanLine, src: string | undefined, answer: Canonical | ArgsDisplay | null = line[3]): Call =>
  ({ key, argv: line[5]!, sets: emptySets(line[5]) + emptySets(answer), src: lineText(key, src) });

/** A line Python's str.strip() empties (JavaScript's trim() differs: \x1c-\x1f, \x85, \ufeff). */
// eslint-disable-next-line no-control-regex -- Python counts these separators as whitespace
const PYTHON_BLANK = /^[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

/** A suite's lines as Python reads them (the harness's `plan` splits and filters them the same way): plan lines are these, in order. */
export const suiteLines = (text: string): string[] => text.replace(/\r\n?/g, "\n").split("\n").filter((l) => !PYTHON_BLANK.test(l));

/** A line's call as its runner is sent it (harness `call`): ["L", its text, the arguments, how many set() it writes], or ["C", its text] (compiled only). */
export const callText = (call: Call): string =>
  JSON.stringify(call.argv === null ? ["C", call.src] : ["L", call.src, call.argv, call.sets ?? 0]);

/** Adds a line's call to `calls` unless an equal call is there; returns its key. */
function addCall(calls: Map<string, Call>, line: PlanLine, src: string | undefined): string {
  const key = callKey(line);
  if (!calls.has(key)) calls.set(key, callOf(key, line, src));
  return key;
}

/**
 * The calls of each generated suite of one task's codes: per suite (its index in the request), its
 * distinct valid calls in line order. The reference runs each suite's calls in a unit of its own,
 * each call on a freshly loaded reference (supervisor `fresh`): a reference that keeps state between
 * calls (a memo, keyed by `==` as `lru_cache`, or by a conversion as `_memo[tuple(xs)]`) answers
 * each line as it would alone, and no suite changes another's.
 */
export function referenceCalls(request: GradeRequest, plan: Plan, task: string): { suite: number; calls: Call[] }[] {
  const suites: { suite: number; calls: Call[] }[] = [];
  (request.suites ?? []).forEach((suite, i) => {
    if (request.codes[suite.code].task !== task) return;
    const calls = new Map<string, Call>();
    const texts = suiteLines(suite.text);
    // Invalid lines' calls too (`sideCall`): a candidate makes one only where the reference's returned.
    plan.s[i].forEach((line, n) => {
      if (line[2] && line[5]) addCall(calls, line, texts[n]);
    });
    suites.push({ suite: i, calls: [...calls.values()] });
  });
  return suites;
}

/** A reference's outputs, by suite and call (`referenceKey`). */
export type ReferenceOutputs = Map<string, StepResult>;

/** The key of a reference output: the suite that made the call, and the call (callKey). */
export const referenceKey = (suite: number, callKey: string): string => `${suite}\u0000${callKey}`;

/** The judge's line limit (harness.py MAX_LINE_CHARS): a longer test line is refused unread. */
export const MAX_LINE_CHARS = 2000;

/** Python's len of a str: code points, not UTF-16 units. */
function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** What the reference says of one parsed generated line: its expected value or why it is invalid. */
function judgeLine(line: PlanLine, suite: number, outputs: ReferenceOutputs | undefined, loadStep: StepResult | undefined):
  { expected: Canonical; validity: "valid" | "wrong-answer"; reason: string; corrected?: string } | { invalid: string } {
  const [validity, reason, args, answer, callSrc] = line;
  if (validity === "invalid" || !args || !answer) return { invalid: reason };
  if (loadStep && loadStep[0] !== "ok") return { invalid: `reference failed to load: ${loadStep[1]}` };
  const out = outputs?.get(referenceKey(suite, callKey(line)));
  if (!out) return { invalid: "reference not run: an earlier line of its suite made the reference exceed its limit" };
  if (out[0] === "timeout") return { invalid: `reference timed out: ${out[1]} (a reference call gets half of test_ms, so that a program as fast as the reference has twice its time)` };
  if (out[0] !== "ok" || out[1] === "") return { invalid: `reference ${out[1]}` };
  const expected = out[1];
  const corrected = callSrc !== null && out[2] ? `assert ${callSrc} == ${out[2]}` : undefined;
  // A corrected line is a test the judge reads back (the Mistake Book replays it): within its line
  // limit, counted in code points as Python's len (the harness refuses a literal nested too deeply).
  if (corrected !== undefined && codePoints(corrected) > MAX_LINE_CHARS) {
    return { invalid: `reference output has no literal form: the corrected line would be ${codePoints(corrected)} characters, a test line at most ${MAX_LINE_CHARS} (round 44)` };
  }
  if (sameValue(answer, expected)) return { expected, validity: "valid", reason: "", corrected };
  return { expected, validity: "wrong-answer", reason: `answer ${showValue(answer)}, reference output ${showValue(expected)}`, corrected };
}

/** One candidate's executable lines: per suite line, its expected value, or null when it is not run. */
export interface CandidateLines {
  /** The calls to make, suite after suite (`group`), each suite's distinct calls in first-seen order. */
  calls: (Call & { group: string })[];
  /** [kind, suite index, per line: judged line]. */
  suites: { kind: "s" | "g"; index: number; lines: JudgedLine[] }[];
}
/** A judged line; `key` its call (an executable line's) or the call candidates make in its place (a refused line's). */
type JudgedLine = { validity: LineResult["validity"]; reason: string; expected?: Canonical; key?: string; group?: string; corrected?: string };

/**
 * The lines of code `c`, judged against the references; which calls the candidate must make. Each
 * suite (generated or golden) is its own group of calls, run on the program freshly loaded: a call
 * two suites share is made in each (a program that keeps state answers each suite as CPython would).
 */
export function candidateLines(
  request: GradeRequest,
  plan: Plan,
  c: number,
  references: Map<string, { load: StepResult | undefined; outputs: ReferenceOutputs }>,
): CandidateLines {
  const calls: CandidateLines["calls"] = [];
  const suites: CandidateLines["suites"] = [];
  const seen = new Set<string>();
  const add = (group: string, line: PlanLine, src: string | undefined, answer?: Canonical): string => {
    const key = `${group}\u0000${callKey(line)}`;
    if (!seen.has(key)) {
      seen.add(key);
      calls.push({ ...callOf(key, line, src, answer), group });
    }
    return key;
  };
  // An invalid line whose call CPython still makes (a repeat, an assert with a message, an answer that
  // is not a literal, a reversed comparison): the candidate makes it in its place, its own call (a
  // program that keeps state sees every call CPython makes, in order), its result read by no line.
  // In a generated suite only where the reference's own call of it returned a value within its limit
  // (half the candidate's: rule 4): a line the reference raises on, or cannot answer in time, costs
  // no candidate anything (a reference that raises at once bounds no candidate's time). Golden lines
  // are the task's own and taken as written.
  const sideCall = (group: string, n: number, line: PlanLine, src: string | undefined): string | undefined => {
    if (!line[2] || !line[5]) return undefined;
    const key = `${group}\u0000${n}`;
    calls.push({ ...callOf(key, line, src), group });
    return key;
  };
  // Every other line before a suite's first opaque one is compiled in the candidate's interpreter, in
  // its place, as CPython compiles every line it runs (a SyntaxWarning there runs the program's warning
  // hooks); such a line calls nothing of the program's (it is not opaque). Its step is read by no line.
  const compileOnly = (group: string, n: number, src: string | undefined): string => {
    const key = `${group}\u0000${n}`;
    calls.push({ key, argv: null, src: lineText(key, src), group });
    return key;
  };
  // A refused line: its side call (`call`: where one is made), else a compile in its place; after a
  // suite's opaque line, neither (the rest of the suite is refused: `cutAfterOpaque`).
  const inPlace = (group: string, n: number, line: PlanLine, src: string | undefined, call: boolean, after: { opaque: boolean }): string | undefined => {
    if (after.opaque) return undefined;
    const key = call ? sideCall(group, n, line, src) : undefined;
    if (isOpaque(line)) {
      after.opaque = true;
      return key;
    }
    return key ?? compileOnly(group, n, src);
  };
  (request.suites ?? []).forEach((suite, index) => {
    if (suite.code !== c) return;
    const ref = references.get(request.codes[c].task);
    const group = `s${index}`;
    const texts = suiteLines(suite.text);
    const after = { opaque: false };
    const lines = plan.s[index].map((line, n): JudgedLine => {
      const judged = judgeLine(line, index, ref?.outputs, ref?.load);
      if ("invalid" in judged) {
        const called = ref?.load?.[0] === "ok" && returned(ref.outputs.get(referenceKey(index, callKey(line))));
        return { validity: "invalid", reason: judged.invalid, key: inPlace(group, n, line, texts[n], called, after) };
      }
      // A wrong answer is judged as its corrected line: the candidate runs (compiles, then calls) that
      // line, as CPython would, never the answer the Test policy wrote (round 61: its compile's
      // warnings and interned constants told the program the answer was wrong, and what it was).
      const corrected = judged.validity === "wrong-answer" && judged.corrected !== undefined;
      return { ...judged, key: corrected ? add(group, line, judged.corrected, judged.expected) : add(group, line, texts[n]), group };
    });
    suites.push({ kind: "s", index, lines });
  });
  (request.golden ?? []).forEach((suite, index) => {
    if (suite.code !== c) return;
    const group = `g${index}`;
    const texts = suiteLines(suite.text);
    const after = { opaque: false };
    const lines = plan.g[index].map((line, n): JudgedLine => {
      const [validity, reason, args, answer] = line;
      if (validity === "invalid" || !args || !answer) return { validity: "invalid", reason, key: inPlace(group, n, line, texts[n], true, after) };
      return { validity: "valid", reason: "", expected: answer, key: add(group, line, texts[n]), group };
    });
    suites.push({ kind: "g", index, lines });
  });
  return { calls, suites };
}

/**
 * What a candidate's units gave: its load, each call's step (by call key), the suites an interrupted
 * timeout ended, and the step in flight when a unit was ended for good (a kill, a crash, a broken
 * protocol: no later call of the candidate runs).
 */
export interface CandidateRun {
  load: StepResult | undefined;
  got: Map<string, StepResult>;
  timedOut: Set<string>;
  ended: StepResult | null;
}

const STATUS: Record<string, CodeResult["status"]> = { ok: "ok", syntax: "syntax-error", timeout: "timeout" };

/** Verdicts of one candidate's lines from its units' steps; writes them into `result`. */
export function judgeCandidate(result: GradeResult, c: number, lines: CandidateLines, run: CandidateRun, limits: Limits): void {
  const load = run.load ?? (["error", "not run"] as StepResult);
  const status = STATUS[load[0]] ?? "load-error";
  result.codes[c] = { status, reason: status === "ok" ? "" : String(load[1]) };
  for (const { kind, index, lines: judged } of lines.suites) {
    let cut = ""; // why the rest of this suite is not graded (a step that left the program off CPython's path)
    (kind === "s" ? result.suites : result.golden)[index] = judged.map((line, n) => {
      // A call not run: an earlier call of its suite timed out (or was killed), or the candidate was ended by a second kill or a crash.
      const stopped = run.ended?.[0] === "timeout" || (line.group !== undefined && run.timedOut.has(line.group));
      const step = status === "ok" ? run.got.get(line.key ?? "") : undefined;
      const verdict = cut && line.validity !== "invalid" ? { verdict: "error" as const, why: cut } : lineVerdict(line, step, status === "ok", stopped, limits);
      if (!cut && step?.[2] === 1) cut = `not graded: line ${n + 1} left the program in a state CPython would not (${step[1]})`;
      const out: LineResult = { validity: line.validity, reason: join(line.reason, verdict.why), verdict: verdict.verdict };
      if (kind === "s" && line.corrected) out.corrected = line.corrected;
      return out;
    });
  }
}

function lineVerdict(line: JudgedLine, step: StepResult | undefined, loaded: boolean, stopped: boolean, limits: Limits):
  { verdict: LineResult["verdict"]; why: string } {
  if (line.validity === "invalid" || !loaded || !line.expected) return { verdict: "skipped", why: "" };
  if (!step) return stopped ? { verdict: "timeout", why: `not run: an earlier call exceeded ${limits.test_ms} ms` } : { verdict: "error", why: "not run" };
  if (step[0] === "ok") {
    const value = step[1] as Canonical;
    return sameValue(line.expected, value) ? { verdict: "pass", why: "" } : { verdict: "fail", why: `expected ${showValue(line.expected)}, got ${showValue(value)}` };
  }
  if (step[0] === "fail") return { verdict: "fail", why: step[1] };
  if (step[0] === "timeout") return { verdict: "timeout", why: step[1] };
  return { verdict: "error", why: step[1] };
}

const join = (a: string, b: string) => (!a ? b : !b ? a : `${a}; ${b}`);

/** An empty result: every code "not graded" until its candidate is judged. */
export function emptyResult(request: GradeRequest): GradeResult {
  return {
    codes: request.codes.map(() => ({ status: "load-error", reason: "not graded" })),
    suites: (request.suites ?? []).map(() => []),
    golden: (request.golden ?? []).map(() => []),
  };
}
