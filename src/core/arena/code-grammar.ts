/**
 * Constrained decoding for arena-Python programs: an incremental LL(1) parser (tables from
 * code-grammar-tables.ts) plus the context the grammar cannot express, kept as small explicit state:
 * bound names, comprehension scopes, loop depth, and "the block ended with return/break/continue".
 *
 * Budget: every allowed token t must satisfy `used + w(t) + cheapest(after t) + committed <= maxTokens`,
 * where cheapest(after t) comes from the tables and `committed` counts tokens the context already
 * forces beyond it (a promised comprehension target, a missing return). Since the cheapest
 * completion is always followed by some allowed token, a sample never gets stuck and never exceeds
 * the budget. Cost: `allowed` walks only the nullable entries at the top of the stack (bounded by the
 * grammar's depth of optional tails, not by the prefix) and a few sparse token lists: O(vocabulary).
 */
import type { TokenConstraint } from "../decoding.ts";
import { SymKind, buildGrammarTables, type GrammarTables } from "./code-grammar-tables.ts";
import type { TerminalRole } from "./code-grammar-rules.ts";
import { formatTokens } from "./tokenizer-format.ts";
import type { Signature } from "./types.ts";
import { FUNCTION_NAME, LOCAL_NAMES, PARAM_NAMES, type Vocabulary } from "./vocab.ts";

/** Every name a program may bind or read (parameters first). */
export const ARENA_NAMES: readonly string[] = [...PARAM_NAMES, ...LOCAL_NAMES];

const enum Phase { Element, Target, Iter, Cond }

/** Roles whose token can lower the committed count, so they are checked even with negative slack. */
const REFUNDING: ReadonlySet<TerminalRole> = new Set(["return", "stmt", "header", "compFor", "compComma", "elemEnd"]);

/** One comprehension (or list display / call whose first element might become one). */
interface CompFrame {
  phase: Phase;
  /** Names read in the element before being bound: the target must bind them (at most 2). */
  pending: number[];
  targets: number[];
  /** The target so far leaves a promised name unbound: `, NAME` must follow. */
  mustComma: boolean;
  forced: number;
  /** Tokens this frame commits beyond the grammar's cheapest completion. */
  extra: number;
}

export interface CodeState {
  stack: number[];
  /** base[i]: weighted minimum length of stack[0..i-1] (what lies below entry i). */
  base: number[];
  used: number;
  prefixPos: number;
  done: boolean;
  bound: Uint8Array;
  frames: CompFrame[];
  blocks: number[];
  loopDepth: number;
  hasReturn: boolean;
  /** A block (or the body) was just opened and has no statement yet. */
  needFirstStmt: boolean;
  /** A compound header (if/elif/else/for/while) was started and its block is not open yet. */
  pendingBlock: boolean;
  /** The last statement of the current block was return/break/continue: only dedent/end may follow. */
  terminated: boolean;
  stmtName: number;
  stmtTerminates: boolean;
  forTargets: number[];
  frameExtra: number;
}

export interface CodeConstraintOptions {
  /** Most tokens in a sample, header and end token included (break/continue count 2). */
  maxTokens: number;
}

const tablesCache = new WeakMap<Vocabulary, GrammarTables>();
/** Grammar tables for a vocabulary, built once. */
export function grammarTables(vocab: Vocabulary): GrammarTables {
  let t = tablesCache.get(vocab);
  if (!t) { t = buildGrammarTables(vocab); tablesCache.set(vocab, t); }
  return t;
}

/** Token ids of `def f(p1, p2):` + newline, checking the signature is expressible. */
export function headerTokens(vocab: Vocabulary, sig: Signature): number[] {
  if (sig.entry_point !== FUNCTION_NAME) {
    throw new Error(`arena-Python functions are named '${FUNCTION_NAME}', the signature says '${sig.entry_point}'`);
  }
  const seen = new Set<string>();
  const out = [vocab.codeToken("def"), vocab.codeToken(FUNCTION_NAME), vocab.codeToken("(")];
  sig.params.forEach((p, i) => {
    if (!ARENA_NAMES.includes(p.name)) throw new Error(`parameter '${p.name}' is not an arena-Python name (pool: ${PARAM_NAMES.join(" ")})`);
    if (seen.has(p.name)) throw new Error(`parameter '${p.name}' appears twice in the signature`);
    seen.add(p.name);
    if (i > 0) out.push(vocab.codeToken(","));
    out.push(vocab.codeToken(p.name));
  });
  out.push(vocab.codeToken(")"), vocab.codeToken(":"), vocab.newline);
  return out;
}

export class CodeConstraint implements TokenConstraint<CodeState> {
  readonly vocabSize: number;
  readonly tables: GrammarTables;
  readonly header: number[];
  readonly maxTokens: number;
  /** Stack entries visited by the last `allowed` call (bounded by the grammar, not the prefix). */
  lastWalk = 0;
  private readonly nameIdx: Int16Array;
  private readonly paramIdx: number[];
  private readonly startSym: number;
  private readonly actions: Record<string, number>;
  // Scratch for `allowed` (JS is single-threaded; states are separate objects).
  private stamp = 0;
  private readonly stampOf: Int32Array;
  private readonly cost: Int32Array;
  private readonly match: Int16Array;
  private readonly cand: Int16Array;

  constructor(readonly vocab: Vocabulary, sig: Signature, opts: CodeConstraintOptions) {
    this.vocabSize = vocab.size;
    this.tables = grammarTables(vocab);
    this.header = headerTokens(vocab, sig);
    this.maxTokens = opts.maxTokens;
    const V = this.tables.V;
    this.nameIdx = new Int16Array(V).fill(-1);
    ARENA_NAMES.forEach((nm, i) => { this.nameIdx[vocab.codeToken(nm)] = i; });
    this.paramIdx = sig.params.map((p) => ARENA_NAMES.indexOf(p.name));
    this.startSym = this.tables.symbol("body");
    this.actions = {};
    for (const a of ["@elem", "@target", "@iter", "@cond", "@pop", "@simpleEnd", "@openPlain", "@openLoop", "@openFor", "@close"]) {
      this.actions[a] = this.tables.symbol(a);
    }
    this.stampOf = new Int32Array(V);
    this.cost = new Int32Array(V);
    this.match = new Int16Array(V);
    this.cand = new Int16Array(V);
    const shortest = this.header.length + this.tables.minLen[this.startSym];
    if (!(Number.isInteger(opts.maxTokens) && opts.maxTokens >= shortest)) {
      throw new RangeError(`maxTokens ${opts.maxTokens} is below the shortest program for this signature (${shortest} tokens)`);
    }
  }

  start(): CodeState {
    const bound = new Uint8Array(ARENA_NAMES.length);
    for (const i of this.paramIdx) bound[i] = 1;
    return {
      stack: [this.startSym], base: [0], used: 0, prefixPos: 0, done: false, bound, frames: [], blocks: [],
      loopDepth: 0, hasReturn: false, needFirstStmt: true, pendingBlock: false, terminated: false, stmtName: -1, stmtTerminates: false,
      forTargets: [], frameExtra: 0,
    };
  }

  isDone(s: CodeState): boolean {
    return s.done;
  }

  /**
   * Tokens the context already commits beyond the grammar's cheapest completion: promised
   * comprehension targets, and `return 0` (3) while the function has no return and no block is
   * waiting for a first statement (which could be that return at no extra cost).
   */
  private committed(s: CodeState): number {
    return s.frameExtra + this.returnDebt(s);
  }

  private returnDebt(s: CodeState): number {
    return !s.hasReturn && !s.needFirstStmt && !s.pendingBlock ? 3 : 0;
  }

  allowed(s: CodeState, mask: Uint8Array): void {
    mask.fill(0);
    if (s.done) return;
    if (s.prefixPos < this.header.length) { mask[this.header[s.prefixPos]] = 1; return; }
    const thr = this.maxTokens - s.used - this.committed(s);
    const n = this.overlay(s);
    const { role, weight } = this.tables;
    for (let i = 0; i < n; i++) {
      const t = this.cand[i];
      const slack = thr - this.cost[t] - weight[t];
      const r = role[this.match[t]];
      // Tokens that pay off committed tokens (return, a block header, a comprehension's `for` and `,`)
      // are checked with that refund.
      if (slack < 0 && !REFUNDING.has(r)) continue;
      if (r === "plain" || this.check(s, r, t, slack)) mask[t] = 1;
    }
  }

  /**
   * For each token that can come next, the cheapest weighted completion after it (`cost`) and the
   * terminal class that would consume it (`match`). Greedy: the topmost stack entry that can start
   * with the token wins, as an LL(1) parser would choose. Returns the number of candidates in `cand`.
   */
  private overlay(s: CodeState): number {
    const { firstToks, firstCost, firstMatch, nullable } = this.tables;
    const stamp = ++this.stamp;
    let n = 0, d = s.stack.length - 1;
    for (; d >= 0; d--) {
      const x = s.stack[d], toks = firstToks[x], costs = firstCost[x], matches = firstMatch[x], below = s.base[d];
      for (let j = 0; j < toks.length; j++) {
        const t = toks[j];
        if (this.stampOf[t] === stamp) continue;
        this.stampOf[t] = stamp;
        this.cost[t] = costs[j] + below;
        this.match[t] = matches[j];
        this.cand[n++] = t;
      }
      if (!nullable[x]) break;
    }
    this.lastWalk = s.stack.length - Math.max(d, 0);
    return n;
  }

  private visible(s: CodeState, name: number): boolean {
    if (s.bound[name]) return true;
    for (const f of s.frames) {
      if (f.phase === Phase.Cond && f.targets.includes(name)) return true;
      if (f.phase === Phase.Element && f.pending.includes(name)) return true;
    }
    return false;
  }

  private elementFrame(s: CodeState, from = s.frames.length - 1): CompFrame | undefined {
    for (let i = from; i >= 0; i--) if (s.frames[i].phase === Phase.Element) return s.frames[i];
    return undefined;
  }

  private top(s: CodeState): CompFrame {
    return s.frames[s.frames.length - 1];
  }

  private check(s: CodeState, r: TerminalRole, t: number, slack: number): boolean {
    const name = this.nameIdx[t];
    switch (r) {
      case "load": {
        if (this.visible(s, name)) return true;
        const f = this.elementFrame(s);
        return !!f && f.pending.length < 2 && slack >= (f.pending.length === 0 ? 4 : 2);
      }
      case "stmt": case "loop": case "return": case "stmtName":
        if (s.terminated || (r === "loop" && s.loopDepth === 0)) return false;
        // return pays the debt; if/for/while open a block that can hold the return (debt 0 until then);
        // a simple statement in a block's first place pushes the return later (debt 3).
        if (r === "return" || r === "stmt") return slack + this.returnDebt(s) >= 0;
        return !s.needFirstStmt || s.hasReturn || slack >= 3;
      case "header": return slack + this.returnDebt(s) >= 0;
      case "needBound": return s.stmtName >= 0 && s.bound[s.stmtName] === 1;
      case "elemEnd": {
        // Not a comprehension after all: its promised names pass to the enclosing element, if any.
        const f = this.top(s);
        if (f.pending.length === 0) return slack >= 0;
        const g = this.elementFrame(s, s.frames.length - 2);
        if (!g) return false;
        const merged = new Set([...g.pending, ...f.pending]).size;
        return merged <= 2 && slack - ((merged === 1 ? 4 : 6) - g.extra - f.extra) >= 0;
      }
      case "compFor": { const f = this.top(s); return slack + f.extra - (f.pending.length === 2 ? 2 : 0) >= 0; }
      case "compComma": return slack + this.top(s).extra >= 0;
      case "compName1": {
        const p = this.top(s).pending;
        if (p.length === 0 || (p.length === 1 && p[0] === name)) return true;
        return p.length === 1 ? slack >= 2 : p.includes(name);
      }
      case "compName2": { const f = this.top(s); return f.forced < 0 || f.forced === name; }
      case "inAfterTarget": return !this.top(s).mustComma;
      case "eos": return s.hasReturn;
      default: return true;
    }
  }

  private setExtra(s: CodeState, f: CompFrame, extra: number): void {
    s.frameExtra += extra - f.extra;
    f.extra = extra;
  }

  advance(s: CodeState, t: number): CodeState {
    if (s.done) throw new Error("advance after the end token");
    const { kind, member, choice, rhs, nullable, minLen, V, weight } = this.tables;
    if (t < 0 || t >= V) throw new Error(`token ${t} is not a code token`);
    if (s.prefixPos < this.header.length) {
      if (t !== this.header[s.prefixPos]) throw new Error(`token '${this.vocab.tokenToString(t)}' does not match the function header`);
      s.prefixPos++;
      s.used += weight[t];
      return s;
    }
    for (;;) {
      const x = s.stack.pop();
      s.base.pop();
      if (x === undefined) throw new Error(`token '${this.vocab.tokenToString(t)}' after the end of the program`);
      if (kind[x] === SymKind.Action) { this.act(s, x); continue; }
      if (kind[x] === SymKind.Terminal) {
        if (!member[x]![t]) throw new Error(`token '${this.vocab.tokenToString(t)}' not allowed here`);
        this.consume(s, x, t);
        break;
      }
      const k = choice[x * V + t];
      if (k < 0) {
        if (nullable[x]) continue;
        throw new Error(`token '${this.vocab.tokenToString(t)}' not allowed here`);
      }
      const alt = rhs[x][k];
      for (let i = alt.length - 1; i >= 0; i--) {
        const below = s.stack.length;
        s.base.push(below === 0 ? 0 : s.base[below - 1] + minLen[s.stack[below - 1]]);
        s.stack.push(alt[i]);
      }
    }
    while (s.stack.length > 0 && kind[s.stack[s.stack.length - 1]] === SymKind.Action) {
      s.base.pop();
      this.act(s, s.stack.pop()!);
    }
    s.used += weight[t];
    return s;
  }

  /** Context updates when terminal class `x` consumes token `t`. */
  private consume(s: CodeState, x: number, t: number): void {
    const r = this.tables.role[x], name = this.nameIdx[t];
    switch (r) {
      case "load":
        if (!this.visible(s, name)) {
          const f = this.elementFrame(s);
          if (!f) throw new Error(`name '${ARENA_NAMES[name]}' is read before it is bound (token was not allowed)`);
          f.pending.push(name);
          this.setExtra(s, f, f.pending.length === 1 ? 4 : 6);
        }
        return;
      case "stmt": case "loop": case "return": case "stmtName":
        s.needFirstStmt = false;
        s.stmtTerminates = r === "return" || r === "loop";
        if (r === "return") s.hasReturn = true;
        if (r === "stmtName") s.stmtName = name;
        if (this.tables.names[x] === "FOR") s.forTargets = [];
        if (r === "stmt") s.pendingBlock = true;
        return;
      case "header": s.pendingBlock = true; return;
      case "forName": s.forTargets.push(name); return;
      case "compName1": {
        const f = this.top(s);
        f.targets = [name];
        const uncovered = f.pending.filter((p) => p !== name);
        f.mustComma = uncovered.length > 0;
        f.forced = uncovered.length > 0 ? uncovered[0] : -1;
        this.setExtra(s, f, uncovered.length > 0 ? 2 : 0);
        return;
      }
      case "elemEnd": {
        const f = this.top(s);
        if (f.pending.length === 0) return;
        const g = this.elementFrame(s, s.frames.length - 2)!;
        for (const p of f.pending) if (!g.pending.includes(p)) g.pending.push(p);
        this.setExtra(s, g, g.pending.length === 1 ? 4 : 6);
        f.pending = [];
        this.setExtra(s, f, 0);
        return;
      }
      case "compComma": { const f = this.top(s); f.mustComma = false; this.setExtra(s, f, 0); return; }
      case "compName2": { const f = this.top(s); f.targets.push(name); f.forced = -1; return; }
      case "eos": s.done = true; return;
      default: return;
    }
  }

  private act(s: CodeState, x: number): void {
    const a = this.actions;
    if (x === a["@elem"]) s.frames.push({ phase: Phase.Element, pending: [], targets: [], mustComma: false, forced: -1, extra: 0 });
    else if (x === a["@target"]) { const f = this.top(s); f.phase = Phase.Target; this.setExtra(s, f, f.pending.length === 2 ? 2 : 0); }
    else if (x === a["@iter"]) { const f = this.top(s); f.phase = Phase.Iter; this.setExtra(s, f, 0); }
    else if (x === a["@cond"]) this.top(s).phase = Phase.Cond;
    else if (x === a["@pop"]) { this.setExtra(s, this.top(s), 0); s.frames.pop(); }
    else if (x === a["@simpleEnd"]) {
      if (s.stmtName >= 0) s.bound[s.stmtName] = 1;
      s.stmtName = -1;
      s.terminated = s.stmtTerminates;
      s.stmtTerminates = false;
    } else if (x === a["@close"]) {
      if (s.blocks.pop()) s.loopDepth--;
      s.terminated = false;
    } else {
      if (x === a["@openFor"]) for (const nm of s.forTargets) s.bound[nm] = 1;
      const loop = x !== a["@openPlain"];
      s.blocks.push(loop ? 1 : 0);
      if (loop) s.loopDepth++;
      s.needFirstStmt = true;
      s.pendingBlock = false;
    }
  }

  /**
   * Why token `t` is not allowed in state `s`: a specific reason when the grammar accepts it here but
   * the context does not (unbound name, break outside a loop, ...), else null (a syntax error).
   */
  explain(s: CodeState, t: number): string | null {
    if (s.prefixPos < this.header.length) {
      return `the header must be '${formatTokens(this.vocab, this.header)}'`;
    }
    if (t >= this.tables.V) return null;
    const n = this.overlay(s);
    let found = false;
    for (let i = 0; i < n; i++) if (this.cand[i] === t) found = true;
    if (!found) return null;
    const r = this.tables.role[this.match[t]], text = this.vocab.tokenToString(t);
    const thr = this.maxTokens - s.used - this.committed(s);
    if (thr - this.cost[t] - this.tables.weight[t] < 0) return `program longer than ${this.maxTokens} tokens`;
    switch (r) {
      case "load": return `name '${text}' is read before it is bound`;
      case "loop": case "stmt": case "return": case "stmtName":
        if (r === "loop" && s.loopDepth === 0 && !s.terminated) return `'${text}' outside a loop`;
        return "statement after return/break/continue in the same block (unreachable code)";
      case "needBound": return s.stmtName >= 0 ? `'${ARENA_NAMES[s.stmtName]}' must be bound before '${text}'` : null;
      case "elemEnd": return `the element reads unbound name(s) ${this.top(s).pending.map((p) => `'${ARENA_NAMES[p]}'`).join(", ")}: a 'for' must bind them`;
      case "compName1": case "compName2": case "inAfterTarget":
        return `the comprehension target must bind ${this.top(s).pending.map((p) => `'${ARENA_NAMES[p]}'`).join(" and ")}`;
      case "eos": return "the function never returns: add a return statement";
      default: return null;
    }
  }
}

/**
 * The Code policy's constraint: one arena-Python function `def f(<sig params>):` ... ending with
 * `eos`, at most `maxTokens` tokens (header and `eos` included). See CodeConstraint.
 */
export function codeConstraint(vocab: Vocabulary, sig: Signature, opts: CodeConstraintOptions): CodeConstraint {
  return new CodeConstraint(vocab, sig, opts);
}
