import { describe, expect, it } from "vitest";
import {
  formatLiteral, literalType, LiteralSyntaxError, parseAssert, parseLiteral, unifyTypes,
} from "../../../src/core/arena/task-literals.ts";

describe("Python literals", () => {
  it("prints like Python's repr", () => {
    expect(formatLiteral(parseLiteral("[3, -1, 4]"))).toBe("[3, -1, 4]");
    expect(formatLiteral(parseLiteral('"ab c"'))).toBe("'ab c'");
    expect(formatLiteral(parseLiteral(`"it's"`))).toBe(`"it's"`);
    expect(formatLiteral(parseLiteral("(1,)"))).toBe("(1,)");
    expect(formatLiteral(parseLiteral("(1)"))).toBe("1");
    expect(formatLiteral(parseLiteral("{1: 'a', 2: 'b'}"))).toBe("{1: 'a', 2: 'b'}");
    expect(formatLiteral(parseLiteral("set()"))).toBe("set()");
    expect(formatLiteral(parseLiteral("2.0"))).toBe("2.0");
    expect(formatLiteral(parseLiteral("[True, None, 'a\\nb']"))).toBe("[True, None, 'a\\nb']");
  });

  it("reads golden-test asserts, with or without spaces", () => {
    const a = parseAssert("assert similar_elements((3, 4, 5, 6),(5, 7, 4, 10))==(4, 5)", "similar_elements");
    expect(a.args.map(formatLiteral)).toEqual(["(3, 4, 5, 6)", "(5, 7, 4, 10)"]);
    expect(formatLiteral(a.expected)).toBe("(4, 5)");
    expect(parseAssert("assert f('ab', [1, 2]) == True", "f").args.length).toBe(2);
  });

  it("rejects what is not a literal assert, saying where", () => {
    expect(() => parseAssert("assert f(x) == 1", "f")).toThrow(LiteralSyntaxError);
    expect(() => parseAssert("assert f(1) == 1 + 1", "f")).toThrow(/unexpected '\+ 1'/);
    expect(() => parseAssert("assert math.isclose(f(1), 2)", "f")).toThrow(/expected 'f' at column 8/);
    expect(() => parseLiteral("[1, 2")).toThrow(/expected '\]'/);
  });

  it("infers arena types and unifies them across tests", () => {
    expect(literalType(parseLiteral("[1, 2]"))).toBe("list[int]");
    expect(literalType(parseLiteral("['a']"))).toBe("list[str]");
    expect(literalType(parseLiteral("[]"))).toBe("list[]");
    expect(literalType(parseLiteral("(1, 2)"))).toBe("other");
    expect(literalType(parseLiteral("1.5"))).toBe("other");
    expect(unifyTypes(["list[]", "list[str]"])).toBe("list[str]");
    expect(unifyTypes(["list[]"])).toBe("list[int]");
    expect(unifyTypes(["int", "str"])).toBe("other");
    expect(unifyTypes(["list[]", "int"])).toBe("other");
  });
});
