/** Compile-time checks of the shared public types (they fail `tsc`, and these tests, if they drift). */
import { describe, expect, expectTypeOf, it } from "vitest";
import type { Config, Mode } from "../../../src/core/config/index.ts";
import { DEFAULT_CONFIG } from "../../../src/core/config/index.ts";
import type { MistakeBookDelta, MistakeEntry } from "../../../src/core/loop/mistake-book.ts";
import { rewardMatrix, type DuelRecord, type StepMetrics } from "../../../src/core/loop/types.ts";

describe("public types", () => {
  it("Config fields have the types of their table rows", () => {
    expectTypeOf<Config["alpha"]>().toEqualTypeOf<number>();
    expectTypeOf<Config["mistake_book"]>().toEqualTypeOf<boolean>();
    expectTypeOf<Config["mode"]>().toEqualTypeOf<Mode>();
    expectTypeOf<Config["code_model"]>().toEqualTypeOf<"tiny" | "small">();
    expectTypeOf(DEFAULT_CONFIG).toEqualTypeOf<Readonly<Config>>();
  });
  it("StepMetrics: always-measured numbers, evaluation metrics nullable", () => {
    expectTypeOf<StepMetrics["code_reward"]>().toEqualTypeOf<number>();
    expectTypeOf<StepMetrics["kl_test"]>().toEqualTypeOf<number>();
    expectTypeOf<StepMetrics["mul"]>().toEqualTypeOf<number | null>();
    expectTypeOf<StepMetrics["plus_pass_heldout"]>().toEqualTypeOf<number | null>();
  });
  it("DuelRecord carries the reward matrix and the Mistake Book changes", () => {
    expectTypeOf(rewardMatrix).parameter(0).toEqualTypeOf<DuelRecord>();
    expectTypeOf(rewardMatrix).returns.toEqualTypeOf<number[][]>();
    expectTypeOf<DuelRecord["mistake_book"]>().toEqualTypeOf<MistakeBookDelta>();
    expectTypeOf<MistakeBookDelta["added"]>().toEqualTypeOf<MistakeEntry[]>();
  });
  it("rewardMatrix reads R_T as (codes, suites)", () => {
    const suite = (reward: number) => ({ text: "", lines: [], r_val: 0, r_adv: 0, reward });
    const code = (rewards: number[]) => ({ text: "", status: "ok" as const, reward: 0, mistake_book_lines: [], suites: rewards.map(suite) });
    const record: DuelRecord = {
      step: 1,
      task: "t",
      codes: [code([0.1, 0.2]), code([0.3, 0.4])],
      mistake_book_tests: [],
      topvar: { std: [0.05, 0.05], selected: [0] },
      mistake_book: { task: "t", step: 1, added: [], removed: [], changed: [] },
    };
    expect(rewardMatrix(record)).toEqual([[0.1, 0.2], [0.3, 0.4]]);
  });
});
