/**
 * Round 37: a stranger agent on f6a1fe8, ~30 minutes. Each test asserts CPython's truth first (a clean
 * Pyodide: the program exec'd, then each line exec'd in its namespace), then that the grader's verdict
 * is that truth or a refusal (grade-lines.ts OK_PASS / OK_FAIL). Tests here FAIL on f6a1fe8.
 *
 * A. A refused line's side call gets a set argument built without the line's EARLIER constants.
 *    In `assert {17, 9, 1} == f({1, 9, 17})` (invalid: "left side is not a call"; CPython still makes
 *    the call, and so do candidates, in its place: Not guaranteed "Calls of refused lines") CPython's
 *    compiler folds the left literal first, and the argument display `{1, 9, 17}`, an equal constant,
 *    is merged into it (round 5's "equal set displays in one line"): the argument iterates
 *    [17, 9, 1]. The judge's `_call_of` even sees this (its `_folded` still holds the left literal),
 *    but the argv it sends is the argument's display alone (`_display`: ["D", [1, 9, 17]]), and the
 *    runner's `_call` clears `_folded` and rebuilds it (`_from_canon` -> `_build_set`) without the
 *    left literal: the argument iterates [1, 9, 17]. A program that keeps what it saw (a memo, a log)
 *    then answers a later VALID line otherwise than in CPython: a forged fail (golden and generated).
 *    Root cause: harness `_parse_line` / `_call_of` (argv of a side call whose line holds a folded
 *    set display before the call) and `_call` (rebuilds with `_folded` cleared).
 *    Fixed: such a line is opaque (harness `_opaque`: a set display before a side call whose
 *    arguments hold one): the lines after it are refused, as for any line the grader cannot run as
 *    CPython would. A3: the shapes of the class (nested, `in`, chained, a tuple before the call).
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, OK_FAIL, OK_PASS } from "./grade-lines.ts";

const { suiteTruth } = cleanPython();
const grader = sharedNodeGrader();

/** Remembers the first element of the first set it is given; f(None) answers it. */
const FIRST = "first = []\ndef f(s):\n    if s is None:\n        return first[0] if first else -1\n    first.append(next(iter(s)))\n    return len(s)";

describe("A. a side call's set argument is rebuilt without the line's earlier equal display (harness `_call_of` argv / `_call`)", () => {
  it("A1. golden: the program saw the set iterate from 17 in CPython, from 1 in the grader", async () => {
    const lines = ["assert {17, 9, 1} == f({1, 9, 17})", "assert f(None) == 17"];
    expect(suiteTruth(FIRST, lines)).toEqual([false, true]); // line 1: {17,9,1} == 3 is False; line 2 holds
    const got = await gradeGolden(grader, "f", FIRST, lines, FIRST);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);

  it("A2. generated: a valid line of a stateless reference, failed by a program CPython passes", async () => {
    const reference = "def f(s):\n    return 17 if s is None else len(s)";
    const lines = ["assert {17, 9, 1} != f({1, 9, 17})", "assert f(None) == 17"];
    expect(suiteTruth(reference, lines)).toEqual([true, true]);
    expect(suiteTruth(FIRST, lines)).toEqual([true, true]);
    const r = await grader.grade({
      tasks: [{ id: "t", entry_point: "f", reference }],
      codes: [{ task: "t", code: FIRST }],
      suites: [{ code: 0, text: lines.join("\n") }],
      limits: { test_ms: 1000, max_lines: 8 },
    });
    const got = r.suites[0].map((l) => `${l.validity}/${l.verdict}${l.validity === "invalid" ? ": " + l.reason : ""}`);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);

  it("A3. every shape that puts an equal set display before the call: the next line is CPython's verdict or refused", async () => {
    const before = [
      "assert ({17, 9, 1},) == f({1, 9, 17})",
      "assert {17, 9, 1} in f({1, 9, 17})",
      "assert 3 == f({1, 9, 17}) == {17, 9, 1} or {17, 9, 1} == f({1, 9, 17})",
      "assert [{17, 9, 1}] != f(({1, 9, 17},))",
    ];
    const reference = "def f(s):\n    return 17 if s is None else 3";
    for (const first of before) {
      const lines = [first, "assert f(None) == 17"];
      const truth = suiteTruth(FIRST, lines);
      if (before.indexOf(first) < 2) expect(truth[1], first).toBe(true); // the argument iterates from 17: merged
      const got = await gradeGolden(grader, "f", reference, lines, FIRST);
      expect(got[1], `${first}: ${got.join(" | ")}`).toMatch(truth[1] ? OK_PASS : OK_FAIL);
    }
  }, 300_000);
});
