/**
 * Encode and decode prompts, programs and test suites with the shared vocabulary (vocab.ts).
 * Programs and suites are validated by running their tokens through the same constraints the
 * samplers use (code-grammar.ts, suite-grammar.ts), so "encodable" and "can be sampled" are one
 * definition. `decodeCode(vocab, encodeCode(vocab, src, sig)) === src` for canonical sources.
 */
import type { TokenConstraint } from "../decoding.ts";
import { CodeConstraint } from "./code-grammar.ts";
import { SuiteConstraint } from "./suite-grammar.ts";
import { formatTokens } from "./tokenizer-format.ts";
import { ArenaSyntaxError, lex, type LexedToken } from "./tokenizer-lexer.ts";
import type { ArenaType, Signature } from "./types.ts";
import { promptWords, type Vocabulary } from "./vocab.ts";

export { ArenaSyntaxError } from "./tokenizer-lexer.ts";

/** Budget used when validating (no sampling budget applies to hand-written sources). */
const UNBOUNDED = 1 << 20;

/**
 * Prompt tokens: the prompt's words (promptWords; unknown words become `unk`, digit runs are digit
 * tokens, punctuation the matching operator or string-character token), a newline, then the
 * signature as `def f ( xs : list [ int ] , k : int ) -> int`. No bos/sep: the policy frames it.
 */
export function encodePrompt(vocab: Vocabulary, prompt: string, sig: Signature): number[] {
  const out: number[] = [];
  for (const w of promptWords(prompt)) {
    if (/^[0-9]+$/.test(w)) { for (const d of w) out.push(vocab.digit(Number(d))); continue; }
    if (/^[a-z_]+$/.test(w)) { out.push(vocab.wordToken(w)); continue; }
    const op = vocab.codeToken(w);
    const ch = vocab.charToken(w);
    out.push(op >= 0 ? op : ch >= 0 ? ch : vocab.unk);
  }
  out.push(vocab.newline);
  const code = (s: string) => {
    const id = vocab.codeToken(s);
    out.push(id >= 0 ? id : vocab.unk);
  };
  const type = (t: ArenaType) => {
    if (t.startsWith("list[")) { code("list"); code("["); code(t.slice(5, -1)); code("]"); } else code(t);
  };
  code("def"); code(sig.entry_point); code("(");
  sig.params.forEach((p, i) => { if (i > 0) code(","); code(p.name); code(":"); type(p.type); });
  code(")"); code("->"); type(sig.returns);
  return out;
}

/** Feed lexed tokens through a constraint; the first disallowed token becomes an ArenaSyntaxError. */
function validate<S>(vocab: Vocabulary, c: TokenConstraint<S>, toks: LexedToken[], why: (s: S, t: number) => string | null): number[] {
  const mask = new Uint8Array(vocab.size);
  const s = c.start();
  for (const tk of toks) {
    c.allowed(s, mask);
    if (!mask[tk.id]) {
      const found = tk.id === vocab.eos ? "end of input" : tk.id === vocab.newline ? "end of line"
        : tk.id === vocab.dedent ? "end of block" : `'${vocab.tokenToString(tk.id)}'`;
      throw new ArenaSyntaxError(tk.line, tk.column, why(s, tk.id) ?? `expected ${describeExpected(vocab, mask)}, found ${found}`);
    }
    c.advance(s, tk.id);
  }
  return toks.map((t) => t.id);
}

/** A short human list of the allowed tokens: "a name, a number, '(' or '['". */
export function describeExpected(vocab: Vocabulary, mask: Uint8Array): string {
  const groups = new Set<string>();
  const singles: string[] = [];
  for (let t = 0; t < vocab.codeSize; t++) {
    if (!mask[t]) continue;
    const k = vocab.kind(t);
    if (k === "name") groups.add("a name");
    else if (k === "digit") groups.add("a digit");
    else if (k === "char") groups.add("a string character");
    else if (k === "builtin") groups.add("a builtin");
    else if (k === "method") groups.add("an expression method");
    else if (t === vocab.newline) singles.push("end of line");
    else if (t === vocab.dedent) singles.push("end of block");
    else if (t === vocab.eos) singles.push("end of input");
    else singles.push(`'${vocab.tokenToString(t)}'`);
  }
  const all = [...groups, ...singles];
  if (all.length === 0) return "nothing (the sample is complete)";
  const shown = all.length > 12 ? [...all.slice(0, 12), `... (${all.length - 12} more)`] : all;
  return shown.length === 1 ? shown[0] : `${shown.slice(0, -1).join(", ")} or ${shown[shown.length - 1]}`;
}

/**
 * Tokens of an arena-Python program for `sig`, ending with `eos`. Throws ArenaSyntaxError (line,
 * column, what was expected or why the token is not allowed) for anything outside arena-Python.
 */
export function encodeCode(vocab: Vocabulary, src: string, sig: Signature): number[] {
  const c = new CodeConstraint(vocab, sig, { maxTokens: UNBOUNDED });
  return validate(vocab, c, lex(vocab, src, "code"), (s, t) => c.explain(s, t));
}

/** Canonical text of program tokens (stops at `eos`). */
export function decodeCode(vocab: Vocabulary, tokens: readonly number[]): string {
  return formatTokens(vocab, tokens);
}

/**
 * Tokens of a test suite for `sig`: lines `assert f(ARGS) == ANSWER` with typed, bounded literals
 * (docs/ARENA-PYTHON.md, "Test suites"), at most `maxLines` (default 8), ending with `eos`.
 */
export function encodeSuite(vocab: Vocabulary, src: string, sig: Signature, opts: { maxLines?: number } = {}): number[] {
  const c = new SuiteConstraint(vocab, sig, { maxLines: opts.maxLines ?? 8, maxTokens: UNBOUNDED });
  return validate(vocab, c, lex(vocab, src, "suite"), (s, t) => c.explain(s, t));
}

/** Canonical text of suite tokens (stops at `eos`). */
export function decodeSuite(vocab: Vocabulary, tokens: readonly number[]): string {
  return formatTokens(vocab, tokens);
}
