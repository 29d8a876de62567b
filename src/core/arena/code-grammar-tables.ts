/**
 * Compiles the arena-Python rules (code-grammar-rules.ts) against a vocabulary into the tables the
 * incremental parser uses, once per vocabulary:
 * - `choice[A * V + t]`: the alternative of nonterminal A that token t starts (LL(1); conflicts throw);
 * - per symbol X, the sparse list of tokens that can start it, each with `costAfter` (the weighted
 *   length of the shortest completion of X after that token) and the terminal class that consumes it.
 * With these, the parser's cheapest completion after any token is `base[d] + costAfter(X_d, t)` for
 * the first stack entry X_d (from the top, skipping nullable entries) that can start with t.
 */
import { HEAVY_TOKENS, RULES, TERMINALS, type TerminalRole } from "./code-grammar-rules.ts";
import type { Vocabulary } from "./vocab.ts";

export const SymKind = { Terminal: 0, Nonterminal: 1, Action: 2 } as const;
export type SymKind = (typeof SymKind)[keyof typeof SymKind];

export interface GrammarTables {
  /** Code-vocabulary size (tables and masks cover ids below this). */
  readonly V: number;
  readonly names: string[];
  readonly kind: Uint8Array;
  readonly nullable: Uint8Array;
  /** Weighted length of the shortest string each symbol derives. */
  readonly minLen: Int32Array;
  readonly role: TerminalRole[];
  /** Per terminal: token membership (length V); undefined for other symbols. */
  readonly member: (Uint8Array | undefined)[];
  /** Per nonterminal: alternatives as symbol ids. */
  readonly rhs: number[][][];
  readonly choice: Int16Array;
  readonly firstToks: Int16Array[];
  readonly firstCost: Int32Array[];
  readonly firstMatch: Int16Array[];
  /** Budget weight per token (1, or 2 for break/continue). */
  readonly weight: Uint8Array;
  readonly symbol: (name: string) => number;
}

const INF = 1 << 29;

export function buildGrammarTables(vocab: Vocabulary): GrammarTables {
  const V = vocab.codeSize;
  const names: string[] = [];
  const index = new Map<string, number>();
  const kind: number[] = [];
  const add = (n: string, k: SymKind) => {
    if (!index.has(n)) { index.set(n, names.length); names.push(n); kind.push(k); }
    return index.get(n) as number;
  };
  const classify = (s: string): SymKind => s.startsWith("@") ? SymKind.Action
    : s.startsWith("'") || s in TERMINALS ? SymKind.Terminal : SymKind.Nonterminal;
  for (const a of Object.keys(RULES)) add(a, SymKind.Nonterminal);
  for (const alts of Object.values(RULES)) for (const alt of alts) for (const s of alt) {
    const k = classify(s);
    if (k === SymKind.Nonterminal && !(s in RULES)) throw new Error(`grammar: nonterminal '${s}' has no rule`);
    add(s, k);
  }
  const n = names.length;
  const tokenId = (text: string): number => {
    const id = /^[0-9]$/.test(text) ? vocab.digit(Number(text)) : vocab.codeToken(text);
    if (id < 0) throw new Error(`grammar: token '${text}' is not in the vocabulary`);
    return id;
  };
  const weight = new Uint8Array(V).fill(1);
  for (const h of HEAVY_TOKENS) weight[tokenId(h)] = 2;

  const member: (Uint8Array | undefined)[] = new Array(n).fill(undefined);
  const role: TerminalRole[] = new Array(n).fill("plain");
  const first: Uint8Array[] = names.map(() => new Uint8Array(V));
  const nullable = new Uint8Array(n);
  const minLen = new Int32Array(n).fill(INF);
  names.forEach((s, x) => {
    if (kind[x] === SymKind.Action) { nullable[x] = 1; minLen[x] = 0; return; }
    if (kind[x] !== SymKind.Terminal) return;
    const m = new Uint8Array(V);
    if (s === "CHAR") for (let t = 0; t < V; t++) { if (vocab.kind(t) === "char") m[t] = 1; }
    else {
      const toks = s.startsWith("'") ? [s.slice(1, -1)] : TERMINALS[s].tokens;
      for (const tk of toks) m[tokenId(tk)] = 1;
      if (!s.startsWith("'")) role[x] = TERMINALS[s].role;
    }
    member[x] = m;
    first[x].set(m);
    let w = INF;
    for (let t = 0; t < V; t++) if (m[t]) w = Math.min(w, weight[t]);
    minLen[x] = w;
  });
  const rhs: number[][][] = names.map((s, x) => kind[x] === SymKind.Nonterminal
    ? RULES[s].map((alt) => alt.map((y) => index.get(y) as number)) : []);
  for (const alts of rhs) for (const alt of alts) alt.forEach((y, i) => {
    if (kind[y] === SymKind.Action && (i === 0 || kind[alt[i - 1]] === SymKind.Nonterminal)) {
      throw new Error(`grammar: action ${names[y]} must directly follow a terminal`);
    }
  });

  // Fixed point for nullable, FIRST and minLen (the grammar is small: a few passes).
  for (let changed = true; changed;) {
    changed = false;
    for (let a = 0; a < n; a++) {
      if (kind[a] !== SymKind.Nonterminal) continue;
      for (const alt of rhs[a]) {
        let len = 0, allNull = true;
        for (const y of alt) {
          len += minLen[y];
          if (allNull) {
            const fa = first[a], fy = first[y];
            for (let t = 0; t < V; t++) if (fy[t] && !fa[t]) { fa[t] = 1; changed = true; }
            if (!nullable[y]) allNull = false;
          }
        }
        if (allNull && !nullable[a]) { nullable[a] = 1; changed = true; }
        if (len < minLen[a]) { minLen[a] = len; changed = true; }
      }
    }
  }

  // LL(1) choice table.
  const choice = new Int16Array(n * V).fill(-1);
  for (let a = 0; a < n; a++) {
    if (kind[a] !== SymKind.Nonterminal) continue;
    rhs[a].forEach((alt, k) => {
      for (const y of alt) {
        const fy = first[y];
        for (let t = 0; t < V; t++) if (fy[t]) {
          const prev = choice[a * V + t];
          if (prev >= 0 && prev !== k) {
            throw new Error(`grammar: LL(1) conflict in ${names[a]} on '${vocab.tokenToString(t)}' (alternatives ${prev} and ${k})`);
          }
          choice[a * V + t] = k;
        }
        if (!nullable[y]) break;
      }
    });
  }

  // costAfter / match for every (symbol, token it can start with), memoised over the acyclic LL table.
  const costMemo = names.map(() => new Int32Array(V).fill(-1));
  const matchMemo = names.map(() => new Int16Array(V).fill(-1));
  const costAfter = (x: number, t: number): number => {
    if (costMemo[x][t] >= 0) return costMemo[x][t];
    if (kind[x] === SymKind.Terminal) { costMemo[x][t] = 0; matchMemo[x][t] = x; return 0; }
    const alt = rhs[x][choice[x * V + t]];
    let i = 0;
    while (!first[alt[i]][t]) i++;
    let c = costAfter(alt[i], t);
    for (let j = i + 1; j < alt.length; j++) c += minLen[alt[j]];
    costMemo[x][t] = c;
    matchMemo[x][t] = matchMemo[alt[i]][t];
    return c;
  };
  const firstToks: Int16Array[] = [], firstCost: Int32Array[] = [], firstMatch: Int16Array[] = [];
  for (let x = 0; x < n; x++) {
    const toks: number[] = [];
    for (let t = 0; t < V; t++) if (first[x][t]) toks.push(t);
    firstToks.push(Int16Array.from(toks));
    firstCost.push(Int32Array.from(toks, (t) => costAfter(x, t)));
    firstMatch.push(Int16Array.from(toks, (t) => matchMemo[x][t]));
  }
  return {
    V, names, kind: Uint8Array.from(kind), nullable, minLen, role, member, rhs, choice,
    firstToks, firstCost, firstMatch, weight,
    symbol: (s) => {
      const id = index.get(s);
      if (id === undefined) throw new Error(`grammar: unknown symbol ${s}`);
      return id;
    },
  };
}
