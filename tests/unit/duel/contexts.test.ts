import { describe, expect, it } from "vitest";
import { arenaV1 } from "../../../src/core/arena/task-suite.ts";
import { decodeCode, encodeCode } from "../../../src/core/arena/tokenizer.ts";
import { taskSignature } from "../../../src/core/arena/task.ts";
import { anonymiseProgram, arenaVocabulary, codeContext, completionBudgets, testContext } from "../../../src/core/duel/contexts.ts";

const vocab = arenaVocabulary();
const sig = { entry_point: "f", params: [{ name: "xs", type: "list[int]" as const }], returns: "int" as const };

describe("duel contexts", () => {
  it("anonymises local names by first appearance, keeping parameters and methods", () => {
    const src = "def f(xs):\n    total = 0\n    for best in xs:\n        total += best + xs.count(best)\n    return total";
    const out = decodeCode(vocab, anonymiseProgram(vocab, encodeCode(vocab, src, sig)));
    expect(out).toBe("def f(xs):\n    i = 0\n    for j in xs:\n        i += j + xs.count(j)\n    return i");
  });

  it("frames the Test policy's context as the Code policy's plus the program (white-box) or nothing (black-box)", () => {
    const task = arenaV1().tasks[0];
    const program = encodeCode(vocab, task.reference, taskSignature(task));
    const code = codeContext(vocab, task);
    expect(code[0]).toBe(vocab.bos);
    expect(code.at(-1)).toBe(vocab.sep);
    expect(testContext(vocab, task, program)).toEqual([...code, ...program.slice(0, -1), vocab.sep]);
    expect(testContext(vocab, task, null)).toEqual([...code, vocab.sep]);
  });

  it("caps budgets at what the context allows", () => {
    expect(completionBudgets(160)).toEqual({ code: 96, suite: 112 });
    expect(completionBudgets(40)).toEqual({ code: 40, suite: 40 });
  });
});
