/**
 * Round 23 (issue 27): a stranger agent on round 22's fix (d7f4498). Each test asserts CPython's truth
 * first (a clean Pyodide: the program exec'd, then each line in its namespace), then that the grader's
 * verdict is that truth or a refusal; each failed on d7f4498. Fixed in harness `call`: the line's code
 * must load the entry point first and then only `set` (`_name_loads`, read from its bytecode), so a
 * fold that moves names, at load or during the compile, is a marked error; and a value canonical does
 * not read in full is a marked fail (the rest of its suite refused).
 * A. The compiled line is checked by its SET of names, not by where each name is: harness `call`
 *    compiles the line in the program's interpreter (whose `unicodedata.normalize` the parser calls on
 *    every non-ASCII identifier, per spelling) and accepts it when `co_names` is the entry point and
 *    `set`; it then calls the entry point on the judge's arguments. A normalize that maps `ｆ` to
 *    `set` and `ｓｅｔ` to `f` (or two spellings of `set` to different names) keeps that set while
 *    CPython runs another expression: `set(1) == f()` where the judge read `f(1) == set()`.
 * B. A value the harness stops reading is not marked: `canonical` gives up on a value past
 *    MAX_VALUE_NODES or _MAX_DEPTH with an unmarked `fail` (`_NotBuiltin`), without looking at the rest
 *    of it. A refused line's comparison that is not `==` (`assert 1 in f(0)`: list_contains compares
 *    EVERY item, it does not stop at the first unequal one) runs the `__eq__` of a program object that
 *    sits after the part the harness gave up on; CPython runs it, the grader does not and goes on
 *    grading the suite on a program state CPython never had.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne, OK_FAIL, OK_PASS, UNWARN } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();
const UNFAKE = "import sys; sys.modules.pop('unicodedata', None)"; // the truth interpreter is shared

// A program's unicodedata whose normalize maps each SPELLING to a name of its choosing (the judge folds them all by NFKC).
const fakeUcd = (map: string) =>
  "import collections\n_sys = collections._sys\n" +
  `_m = type(collections)('unicodedata')\n_MAP = ${map}\n_m.normalize = lambda form, s: _MAP.get(s, s)\n_sys.modules['unicodedata'] = _m\n`;
const FW_F = "\uff46"; // ｆ
const FW_SET = "\uff53\uff45\uff54"; // ｓｅｔ
const BOLD_SET = "\u{1d42c}\u{1d41e}\u{1d42d}"; // 𝐬𝐞𝐭

describe("A. the compiled line's names are checked as a set, not as the tree the judge read", () => {
  it("`ｆ` and `ｓｅｔ` swapped: CPython runs set(1) == f() (raises), the grader calls f(1)", async () => {
    const prog = fakeUcd("{'\\uff46': 'set', '\\uff53\\uff45\\uff54': 'f'}") + "def f(*a):\n    return set()";
    const ref = "def f(x):\n    return set()";
    const lines = [`assert ${FW_F}(1) == ${FW_SET}()`];
    expect(suiteTruth(prog, [...lines, UNFAKE]).slice(0, 1)).toEqual([false]);
    expect(suiteTruth(ref, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", ref, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("the names in the judge's order (f, set): a second spelling of set made f; CPython compares f(set()) with f()", async () => {
    const prog = fakeUcd("{'\\uff46': 'f', '\\uff53\\uff45\\uff54': 'set', '\\U0001d42c\\U0001d41e\\U0001d42d': 'f'}") + "def f(*a):\n    return set() if a else {0}";
    const ref = "def f(x):\n    return set()";
    const lines = [`assert ${FW_F}(${FW_SET}()) == ${BOLD_SET}()`];
    expect(suiteTruth(prog, [...lines, UNFAKE]).slice(0, 1)).toEqual([false]);
    expect(suiteTruth(ref, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", ref, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("the fold changed DURING the line's compile (a warning hook installs it after the entry point is read)", async () => {
    // No fake at load: the first SyntaxWarning ('\d', after `f(`) installs one, which the parser then
    // fetches for `ｓｅｔ`; CPython compares f('\d') with (f(), '\d').
    const prog =
      "import collections\n_sys = collections._sys\n_w = _sys.modules['warnings']\n_w.simplefilter('always')\n" +
      "def _hook(*a, **k):\n    m = type(collections)('unicodedata')\n    m.normalize = lambda form, s: 'f'\n    _sys.modules['unicodedata'] = m\n" +
      "_w.showwarning = _hook\ndef f(*a):\n    return (set(), '\\\\d')";
    const ref = "def f(x):\n    return (set(), '\\\\d')";
    const lines = [`assert f('\\d') == (${FW_SET}(), '\\d')`];
    expect(suiteTruth(prog, [...lines, UNFAKE, UNWARN]).slice(0, 1)).toEqual([false]);
    expect(suiteTruth(ref, lines)).toEqual([true]);
    const got = await gradeOne(grader, "f", ref, lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("golden: the same swap, a wrong program passes", async () => {
    const prog = fakeUcd("{'\\uff46': 'set', '\\uff53\\uff45\\uff54': 'f'}") + "def f(*a):\n    return set()";
    const lines = [`assert ${FW_F}(1) == ${FW_SET}()`];
    expect(suiteTruth(prog, [...lines, UNFAKE]).slice(0, 1)).toEqual([false]);
    const got = await gradeGolden(grader, "f", "def f(x):\n    return set()", lines, prog);
    expect(got[0], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
});

// f(0) returns a builtin list the harness stops reading before its last item, a program object whose
// __eq__ counts; f(1) says how often it ran.
const COUNTER = "hits = []\nclass E:\n    def __eq__(self, other):\n        hits.append(1)\n        return False\n    __hash__ = object.__hash__\n";
const BIG = COUNTER + "def f(x):\n    if x == 0:\n        return [[0] * 20001, E()]\n    return len(hits)";
const DEEP = COUNTER + "def f(x):\n    if x == 0:\n        d = []\n        for _ in range(150):\n            d = [d]\n        return [d, E()]\n    return len(hits)";
const REF_B = "def f(x):\n    return [1] if x == 0 else 0";

describe("B. a value past the harness's size or depth bound is an unmarked fail: CPython's `in` still runs a program object's __eq__ behind it", () => {
  it("too many nodes: `assert 1 in f(0)` then a valid line; a wrong program passes", async () => {
    const lines = ["assert 1 in f(0)", "assert f(1) == 0"];
    expect(suiteTruth(BIG, lines)).toEqual([false, false]); // __eq__ ran once: f(1) == 1
    expect(suiteTruth(REF_B, lines)).toEqual([true, true]);
    const got = await gradeOne(grader, "f", REF_B, lines, BIG);
    expect(got[1], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("nested too deeply: the same", async () => {
    const lines = ["assert 1 in f(0)", "assert f(1) == 0"];
    expect(suiteTruth(DEEP, lines)).toEqual([false, false]);
    const got = await gradeOne(grader, "f", REF_B, lines, DEEP);
    expect(got[1], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("a correct program (CPython: the count is 1) fails; `not in`, golden", async () => {
    const lines = ["assert 1 not in f(0)", "assert f(1) == 1"];
    expect(suiteTruth(BIG, lines)).toEqual([true, true]);
    const got = await gradeGolden(grader, "f", REF_B, lines, BIG);
    expect(got[1], got.join(" | ")).toMatch(OK_PASS);
  }, 300_000);
});
