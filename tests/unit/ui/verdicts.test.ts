import { describe, expect, it } from "vitest";
import { codeStatusBadge, exposesBug, lineBadge, suiteCounts } from "../../../src/ui/verdicts.ts";
import type { LineResult } from "../../../src/core/grader/types.ts";

const line = (validity: LineResult["validity"], verdict: LineResult["verdict"], reason = ""): LineResult => ({ validity, verdict, reason });

describe("verdict badges", () => {
  it("shows the verdict a reader needs first", () => {
    expect(lineBadge(line("valid", "pass")).kind).toBe("pass");
    expect(lineBadge(line("valid", "fail", "got 3")).title).toBe("the test breaks the code: got 3");
    expect(lineBadge(line("invalid", "skipped", "raises on the reference")).kind).toBe("invalid");
    expect(lineBadge(line("valid", "timeout")).kind).toBe("timeout");
    expect(lineBadge(line("wrong-answer", "fail")).label).toBe("wrong answer · fail");
    expect(lineBadge(line("valid", "error")).kind).toBe("error");
    expect(lineBadge(line("valid", "skipped")).kind).toBe("skipped");
  });
  it("counts lines that expose a bug: executable and not passed", () => {
    const ls = [line("valid", "pass"), line("valid", "fail"), line("wrong-answer", "error"), line("invalid", "skipped"), line("valid", "timeout")];
    expect(ls.map(exposesBug)).toEqual([false, true, true, false, true]);
    expect(suiteCounts(ls)).toEqual({ total: 5, pass: 1, broke: 3, invalid: 1, wrongAnswer: 1 });
  });
  it("labels code load status", () => {
    expect(codeStatusBadge("syntax-error", "line 2").title).toBe("the code does not parse: line 2");
    expect(codeStatusBadge("ok").label).toBe("loads");
  });
});
