/**
 * Arena-Python as an LL(1) grammar over vocabulary tokens (docs/ARENA-PYTHON.md). One table drives
 * both the encoder's validation and the sampler's masks (code-grammar.ts), so the language has a
 * single definition.
 *
 * Notation: a rule maps a nonterminal to its alternatives; `[]` is the empty alternative. A symbol is
 * a nonterminal (lowercase), a named terminal class (UPPERCASE, see TERMINALS: same tokens may appear
 * in several classes, one per grammar position, so that each position can carry its own check), a
 * quoted single token (`"'('"` is the terminal for token `(`), or an action (`@name`). An action must
 * directly follow a terminal in its alternative: it then runs as soon as that terminal is consumed.
 * The expression levels follow CPython's grammar (conditional > or > and > not > comparison > + > * >
 * unary - > ** > primary), so every derivation is Python text.
 */
import { BUILTINS, LOCAL_NAMES, PARAM_NAMES } from "./vocab.ts";

/**
 * Context checks a terminal position carries (applied on top of the context-free table):
 * - `load`: a name read: bound, a visible comprehension target, or promised to the innermost comprehension
 *   element (its target must then bind it);
 * - `stmt`: statement start: not after return/break/continue in the same block; `loop`: also inside a loop;
 *   `header` (elif/else) and compound statements open a block whose first statement may be the return;
 * - `needBound`: `+=`, `NAME[...] =`, `NAME.append(...)` need the statement's name bound;
 * - `elemEnd`: a list/call element that promised names must continue with `for`;
 * - `compName1`/`compName2`/`inAfterTarget`: comprehension targets must bind every promised name;
 * - `eos`: the function has a return somewhere.
 */
export type TerminalRole = "plain" | "load" | "stmt" | "header" | "loop" | "return" | "stmtName" | "forName" | "needBound"
  | "elemEnd" | "compFor" | "compName1" | "compComma" | "compName2" | "inAfterTarget" | "eos";

export interface TerminalClass {
  tokens: readonly string[];
  role: TerminalRole;
}

const NAMES = [...PARAM_NAMES, ...LOCAL_NAMES];
const AUG_OPS = ["+=", "-=", "*=", "//=", "%="];
const DIGITS = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];

/** Named terminal classes. `CHAR` (any string character) is resolved by the vocabulary. */
export const TERMINALS: Record<string, TerminalClass> = {
  NL: { tokens: ["\n"], role: "plain" },
  DEDENT: { tokens: ["<dedent>"], role: "plain" },
  EOS: { tokens: ["<eos>"], role: "eos" },
  IF: { tokens: ["if"], role: "stmt" },
  ELIF: { tokens: ["elif"], role: "header" },
  ELSE: { tokens: ["else"], role: "header" },
  FOR: { tokens: ["for"], role: "stmt" },
  WHILE: { tokens: ["while"], role: "stmt" },
  RETURN: { tokens: ["return"], role: "return" },
  BREAK: { tokens: ["break"], role: "loop" },
  CONTINUE: { tokens: ["continue"], role: "loop" },
  SNAME: { tokens: NAMES, role: "stmtName" },
  FNAME: { tokens: NAMES, role: "forName" },
  LOAD: { tokens: NAMES, role: "load" },
  AUG: { tokens: AUG_OPS, role: "needBound" },
  SSUB: { tokens: ["["], role: "needBound" },
  SDOT: { tokens: ["."], role: "needBound" },
  SMETHOD: { tokens: ["append", "add"], role: "plain" },
  RBRACK_ELEM: { tokens: ["]"], role: "elemEnd" },
  RPAR_ELEM: { tokens: [")"], role: "elemEnd" },
  COMMA_ELEM: { tokens: [","], role: "elemEnd" },
  COMPFOR: { tokens: ["for"], role: "compFor" },
  CNAME1: { tokens: NAMES, role: "compName1" },
  COMMA_CT: { tokens: [","], role: "compComma" },
  CNAME2: { tokens: NAMES, role: "compName2" },
  IN_CT: { tokens: ["in"], role: "inAfterTarget" },
  CMPOP: { tokens: ["<", "<=", ">", ">=", "==", "!="], role: "plain" },
  ADDOP: { tokens: ["+", "-"], role: "plain" },
  MULOP: { tokens: ["*", "//", "%"], role: "plain" },
  QUOTE: { tokens: ["'"], role: "plain" },
  CHAR: { tokens: [], role: "plain" },
  ZERO: { tokens: ["0"], role: "plain" },
  NZDIGIT: { tokens: DIGITS.slice(1), role: "plain" },
  DIGIT: { tokens: DIGITS, role: "plain" },
  BOOL: { tokens: ["True", "False"], role: "plain" },
  BI: { tokens: BUILTINS, role: "plain" },
  B1: { tokens: ["len", "abs", "reversed", "bool", "str", "int", "enumerate"], role: "plain" },
  BG: { tokens: ["sum", "any", "all"], role: "plain" },
  B01G: { tokens: ["set", "list"], role: "plain" },
  BMM: { tokens: ["min", "max"], role: "plain" },
  M0: { tokens: ["lower", "upper", "strip", "isdigit", "isalpha", "isupper", "islower", "isspace"], role: "plain" },
  M1: { tokens: ["count", "index", "find", "startswith", "endswith"], role: "plain" },
};

/** Tail of a comprehension after its element: `for T in disj [if disj] CLOSE`. */
const comp = (close: string) => ["COMPFOR", "@target", "ctarget", "IN_CT", "@iter", "disj", "comp_if", close, "@pop"];

/** The productions. Start symbol: `body` (the `def f(...):` header is a forced prefix). */
export const RULES: Record<string, string[][]> = {
  // ---- statements: a block is `: NL stmt+ DEDENT`; the function body ends with EOS instead of DEDENT
  body: [["stmt", "body_tail"]],
  body_tail: [["stmt", "body_tail"], ["EOS"]],
  stmt: [
    ["simple", "NL", "@simpleEnd"],
    ["IF", "E", "':'", "@openPlain", "block", "if_rest"],
    ["FOR", "FNAME", "ftarget_rest", "'in'", "E", "':'", "@openFor", "block"],
    ["WHILE", "E", "':'", "@openLoop", "block"],
  ],
  block: [["NL", "stmt", "block_tail"]],
  block_tail: [["stmt", "block_tail"], ["DEDENT", "@close"]],
  if_rest: [["ELIF", "E", "':'", "@openPlain", "block", "if_rest"], ["ELSE", "':'", "@openPlain", "block"], []],
  ftarget_rest: [["','", "FNAME"], []],
  simple: [["RETURN", "E"], ["BREAK"], ["CONTINUE"], ["SNAME", "sname_rest"]],
  sname_rest: [["'='", "E"], ["AUG", "E"], ["SSUB", "E", "']'", "'='", "E"], ["SDOT", "SMETHOD", "'('", "E", "')'"]],

  // ---- expressions, by CPython precedence
  E: [["disj", "cond_rest"]],
  cond_rest: [["'if'", "disj", "'else'", "E"], []],
  disj: [["conj", "disj_rest"]],
  disj_rest: [["'or'", "conj", "disj_rest"], []],
  conj: [["inv", "conj_rest"]],
  conj_rest: [["'and'", "inv", "conj_rest"], []],
  inv: [["'not'", "inv"], ["cmp"]],
  cmp: [["sum", "cmp_rest"]],
  cmp_rest: [["CMPOP", "sum", "cmp_rest"], ["'in'", "sum", "cmp_rest"], ["'not'", "'in'", "sum", "cmp_rest"], []],
  sum: [["term", "sum_rest"]],
  sum_rest: [["ADDOP", "term", "sum_rest"], []],
  term: [["factor", "term_rest"]],
  term_rest: [["MULOP", "factor", "term_rest"], []],
  factor: [["'-'", "factor"], ["power"]],
  power: [["primary", "pow_rest"]],
  pow_rest: [["'**'", "factor"], []],
  primary: [
    ["LOAD", "trailers"],
    ["QUOTE", "chars", "QUOTE", "trailers"],
    ["int"],
    ["'True'"], ["'False'"], ["'None'"],
    ["'('", "E", "')'", "trailers"],
    ["'['", "@elem", "list_body", "trailers"],
    ["B1", "'('", "E", "')'", "trailers"],
    ["BG", "'('", "@elem", "E", "gen_after", "trailers"],
    ["B01G", "'('", "@elem", "b01_body", "trailers"],
    ["BMM", "'('", "@elem", "E", "mm_after", "trailers"],
    ["'sorted'", "'('", "@elem", "E", "sorted_after", "trailers"],
    ["'range'", "'('", "E", "range2", "trailers"],
    ["'zip'", "'('", "E", "zip_rest", "trailers"],
  ],
  int: [["ZERO"], ["NZDIGIT", "digits"]],
  digits: [["DIGIT", "digits"], []],
  chars: [["CHAR", "chars"], []],

  // ---- displays and calls whose first element may become a comprehension element
  list_body: [["']'", "@pop"], ["E", "list_after"]],
  list_after: [["RBRACK_ELEM", "@pop"], ["COMMA_ELEM", "@pop", "E", "list_more"], comp("']'")],
  list_more: [["','", "E", "list_more"], ["']'"]],
  comp_if: [["'if'", "@cond", "disj"], []],
  ctarget: [["CNAME1", "ctarget_rest"]],
  ctarget_rest: [["COMMA_CT", "CNAME2"], []],
  gen_after: [["RPAR_ELEM", "@pop"], comp("')'")],
  b01_body: [["')'", "@pop"], ["E", "gen_after"]],
  mm_after: [["RPAR_ELEM", "@pop"], ["COMMA_ELEM", "@pop", "mm_arg"], comp("')'")],
  mm_arg: [["E", "mm_rest"], ["'key'", "'='", "BI", "')'"]],
  mm_rest: [["','", "mm_arg"], ["')'"]],
  sorted_after: [["RPAR_ELEM", "@pop"], ["COMMA_ELEM", "@pop", "sorted_kw", "')'"], comp("')'")],
  sorted_kw: [["'key'", "'='", "BI", "sorted_kw_r"], ["'reverse'", "'='", "BOOL", "sorted_kw_k"]],
  sorted_kw_r: [["','", "'reverse'", "'='", "BOOL"], []],
  sorted_kw_k: [["','", "'key'", "'='", "BI"], []],
  range2: [["')'"], ["','", "E", "range3"]],
  range3: [["')'"], ["','", "E", "')'"]],
  zip_rest: [["','", "E", "zip_rest"], ["')'"]],

  // ---- trailers: subscripts, slices, expression methods
  trailers: [["'['", "sub_body", "trailers"], ["'.'", "emethod", "trailers"], []],
  sub_body: [["E", "sub_after"], ["':'", "slice1"]],
  sub_after: [["']'"], ["':'", "slice1"]],
  slice1: [["']'"], ["E", "slice2"], ["':'", "slice3"]],
  slice2: [["']'"], ["':'", "slice3"]],
  slice3: [["']'"], ["E", "']'"]],
  emethod: [
    ["M0", "'('", "')'"],
    ["M1", "'('", "E", "')'"],
    ["'join'", "'('", "@elem", "E", "gen_after"],
    ["'split'", "'('", "split_arg"],
    ["'replace'", "'('", "E", "','", "E", "')'"],
  ],
  split_arg: [["')'"], ["E", "')'"]],
};

/** Budget weight of a token: `break`/`continue` count double so that the cheapest statement is
 * `return 0` (3) everywhere, inside a loop or not; the real length never exceeds the weighted one. */
export const HEAVY_TOKENS: readonly string[] = ["break", "continue"];
