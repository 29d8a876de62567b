/**
 * Canonical values, as the harness writes them (harness.py, module doc), and the equality that
 * decides every verdict. This runs in the supervisor, where no candidate code runs: a candidate
 * can only change what its own calls return, never an expected value or the comparison.
 *
 *   None ["n"]  bool ["b",true]  int ["i","-0x1f"]  str ["s","..."] (with surrogate code points:
 *   ["u",[code points]])  float ["f","1.5"|"inf"|"nan"]
 *   list ["l",[...]]  tuple ["t",[...]]  set ["S",[...]]  frozenset ["F",[...]]  dict ["d",[[k,v],...]]
 * Set elements and dict keys come sorted by their own canonical text, so equal sets are equal lists.
 */

export type Canonical =
  | ["n"]
  | ["b", boolean]
  | ["i", string]
  | ["s", string]
  | ["u", number[]]
  | ["f", string]
  | ["l" | "t" | "S" | "F", Canonical[]]
  | ["d", [Canonical, Canonical][]];

/**
 * Arguments as a runner rebuilds them (harness `_display`): canonical values where a set display
 * may also be ["D", [elements as the line wrote them]], which the runner builds as CPython builds
 * that display (its iteration order depends on it). Never a value a runner returns.
 */
export type ArgsDisplay = Canonical | ["D", Canonical[]] | ["l" | "t", ArgsDisplay[]] | ["d", [Canonical, ArgsDisplay][]];

/** Float rule: relative 1e-9, absolute 1e-9 near zero. */
export const FLOAT_TOLERANCE = 1e-9;

const floatOf = (text: string): number => (text === "inf" ? Infinity : text === "-inf" ? -Infinity : Number(text));

/**
 * Equality of canonical values, types kept (1 != 1.0 != True, [1] != (1,)). Floats: both NaN, or
 * the same infinity, or |a - b| <= 1e-9 * max(1, |a|, |b|) for finite ones. Inside set elements
 * and dict keys everything compares exactly (as text: -0.0 == 0.0, NaN == NaN there).
 *
 *   sameValue(["f","0.30000000000000004"], ["f","0.3"]) === true
 *   sameValue(["f","inf"], ["f","1e308"]) === false
 */
export function sameValue(a: Canonical, b: Canonical): boolean {
  if (a[0] !== b[0]) return false;
  switch (a[0]) {
    case "f": {
      const x = floatOf(a[1]);
      const y = floatOf(b[1] as string);
      if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) && Number.isNaN(y);
      if (!Number.isFinite(x) || !Number.isFinite(y)) return x === y;
      return Math.abs(x - y) <= FLOAT_TOLERANCE * Math.max(1, Math.abs(x), Math.abs(y));
    }
    case "l":
    case "t": {
      const ys = b[1] as Canonical[];
      return a[1].length === ys.length && a[1].every((x, i) => sameValue(x, ys[i]));
    }
    case "d": {
      const ys = b[1] as [Canonical, Canonical][];
      return a[1].length === ys.length && a[1].every(([k, v], i) => exactlyEqual(k, ys[i][0]) && sameValue(v, ys[i][1]));
    }
    default:
      return exactlyEqual(a, b);
  }
}

function exactlyEqual(a: Canonical, b: Canonical): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

const PY_ESCAPES: Record<string, string> = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** Python-like repr of a str, for reasons only. */
function reprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = "";
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (PY_ESCAPES[ch]) out += PY_ESCAPES[ch];
    else if (ch === quote) out += "\\" + ch;
    else if (code < 0x20 || code === 0x7f) out += "\\x" + code.toString(16).padStart(2, "0");
    else if (code >= 0xd800 && code <= 0xdfff) out += "\\u" + code.toString(16);
    else out += ch;
  }
  return quote + out + quote;
}

function intOf(hex: string): bigint {
  return hex.startsWith("-") ? -BigInt(hex.slice(1)) : BigInt(hex);
}

const BIG = 10n ** 40n;
const BRACKETS = { l: ["[", "]"], t: ["(", ")"], S: ["{", "}"], F: ["frozenset({", "})"], d: ["{", "}"] } as const;

/** Bounded, Python-like display of a canonical value for reasons ("expected 3, got [1, 2]"). */
export function showValue(c: Canonical, budget = 30): string {
  try {
    return show(c, budget);
  } catch {
    return "<no value>"; // total: a reason is never what loses a batch (round 36)
  }
}

function show(c: Canonical, budget: number): string {
  switch (c[0]) {
    case "n":
      return "None";
    case "b":
      return c[1] ? "True" : "False";
    case "f":
      return c[1];
    case "i": {
      const v = intOf(c[1]);
      return -BIG < v && v < BIG ? v.toString() : `<int of ${(v < 0n ? -v : v).toString(2).length} bits>`;
    }
    case "s":
      return c[1].length <= budget ? reprString(c[1]) : reprString(c[1].slice(0, budget)) + "...";
    case "u":
      return "'" + c[1].slice(0, budget).map((cp) => (cp >= 0xd800 && cp <= 0xdfff ? `\\u${cp.toString(16)}` : reprString(String.fromCodePoint(cp)).slice(1, -1))).join("") + (c[1].length > budget ? "'..." : "'");
    default: {
      const [open, close] = BRACKETS[c[0]];
      if ((c[0] === "S" || c[0] === "F") && c[1].length === 0) return c[0] === "S" ? "set()" : "frozenset()";
      const items = c[0] === "d"
        ? (c[1] as [Canonical, Canonical][]).slice(0, 8).map(([k, v]) => `${show(k, 20)}: ${show(v, 20)}`)
        : (c[1] as Canonical[]).slice(0, 8).map((x) => show(x, 20));
      const tail = c[1].length > 8 ? ", ..." : c[0] === "t" && c[1].length === 1 ? "," : "";
      return (open + items.join(", ") + tail + close).slice(0, budget * 2);
    }
  }
}

const SCALAR_TAGS = new Set(["b", "i", "s", "f"]);
const LIST_TAGS = new Set(["l", "t", "S", "F"]);

/**
 * `value` checked to be a well-formed canonical value (runners' output is data from a process
 * that ran untrusted code), within `budget` nodes; null when it is not. `display`: set displays
 * (["D", ...], ArgsDisplay) are allowed too.
 */
export function checkCanonical(value: unknown, budget = { nodes: 100_000 }, depth = 0, display = false): Canonical | null {
  if (--budget.nodes < 0 || depth > 200 || !Array.isArray(value) || typeof value[0] !== "string") return null;
  const [tag, body] = value as [string, unknown];
  if (tag === "n") return value.length === 1 ? (value as Canonical) : null;
  if (value.length !== 2) return null;
  if (SCALAR_TAGS.has(tag)) {
    if (tag === "b") return typeof body === "boolean" ? (value as Canonical) : null;
    if (typeof body !== "string") return null;
    if (tag === "i" && !/^-?0x[0-9a-f]+$/.test(body)) return null;
    if (tag === "f" && !(body === "inf" || body === "-inf" || body === "nan" || Number.isFinite(Number(body)))) return null;
    return value as Canonical;
  }
  if (!Array.isArray(body)) return null;
  if (tag === "u") return body.every((cp) => Number.isInteger(cp) && cp >= 0 && cp <= 0x10ffff) && (budget.nodes -= body.length) >= 0 ? (value as Canonical) : null;
  if (tag === "D" && display) return body.every((x) => checkCanonical(x, budget, depth + 1)) ? (value as Canonical) : null;
  if (LIST_TAGS.has(tag)) return body.every((x) => checkCanonical(x, budget, depth + 1, display && (tag === "l" || tag === "t"))) ? (value as Canonical) : null;
  if (tag === "d") {
    const ok = body.every((kv) => Array.isArray(kv) && kv.length === 2 && checkCanonical(kv[0], budget, depth + 1) && checkCanonical(kv[1], budget, depth + 1, display));
    return ok ? (value as Canonical) : null;
  }
  return null;
}
