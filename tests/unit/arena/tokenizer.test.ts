/**
 * Vocabulary and tokenizer (src/core/arena/vocab.ts, tokenizer.ts): deterministic ids, prompt
 * encoding, exact round trips of canonical programs covering every construct of
 * docs/ARENA-PYTHON.md, normalisation of non-canonical spacing, and specific ArenaSyntaxErrors.
 */
import { describe, expect, it } from "vitest";
import { ArenaSyntaxError, decodeCode, encodeCode, encodePrompt } from "../../../src/core/arena/tokenizer.ts";
import type { Signature } from "../../../src/core/arena/types.ts";
import { buildVocabulary, promptWords, STRING_CHARS } from "../../../src/core/arena/vocab.ts";

const vocab = buildVocabulary(promptWords("Return the sum of the k largest items."));
const sig = (...params: [string, Signature["params"][number]["type"]][]): Signature =>
  ({ entry_point: "f", params: params.map(([name, type]) => ({ name, type })), returns: "int" });
const XS_K = sig(["xs", "list[int]"], ["k", "int"]);

/** Canonical programs that together use every statement, expression, builtin and method of the doc. */
const CANONICAL: Array<[Signature, string]> = [
  [XS_K, `def f(xs, k):
    out = []
    for i, x in enumerate(xs):
        if x > k and i % 2 == 0:
            out.append(x)
    return out`],
  [XS_K, `def f(xs, k):
    total = 0
    count = 0
    i = 0
    while i < len(xs):
        if xs[i] < 0:
            i += 1
            continue
        elif xs[i] == k:
            break
        else:
            total += xs[i] ** 2
        total -= 1
        total *= 2
        total //= 3
        total %= 1000
        count = count + 1
        i = i + 1
    return total if count != 0 else -1`],
  [sig(["s", "str"], ["t", "str"]), `def f(s, t):
    seen = set()
    for c in s.lower():
        if c.isalpha() and not c in seen:
            seen.add(c)
    w = s.upper().strip().split()
    p = s.split(',')
    q = ' '.join(w)
    r = s.replace('a', 'b').count(t) + s.find(t) + s.index(t)
    return len(seen) + r if s.startswith(t) or s.endswith(t) else int(s.isdigit()) + int(s.isupper() or s.islower() or s.isspace())`],
  [XS_K, `def f(xs, k):
    ys = sorted(xs, key=abs, reverse=True)
    lo = min(xs, key=abs)
    hi = max(xs[1:])
    xs[0] = sorted(xs, key=len, reverse=False)[0]
    return 0`],
  [XS_K, `def f(xs, k):
    best = [v * 2 for v in xs if v > k]
    res = [a + b for a, b in zip(xs, xs[::-1])]
    acc = sum(v for v in xs if v % 2 == 1) + sum(xs) + sum(i * v for i, v in enumerate(xs))
    prev = any(v < 0 for v in xs) and all(v != 0 for v in xs)
    cur = list(reversed(xs))[k:] + xs[:k] + xs[1:k] + xs[1:k:2] + xs[-1:] + list(range(k)) + list(range(1, k, 2))
    mid = (len(xs) - 1) // 2
    m = abs(-k) + max(1, 2, 3) + min(4, 5) + len(str(k)) + bool(xs) - -1
    if k in xs and k not in best or prev:
        return None
    return mid + m`],
  [sig(["words", "list[str]"]), `def f(words):
    out = [w for w in words if len(w) > 2]
    seen = set(words)
    res = sorted(set(w.lower() for w in words))
    j = [[c for c in w] for w in words]
    return len(out) + len(seen) + len(res) + len(j) + len(list(w for w in words)) + len(set()) + len(list())`],
  [sig(["n", "int"], ["m", "int"]), `def f(n, m):
    x = 0
    for i in range(n):
        for j in range(m):
            if (i + j) % 3 == 0:
                x = x + i * j
            elif i == j:
                x = x - 1
    while n > 0:
        n //= 10
    return x if x >= 0 and x <= 100 else True if x > 100 else False`],
  [sig(["a", "int"], ["b", "bool"]), `def f(a, b):
    return a`],
];

describe("vocabulary", () => {
  it("is deterministic and puts sorted unique prompt words after the fixed code tokens", () => {
    const a = buildVocabulary(["zeta", "Alpha", "zeta", "sum", "7", "."]);
    const b = buildVocabulary(["alpha", "zeta"]);
    expect(a.size).toBe(b.size);
    expect(a.codeSize).toBe(b.codeSize);
    expect(a.tokenToString(a.codeSize)).toBe("alpha");
    expect(a.tokenToString(a.codeSize + 1)).toBe("zeta");
    expect(a.size).toBe(a.codeSize + 2); // "sum", "7" and "." are spelled with code tokens
    expect([a.pad, a.bos, a.sep, a.eos, a.unk]).toEqual([0, 1, 2, 3, 4]);
    expect(a.wordToken("sum")).toBe(a.codeToken("sum"));
    expect(a.wordToken("nope")).toBe(a.unk);
    expect(STRING_CHARS.length).toBe(93);
    for (const c of STRING_CHARS) expect(a.tokenToString(a.charToken(c))).toBe(c);
    expect(() => a.tokenToString(a.size)).toThrow(/outside the vocabulary/);
  });

  it("splits prompts into lowercase words, digit runs and punctuation", () => {
    expect(promptWords("Return the k-th item of xs, 1-indexed.")).toEqual(
      ["return", "the", "k", "-", "th", "item", "of", "xs", ",", "1", "-", "indexed", "."]);
  });

  it("encodes a prompt followed by the signature", () => {
    const toks = encodePrompt(vocab, "Return the sum of the 12 largest items.", { ...XS_K, returns: "list[int]" });
    const text = toks.map((t) => vocab.tokenToString(t)).join(" ");
    expect(text).toBe("return the sum of the 1 2 largest items .  \n def f ( xs : list [ int ] , k : int ) -> list [ int ]".replace(".  \n", ". \n"));
    expect(toks).not.toContain(vocab.unk);
  });
});

describe("encodeCode / decodeCode", () => {
  it.each(CANONICAL.map(([s, src], i) => [i, s, src] as const))("round-trips canonical program %i exactly", (_i, s, src) => {
    const toks = encodeCode(vocab, src, s);
    expect(toks[toks.length - 1]).toBe(vocab.eos);
    expect(decodeCode(vocab, toks)).toBe(src);
  });

  it("normalises free spacing and blank lines to the canonical format", () => {
    const messy = "def f( xs,k ):\n\n    y=[ -x  for x in xs[ :: -1 ] ]\n    return sorted( y,key = abs )[ 0 ]+k\n";
    expect(decodeCode(vocab, encodeCode(vocab, messy, XS_K))).toBe(
      "def f(xs, k):\n    y = [-x for x in xs[::-1]]\n    return sorted(y, key=abs)[0] + k");
  });

  const err = (src: string, s: Signature = XS_K): ArenaSyntaxError => {
    try { encodeCode(vocab, src, s); } catch (e) { expect(e).toBeInstanceOf(ArenaSyntaxError); return e as ArenaSyntaxError; }
    throw new Error(`accepted:\n${src}`);
  };

  it("says where and why for names read before binding, misuse of break, dead code and missing returns", () => {
    expect(err("def f(xs, k):\n    return y").message).toBe("line 2, column 12: name 'y' is read before it is bound");
    expect(err("def f(xs, k):\n    y = y + 1\n    return y").message).toBe("line 2, column 9: name 'y' is read before it is bound");
    expect(err("def f(xs, k):\n    for i in range(i):\n        return 1").message).toBe("line 2, column 20: name 'i' is read before it is bound");
    expect(err("def f(xs, k):\n    break").message).toBe("line 2, column 5: 'break' outside a loop");
    expect(err("def f(xs, k):\n    return 1\n    return 2").message).toBe("line 3, column 5: statement after return/break/continue in the same block (unreachable code)");
    expect(err("def f(xs, k):\n    y = 1").message).toBe("line 2, column 10: the function never returns: add a return statement");
    expect(err("def f(xs, k):\n    y += 1\n    return y").message).toBe("line 2, column 7: 'y' must be bound before '+='");
    expect(err("def f(xs, k):\n    return [c for i in xs]").message).toBe("line 2, column 21: the comprehension target must bind 'c'");
    expect(err("def f(xs, k):\n    return [c, 1]").message).toMatch(/^line 2, column 14: the element reads unbound name\(s\) 'c'/);
  });

  it("says what was expected for syntax outside arena-Python", () => {
    expect(err("def f(xs):\n    return 1").message).toBe("line 1, column 9: the header must be 'def f(xs, k):'");
    expect(err("def f(xs, k):\n    return 1 / 2").message).toBe("line 2, column 14: '/' is float division: arena-Python has only '//'");
    expect(err("def f(xs, k):\n    return xs is None").message).toBe("line 2, column 15: unknown name 'is': arena-Python names are its keywords, builtins, methods and name pools");
    expect(err("def f(xs, k):\n    return \"a\"").message).toMatch(/column 12: double-quoted string/);
    expect(err("def f(xs, k):\n    return 'a\\n'").message).toMatch(/column 14: backslash in a string/);
    expect(err("def f(xs, k):\n  return 1").message).toMatch(/line 2, column 3: indentation of 2 spaces/);
    expect(err("def f(xs, k):\n    return 1 # done").message).toMatch(/column 14: comments are not arena-Python/);
    expect(err("def f(xs, k):\n    return 1.5").message).toMatch(/after a number \(no floats/);
    expect(err("def f(xs, k):\n    return 12  3").message).toBe("line 2, column 16: two numbers in a row");
    expect(err("def f(xs, k):\n    return 07").message).toBe("line 2, column 12: leading zero in '07'");
    expect(err("def f(xs, k):\n    return 1 +").message).toBe("line 2, column 15: expected a builtin, a name, a digit, 'True', 'False', 'None', '(', '[', '-' or ''', found end of line");
    expect(err("def f(xs, k):\n    return len(xs, k)").message).toMatch(/^line 2, column 18: expected .*'\)'.*found ','$/);
    expect(err("def f(xs, k):\n    xs.append(1)\n    return xs.append(1)").message).toMatch(/^line 3, column 15: expected an expression method, found 'append'$/);
    expect(err("def f(xs, k):\n    return 1\ndef g(xs):\n    return 2").message).toBe("line 3, column 1: only one function: this line is outside the body of f");
    expect(err("def f(xs, k):\n    if k:\n    return 1").message).toBe("line 3, column 5: expected an indented block after ':'");
  });
});
