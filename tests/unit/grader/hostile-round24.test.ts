/**
 * Round 24 (issue 27): a stranger agent on round 23's fix (af09066). Each test asserts CPython's truth
 * first (a clean Pyodide: the program exec'd, then each line in its namespace), then that the grader's
 * verdict is that truth or a refusal; each failed on af09066. Fixed: the runner is sent how many
 * times the line writes set(), and the code must load the entry point and then `set` exactly that
 * many times (a name folded to a constant is one load short: a marked error).
 * A. A name the compiler turns into a constant is no load: harness `call` checks the line's code by
 *    its LOAD_NAMEs (`_name_loads`) and its `co_names`. A program's `unicodedata.normalize` that folds
 *    `ｓｅｔ` to `__debug__` makes CPython's compiler emit LOAD_CONST True for it (no name at all), so
 *    the loads are the entry point alone and the check passes; CPython runs `f(1) == True()` (a
 *    TypeError: the line fails, and where `ｓｅｔ()` is an argument, f is never called), while the
 *    grader calls f on the builtin empty set and compares with it.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne, OK_FAIL, OK_PASS } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();
const UNFAKE = "import sys; sys.modules.pop('unicodedata', None)"; // the truth interpreter is shared

// A program's unicodedata whose normalize maps each SPELLING to a name of its choosing (the judge folds them all by NFKC).
const fakeUcd = (map: string) =>
  "import collections\n_sys = collections._sys\n" +
  `_m = type(collections)('unicodedata')\n_MAP = ${map}\n_m.normalize = lambda form, s: _MAP.get(s, s)\n_sys.modules['unicodedata'] = _m\n`;
const FW_SET = "\uff53\uff45\uff54"; // ｓｅｔ
const TO_DEBUG = fakeUcd("{'\\uff53\\uff45\\uff54': '__debug__'}");

describe("A. `ｓｅｔ` folded to `__debug__` compiles to a constant, not a load: the name check passes, CPython calls True()", () => {
  it("a wrong program passes: CPython's `f(1) == True()` raises", async () => {
    const prog = TO_DEBUG + "def f(x):\n    return set()";
    const ref = "def f(x):\n    return set()";
    const lines = [`assert f(1) == ${FW_SET}()`];
    expect(suiteTruth(prog, [...lines, UNFAKE]).slice(0, 1)).toEqual([false]);
    expect(suiteTruth(ref, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", ref, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("`f(ｓｅｔ())`: CPython never calls f (True() raises first), so a call counter is off from then on", async () => {
    const prog = TO_DEBUG + "calls = []\ndef f(x):\n    calls.append(x)\n    return len(calls) - 1";
    const ref = "def f(x):\n    return 0";
    const lines = [`assert f(${FW_SET}()) == 0`, "assert f(1) == 0"];
    expect(suiteTruth(prog, [...lines, UNFAKE]).slice(0, 2)).toEqual([false, true]);
    expect(suiteTruth(ref, lines)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", ref, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
  it("golden: the same fold, a wrong program passes", async () => {
    const prog = TO_DEBUG + "def f(x):\n    return set()";
    const lines = [`assert f(1) == ${FW_SET}()`];
    expect(suiteTruth(prog, [...lines, UNFAKE]).slice(0, 1)).toEqual([false]);
    const got = await gradeGolden(grader, "f", "def f(x):\n    return set()", lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
});
