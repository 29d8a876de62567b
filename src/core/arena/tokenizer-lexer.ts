/**
 * Lexer from Python source text to vocabulary tokens, with the position of each token for errors.
 * Indentation becomes structure tokens: a line ending in `:` opens a block (the next line is one
 * level deeper), each closed level is one `<dedent>`, every line ends with a newline token. Intra-line
 * spacing is free (the formatter restores the canonical one); tabs, comments, escapes and double
 * quotes are outside arena-Python and rejected here with their position.
 */
import type { Vocabulary } from "./vocab.ts";
import { OPERATORS } from "./vocab.ts";

/** A source position (1-based line and column). */
export interface SourcePos {
  line: number;
  column: number;
}

/** Anything outside arena-Python: says where, and what was expected or why it is not allowed. */
export class ArenaSyntaxError extends Error {
  override readonly name = "ArenaSyntaxError";
  constructor(readonly line: number, readonly column: number, readonly detail: string) {
    super(`line ${line}, column ${column}: ${detail}`);
  }
}

export interface LexedToken extends SourcePos {
  id: number;
}

/** Operators longest first, so `//=` wins over `//` and `/`. */
const OPS_BY_LENGTH = [...OPERATORS].sort((a, b) => b.length - a.length);

/**
 * Lex `src`. `mode: "code"`: the first line is at indentation 0 and everything else inside it; the
 * end closes open blocks down to the function body. `mode: "suite"`: every line at indentation 0.
 * Blank lines are skipped. Always ends with the vocabulary's `eos`.
 */
export function lex(vocab: Vocabulary, src: string, mode: "code" | "suite"): LexedToken[] {
  const out: LexedToken[] = [];
  const lines = src.replace(/\r\n/g, "\n").split("\n");
  let level = 0, opened = false, lastLine = 1, sawLine = false;
  lines.forEach((text, li) => {
    const line = li + 1;
    if (/^\s*$/.test(text)) return;
    const tab = text.indexOf("\t");
    if (tab >= 0) throw new ArenaSyntaxError(line, tab + 1, "tab character: indent with 4 spaces");
    const indent = text.length - text.trimStart().length;
    if (indent % 4 !== 0) throw new ArenaSyntaxError(line, indent + 1, `indentation of ${indent} spaces: use multiples of 4`);
    const lv = indent / 4;
    if (mode === "suite" && lv > 0) throw new ArenaSyntaxError(line, 1, "test lines are not indented");
    if (mode === "code" && sawLine && lv === 0) throw new ArenaSyntaxError(line, 1, "only one function: this line is outside the body of f");
    if (opened && lv !== level + 1) throw new ArenaSyntaxError(line, indent + 1, "expected an indented block after ':'");
    if (!opened && lv > level) throw new ArenaSyntaxError(line, indent + 1, "unexpected indent");
    if (opened) level = lv;
    for (; level > lv; level--) out.push({ id: vocab.dedent, line, column: indent + 1 });
    sawLine = true;
    lastLine = line;
    const before = out.length;
    lexLine(vocab, text, line, indent, out);
    opened = out.length > before && out[out.length - 1].id === vocab.codeToken(":");
    out.push({ id: vocab.newline, line, column: text.length + 1 });
  });
  if (opened) throw new ArenaSyntaxError(lastLine + 1, 1, "expected an indented block after ':'");
  const column = (lines[lastLine - 1] ?? "").length + 1;
  // The function body itself (level 1) ends with eos rather than a dedent.
  for (; level > (mode === "code" ? 1 : 0); level--) out.push({ id: vocab.dedent, line: lastLine, column });
  out.push({ id: vocab.eos, line: lastLine, column });
  return out;
}

function lexLine(vocab: Vocabulary, text: string, line: number, start: number, out: LexedToken[]): void {
  let i = start;
  const push = (id: number, at: number) => out.push({ id, line, column: at + 1 });
  while (i < text.length) {
    const ch = text[i];
    if (ch === " ") { i++; continue; }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i));
    if (word) {
      const id = vocab.codeToken(word[0]);
      const k = id >= 0 ? vocab.kind(id) : "special";
      if (k === "special" || k === "newline" || k === "dedent") {
        throw new ArenaSyntaxError(line, i + 1, `unknown name '${word[0]}': arena-Python names are its keywords, builtins, methods and name pools`);
      }
      push(id, i);
      i += word[0].length;
      continue;
    }
    const num = /^[0-9]+/.exec(text.slice(i));
    if (num) {
      const next = text[i + num[0].length] ?? "";
      if (/[A-Za-z_.]/.test(next)) throw new ArenaSyntaxError(line, i + num[0].length + 1, `'${next}' right after a number (no floats, no hex)`);
      // Digits are single tokens, so `12 3` would silently read as 123.
      const last = out[out.length - 1];
      if (last && last.line === line && vocab.kind(last.id) === "digit") throw new ArenaSyntaxError(line, i + 1, "two numbers in a row");
      if (num[0].length > 1 && num[0][0] === "0") throw new ArenaSyntaxError(line, i + 1, `leading zero in '${num[0]}'`);
      for (let j = 0; j < num[0].length; j++) push(vocab.digit(Number(num[0][j])), i + j);
      i += num[0].length;
      continue;
    }
    if (ch === "'") {
      push(vocab.quote, i);
      let j = i + 1;
      for (; j < text.length && text[j] !== "'"; j++) {
        const c = text[j];
        if (c === "\\") throw new ArenaSyntaxError(line, j + 1, "backslash in a string: escapes are not arena-Python");
        const id = vocab.charToken(c);
        if (id < 0) throw new ArenaSyntaxError(line, j + 1, `character ${JSON.stringify(c)} cannot appear in a string (printable ASCII only)`);
        push(id, j);
      }
      if (j >= text.length) throw new ArenaSyntaxError(line, i + 1, "unterminated string");
      push(vocab.quote, j);
      i = j + 1;
      continue;
    }
    if (ch === '"') throw new ArenaSyntaxError(line, i + 1, "double-quoted string: arena-Python strings use single quotes");
    if (ch === "#") throw new ArenaSyntaxError(line, i + 1, "comments are not arena-Python");
    const op = OPS_BY_LENGTH.find((o) => text.startsWith(o, i));
    if (!op && ch === "/") throw new ArenaSyntaxError(line, i + 1, "'/' is float division: arena-Python has only '//'");
    if (!op) throw new ArenaSyntaxError(line, i + 1, `unexpected character ${JSON.stringify(ch)}`);
    push(vocab.codeToken(op), i);
    i += op.length;
  }
}
