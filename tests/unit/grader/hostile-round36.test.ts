/**
 * Round 36: a stranger agent, ~30 minutes. Each test asserts CPython's truth first (a clean Pyodide:
 * the program exec'd, then each line exec'd in its namespace), then that the grader's verdict is that
 * truth or a refusal (grade-lines.ts OK_PASS / OK_FAIL). Tests here FAIL on the current code.
 *
 * A. One candidate loses the whole batch: a step result `["ok",""]` (the load's, and a compile-only
 *    line's, shape) passes `parseStep` (verdicts.ts: `loadOk` is accepted for any step) as a CALL's
 *    result. `lineVerdict` then compares the line's expected value with "" (not equal), and
 *    `showValue("")` throws (canonical.ts: `BRACKETS[undefined]` destructured), inside
 *    `judgeCandidate`, inside the supervisor's `run`: `grade()` rejects, and every other candidate's
 *    verdicts of the batch are lost. A program makes its harness's `call` return that text by
 *    rebinding `call.__code__` through a frame (`sys._getframe`, allowed in the sandbox; round 3's
 *    move), which Not guaranteed says moves "only its own verdicts".
 *    Fixed: `parseStep` checks a result against its step's kind (a load and a compile-only line answer
 *    `["ok",""]`, a call its value and literal); anything else is off protocol, an `error` of that
 *    candidate alone; `showValue` is total. B: every forged shape of a call's result, through the
 *    real grader, costs the forging candidate alone.
 */
import { describe, expect, it } from "vitest";
import { showValue, type Canonical } from "../../../src/core/grader/canonical.ts";
import { parseStep } from "../../../src/core/grader/verdicts.ts";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { OK_PASS, show } from "./grade-lines.ts";

const { suiteTruth } = cleanPython();
const grader = sharedNodeGrader();

const REFERENCE = "def f(x):\n    return x + 1";
/** At load: find the harness's namespace up the frames (none in a clean CPython) and make `call` answer ["ok",""]. */
const FORGE_OK_EMPTY =
  "import collections\n" +
  "_fr = collections._sys._getframe(0)\n" +
  "while _fr is not None:\n" +
  "    _g = _fr.f_globals\n" +
  "    if '_REFUSED' in _g and 'call' in _g:\n" +
  "        _g['call'].__code__ = (lambda args_text, literal: '[\"ok\",\"\"]').__code__\n" +
  "        break\n" +
  "    _fr = _fr.f_back\n" +
  "del _fr\n" +
  REFERENCE;

describe("A. a forged `[\"ok\",\"\"]` call result throws in the supervisor (verdicts.ts parseStep / showValue)", () => {
  it("A1. the whole batch is lost: an honest candidate beside it gets no verdict", async () => {
    const lines = ["assert f(1) == 2"];
    expect(suiteTruth(FORGE_OK_EMPTY, lines)).toEqual([true]); // clean CPython: the frame walk finds nothing, f(1) == 2
    expect(suiteTruth(REFERENCE, lines)).toEqual([true]);
    const graded = grader.grade({
      tasks: [{ id: "t", entry_point: "f", reference: REFERENCE }],
      codes: [{ task: "t", code: REFERENCE }, { task: "t", code: FORGE_OK_EMPTY }],
      suites: [{ code: 0, text: lines.join("\n") }, { code: 1, text: lines.join("\n") }],
      limits: { test_ms: 1000, max_lines: 8 },
    }).then((r) => r, (e: unknown) => `the batch was lost: ${String(e)}`);
    const r = await graded;
    expect(typeof r, String(r)).toBe("object");
    if (typeof r === "object") {
      expect(r.suites[0].map(show)).toEqual(["valid/pass"]);
      expect(show(r.suites[1][0])).toMatch(OK_PASS);
    }
  }, 300_000);
});

/** As FORGE_OK_EMPTY, with the harness's `call` answering `text` (a Python str literal). */
const forging = (text: string) => FORGE_OK_EMPTY.replace("'[\"ok\",\"\"]'", text);

describe("B. a call's result of another step's shape, or none, costs its candidate alone", () => {
  it("parseStep takes a load's shape for a load only, a call's for a call only; showValue never throws", () => {
    expect(parseStep('["ok",""]', "load")).toEqual(["ok", ""]);
    expect(parseStep('["ok",""]', "call")).toBeNull();
    expect(parseStep('["ok",["i","0x2"],"2"]', "call")).toEqual(["ok", ["i", "0x2"], "2"]);
    expect(parseStep('["ok",["i","0x2"],"2"]', "load")).toBeNull();
    expect(parseStep('["fail","expected 2",1]', "call")).toEqual(["fail", "expected 2", 1]);
    for (const odd of ["", 0, null, ["q", []], ["l"], ["d", 3], ["S", null], ["i", "zz"], ["l", [["i", "0x"]]]]) expect(typeof showValue(odd as unknown as Canonical)).toBe("string");
  });

  it("each forged answer (a load's shape, a value with no literal, a bare value, nothing) leaves the honest candidate's verdict and the next batch", async () => {
    const lines = ["assert f(1) == 2"];
    expect(suiteTruth(REFERENCE, lines)).toEqual([true]);
    const forged = ['\'["ok",""]\'', '\'["ok",["i","0x2"]]\'', '\'["ok",["i","0x2"],7]\'', "'[\"ok\"]'", "'[]'", "'\"ok\"'", '\'["ok",["zz",1],"2"]\''];
    for (const text of forged) {
      const code = forging(text);
      expect(code).toContain(text);
      expect(suiteTruth(code, lines)).toEqual([true]); // clean CPython: the frame walk finds nothing
      const r = await grader.grade({
        tasks: [{ id: "t", entry_point: "f", reference: REFERENCE }],
        codes: [{ task: "t", code: REFERENCE }, { task: "t", code }, { task: "t", code: REFERENCE }],
        suites: [0, 1, 2].map((i) => ({ code: i, text: lines.join("\n") })),
        limits: { test_ms: 1000, max_lines: 8 },
      });
      expect(r.suites[0].map(show), text).toEqual(["valid/pass"]);
      expect(r.suites[2].map(show), text).toEqual(["valid/pass"]);
      expect(show(r.suites[1][0]), text).toMatch(OK_PASS);
    }
  }, 300_000);
});
