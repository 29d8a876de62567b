/**
 * A small Python tokenizer for syntax highlighting of arena-Python (docs/ARENA-PYTHON.md) and of
 * anything else a user types in Play: it never fails, and the tokens' texts always concatenate
 * back to the source, so highlighting cannot change what is shown.
 */

export type TokenKind = "keyword" | "builtin" | "def-name" | "name" | "number" | "string" | "comment" | "op" | "punct" | "space";

export interface Token {
  kind: TokenKind;
  text: string;
}

const KEYWORDS = new Set([
  "def", "return", "if", "elif", "else", "for", "while", "in", "not", "and", "or", "is", "break",
  "continue", "pass", "True", "False", "None", "lambda", "assert", "import", "from", "as", "with",
  "try", "except", "finally", "raise", "class", "yield", "global", "nonlocal", "del",
]);

/** Arena-Python's builtins and methods (docs/ARENA-PYTHON.md, "Expressions"). */
const BUILTINS = new Set([
  "len", "sum", "min", "max", "sorted", "set", "abs", "range", "enumerate", "zip", "any", "all",
  "list", "str", "int", "reversed", "bool", "print", "dict", "tuple", "map", "filter",
]);

const RULES: [TokenKind, RegExp][] = [
  ["space", /^\s+/],
  ["comment", /^#[^\n]*/],
  ["string", /^(?:'(?:[^'\\\n]|\\.)*'?|"(?:[^"\\\n]|\\.)*"?)/],
  ["number", /^(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+)/],
  ["name", /^[A-Za-z_][A-Za-z0-9_]*/],
  ["op", /^(?:\*\*=?|\/\/=?|==|!=|<=|>=|[-+*/%<>=]=?)/],
  ["punct", /^[()[\]{}:,.;]/],
];

/** Split `src` into highlight tokens; `tokens.map(t => t.text).join("") === src`. */
export function tokenizePython(src: string): Token[] {
  const out: Token[] = [];
  let rest = src;
  let afterDef = false;
  while (rest.length > 0) {
    let kind: TokenKind = "punct";
    let text = rest[0]; // an unknown character is its own token
    for (const [k, re] of RULES) {
      const m = re.exec(rest);
      if (m && m[0].length > 0) {
        kind = k;
        text = m[0];
        break;
      }
    }
    if (kind === "name") {
      if (KEYWORDS.has(text)) kind = "keyword";
      else if (afterDef) kind = "def-name";
      else if (BUILTINS.has(text)) kind = "builtin";
    }
    if (kind !== "space") afterDef = kind === "keyword" && text === "def";
    const last = out[out.length - 1];
    if (last && last.kind === kind && (kind === "space" || kind === "punct")) last.text += text;
    else out.push({ kind, text });
    rest = rest.slice(text.length);
  }
  return out;
}
