/**
 * The Code policy's constraint (src/core/arena/code-grammar.ts): thousands of programs sampled
 * uniformly over the allowed tokens must all be complete, runnable arena-Python: they parse, load
 * in real Pyodide (and native CPython when present), re-encode to the same tokens, and never exceed
 * the token budget.
 */
import { spawnSync } from "node:child_process";
import { loadPyodide, type PyodideInterface } from "pyodide";
import { beforeAll, describe, expect, it } from "vitest";
import { codeConstraint } from "../../../src/core/arena/code-grammar.ts";
import { ArenaSyntaxError, decodeCode, encodeCode } from "../../../src/core/arena/tokenizer.ts";
import type { Signature } from "../../../src/core/arena/types.ts";
import { buildVocabulary } from "../../../src/core/arena/vocab.ts";
import { Rng } from "../../../src/core/rng.ts";
import { sampleUniform } from "../../../src/core/decoding.ts";
import { randomSignature } from "./grammar-helpers.ts";

/** Checks each [source, params] pair: one def f with those params, no unreachable statement, a return, compile + exec in a fresh dict. */
const CHECKER = `
import ast, json, warnings
def check_programs(payload):
    warnings.simplefilter("ignore")
    bad = []
    for i, (src, params) in enumerate(json.loads(payload)):
        try:
            tree = ast.parse(src)
            fn = tree.body[0]
            assert len(tree.body) == 1 and isinstance(fn, ast.FunctionDef) and fn.name == "f", "not one def f"
            assert [a.arg for a in fn.args.args] == params, "parameters differ from the signature"
            def blocks(stmts):
                for j, st in enumerate(stmts):
                    if isinstance(st, (ast.Return, ast.Break, ast.Continue)) and j != len(stmts) - 1:
                        raise AssertionError("unreachable statement")
                    for field in ("body", "orelse"):
                        if getattr(st, field, None): blocks(getattr(st, field))
            blocks(fn.body)
            assert any(isinstance(n, ast.Return) for n in ast.walk(fn)), "no return"
            g = {}
            exec(compile(src, "<sample>", "exec"), g)
            assert callable(g["f"])
        except BaseException as e:
            bad.append([i, repr(e), src])
    return json.dumps(bad)
`;

const vocab = buildVocabulary(["return", "the", "sum"]);

interface Sample { sig: Signature; maxTokens: number; tokens: number[]; src: string }

function samplePrograms(seed: number, count: number, budget: [number, number]): Sample[] {
  const rng = new Rng(seed);
  const out: Sample[] = [];
  for (let i = 0; i < count; i++) {
    const sig = randomSignature(rng);
    const maxTokens = rng.range(budget[0], budget[1]);
    const tokens = sampleUniform(codeConstraint(vocab, sig, { maxTokens }), rng);
    out.push({ sig, maxTokens, tokens, src: decodeCode(vocab, tokens) });
  }
  return out;
}

const payload = (xs: Sample[]) => JSON.stringify(xs.map((x) => [x.src, x.sig.params.map((p) => p.name)]));

describe("codeConstraint: uniformly sampled programs", () => {
  let py: PyodideInterface;
  let check: (payload: string) => string;
  const samples = samplePrograms(20260101, 3000, [20, 160]);

  beforeAll(async () => {
    py = await loadPyodide();
    py.runPython(CHECKER);
    check = py.globals.get("check_programs");
  });

  it("the checker itself flags broken programs (so an empty failure list means something)", () => {
    const broken = [
      ["def f(xs):\n    return (", ["xs"]],
      ["def f(xs):\n    return 1\n    return 2", ["xs"]],
      ["def f(xs):\n    y = 1", ["xs"]],
      ["def f(k):\n    return 1", ["xs"]],
      ["def f(xs):\n    return 1", ["xs"]],
    ];
    const flagged = (JSON.parse(check(JSON.stringify(broken))) as [number, string][]).map(([i]) => i);
    expect(flagged).toEqual([0, 1, 2, 3]);
  });

  it("follows the TokenConstraint contract: forced header, one token at a time, nothing after eos", () => {
    const sig: Signature = { entry_point: "f", params: [{ name: "s", type: "str" }], returns: "int" };
    const c = codeConstraint(vocab, sig, { maxTokens: 40 });
    const mask = new Uint8Array(vocab.size);
    const s = c.start();
    const header = ["def", "f", "(", "s", ")", ":", "\n"];
    for (const h of header) {
      c.allowed(s, mask);
      expect(mask.reduce((a, b) => a + b, 0)).toBe(1);
      expect(vocab.tokenToString(mask.indexOf(1))).toBe(h);
      c.advance(s, mask.indexOf(1));
    }
    c.allowed(s, mask);
    expect(mask[vocab.codeToken("return")]).toBe(1);
    expect(mask[vocab.codeToken("break")]).toBe(0); // not in a loop
    expect(mask[vocab.eos]).toBe(0); // no return yet
    for (let t = vocab.codeSize; t < vocab.size; t++) expect(mask[t]).toBe(0); // prompt words never
    for (const t of ["return", "s", "\n"]) c.advance(s, vocab.codeToken(t));
    c.allowed(s, mask);
    expect([...mask.keys()].filter((t) => mask[t]).map((t) => vocab.tokenToString(t))).toEqual(["<eos>"]);
    c.advance(s, vocab.eos);
    expect(c.isDone(s)).toBe(true);
    c.allowed(s, mask);
    expect(mask.every((m) => m === 0)).toBe(true);
    expect(() => c.advance(s, vocab.eos)).toThrow(/after the end/);
  });

  it("3000 programs over random signatures all parse and load in Pyodide", () => {
    expect(samples.length).toBe(3000);
    expect(JSON.parse(check(payload(samples)))).toEqual([]);
  });

  it("every sample ends with eos, fits its budget and re-encodes to the same tokens", () => {
    for (const s of samples) {
      expect(s.tokens[s.tokens.length - 1]).toBe(vocab.eos);
      expect(s.tokens.length).toBeLessThanOrEqual(s.maxTokens);
      expect(encodeCode(vocab, s.src, s.sig)).toEqual(s.tokens);
    }
  });

  it("tight budgets (the shortest possible up to +12) still always complete, within budget, and load", () => {
    const rng = new Rng(7);
    const tight: Sample[] = [];
    for (let i = 0; i < 600; i++) {
      const sig = randomSignature(rng);
      const shortest = 2 * Math.max(sig.params.length, 1) + 5 + 4;
      const maxTokens = shortest + rng.range(0, 12);
      const tokens = sampleUniform(codeConstraint(vocab, sig, { maxTokens }), rng);
      expect(tokens.length).toBeLessThanOrEqual(maxTokens);
      tight.push({ sig, maxTokens, tokens, src: decodeCode(vocab, tokens) });
    }
    expect(JSON.parse(check(payload(tight)))).toEqual([]);
  });

  it("long programs (budget 400) load too, and the mask walk stays bounded however long the prefix", () => {
    const rng = new Rng(99);
    const long: Sample[] = [];
    let maxWalk = 0, longest = 0;
    for (let i = 0; i < 40; i++) {
      const sig = randomSignature(rng);
      const c = codeConstraint(vocab, sig, { maxTokens: 400 });
      const tokens = sampleUniform(c, rng, () => { maxWalk = Math.max(maxWalk, c.lastWalk); });
      longest = Math.max(longest, tokens.length);
      long.push({ sig, maxTokens: 400, tokens, src: decodeCode(vocab, tokens) });
    }
    expect(longest).toBeGreaterThan(300);
    // allowed() visits only the optional tails on top of the parse stack: a grammar constant.
    expect(maxWalk).toBeLessThanOrEqual(12);
    expect(JSON.parse(check(payload(long)))).toEqual([]);
  });

  it.skipIf(spawnSync("python3", ["--version"]).status !== 0)("the same 3000 programs load in native CPython", () => {
    const run = spawnSync("python3", ["-c", `${CHECKER}\nimport sys\nprint(check_programs(sys.stdin.read()))`], {
      input: payload(samples), encoding: "utf8", maxBuffer: 1 << 26,
    });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual([]);
  });

  it("encodeCode on 3000 randomly mutated sources either throws ArenaSyntaxError or accepts runnable Python", () => {
    const rng = new Rng(2718);
    const seeds = samples.filter((x) => x.src.length < 200).slice(0, 300);
    const alphabet = "abcdefijknrstvwxy0129 ()[]:,.=+-*/%<>!'\n_";
    const accepted: Sample[] = [];
    let rejected = 0;
    for (let i = 0; i < 3000; i++) {
      const base = rng.pick(seeds);
      const at = rng.int(base.src.length);
      const ch = alphabet[rng.int(alphabet.length)];
      const op = rng.int(3);
      const src = op === 0 ? base.src.slice(0, at) + base.src.slice(at + 1)
        : op === 1 ? base.src.slice(0, at) + ch + base.src.slice(at) : base.src.slice(0, at) + ch + base.src.slice(at + 1);
      try {
        const tokens = encodeCode(vocab, src, base.sig);
        // Both the mutated text as written and its canonical decoding must be runnable Python.
        accepted.push({ sig: base.sig, maxTokens: tokens.length, tokens, src: decodeCode(vocab, tokens) });
        accepted.push({ sig: base.sig, maxTokens: tokens.length, tokens, src });
      } catch (e) {
        if (!(e instanceof ArenaSyntaxError)) throw e;
        expect(e.line).toBeGreaterThanOrEqual(1);
        expect(e.column).toBeGreaterThanOrEqual(1);
        rejected++;
      }
    }
    expect(rejected).toBeGreaterThan(500);
    expect(accepted.length).toBeGreaterThan(600);
    expect(JSON.parse(check(payload(accepted)))).toEqual([]);
  });

  it("rejects a budget below the shortest program, and signatures outside arena-Python", () => {
    const sig: Signature = { entry_point: "f", params: [{ name: "xs", type: "list[int]" }], returns: "int" };
    expect(() => codeConstraint(vocab, sig, { maxTokens: 10 })).toThrow(/maxTokens 10 is below the shortest program for this signature \(11 tokens\)/);
    expect(() => codeConstraint(vocab, { ...sig, entry_point: "solve" }, { maxTokens: 50 })).toThrow(/named 'f'/);
    expect(() => codeConstraint(vocab, { ...sig, params: [{ name: "foo", type: "int" }] }, { maxTokens: 50 })).toThrow(/'foo' is not an arena-Python name/);
  });

  it("the shortest program is `return <literal or name>`", () => {
    const sig: Signature = { entry_point: "f", params: [{ name: "xs", type: "list[int]" }], returns: "int" };
    const rng = new Rng(3);
    for (let i = 0; i < 50; i++) {
      const src = decodeCode(vocab, sampleUniform(codeConstraint(vocab, sig, { maxTokens: 11 }), rng));
      expect(src).toMatch(/^def f\(xs\):\n {4}return (xs|[0-9]|True|False|None|\[\])$/);
    }
  });
});
