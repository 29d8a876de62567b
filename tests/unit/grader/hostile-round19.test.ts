/**
 * Round 19 (issue 27): a stranger agent (25 minutes) on round 18 (858ec16). The grader's own harness
 * ran program code that CPython never runs while running the suite, so the program's state after a
 * line differed from CPython's and a later (or the same) valid line got a verdict CPython contradicts.
 * Each test failed on 858ec16; now the harness reads no program exception's attributes (only a
 * builtin exception's args; a class's name by type's C getter) and looks no name up in a program's
 * namespace (it walks the items, comparing exact str keys; a namespace with another key is `load`,
 * or `error` with the rest of the suite not graded).
 * 1. `_exc_reason` reads `e.args` and `type(e).__name__` of an exception the program raised: a
 *    property `args` on the exception class, or a metaclass property `__name__`, is program code.
 * 2. the harness looks the entry point up in the program's globals more often than CPython's
 *    LOAD_NAME does (load: `ns.get`, call: `entry not in ns` then `ns[entry]`): a global key whose
 *    hash collides with the entry point's name has its `__eq__` run once per lookup.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { cleanPython } from "./clean-python.ts";
import { gradeGolden, gradeOne } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const { suiteTruth } = cleanPython();
const NXT = "def nxt(x):\n    return x + 1";
const OK = /^valid\/pass$|^invalid\/|^valid\/error/;
const OK_FAIL = /^valid\/fail$|^invalid\/|^valid\/error/;

const ARGS_PROP = (breaks: boolean) =>
  "flag = [0]\nclass E(Exception):\n    @property\n    def args(self):\n        flag[0] = 1\n        return ()\n" +
  `def nxt(x):\n    if x == 1:\n        raise E()\n    return x + 1 if ${breaks ? "flag[0]" : "not flag[0]"} else 0`;
const META_NAME =
  "flag = [0]\nclass M(type):\n    @property\n    def __name__(cls):\n        flag[0] = 1\n        return 'E'\n" +
  "class E(Exception, metaclass=M):\n    pass\n" +
  "def nxt(x):\n    if x == 1:\n        raise E()\n    return x + 1 if not flag[0] else 0";

describe("an exception's args / __name__ read by the harness is program code CPython does not run", () => {
  const lines = ["assert nxt(1) == 2", "assert nxt(5) == 6"];
  it("args property: a correct-after-raise program fails line 2 in the grader, passes in CPython", async () => {
    expect(suiteTruth(ARGS_PROP(false), lines)).toEqual([false, true]);
    const got = await gradeOne(grader, "nxt", NXT, lines, ARGS_PROP(false));
    expect(got[1], got.join(" | ")).toMatch(OK);
  }, 300_000);
  it("args property, golden: a wrong program passes line 2 in the grader, fails in CPython", async () => {
    expect(suiteTruth(ARGS_PROP(true), lines)).toEqual([false, false]);
    const got = await gradeGolden(grader, "nxt", NXT, lines, ARGS_PROP(true));
    expect(got[1], got.join(" | ")).toMatch(OK_FAIL);
  }, 300_000);
  it("metaclass __name__ property", async () => {
    expect(suiteTruth(META_NAME, lines)).toEqual([false, true]);
    const got = await gradeOne(grader, "nxt", NXT, lines, META_NAME);
    expect(got[1], got.join(" | ")).toMatch(OK);
  }, 300_000);
  it("a refused side-call line raising it (`assert nxt(1) != 3`) then a valid line", async () => {
    const l2 = ["assert nxt(1) != 3", "assert nxt(5) == 6"];
    expect(suiteTruth(ARGS_PROP(false), l2)).toEqual([false, true]);
    const got = await gradeOne(grader, "nxt", NXT, l2, ARGS_PROP(false));
    expect(got[1], got.join(" | ")).toMatch(OK);
  }, 300_000);
});

// A global key whose hash is the entry point's name's, inserted before it: every lookup of `nxt` in the
// module dict runs its __eq__. CPython's `assert nxt(1) == 2` looks `nxt` up once.
const COLLIDE =
  "n = [0]\nclass K:\n    def __hash__(self):\n        return hash('nxt')\n    def __eq__(self, o):\n        n[0] += 1\n        return False\n" +
  "globals()[K()] = 0\ndef nxt(x):\n    return x + 1 if n[0] <= 2 else 0";

describe("extra lookups of the entry point in the program's globals", () => {
  it("a single valid line: CPython passes; the grader refuses the program at load (its lookups would not be CPython's)", async () => {
    const lines = ["assert nxt(1) == 2"];
    expect(suiteTruth(COLLIDE, lines)).toEqual([true]);
    const r = await grader.grade({
      tasks: [{ id: "t", entry_point: "nxt", reference: NXT }],
      codes: [{ task: "t", code: COLLIDE }, { task: "t", code: NXT }],
      suites: [{ code: 0, text: lines[0] }, { code: 1, text: lines[0] }],
      limits: { test_ms: 1000, max_lines: 8 },
    });
    expect(r.codes[0].status).toBe("load-error");
    expect(r.codes[0].reason).toMatch(/namespace holds a key that is not a str/);
    expect(r.suites[0][0].verdict).toBe("skipped");
    expect(r.suites[1][0].verdict).toBe("pass"); // the next candidate, as usual
  }, 300_000);

  it("a key added during a call: error, and the rest of the suite not graded", async () => {
    const during =
      "n = [0]\nclass K:\n    def __hash__(self):\n        return hash('nxt')\n    def __eq__(self, o):\n        n[0] += 1\n        return False\n" +
      "def nxt(x):\n    globals()[K()] = 0\n    return x + 1";
    const got = await gradeOne(grader, "nxt", NXT, ["assert nxt(1) == 2", "assert nxt(5) == 6", "assert nxt(7) == 8"], during);
    // Line 1's own lookup happened before the key existed (pass); line 2's lookup would run K's __eq__.
    expect(got).toEqual(["valid/pass", "valid/error", "valid/error"]);
  }, 300_000);
});
