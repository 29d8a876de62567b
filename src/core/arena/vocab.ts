/**
 * The one vocabulary shared by prompts, arena-Python programs and test suites
 * (docs/ARENA-PYTHON.md). Layout, fixed so that ids are stable across runs:
 *
 *   specials (pad bos sep eos unk) | structure (newline, dedent) | keywords | operators and punctuation
 *   | kwarg names | builtins | methods | names (f, parameter pool, local pool) | digits 0-9 | quote
 *   | one token per printable string character | sorted unique lowercase prompt words
 *
 * Everything before the prompt words is a "code token" (`vocab.codeSize`): the grammars only ever
 * allow code tokens, so masks beyond `codeSize` are always 0.
 */

/** Reserved tokens; their ids are the same in every vocabulary. */
export const SPECIALS = ["<pad>", "<bos>", "<sep>", "<eos>", "<unk>"] as const;
/** Newline ends every line; an indented block is opened by `:` + newline and closed by dedent. */
export const NEWLINE = "\n";
export const DEDENT = "<dedent>";
export const KEYWORDS = ["def", "return", "if", "elif", "else", "for", "in", "while", "break", "continue",
  "and", "or", "not", "True", "False", "None", "assert"] as const;
export const OPERATORS = ["(", ")", "[", "]", ":", ",", ".", "=", "+=", "-=", "*=", "//=", "%=",
  "+", "-", "*", "//", "%", "**", "<", "<=", ">", ">=", "==", "!=", "->"] as const;
/** The only keyword-argument names: `key=BUILTIN` and `reverse=True/False`. */
export const KWARG_NAMES = ["key", "reverse"] as const;
export const BUILTINS = ["len", "sum", "min", "max", "sorted", "set", "abs", "range", "enumerate", "zip",
  "any", "all", "list", "str", "int", "reversed", "bool"] as const;
/** Expression methods, then the two statement methods (`append`, `add`). */
export const METHODS = ["lower", "upper", "strip", "split", "join", "count", "index", "find", "startswith",
  "endswith", "replace", "isdigit", "isalpha", "isupper", "islower", "isspace", "append", "add"] as const;
/** Parameter names a task may use (docs/ARENA-PYTHON.md, "Names"). */
export const PARAM_NAMES = ["xs", "ys", "s", "t", "n", "m", "k", "x", "a", "b", "words"] as const;
/** Local names (assignment, for and comprehension targets). `count` doubles as a method name. */
export const LOCAL_NAMES = ["i", "j", "c", "w", "y", "acc", "res", "best", "count", "total", "prev", "cur",
  "seen", "out", "lo", "hi", "mid", "p", "q", "r", "v"] as const;
export const FUNCTION_NAME = "f";
export const QUOTE = "'";

/** Printable ASCII allowed inside string literals: 0x20..0x7e except `'` and `\`. */
export const STRING_CHARS: readonly string[] = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i))
  .filter((c) => c !== "'" && c !== "\\");

export interface Vocabulary {
  /** Number of tokens; masks and logits have this length. */
  readonly size: number;
  /** Number of code tokens (ids below this); prompt words come after. */
  readonly codeSize: number;
  readonly pad: number;
  readonly bos: number;
  readonly sep: number;
  readonly eos: number;
  readonly unk: number;
  readonly newline: number;
  readonly dedent: number;
  readonly quote: number;
  /** Surface text of a token (a string character token gives the character itself). */
  tokenToString(id: number): string;
  /** Id of a code token (keyword, operator, builtin, method, name) by its text, or -1. */
  codeToken(text: string): number;
  /** Id of the digit token `d` (0-9). */
  digit(d: number): number;
  /** Id of the string-character token for `ch`, or -1 if `ch` cannot appear in a string literal. */
  charToken(ch: string): number;
  /** Id of a prompt word, or `unk`. */
  wordToken(word: string): number;
  /** Kind of a code token, for the formatter and the grammars. */
  kind(id: number): TokenKind;
}

export type TokenKind = "special" | "newline" | "dedent" | "keyword" | "operator" | "kwarg" | "builtin"
  | "method" | "name" | "digit" | "quote" | "char" | "word";

/** The fixed code-token list, in id order, with kinds. */
function codeTokens(): Array<[string, TokenKind]> {
  const out: Array<[string, TokenKind]> = [];
  for (const s of SPECIALS) out.push([s, "special"]);
  out.push([NEWLINE, "newline"], [DEDENT, "dedent"]);
  for (const s of KEYWORDS) out.push([s, "keyword"]);
  for (const s of OPERATORS) out.push([s, "operator"]);
  for (const s of KWARG_NAMES) out.push([s, "kwarg"]);
  for (const s of BUILTINS) out.push([s, "builtin"]);
  for (const s of METHODS) out.push([s, "method"]);
  // `count` is a method and a local: one token, listed once (as a method) so every text maps to one id.
  const seen = new Set(out.map(([s]) => s));
  for (const s of [FUNCTION_NAME, ...PARAM_NAMES, ...LOCAL_NAMES]) if (!seen.has(s)) { out.push([s, "name"]); seen.add(s); }
  for (let d = 0; d <= 9; d++) out.push([String(d), "digit"]);
  out.push([QUOTE, "quote"]);
  for (const c of STRING_CHARS) out.push([c, "char"]);
  return out;
}

/**
 * Split a prompt into lowercase words: runs of letters, runs of digits, and single punctuation
 * characters (whitespace dropped). `"Return the k-th item."` -> `["return","the","k","-","th","item","."]`.
 */
export function promptWords(text: string): string[] {
  return text.toLowerCase().match(/[a-z_]+|[0-9]+|[^\sa-z0-9_]/g) ?? [];
}

/**
 * Deterministic vocabulary: the fixed code tokens, then the sorted unique lowercase prompt words that
 * are not already code tokens (digit runs and single punctuation are spelled with code tokens).
 */
export function buildVocabulary(words: string[]): Vocabulary {
  const list = codeTokens();
  const codeSize = list.length;
  const codeIndex = new Map<string, number>();
  const charIndex = new Map<string, number>();
  const kinds: TokenKind[] = [];
  let firstDigit = -1;
  list.forEach(([s, k], id) => {
    kinds.push(k);
    if (k === "char") charIndex.set(s, id);
    else if (k === "digit") { if (firstDigit < 0) firstDigit = id; }
    else codeIndex.set(s, id);
  });
  const extra = [...new Set(words.map((w) => w.toLowerCase()))]
    .filter((w) => w.length > 0 && !codeIndex.has(w) && !/^[0-9]+$/.test(w) && !/^[^\sa-z0-9_]$/.test(w))
    .sort();
  const strings = [...list.map(([s]) => s), ...extra];
  const wordIndex = new Map<string, number>();
  extra.forEach((w, i) => { wordIndex.set(w, codeSize + i); kinds.push("word"); });
  const id = (s: string) => codeIndex.get(s) as number;
  return {
    size: strings.length,
    codeSize,
    pad: id("<pad>"), bos: id("<bos>"), sep: id("<sep>"), eos: id("<eos>"), unk: id("<unk>"),
    newline: id(NEWLINE), dedent: id(DEDENT), quote: id(QUOTE),
    tokenToString(t) {
      if (!Number.isInteger(t) || t < 0 || t >= strings.length) throw new RangeError(`token id ${t} outside the vocabulary (size ${strings.length})`);
      return strings[t];
    },
    codeToken: (s) => codeIndex.get(s) ?? -1,
    digit(d) {
      if (!Number.isInteger(d) || d < 0 || d > 9) throw new RangeError(`digit ${d} is not 0-9`);
      return firstDigit + d;
    },
    charToken: (c) => charIndex.get(c) ?? -1,
    wordToken: (w) => wordIndex.get(w) ?? codeIndex.get(w) ?? id("<unk>"),
    kind: (t) => kinds[t],
  };
}
