import { describe, expect, it } from "vitest";
import { tokenizePython } from "../../../src/ui/highlight.ts";

describe("Python highlighter", () => {
  it("classifies arena-Python tokens", () => {
    const src = "def f(xs, k):\n    out = []\n    for i, x in enumerate(xs):\n        if x > k and i % 2 == 0:\n            out.append('a b')\n    return out";
    const toks = tokenizePython(src);
    expect(toks.map((t) => t.text).join("")).toBe(src);
    const kinds = (k: string) => toks.filter((t) => t.kind === k).map((t) => t.text);
    expect(kinds("keyword")).toEqual(["def", "for", "in", "if", "and", "return"]);
    expect(kinds("def-name")).toEqual(["f"]);
    expect(kinds("builtin")).toEqual(["enumerate"]);
    expect(kinds("string")).toEqual(["'a b'"]);
    expect(kinds("number")).toEqual(["2", "0"]);
    expect(kinds("op")).toEqual(["=", ">", "%", "=="]);
  });
  it("never fails and round-trips any input, including unterminated strings and odd characters", () => {
    for (const src of ["x = 'abc", "a ** b // c", "€ ? @ $", "", "# only a comment\nx", 'y = "q\\"q"']) {
      expect(tokenizePython(src).map((t) => t.text).join("")).toBe(src);
    }
    expect(tokenizePython("a ** b")).toContainEqual({ kind: "op", text: "**" });
    expect(tokenizePython("# c\nx")[0]).toEqual({ kind: "comment", text: "# c" });
  });
});
