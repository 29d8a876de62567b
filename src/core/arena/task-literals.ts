/**
 * Python literals as plain data: how plus inputs are drawn and printed, and how golden tests
 * (`assert f(ARGS) == ANSWER`) are read back for imports and input mutation. Covers what test
 * files of MBPP / HumanEval use: int, float, bool, None, str, list, tuple, set, dict, unary minus.
 * Printing follows Python's `repr`, so a printed line reads the way the grader's Python writes it.
 */
import type { ArenaType } from "./types.ts";

export type PyLit =
  | { t: "int"; v: number }
  | { t: "float"; v: number }
  | { t: "bool"; v: boolean }
  | { t: "none" }
  | { t: "str"; v: string }
  | { t: "list" | "tuple" | "set"; items: PyLit[] }
  | { t: "dict"; entries: [PyLit, PyLit][] };

export const int = (v: number): PyLit => ({ t: "int", v });
export const str = (v: string): PyLit => ({ t: "str", v });
export const bool = (v: boolean): PyLit => ({ t: "bool", v });
export const list = (items: PyLit[]): PyLit => ({ t: "list", items });

/** Python `repr` of a literal. */
export function formatLiteral(x: PyLit): string {
  switch (x.t) {
    case "int":
      return String(x.v);
    case "float":
      return formatFloat(x.v);
    case "bool":
      return x.v ? "True" : "False";
    case "none":
      return "None";
    case "str":
      return reprStr(x.v);
    case "list":
      return `[${x.items.map(formatLiteral).join(", ")}]`;
    case "tuple":
      return x.items.length === 1 ? `(${formatLiteral(x.items[0])},)` : `(${x.items.map(formatLiteral).join(", ")})`;
    case "set":
      return x.items.length === 0 ? "set()" : `{${x.items.map(formatLiteral).join(", ")}}`;
    case "dict":
      return `{${x.entries.map(([k, v]) => `${formatLiteral(k)}: ${formatLiteral(v)}`).join(", ")}}`;
  }
}

/** Arguments of a call, comma-separated. */
export function formatArgs(args: PyLit[]): string {
  return args.map(formatLiteral).join(", ");
}

function formatFloat(v: number): string {
  if (Number.isNaN(v)) return "float('nan')";
  if (!Number.isFinite(v)) return v > 0 ? "float('inf')" : "-float('inf')";
  if (Number.isInteger(v) && Math.abs(v) < 1e16) return `${v}.0`;
  return String(v);
}

/** Python's str repr: single quotes unless the text has ' and no ". */
function reprStr(s: string): string {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = q;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === "\\") out += "\\\\";
    else if (ch === q) out += `\\${q}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return out + q;
}

export class LiteralSyntaxError extends Error {
  constructor(message: string, readonly column: number) {
    super(`${message} at column ${column + 1}`);
    this.name = "LiteralSyntaxError";
  }
}

/** Recursive-descent reader over one line of Python literal syntax. */
class Reader {
  i = 0;
  constructor(readonly s: string) {}

  ws(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i])) this.i++;
  }

  eat(tok: string): boolean {
    this.ws();
    if (this.s.startsWith(tok, this.i)) {
      this.i += tok.length;
      return true;
    }
    return false;
  }

  expect(tok: string): void {
    if (!this.eat(tok)) throw new LiteralSyntaxError(`expected '${tok}'`, this.i);
  }

  literal(): PyLit {
    this.ws();
    const c = this.s[this.i];
    if (c === undefined) throw new LiteralSyntaxError("unexpected end of line", this.i);
    if (c === "-" || c === "+") {
      this.i++;
      const inner = this.literal();
      if (inner.t !== "int" && inner.t !== "float") throw new LiteralSyntaxError("unary sign on a non-number", this.i);
      return c === "-" ? { ...inner, v: -inner.v } : inner;
    }
    if (/[0-9.]/.test(c)) return this.number();
    if (c === "'" || c === '"') return this.string();
    if (c === "[") return { t: "list", items: this.items("[", "]") };
    if (c === "(") {
      const start = this.i;
      const items = this.items("(", ")");
      const trailingComma = /,\s*\)$/.test(this.s.slice(start, this.i));
      return items.length === 1 && !trailingComma ? items[0] : { t: "tuple", items };
    }
    if (c === "{") return this.braces();
    for (const [word, lit] of [["True", bool(true)], ["False", bool(false)], ["None", { t: "none" }]] as const) {
      if (this.s.startsWith(word, this.i) && !/[A-Za-z0-9_]/.test(this.s[this.i + word.length] ?? "")) {
        this.i += word.length;
        return lit;
      }
    }
    if (this.s.startsWith("set()", this.i)) {
      this.i += 5;
      return { t: "set", items: [] };
    }
    throw new LiteralSyntaxError(`not a literal: '${this.s.slice(this.i, this.i + 12)}'`, this.i);
  }

  number(): PyLit {
    const m = /^(\d[\d_]*)?(\.\d*)?([eE][+-]?\d+)?/.exec(this.s.slice(this.i));
    if (!m || m[0] === "" || m[0] === ".") throw new LiteralSyntaxError("bad number", this.i);
    this.i += m[0].length;
    const text = m[0].replace(/_/g, "");
    if (m[2] === undefined && m[3] === undefined) {
      if (/^0\d/.test(text)) throw new LiteralSyntaxError("integer with a leading zero", this.i);
      return int(Number(text));
    }
    return { t: "float", v: Number(text) };
  }

  string(): PyLit {
    const q = this.s[this.i++];
    let out = "";
    for (;;) {
      const c = this.s[this.i++];
      if (c === undefined) throw new LiteralSyntaxError("unterminated string", this.i);
      if (c === q) break;
      if (c !== "\\") {
        out += c;
        continue;
      }
      const e = this.s[this.i++];
      const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0" };
      if (e in simple) out += simple[e];
      else if (e === "x") {
        out += String.fromCharCode(parseInt(this.s.slice(this.i, this.i + 2), 16));
        this.i += 2;
      } else throw new LiteralSyntaxError(`unsupported escape '\\${e}'`, this.i);
    }
    // Adjacent literals concatenate, as in Python.
    this.ws();
    if (this.s[this.i] === "'" || this.s[this.i] === '"') return str(out + (this.string() as { v: string }).v);
    return str(out);
  }

  items(open: string, close: string): PyLit[] {
    this.expect(open);
    const items: PyLit[] = [];
    while (!this.eat(close)) {
      items.push(this.literal());
      if (!this.eat(",")) {
        this.expect(close);
        break;
      }
    }
    return items;
  }

  braces(): PyLit {
    this.expect("{");
    if (this.eat("}")) return { t: "dict", entries: [] };
    const first = this.literal();
    if (this.eat(":")) {
      const entries: [PyLit, PyLit][] = [[first, this.literal()]];
      while (this.eat(",")) {
        if (this.eat("}")) return { t: "dict", entries };
        const k = this.literal();
        this.expect(":");
        entries.push([k, this.literal()]);
      }
      this.expect("}");
      return { t: "dict", entries };
    }
    const items = [first];
    while (this.eat(",")) {
      if (this.eat("}")) return { t: "set", items };
      items.push(this.literal());
    }
    this.expect("}");
    return { t: "set", items };
  }
}

/** Parses one literal (the whole string). */
export function parseLiteral(src: string): PyLit {
  const r = new Reader(src);
  const lit = r.literal();
  r.ws();
  if (r.i !== src.length) throw new LiteralSyntaxError(`unexpected '${src.slice(r.i, r.i + 12)}'`, r.i);
  return lit;
}

export interface ParsedAssert {
  args: PyLit[];
  expected: PyLit;
}

/**
 * Reads `assert NAME(ARGS) == ANSWER` (spaces optional) where every argument and the answer are
 * literals. Throws LiteralSyntaxError for anything else (keyword arguments, expressions, `not`).
 */
export function parseAssert(line: string, entryPoint: string): ParsedAssert {
  const r = new Reader(line.trim());
  r.expect("assert");
  r.expect(entryPoint);
  const args = r.items("(", ")");
  r.expect("==");
  const expected = r.literal();
  r.ws();
  if (r.i !== r.s.length) throw new LiteralSyntaxError(`unexpected '${r.s.slice(r.i, r.i + 12)}'`, r.i);
  return { args, expected };
}

/** Arena type of a value, "list[]" for an empty list (compatible with both list types), or "other". */
export function literalType(x: PyLit): ArenaType | "list[]" | "other" {
  if (x.t === "int" || x.t === "bool" || x.t === "str") return x.t;
  if (x.t !== "list") return "other";
  if (x.items.length === 0) return "list[]";
  if (x.items.every((i) => i.t === "int")) return "list[int]";
  if (x.items.every((i) => i.t === "str")) return "list[str]";
  return "other";
}

/**
 * One type from the values seen at one position over several tests: equal types unify, an empty
 * list unifies with either list type (alone it reads as list[int]), anything else is "other".
 */
export function unifyTypes(types: (ArenaType | "list[]" | "other")[]): ArenaType | "other" {
  const known = new Set(types.filter((t) => t !== "list[]"));
  if (known.size === 0) return types.length > 0 ? "list[int]" : "other";
  if (known.size > 1) return "other";
  const only = [...known][0];
  if (types.includes("list[]") && only !== "list[int]" && only !== "list[str]") return "other";
  return only;
}
