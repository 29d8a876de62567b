/**
 * arena_reward.grade_suite against the supervisor's own judging (verdicts.ts: candidateLines and
 * judgeCandidate, the functions every real grading goes through) on seeded random suites: the same
 * validity (valid, reference-corrected wrong answer, invalid: malformed, repeated call, raising
 * reference, after an opaque line), verdict (pass, fail, error, timeout and the lines after it, skipped) and corrected
 * line for every line. Pyodide under Node, and CPython where python3 exists.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { loadPyodide, type PyodideInterface } from "pyodide";
import { beforeAll, describe, expect, it } from "vitest";
import type { Canonical } from "../../../src/core/grader/canonical.ts";
import type { GradeRequest, GradeResult, LineResult } from "../../../src/core/grader/types.ts";
import { argsKey, candidateLines, cutAfterOpaque, emptyResult, judgeCandidate, referenceKey, type CandidateRun, type Plan, type PlanLine, type StepResult } from "../../../src/core/grader/verdicts.ts";
import { Rng } from "../../../src/core/rng.ts";
import { nearValue, randomValue } from "./values.ts";

const MODULE = readFileSync(new URL("../../../src/core/export/arena_reward.py", import.meta.url), "utf8");
const DRIVER_PATH = new URL("./parity_driver.py", import.meta.url);
const MODULE_DIR = new URL("../../../src/core/export/", import.meta.url);
const LIMITS = { test_ms: 1000, load_ms: 2000, max_lines: 8 };

type Outcome = ["ok", Canonical] | ["error" | "fail" | "timeout", string] | ["error" | "fail", string, 1];
interface Case {
  /** Python's view: raw lines (a repeated call is not pre-marked), reference and candidate outcomes by argument key. */
  lines: ({ invalid: string; opaque?: true; side?: string; call?: string } | { call: string; args: string; answer: Canonical })[];
  reference: Record<string, Outcome>;
  candidate: Record<string, Outcome> | null;
}

/** The call a line writes for the argument tuple `a`. */
const callOf = (a: Canonical) => `f(${(a[1] as Canonical[]).map((x) => Number.parseInt(x[1] as string, 16)).join(", ")})`;

/** Seeded random suites: calls from a pool of 4 argument tuples, so lines repeat calls. */
function drawCases(count: number): { cases: Case[]; refValues: Canonical[] } {
  const rng = new Rng("grading parity");
  const cases: Case[] = [];
  const refValues: Canonical[] = [];
  for (let i = 0; i < count; i++) {
    const pool = Array.from({ length: 4 }, (_, k): Canonical => ["t", [["i", `0x${k + i}`]]]);
    const reference: Record<string, Outcome> = {};
    for (const a of pool) {
      if (rng.next() < 0.1) reference[argsKey(a)] = ["error", "ValueError: bad input"];
      else {
        const v = randomValue(rng, 1);
        refValues.push(v);
        reference[argsKey(a)] = ["ok", v];
      }
    }
    const lines: Case["lines"] = Array.from({ length: rng.range(1, 8) }, () => {
      const a = rng.pick(pool);
      if (rng.next() < 0.12) {
        // A refused line whose call CPython still makes (an assert with a message): the candidate makes it in its place.
        if (rng.next() < 0.5) return { invalid: "assert with a message", side: argsKey(a), call: callOf(a) };
        return rng.next() < 0.4 ? { invalid: "binds a name", opaque: true } : { invalid: "not `assert f(LITERALS) == LITERAL`" };
      }
      const ref = reference[argsKey(a)];
      const answer = ref[0] === "ok" && rng.next() < 0.6 ? (rng.next() < 0.5 ? ref[1] : nearValue(ref[1], rng)) : randomValue(rng, 1);
      return { call: callOf(a), args: argsKey(a), answer };
    });
    let candidate: Case["candidate"] = null;
    if (rng.next() < 0.9) {
      candidate = {};
      for (const a of pool) {
        const ref = reference[argsKey(a)];
        const r = rng.next();
        candidate[argsKey(a)] = r < 0.05 ? ["timeout", "exceeded 1000 ms"] : r < 0.12 ? ["error", "IndexError: list index out of range"]
          : r < 0.16 ? ["fail", "returned a non-builtin value: C is not a builtin value", 1]
          : ref[0] === "ok" && r < 0.7 ? ["ok", rng.next() < 0.5 ? ref[1] : nearValue(ref[1], rng)] : ["ok", randomValue(rng, 1)];
      }
    }
    cases.push({ lines, reference, candidate });
  }
  // Reference outputs whose corrected line would not fit a test line (round 44): a literal nested 101
  // deep (the harness sends none), and one of 1,995 characters whose line is 2,010 (judgeLine refuses
  // it); the line after each is judged as usual.
  let deep: Canonical = ["i", "0x0"];
  for (let n = 0; n < 101; n++) deep = ["l", [deep]];
  const long: Canonical = ["l", Array.from({ length: 665 }, (): Canonical => ["i", "0x0"])];
  for (const big of [deep, long]) {
    const [a, b] = [argsKey(["t", [["i", "0x1"]]]), argsKey(["t", [["i", "0x2"]]])];
    refValues.push(big, ["i", "0x2"]);
    cases.push({
      lines: [{ call: "f(1)", args: a, answer: ["i", "0x0"] }, { call: "f(2)", args: b, answer: ["i", "0x3"] }],
      reference: { [a]: ["ok", big], [b]: ["ok", ["i", "0x2"]] },
      candidate: { [a]: ["ok", ["i", "0x0"]], [b]: ["ok", ["i", "0x2"]] },
    });
  }
  return { cases, refValues };
}

/** The supervisor's judging of one case: the plan the harness would send (repeats marked), then verdicts.ts. */
function tsGrade(c: Case, literal: (v: Canonical) => string | null): LineResult[] {
  // One suite line per plan line (its text goes to the runner, which this test does not run).
  const text = c.lines.map((_, n) => `line ${n}`).join("\n");
  const request: GradeRequest = { tasks: [{ id: "t", entry_point: "f", reference: "" }], codes: [{ task: "t", code: "" }], suites: [{ code: 0, text }] };
  const seen = new Set<string>();
  const planLines = c.lines.map((l): PlanLine => {
    if ("invalid" in l) {
      if (l.side) return ["invalid", l.invalid, JSON.parse(l.side) as Canonical, null, l.call ?? null, JSON.parse(l.side) as Canonical];
      return l.opaque ? ["invalid", l.invalid, null, null, null, null, 1] : ["invalid", l.invalid, null, null, null, null];
    }
    // A repeat keeps its call (the harness's `_SideCall`): CPython makes it again.
    if (seen.has(l.args)) return ["invalid", "repeats an earlier line's call", JSON.parse(l.args) as Canonical, null, l.call, JSON.parse(l.args) as Canonical];
    seen.add(l.args);
    const args = JSON.parse(l.args) as Canonical;
    return ["valid", "", args, l.answer, l.call, args];
  });
  cutAfterOpaque(planLines); // as the supervisor does after the judge's plan
  const plan: Plan = { s: [planLines], g: [] };
  // The one suite's outputs (suite 0), by call.
  const outputs = new Map<string, StepResult>(Object.entries(c.reference).map(([k, o]): [string, StepResult] => {
    if (o[0] !== "ok") return [referenceKey(0, k), o];
    const lit = literal(o[1]);
    return [referenceKey(0, k), lit === null ? ["error", "no literal form"] : ["ok", o[1], lit]];
  }));
  const lines = candidateLines(request, plan, 0, new Map([["t", { load: ["ok", ""], outputs }]]));
  const run: CandidateRun = { load: c.candidate === null ? ["load", "NameError: f"] : ["ok", ""], got: new Map(), timedOut: new Set(), ended: null };
  if (c.candidate !== null) {
    for (const call of lines.calls) {
      // A refused line's compile in its place (no call) answers nothing any line reads.
      // A side call (a refused line's, keyed by its place) answers as the line's call does.
      const o = call.argv === null ? (["ok", ""] as StepResult) : c.candidate[argsKey(call.argv as Canonical)];
      run.got.set(call.key, o);
      if (o[0] === "timeout") {
        run.timedOut.add(call.group); // no later call of its suite runs
        break;
      }
    }
  }
  const result: GradeResult = emptyResult(request);
  judgeCandidate(result, 0, lines, run, LIMITS);
  return result.suites[0];
}

describe("arena_reward.grade_suite against verdicts.ts", () => {
  const { cases, refValues } = drawCases(300);
  let py: PyodideInterface;
  beforeAll(async () => {
    py = await loadPyodide();
    py.FS.writeFile("/home/pyodide/arena_reward.py", MODULE);
    py.runPython(readFileSync(DRIVER_PATH, "utf8"));
  }, 120_000);

  function check(run: (fn: "literals" | "grade", input: string) => string): void {
    const lits = JSON.parse(run("literals", JSON.stringify(refValues))) as (string | null)[];
    const byValue = new Map(refValues.map((v, i) => [JSON.stringify(v), lits[i]]));
    // Python reads a value without a literal form as "reference error" too: the same inputs for both.
    const pyCases = cases.map((c) => ({
      ...c,
      reference: Object.fromEntries(Object.entries(c.reference).map(([k, o]) => [k, o[0] === "ok" && byValue.get(JSON.stringify(o[1])) === null ? ["error", "no literal form"] : o])),
    }));
    const got = JSON.parse(run("grade", JSON.stringify(pyCases))) as { validity: string; verdict: string; corrected?: string }[][];
    const kinds = new Set<string>();
    cases.forEach((c, i) => {
      const want = tsGrade(c, (v) => byValue.get(JSON.stringify(v)) ?? null).map((l) => ({ validity: l.validity, verdict: l.verdict, ...(l.corrected ? { corrected: l.corrected } : {}) }));
      expect([i, got[i]]).toEqual([i, want]);
      for (const l of want) kinds.add(`${l.validity}/${l.verdict}`);
    });
    // Every kind of line the semantics distinguish occurred.
    for (const k of ["valid/pass", "valid/fail", "wrong-answer/pass", "wrong-answer/fail", "invalid/skipped", "valid/skipped", "valid/error", "valid/timeout"]) expect(kinds).toContain(k);
    // The two outputs past a test line's limits: invalid there, and the line after each a corrected wrong answer.
    for (const i of [cases.length - 2, cases.length - 1]) expect(got[i].map((l) => `${l.validity}/${l.verdict}`)).toEqual(["invalid/skipped", "wrong-answer/pass"]);
    // A refused line's call that timed out or left the program off CPython's path, with an executable line after it.
    expect(cases.some((c) => c.candidate !== null && c.lines.some((l, n) => {
      const key = "side" in l && l.side ? l.side : undefined;
      const o = key === undefined ? undefined : c.candidate![key];
      return o !== undefined && (o[0] === "timeout" || o[2] === 1) && c.lines.slice(n + 1).some((x) => "args" in x);
    }))).toBe(true);
    // And a line after a step that left the program off CPython's path: error, though its own call returned.
    expect(cases.some((c, i) => got[i].some((l, n) => { const line = c.lines[n]; return l.verdict === "error" && "args" in line && c.candidate?.[line.args]?.[0] === "ok"; }))).toBe(true);
  }

  it("in Pyodide", () => {
    check((fn, input) => (py.globals.get(fn) as (s: string) => string)(input));
  });

  const python3 = spawnSync("python3", ["--version"]).status === 0;
  it.skipIf(!python3)("in CPython (python3)", () => {
    check((fn, input) => {
      const r = spawnSync("python3", [DRIVER_PATH.pathname, MODULE_DIR.pathname, fn], { input, encoding: "utf8", maxBuffer: 64 << 20, env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
      if (r.status !== 0) throw new Error(r.stderr);
      return r.stdout;
    });
  });
});
