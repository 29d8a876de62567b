/**
 * Constrained decoding for test suites (docs/ARENA-PYTHON.md, "Test suites"): 1..maxLines lines
 * `assert f(ARG, ...) == ANSWER`, each argument a literal of its parameter's type and the answer a
 * literal of the return type, in Python repr form and within the bounds of the doc's table.
 *
 * The state is a line template position plus a tiny literal automaton, so `advance` is O(1) and
 * `allowed` O(vocabulary). Budget: a token is allowed only if the cheapest completion after it
 * (finish the literal, the rest of the line, then `eos`) still fits in `maxTokens`.
 */
import type { TokenConstraint } from "../decoding.ts";
import { LITERAL_BOUNDS } from "./task.ts";
import type { ArenaType, Signature } from "./types.ts";
import { FUNCTION_NAME, type Vocabulary } from "./vocab.ts";

/** Literal bounds (docs/ARENA-PYTHON.md table), from the task format's single definition. */
export const SUITE_BOUNDS = {
  intDigits: LITERAL_BOUNDS.intDigits, strLen: LITERAL_BOUNDS.strLen,
  listIntItems: LITERAL_BOUNDS.listIntLen, listStrItems: LITERAL_BOUNDS.listStrLen,
} as const;

type Slot = { tok: number } | { type: ArenaType; what: string };

/** Literal automaton: `phase` meaning depends on the type (see `groups`). */
interface Lit {
  type: ArenaType;
  phase: number;
  /** int: digits so far; str: characters so far; list: completed items. */
  count: number;
  zero: boolean;
  elem: Lit | null;
}

export interface SuiteState {
  lines: number;
  slot: number;
  lit: Lit | null;
  used: number;
  done: boolean;
}

export interface SuiteConstraintOptions {
  maxLines: number;
  /** Most tokens in a suite, `eos` included. */
  maxTokens: number;
}

const MIN_LEN: Record<ArenaType, number> = { int: 1, bool: 1, str: 2, "list[int]": 2, "list[str]": 2 };

export class SuiteConstraint implements TokenConstraint<SuiteState> {
  readonly vocabSize: number;
  private readonly slots: Slot[];
  /** lineRest[i]: cheapest tokens for slots i.. of a line (newline included). */
  private readonly lineRest: number[];
  private readonly t: Record<string, number>;
  private readonly digits: number[];
  private readonly nonzero: number[];
  private readonly chars: number[];
  /** Shared one-token groups, so `allowed` allocates little. */
  private readonly one: number[][];

  constructor(readonly vocab: Vocabulary, sig: Signature, readonly opts: SuiteConstraintOptions) {
    this.vocabSize = vocab.size;
    if (sig.entry_point !== FUNCTION_NAME) throw new Error(`arena suites call '${FUNCTION_NAME}', the signature says '${sig.entry_point}'`);
    if (!(Number.isInteger(opts.maxLines) && opts.maxLines >= 1)) throw new RangeError(`maxLines must be a positive integer, got ${opts.maxLines}`);
    const tok = (s: string) => vocab.codeToken(s);
    this.t = { assert: tok("assert"), f: tok(FUNCTION_NAME), lp: tok("("), rp: tok(")"), comma: tok(","), eq: tok("=="),
      lb: tok("["), rb: tok("]"), minus: tok("-"), True: tok("True"), False: tok("False"), quote: vocab.quote, nl: vocab.newline, eos: vocab.eos };
    this.slots = [{ tok: this.t.assert }, { tok: this.t.f }, { tok: this.t.lp }];
    sig.params.forEach((p, i) => {
      if (i > 0) this.slots.push({ tok: this.t.comma });
      this.slots.push({ type: p.type, what: `argument ${i + 1} ('${p.name}', ${p.type})` });
    });
    this.slots.push({ tok: this.t.rp }, { tok: this.t.eq }, { type: sig.returns, what: `the expected answer (${sig.returns})` }, { tok: this.t.nl });
    this.lineRest = new Array(this.slots.length + 1).fill(0);
    for (let i = this.slots.length - 1; i >= 0; i--) {
      const sl = this.slots[i];
      this.lineRest[i] = this.lineRest[i + 1] + ("tok" in sl ? 1 : MIN_LEN[sl.type]);
    }
    this.digits = Array.from({ length: 10 }, (_, d) => vocab.digit(d));
    this.nonzero = this.digits.slice(1);
    this.one = Array.from({ length: vocab.codeSize }, (_, id) => [id]);
    this.chars = [];
    for (let id = 0; id < vocab.codeSize; id++) if (vocab.kind(id) === "char") this.chars.push(id);
    if (opts.maxTokens < this.lineRest[0] + 1) {
      throw new RangeError(`maxTokens ${opts.maxTokens} is below the shortest suite for this signature (${this.lineRest[0] + 1} tokens)`);
    }
  }

  start(): SuiteState {
    return { lines: 0, slot: 0, lit: null, used: 0, done: false };
  }

  isDone(s: SuiteState): boolean {
    return s.done;
  }

  /** Cheapest number of tokens to finish from `s` (including `eos`). */
  private minRest(s: SuiteState): number {
    if (s.done) return 0;
    if (s.slot === 0) return s.lines > 0 ? 1 : this.lineRest[0] + 1;
    return (s.lit ? litRest(s.lit) : 0) + this.lineRest[s.slot + (s.lit ? 1 : 0)] + 1;
  }

  /** Groups of tokens allowed next by the language (budget aside); each group behaves identically. */
  private groups(s: SuiteState): number[][] {
    if (s.done) return [];
    const t = this.t;
    if (s.slot === 0) {
      const g: number[][] = [];
      if (s.lines < this.opts.maxLines) g.push(this.one[t.assert]);
      if (s.lines > 0) g.push(this.one[t.eos]);
      return g;
    }
    const sl = this.slots[s.slot];
    if ("tok" in sl) return [this.one[sl.tok]];
    const lit = s.lit ?? newLit(sl.type);
    const g = this.litGroups(lit);
    if (litCanEnd(lit)) g.push(this.one[(this.slots[s.slot + 1] as { tok: number }).tok]);
    return g;
  }

  private litGroups(l: Lit): number[][] {
    const t = this.t, one = this.one, nz = this.nonzero;
    switch (l.type) {
      case "int":
        if (l.phase === 0) return [one[t.minus], one[this.digits[0]], nz];
        if (l.phase === 1) return [nz];
        return !l.zero && l.count < SUITE_BOUNDS.intDigits ? [this.digits] : [];
      case "bool": return l.phase === 0 ? [one[t.True], one[t.False]] : [];
      case "str":
        if (l.phase === 0) return [one[t.quote]];
        if (l.phase === 1) return l.count < SUITE_BOUNDS.strLen ? [this.chars, one[t.quote]] : [one[t.quote]];
        return [];
      default: {
        const max = l.type === "list[int]" ? SUITE_BOUNDS.listIntItems : SUITE_BOUNDS.listStrItems;
        if (l.phase === 0) return [one[t.lb]];
        if (l.phase === 1) return [one[t.rb], ...this.litGroups(newLit(elemType(l.type)))];
        if (l.phase === 3) return this.litGroups(newLit(elemType(l.type)));
        if (l.phase === 2) {
          const g = this.litGroups(l.elem!);
          if (litCanEnd(l.elem!)) { if (l.count + 1 < max) g.push(one[t.comma]); g.push(one[t.rb]); }
          return g;
        }
        return [];
      }
    }
  }

  allowed(s: SuiteState, mask: Uint8Array): void {
    mask.fill(0);
    for (const g of this.groups(s)) {
      // Every token of a group leads to states with the same cheapest completion: try the first.
      const next = this.advance(cloneState(s), g[0]);
      if (next.used + this.minRest(next) <= this.opts.maxTokens) for (let i = 0; i < g.length; i++) mask[g[i]] = 1;
    }
  }

  advance(s: SuiteState, tok: number): SuiteState {
    if (s.done) throw new Error("advance after the end token");
    const t = this.t;
    s.used++;
    if (s.slot === 0) {
      if (tok === t.eos && s.lines > 0) { s.done = true; return s; }
      if (tok !== t.assert || s.lines >= this.opts.maxLines) throw new Error(`token '${this.vocab.tokenToString(tok)}' not allowed at the start of a line`);
      s.slot = 1;
      return s;
    }
    const sl = this.slots[s.slot];
    if ("tok" in sl) {
      if (tok !== sl.tok) throw new Error(`expected '${this.vocab.tokenToString(sl.tok)}'`);
      if (tok === t.nl) { s.lines++; s.slot = 0; } else s.slot++;
      return s;
    }
    const lit = s.lit ?? newLit(sl.type);
    const next = this.slots[s.slot + 1] as { tok: number };
    if (litCanEnd(lit) && tok === next.tok) {
      s.lit = null;
      if (tok === t.nl) { s.lines++; s.slot = 0; } else s.slot += 2;
      return s;
    }
    this.litStep(lit, tok);
    s.lit = lit;
    return s;
  }

  private litStep(l: Lit, tok: number): void {
    const t = this.t, isDigit = this.digits.includes(tok);
    const bad = () => new Error(`token '${this.vocab.tokenToString(tok)}' not allowed in a ${l.type} literal`);
    switch (l.type) {
      case "int":
        if (l.phase === 0 && tok === t.minus) { l.phase = 1; return; }
        if (!isDigit || (l.phase === 1 && tok === this.digits[0]) || (l.phase === 2 && (l.zero || l.count >= SUITE_BOUNDS.intDigits))) throw bad();
        if (l.phase !== 2) { l.phase = 2; l.zero = tok === this.digits[0]; }
        l.count++;
        return;
      case "bool":
        if (l.phase !== 0 || (tok !== t.True && tok !== t.False)) throw bad();
        l.phase = 1;
        return;
      case "str":
        if (l.phase === 0 && tok === t.quote) { l.phase = 1; return; }
        if (l.phase === 1 && tok === t.quote) { l.phase = 2; return; }
        if (l.phase !== 1 || l.count >= SUITE_BOUNDS.strLen || this.vocab.kind(tok) !== "char") throw bad();
        l.count++;
        return;
      default: {
        const max = l.type === "list[int]" ? SUITE_BOUNDS.listIntItems : SUITE_BOUNDS.listStrItems;
        if (l.phase === 0) { if (tok !== t.lb) throw bad(); l.phase = 1; return; }
        if (l.phase === 1 && tok === t.rb) { l.phase = 4; return; }
        if (l.phase === 2 && litCanEnd(l.elem!) && (tok === t.comma || tok === t.rb)) {
          l.count++;
          l.elem = null;
          if (tok === t.rb) { l.phase = 4; return; }
          if (l.count >= max) throw bad();
          l.phase = 3;
          return;
        }
        if (l.phase === 1 || l.phase === 3) { l.elem = newLit(elemType(l.type)); l.phase = 2; }
        if (l.phase !== 2) throw bad();
        this.litStep(l.elem!, tok);
      }
    }
  }

  /** A specific reason why `tok` is not allowed (a literal bound, the line limit), else null. */
  explain(s: SuiteState, tok: number): string | null {
    if (s.slot === 0 && tok === this.t.assert && s.lines >= this.opts.maxLines) return `more than ${this.opts.maxLines} test lines`;
    const sl = this.slots[s.slot];
    if (!sl || "tok" in sl) return null;
    const l = s.lit && s.lit.elem ? s.lit.elem : s.lit;
    const where = sl.what;
    if (!l) return `${where}: a ${sl.type} literal cannot start with '${this.vocab.tokenToString(tok)}'`;
    if (l.type === "int" && l.count >= SUITE_BOUNDS.intDigits && this.digits.includes(tok)) return `${where}: integer literal longer than ${SUITE_BOUNDS.intDigits} digits`;
    if (l.type === "str" && l.count >= SUITE_BOUNDS.strLen && this.vocab.kind(tok) === "char") return `${where}: string literal longer than ${SUITE_BOUNDS.strLen} characters`;
    if (s.lit && s.lit.type.startsWith("list") && tok === this.t.comma) return `${where}: list literal longer than ${s.lit.type === "list[int]" ? SUITE_BOUNDS.listIntItems : SUITE_BOUNDS.listStrItems} items`;
    return `${where}: not a ${sl.type} literal as Python's repr writes it`;
  }
}

function newLit(type: ArenaType): Lit {
  return { type, phase: 0, count: 0, zero: false, elem: null };
}

function elemType(t: ArenaType): ArenaType {
  return t === "list[int]" ? "int" : "str";
}

function litCanEnd(l: Lit): boolean {
  switch (l.type) {
    case "int": return l.phase === 2;
    case "bool": return l.phase === 1;
    case "str": return l.phase === 2;
    default: return l.phase === 4;
  }
}

/** Cheapest number of tokens to finish a literal. */
function litRest(l: Lit): number {
  switch (l.type) {
    case "int": return l.phase === 2 ? 0 : 1;
    case "bool": return l.phase === 1 ? 0 : 1;
    case "str": return l.phase === 0 ? 2 : l.phase === 1 ? 1 : 0;
    default:
      if (l.phase === 0) return 2;
      if (l.phase === 1) return 1;
      if (l.phase === 2) return litRest(l.elem!) + 1;
      if (l.phase === 3) return MIN_LEN[elemType(l.type)] + 1;
      return 0;
  }
}

function cloneLit(l: Lit | null): Lit | null {
  return l ? { ...l, elem: cloneLit(l.elem) } : null;
}

function cloneState(s: SuiteState): SuiteState {
  return { ...s, lit: cloneLit(s.lit) };
}

/** The Test policy's constraint for `sig`: at most `maxLines` assert lines and `maxTokens` tokens, ending with `eos`. */
export function suiteConstraint(vocab: Vocabulary, sig: Signature, opts: SuiteConstraintOptions): SuiteConstraint {
  return new SuiteConstraint(vocab, sig, opts);
}
