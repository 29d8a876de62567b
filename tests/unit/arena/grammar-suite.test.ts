/**
 * The Test policy's constraint (src/core/arena/suite-grammar.ts): sampled suites are always lines
 * `assert f(ARGS) == ANSWER` whose literals have the signature's types and the doc's bounds, checked
 * with Python's own `ast` in real Pyodide.
 */
import { loadPyodide, type PyodideInterface } from "pyodide";
import { beforeAll, describe, expect, it } from "vitest";
import { SUITE_BOUNDS, suiteConstraint } from "../../../src/core/arena/suite-grammar.ts";
import { ArenaSyntaxError, decodeSuite, encodeSuite } from "../../../src/core/arena/tokenizer.ts";
import type { Signature } from "../../../src/core/arena/types.ts";
import { buildVocabulary } from "../../../src/core/arena/vocab.ts";
import { Rng } from "../../../src/core/rng.ts";
import { sampleUniform } from "../../../src/core/decoding.ts";
import { randomSignature } from "./grammar-helpers.ts";

/** For each [suite, param types, return type, maxLines]: every line is a typed assert within bounds. */
const CHECKER = `
import ast, json
B = json.loads(BOUNDS)
def typed(v, t):
    if t == "int": return type(v) is int and len(str(abs(v))) <= B["intDigits"]
    if t == "bool": return type(v) is bool
    if t == "str": return type(v) is str and len(v) <= B["strLen"]
    if t == "list[int]": return type(v) is list and len(v) <= B["listIntItems"] and all(typed(x, "int") for x in v)
    if t == "list[str]": return type(v) is list and len(v) <= B["listStrItems"] and all(typed(x, "str") for x in v)
    return False
def check_suites(payload):
    bad = []
    for i, (src, ptypes, rtype, max_lines) in enumerate(json.loads(payload)):
        try:
            lines = src.split("\\n")
            assert 1 <= len(lines) <= max_lines, "line count"
            for line in lines:
                body = ast.parse(line).body
                assert len(body) == 1 and isinstance(body[0], ast.Assert), "not an assert"
                cmp = body[0].test
                assert isinstance(cmp, ast.Compare) and len(cmp.ops) == 1 and isinstance(cmp.ops[0], ast.Eq), "not =="
                call = cmp.left
                assert isinstance(call, ast.Call) and call.func.id == "f" and not call.keywords, "not a call of f"
                assert len(call.args) == len(ptypes), "argument count"
                for a, t in zip(call.args, ptypes):
                    assert typed(ast.literal_eval(a), t), "argument type or bound: " + ast.unparse(a)
                assert typed(ast.literal_eval(cmp.comparators[0]), rtype), "answer type or bound"
                assert repr(ast.literal_eval(cmp.comparators[0])) == ast.get_source_segment(line, cmp.comparators[0]), "not repr form"
        except BaseException as e:
            bad.append([i, repr(e), src])
    return json.dumps(bad)
`;

const vocab = buildVocabulary([]);

describe("suiteConstraint: uniformly sampled suites", () => {
  let check: (payload: string) => string;
  let py: PyodideInterface;
  beforeAll(async () => {
    py = await loadPyodide();
    py.globals.set("BOUNDS", JSON.stringify(SUITE_BOUNDS));
    py.runPython(CHECKER);
    check = py.globals.get("check_suites");
  });

  it("the checker itself flags wrong suites (so an empty failure list means something)", () => {
    const rows = [
      ["assert f(1) == True", ["int"], "bool", 8],
      ["assert f(True) == True", ["int"], "bool", 8],
      ["assert f(12345) == True", ["int"], "bool", 8],
      ["assert f(1) == 'abcdefghijklm'", ["int"], "str", 8],
      ["assert f(1) != True", ["int"], "bool", 8],
      ["assert f(1) == True\nassert f(2) == False", ["int"], "bool", 1],
      ["assert f(1, 2) == True", ["int"], "bool", 8],
    ];
    const flagged = (JSON.parse(check(JSON.stringify(rows))) as [number, string][]).map(([i]) => i);
    expect(flagged).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("3000 suites over random signatures: typed, bounded, repr-form asserts, within line and token budgets", () => {
    const rng = new Rng(424242);
    const rows: unknown[] = [];
    for (let i = 0; i < 3000; i++) {
      const sig = randomSignature(rng);
      const maxLines = rng.range(1, 8);
      const maxTokens = rng.range(40, 260);
      let c;
      try { c = suiteConstraint(vocab, sig, { maxLines, maxTokens }); } catch { continue; } // budget below one line
      const tokens = sampleUniform(c, rng);
      expect(tokens.length).toBeLessThanOrEqual(maxTokens);
      expect(tokens[tokens.length - 1]).toBe(vocab.eos);
      const src = decodeSuite(vocab, tokens);
      expect(encodeSuite(vocab, src, sig, { maxLines })).toEqual(tokens);
      rows.push([src, sig.params.map((p) => p.type), sig.returns, maxLines]);
    }
    expect(rows.length).toBeGreaterThan(2500);
    expect(JSON.parse(check(JSON.stringify(rows)))).toEqual([]);
  });

  it("encodeSuite on 3000 mutated suites either throws ArenaSyntaxError or accepts typed asserts", () => {
    const rng = new Rng(99);
    const sig: Signature = { entry_point: "f", params: [{ name: "xs", type: "list[int]" }, { name: "s", type: "str" }], returns: "bool" };
    const bases = Array.from({ length: 50 }, () => decodeSuite(vocab, sampleUniform(suiteConstraint(vocab, sig, { maxLines: 3, maxTokens: 80 }), rng)));
    const alphabet = "ab019 ()[],=-'TF\n";
    const rows: unknown[] = [];
    let rejected = 0;
    for (let i = 0; i < 3000; i++) {
      const base = rng.pick(bases), at = rng.int(base.length), ch = alphabet[rng.int(alphabet.length)], op = rng.int(3);
      const src = op === 0 ? base.slice(0, at) + base.slice(at + 1)
        : op === 1 ? base.slice(0, at) + ch + base.slice(at) : base.slice(0, at) + ch + base.slice(at + 1);
      try {
        const decoded = decodeSuite(vocab, encodeSuite(vocab, src, sig));
        rows.push([decoded, ["list[int]", "str"], "bool", 8]);
        if (!/\n\s*\n/.test(src)) rows.push([src, ["list[int]", "str"], "bool", 8]); // blank lines are skipped by the lexer
      } catch (e) {
        if (!(e instanceof ArenaSyntaxError)) throw e;
        rejected++;
      }
    }
    expect(rejected).toBeGreaterThan(500);
    expect(rows.length).toBeGreaterThan(500);
    expect(JSON.parse(check(JSON.stringify(rows)))).toEqual([]);
  });

  it("reaches the literal bounds when the budget allows (longest ints, strings and lists occur)", () => {
    const rng = new Rng(5);
    const sig: Signature = { entry_point: "f", params: [{ name: "xs", type: "list[int]" }, { name: "s", type: "str" }], returns: "list[str]" };
    let maxInt = 0, maxStr = 0, maxList = 0;
    for (let i = 0; i < 300; i++) {
      const src = decodeSuite(vocab, sampleUniform(suiteConstraint(vocab, sig, { maxLines: 2, maxTokens: 400 }), rng));
      for (const m of src.matchAll(/-?\d+/g)) maxInt = Math.max(maxInt, m[0].replace("-", "").length);
      for (const m of src.matchAll(/'([^']*)'/g)) maxStr = Math.max(maxStr, m[1].length);
      for (const m of src.matchAll(/\[([^\]]*)\]/g)) maxList = Math.max(maxList, m[1] === "" ? 0 : m[1].split(", ").length);
    }
    expect(maxInt).toBe(SUITE_BOUNDS.intDigits);
    expect(maxStr).toBe(SUITE_BOUNDS.strLen);
    expect(maxList).toBe(SUITE_BOUNDS.listIntItems);
  });

  it("a zero-parameter signature gives `assert f() == ...`", () => {
    const sig: Signature = { entry_point: "f", params: [], returns: "bool" };
    const src = decodeSuite(vocab, sampleUniform(suiteConstraint(vocab, sig, { maxLines: 1, maxTokens: 20 }), new Rng(1)));
    expect(src).toMatch(/^assert f\(\) == (True|False)$/);
  });

  it("encodeSuite rejects what is outside the typed grammar with line, column and reason", () => {
    const sig: Signature = { entry_point: "f", params: [{ name: "xs", type: "list[int]" }, { name: "k", type: "int" }], returns: "bool" };
    const err = (src: string, opts = {}) => {
      try { encodeSuite(vocab, src, sig, opts); } catch (e) { expect(e).toBeInstanceOf(ArenaSyntaxError); return (e as Error).message; }
      throw new Error(`accepted: ${src}`);
    };
    expect(err("assert f([1], 12345) == True")).toBe("line 1, column 19: argument 2 ('k', int): integer literal longer than 4 digits");
    expect(err("assert f([1], 1) == 'a'")).toMatch(/^line 1, column 21: the expected answer \(bool\)/);
    expect(err("assert f([01], 1) == True")).toBe("line 1, column 11: leading zero in '01'");
    expect(err("assert f(['a'], 1) == True")).toBe("line 1, column 11: argument 1 ('xs', list[int]): not a list[int] literal as Python's repr writes it");
    expect(err("assert f([1, 2, 3, 4, 5, 6, 7, 8, 9], 1) == True")).toMatch(/list literal longer than 8 items/);
    expect(err("assert f([], 1) == True\nassert f([], 2) == False", { maxLines: 1 })).toBe("line 2, column 1: more than 1 test lines");
    expect(err("assert f([], -0) == True")).toMatch(/argument 2 \('k', int\)/);
    expect(err("assert f([], 1) == True\n    assert f([], 2) == False")).toMatch(/line 2, column 1: test lines are not indented/);
    expect(err("")).toMatch(/^line 1, column 1: expected 'assert'/);
  });

  it("round-trips canonical suites exactly, including negative numbers and strings with spaces", () => {
    const sig: Signature = { entry_point: "f", params: [{ name: "words", type: "list[str]" }, { name: "n", type: "int" }], returns: "list[int]" };
    const src = "assert f(['a b', '', 'x,y'], -7) == [3, -1, 0]\nassert f([], 0) == []";
    expect(decodeSuite(vocab, encodeSuite(vocab, src, sig))).toBe(src);
  });
});
