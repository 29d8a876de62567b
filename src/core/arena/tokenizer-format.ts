/**
 * Canonical formatter: tokens back to arena-Python text, following docs/ARENA-PYTHON.md
 * ("Canonical formatting"): 4-space indentation, lines joined by `\n` without a trailing one, spaces
 * around binary operators and keywords, `, ` between items, tight brackets, calls, attribute dots,
 * slices, unary minus and keyword arguments. The spacing of each token depends only on it and the
 * token before it (plus whether that one was a unary minus or an operand end), so formatting is one
 * left-to-right pass.
 */
import type { Vocabulary } from "./vocab.ts";

/** Tokens after which an operand has just ended (so a following `-` is binary, `[`/`(` a trailer). */
function endsOperand(vocab: Vocabulary, id: number, closingQuote: boolean): boolean {
  const k = vocab.kind(id), s = vocab.tokenToString(id);
  return k === "name" || k === "digit" || k === "builtin" || k === "method" || (k === "quote" && closingQuote)
    || s === ")" || s === "]" || s === "True" || s === "False" || s === "None";
}

/** Format tokens (stopping at `eos`; pad, bos and sep are skipped) as canonical text. */
export function formatTokens(vocab: Vocabulary, tokens: readonly number[]): string {
  const lines: string[] = [];
  let level = 0, cur = "", prev = -1, prevUnary = false, prevEndsOperand = false, prevKwargEq = false, inString = false;
  const colon = vocab.codeToken(":");
  for (const id of tokens) {
    if (id === vocab.eos) break;
    if (id === vocab.pad || id === vocab.bos || id === vocab.sep) continue;
    if (id === vocab.newline) {
      lines.push("    ".repeat(Math.max(level, 0)) + cur);
      if (prev === colon) level++;
      cur = ""; prev = -1; prevUnary = false; prevEndsOperand = false;
      continue;
    }
    if (id === vocab.dedent) { level--; continue; }
    const s = vocab.tokenToString(id), k = vocab.kind(id);
    if (inString) {
      cur += s;
      if (k === "quote") { inString = false; prev = id; prevUnary = false; prevEndsOperand = true; prevKwargEq = false; }
      continue;
    }
    if (prev >= 0 && !prevKwargEq && spaceBefore(vocab, prev, prevUnary, prevEndsOperand, id)) cur += " ";
    cur += s;
    prevKwargEq = s === "=" && prev >= 0 && vocab.kind(prev) === "kwarg";
    prevUnary = s === "-" && !prevEndsOperand;
    if (k === "quote") { inString = true; prevEndsOperand = false; } else prevEndsOperand = endsOperand(vocab, id, false);
    prev = id;
  }
  if (cur !== "") lines.push("    ".repeat(Math.max(level, 0)) + cur);
  return lines.join("\n");
}

function spaceBefore(vocab: Vocabulary, prev: number, prevUnary: boolean, prevEndsOperand: boolean, id: number): boolean {
  const s = vocab.tokenToString(id), p = vocab.tokenToString(prev);
  if (s === ")" || s === "]" || s === "," || s === ":" || s === ".") return false;
  if (p === "(" || p === "[" || p === "." || p === ":" || prevUnary) return false;
  if (vocab.kind(prev) === "kwarg") return false; // `key=len`, `reverse=True`
  if ((s === "(" || s === "[") && prevEndsOperand) return false; // calls and subscripts are tight
  if (vocab.kind(prev) === "digit" && vocab.kind(id) === "digit") return false;
  return true;
}
