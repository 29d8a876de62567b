/**
 * The rewards on real grader output (Pyodide in a worker thread): one duel of the `max` task graded
 * for real, then scored; every number below is computed by hand in the comments.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { GradeResult, Grader } from "../../../src/core/grader/types.ts";
import { mistakeBookOutcome } from "../../../src/core/loop/mistake-book.ts";
import { codeReward, passCounts, scorePair, suiteCounts } from "../../../src/core/loop/rewards.ts";
import { topVar } from "../../../src/core/loop/topvar.ts";
import { createNodeGrader } from "../../../src/node/grader.ts";

const TASK = { id: "max", entry_point: "f", reference: "def f(xs):\n    return max(xs)" };
const CODES = [
  "def f(xs):\n    return xs[0]", // buggy
  "def f(xs):\n    return sorted(xs)[-1]", // correct
  "def f(xs):\n    return xs[", // does not load
];
const SUITE = [
  "assert f([3, 1]) == 3", // valid: buggy passes
  "assert f([1, 3]) == 3", // valid: buggy fails
  "assert f([5, 1]) == 7", // wrong answer (reference 5): corrected, buggy passes
  "assert f([1, 3]) == 3", // duplicate: invalid
  "assert f([]) == 0", // raises on the reference: invalid
  "assert f([2, 9, 4]) == 9", // valid: buggy fails
].join("\n");
const BOOK = ["assert f([0, 5]) == 5", "assert f([7]) == 7"];

let grader: Grader;
let result: GradeResult;
beforeAll(async () => {
  grader = await createNodeGrader();
  result = await grader.grade({
    tasks: [TASK],
    codes: CODES.map((code) => ({ task: "max", code })),
    suites: CODES.map((_, code) => ({ code, text: SUITE })),
    golden: CODES.map((_, code) => ({ code, text: BOOK.join("\n") })),
    limits: { test_ms: 500 },
  });
});
afterAll(async () => {
  await grader?.close();
});

it("scores a real duel as computed by hand", () => {
  expect(result.codes.map((c) => c.status)).toEqual(["ok", "ok", "syntax-error"]);
  const scores = CODES.map((_, i) => scorePair({ suite: result.suites[i], mistakeBook: result.golden[i], codeStatus: result.codes[i].status, alpha: 0.5 }));

  // buggy: 4 unique executable, 3 invalid (wrong answer, duplicate, raising) -> R_val = min(4/8, 5/8) = 0.5
  expect(scores[0].counts).toMatchObject({ lines: 6, unique_executable: 4, invalid: 3, passed: 2, failed: 2, failed_first_n: 2 });
  expect(scores[0].r_val).toBe(0.5);
  // gen_fail 2/8, hist_fail 1 - 1/2 -> R_adv = (0.25 - 0.5 + 1) / 2 = 0.375; R_T = 0.25 + 0.1875
  expect(scores[0].r_adv).toBe(0.375);
  expect(scores[0].reward).toBe(0.4375);
  // correct: gen_fail 0, hist_fail 0 -> R_adv 0.5; R_T = 0.25 + 0.25
  expect(scores[1].reward).toBe(0.5);
  // does not load: R_T 0
  expect(scores[2].reward).toBe(0);

  const rc = CODES.map((_, i) => codeReward({ codeStatus: result.codes[i].status, suites: [suiteCounts(result.suites[i])], mistakeBook: passCounts(result.golden[i]) }));
  // buggy 1/2 (1/2 + 2/4); correct 1/2 (1 + 1); broken 0
  expect(rc).toEqual([0.5, 1, 0]);

  // TopVar over one suite per code: every std is 0; ties go to the lowest index
  expect(topVar(scores.map((s) => [s.reward]), 1)).toEqual({ std: [0, 0, 0], selected: [0] });
});

it("feeds the Mistake Book with the reference-corrected text of the failures", () => {
  const outcome = mistakeBookOutcome(
    BOOK,
    CODES.map((code, i) => ({ code, loaded: result.codes[i].status === "ok", suites: [result.suites[i]], bookLines: result.golden[i] })),
  );
  expect(outcome.failed).toEqual([
    { test: "assert f([1, 3]) == 3", code: CODES[0] },
    { test: "assert f([2, 9, 4]) == 9", code: CODES[0] },
  ]);
  expect(outcome.passed).toEqual([BOOK[1], BOOK[0], BOOK[1]]);
});
