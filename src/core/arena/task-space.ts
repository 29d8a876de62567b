/**
 * The primitives arena-v2 composes its tasks from (docs/TASKS.md, "arena-v2"): an input type, a
 * predicate on one item, and an aggregation over the items that satisfy it.
 *
 *   task = aggregation x predicate x input type   e.g.  first-index x greater-than-3 x list[int]
 *
 * Every primitive carries its meaning twice, side by side so they cannot drift apart unnoticed:
 * the Python it renders to (canonical arena-Python, docs/ARENA-PYTHON.md) and a TypeScript model
 * of that Python's result. The model lets the generator compute golden answers and pick buggy
 * variants that really differ from the reference without a Python runtime (so the set is built on
 * load, identically in Node and the browser); `npm run tasks -- check --tasks arena-v2` then runs
 * the Python itself and reports any disagreement as a violation.
 *
 * Prompt phrases use only words of the arena-v1 prompts (or code tokens): arena-v2 is read in the
 * one shared vocabulary (contexts.ts arenaVocabulary), so the shipped checkpoints work on both sets.
 */
import type { ParamSpec } from "./task.ts";
import type { ArenaType } from "./types.ts";

/** One item of an input: an int of a list[int], a character of a str, a word of a list[str]. */
export type Item = number | string;
/** A TypeScript model of a Python value the arena returns (null is None). */
export type Value = number | string | boolean | null | Item[];
/** The model of "the Python raised" (max of an empty list, ...). */
export const RAISES = Symbol("raises");
export type Outcome = Value | typeof RAISES;

export type DomainName = "list[int]" | "str" | "list[str]";

/** An input type: the parameter, its items and how they are named in prompts. */
export interface Domain {
  name: DomainName;
  /** Short name for task ids. */
  slug: string;
  param: "xs" | "s" | "words";
  /** The loop variable over items. */
  item: "v" | "c" | "w";
  itemType: "int" | "str";
  noun: { sg: string; pl: string };
  spec: ParamSpec;
}

export const DOMAINS: Record<DomainName, Domain> = {
  "list[int]": {
    name: "list[int]", slug: "ints", param: "xs", item: "v", itemType: "int",
    noun: { sg: "number", pl: "numbers" },
    spec: { min_len: 0, max_len: 8, min: -9, max: 9 },
  },
  str: {
    name: "str", slug: "chars", param: "s", item: "c", itemType: "str",
    noun: { sg: "character", pl: "characters" },
    // Letters of the character predicates in both cases, a space and digits; repeats weight.
    spec: { min_len: 0, max_len: 12, alphabet: "aabbeeiioouxyAEBOXY  19" },
  },
  "list[str]": {
    name: "list[str]", slug: "words", param: "words", item: "w", itemType: "str",
    noun: { sg: "word", pl: "words" },
    spec: { min_len: 0, max_len: 6, item_min_len: 0, item_max_len: 5, alphabet: "aabeeostxy" },
  },
};

/** A predicate's meaning: Python over the item variable, and its model. */
export interface PredicateCore {
  py: (item: string) => string;
  test: (x: Item) => boolean;
}

/** A plausible wrong predicate for a buggy variant, with the bug in one line. */
export interface PredicateSlip extends PredicateCore {
  op: MutationOp;
  bug: string;
}

export interface Predicate extends PredicateCore {
  /** The primitive (the unit of the splits): `gt` for every `greater than K`. */
  family: string;
  /** Unique within its domain; kebab-case, used in task ids (`gt-3`, `gt-m2`). */
  slug: string;
  domain: DomainName;
  /** Verb phrases: singular (`is greater than 3`) and plural (`are greater than 3`). */
  vs: string;
  vp: string;
  /** Paraphrases of the same test (`is not greater than 3` for `is at most 3`), drawn per task. */
  alts?: { vs: string; vp: string }[];
  slips: PredicateSlip[];
}

/** The semantic mutation operators of buggy variants (issue 11, part 1). */
export type MutationOp =
  | "boundary" // strict vs non-strict comparison, off-by-one bound or threshold
  | "wrong-predicate" // a neighbouring predicate (odd for even, lower for upper)
  | "negated-predicate"
  | "skip-first" // off-by-one loop bound: the first item is never looked at
  | "missing-empty" // the empty / no-match case is not handled
  | "wrong-init" // wrong initial value of an accumulator or a default
  | "first-last" // first and last (or largest and smallest, all and any) swapped
  | "index-off-by-one";

const pymod = (a: number, b: number) => ((a % b) + b) % b;
const lit = (k: number) => String(k); // canonical arena-Python: `-2` is unary minus, written tight
const slugNum = (k: number) => (k < 0 ? `m${-k}` : String(k));
const quote = (c: string) => `'${c}'`;

const pred = (p: Predicate): Predicate => p;

/** Predicates on ints (items of list[int]). */
function intPredicates(): Predicate[] {
  const d: DomainName = "list[int]";
  const out: Predicate[] = [
    pred({ family: "even", slug: "even", domain: d, vs: "is even", vp: "are even", alts: [{ vs: "is divisible by 2", vp: "are divisible by 2" }],
      py: (v) => `${v} % 2 == 0`, test: (x) => pymod(x as number, 2) === 0,
      slips: [{ op: "wrong-predicate", bug: "takes the odd numbers instead of the even ones", py: (v) => `${v} % 2 == 1`, test: (x) => pymod(x as number, 2) === 1 }] }),
    pred({ family: "odd", slug: "odd", domain: d, vs: "is odd", vp: "are odd", alts: [{ vs: "is not divisible by 2", vp: "are not divisible by 2" }],
      py: (v) => `${v} % 2 == 1`, test: (x) => pymod(x as number, 2) === 1,
      slips: [{ op: "wrong-predicate", bug: "takes the even numbers instead of the odd ones", py: (v) => `${v} % 2 == 0`, test: (x) => pymod(x as number, 2) === 0 }] }),
    pred({ family: "positive", slug: "positive", domain: d, vs: "is positive", vp: "are positive", alts: [{ vs: "is greater than 0", vp: "are greater than 0" }],
      py: (v) => `${v} > 0`, test: (x) => (x as number) > 0,
      slips: [
        { op: "boundary", bug: "non-strict comparison: counts zero as positive", py: (v) => `${v} >= 0`, test: (x) => (x as number) >= 0 },
        { op: "wrong-predicate", bug: "sign: takes the negative numbers", py: (v) => `${v} < 0`, test: (x) => (x as number) < 0 },
      ] }),
    pred({ family: "negative", slug: "negative", domain: d, vs: "is negative", vp: "are negative",
      py: (v) => `${v} < 0`, test: (x) => (x as number) < 0,
      slips: [
        { op: "boundary", bug: "non-strict comparison: counts zero as negative", py: (v) => `${v} <= 0`, test: (x) => (x as number) <= 0 },
        { op: "wrong-predicate", bug: "sign: takes the positive numbers", py: (v) => `${v} > 0`, test: (x) => (x as number) > 0 },
      ] }),
    pred({ family: "nonzero", slug: "nonzero", domain: d, vs: "is not zero", vp: "are not zero", alts: [{ vs: "is not equal to 0", vp: "are not equal to 0" }],
      py: (v) => `${v} != 0`, test: (x) => x !== 0,
      slips: [{ op: "wrong-predicate", bug: "forgets the negative numbers (tests > 0)", py: (v) => `${v} > 0`, test: (x) => (x as number) > 0 }] }),
  ];
  for (let k = -4; k <= 8; k++) {
    if (k === 0) continue; // greater than 0 is `positive`
    out.push(pred({ family: "gt", slug: `gt-${slugNum(k)}`, domain: d, vs: `is greater than ${k}`, vp: `are greater than ${k}`,
      py: (v) => `${v} > ${lit(k)}`, test: (x) => (x as number) > k,
      slips: [
        { op: "boundary", bug: `non-strict comparison: also takes ${k}`, py: (v) => `${v} >= ${lit(k)}`, test: (x) => (x as number) >= k },
        { op: "boundary", bug: `off-by-one threshold: compares with ${k + 1}`, py: (v) => `${v} > ${lit(k + 1)}`, test: (x) => (x as number) > k + 1 },
      ] }));
  }
  for (let k = -4; k <= 8; k++) {
    if (k === -1) continue; // at most -1 is `negative`
    out.push(pred({ family: "at-most", slug: `at-most-${slugNum(k)}`, domain: d, vs: `is at most ${k}`, vp: `are at most ${k}`,
      alts: [{ vs: `is not greater than ${k}`, vp: `are not greater than ${k}` }],
      py: (v) => `${v} <= ${lit(k)}`, test: (x) => (x as number) <= k,
      slips: [
        { op: "boundary", bug: `strict comparison: leaves out ${k} itself`, py: (v) => `${v} < ${lit(k)}`, test: (x) => (x as number) < k },
        { op: "wrong-predicate", bug: "comparison the wrong way round", py: (v) => `${v} >= ${lit(k)}`, test: (x) => (x as number) >= k },
      ] }));
  }
  for (let k = -3; k <= 7; k++) {
    out.push(pred({ family: "equal", slug: `equal-${slugNum(k)}`, domain: d, vs: `is equal to ${k}`, vp: `are equal to ${k}`, alts: [{ vs: `equals ${k}`, vp: `equal ${k}` }],
      py: (v) => `${v} == ${lit(k)}`, test: (x) => x === k,
      slips: [{ op: "boundary", bug: `non-strict comparison: takes every number of at least ${k}`, py: (v) => `${v} >= ${lit(k)}`, test: (x) => (x as number) >= k }] }));
  }
  for (let k = 3; k <= 7; k++) {
    out.push(pred({ family: "divisible", slug: `divisible-${k}`, domain: d, vs: `is divisible by ${k}`, vp: `are divisible by ${k}`,
      py: (v) => `${v} % ${k} == 0`, test: (x) => pymod(x as number, k) === 0,
      slips: [
        { op: "boundary", bug: `off-by-one divisor: tests divisibility by ${k + 1}`, py: (v) => `${v} % ${k + 1} == 0`, test: (x) => pymod(x as number, k + 1) === 0 },
        { op: "wrong-predicate", bug: "floor division instead of the remainder", py: (v) => `${v} // ${k} == 0`, test: (x) => Math.floor((x as number) / k) === 0 },
      ] }));
  }
  for (const [a, b] of [[-3, 3], [0, 5], [1, 4], [2, 8], [-5, 0], [3, 6], [-2, 2], [4, 9], [-9, -4], [5, 9]] as const) {
    out.push(pred({ family: "between", slug: `between-${slugNum(a)}-${slugNum(b)}`, domain: d,
      vs: `is between ${a} and ${b} inclusive`, vp: `are between ${a} and ${b} inclusive`,
      alts: [{ vs: `is in the range from ${a} to ${b} inclusive`, vp: `are in the range from ${a} to ${b} inclusive` }],
      py: (v) => `${lit(a)} <= ${v} <= ${lit(b)}`, test: (x) => a <= (x as number) && (x as number) <= b,
      slips: [
        { op: "boundary", bug: `excludes the upper end ${b}`, py: (v) => `${lit(a)} <= ${v} < ${lit(b)}`, test: (x) => a <= (x as number) && (x as number) < b },
        { op: "boundary", bug: `excludes the lower end ${a}`, py: (v) => `${lit(a)} < ${v} <= ${lit(b)}`, test: (x) => a < (x as number) && (x as number) <= b },
      ] }));
  }
  return out;
}

const isUpper = (c: string) => c >= "A" && c <= "Z";
const isLower = (c: string) => c >= "a" && c <= "z";

/** Predicates on characters (items of str). */
function charPredicates(): Predicate[] {
  const d: DomainName = "str";
  const out: Predicate[] = [
    pred({ family: "upper", slug: "upper", domain: d, vs: "is upper case", vp: "are upper case", alts: [{ vs: "is an upper case letter", vp: "are upper case letters" }],
      py: (c) => `${c}.isupper()`, test: (x) => isUpper(x as string),
      slips: [
        { op: "wrong-predicate", bug: "lower case instead of upper case", py: (c) => `${c}.islower()`, test: (x) => isLower(x as string) },
        { op: "wrong-predicate", bug: "takes every letter, whatever its case", py: (c) => `${c}.isalpha()`, test: (x) => isUpper(x as string) || isLower(x as string) },
      ] }),
    pred({ family: "lower", slug: "lower", domain: d, vs: "is lower case", vp: "are lower case", alts: [{ vs: "is a lower case letter", vp: "are lower case letters" }],
      py: (c) => `${c}.islower()`, test: (x) => isLower(x as string),
      slips: [
        { op: "wrong-predicate", bug: "upper case instead of lower case", py: (c) => `${c}.isupper()`, test: (x) => isUpper(x as string) },
        { op: "wrong-predicate", bug: "takes every letter, whatever its case", py: (c) => `${c}.isalpha()`, test: (x) => isUpper(x as string) || isLower(x as string) },
      ] }),
    pred({ family: "letter", slug: "letter", domain: d, vs: "is a letter", vp: "are letters",
      py: (c) => `${c}.isalpha()`, test: (x) => isUpper(x as string) || isLower(x as string),
      slips: [{ op: "wrong-predicate", bug: "case: forgets the upper case letters", py: (c) => `${c}.islower()`, test: (x) => isLower(x as string) }] }),
    pred({ family: "vowel", slug: "vowel", domain: d, vs: "is a vowel", vp: "are vowels",
      py: (c) => `${c}.lower() in 'aeiou'`, test: (x) => "aeiou".includes((x as string).toLowerCase()),
      slips: [
        { op: "wrong-predicate", bug: "case: misses the upper case vowels", py: (c) => `${c} in 'aeiou'`, test: (x) => "aeiou".includes(x as string) },
        { op: "wrong-predicate", bug: "forgets the vowel u", py: (c) => `${c}.lower() in 'aeio'`, test: (x) => "aeio".includes((x as string).toLowerCase()) },
      ] }),
    pred({ family: "space", slug: "space", domain: d, vs: "is a space", vp: "are spaces",
      py: (c) => `${c} == ' '`, test: (x) => x === " ",
      slips: [{ op: "wrong-predicate", bug: "takes the characters that are not letters (digits too)", py: (c) => `not ${c}.isalpha()`, test: (x) => !(isUpper(x as string) || isLower(x as string)) }] }),
  ];
  for (const ch of ["a", "b", "e", "i", "o", "u", "x", "y"]) {
    out.push(pred({ family: "char", slug: `char-${ch.toLowerCase()}${isUpper(ch) ? "-cap" : ""}`, domain: d,
      vs: `is equal to ${quote(ch)}`, vp: `are equal to ${quote(ch)}`, alts: [{ vs: `equals ${quote(ch)}`, vp: `equal ${quote(ch)}` }],
      py: (c) => `${c} == ${quote(ch)}`, test: (x) => x === ch,
      slips: [{ op: "wrong-predicate", bug: "case: ignores the case of the character", py: (c) => `${c}.lower() == ${quote(ch.toLowerCase())}`, test: (x) => (x as string).toLowerCase() === ch.toLowerCase() }] }));
  }
  return out;
}

/** Predicates on words (items of list[str]). */
function wordPredicates(): Predicate[] {
  const d: DomainName = "list[str]";
  const out: Predicate[] = [];
  for (const ch of ["a", "b", "e", "o", "s", "t", "x", "y"]) {
    out.push(pred({ family: "starts", slug: `starts-${ch}`, domain: d, vs: `starts with ${quote(ch)}`, vp: `start with ${quote(ch)}`,
      alts: [{ vs: `has ${quote(ch)} as the first letter`, vp: `have ${quote(ch)} as the first letter` }],
      py: (w) => `${w}.startswith(${quote(ch)})`, test: (x) => (x as string).startsWith(ch),
      slips: [
        { op: "wrong-predicate", bug: "checks the end instead of the start", py: (w) => `${w}.endswith(${quote(ch)})`, test: (x) => (x as string).endsWith(ch) },
        { op: "wrong-predicate", bug: `takes any word containing ${quote(ch)}`, py: (w) => `${quote(ch)} in ${w}`, test: (x) => (x as string).includes(ch) },
      ] }));
  }
  for (const ch of ["a", "b", "e", "o", "s", "t", "x", "y"]) {
    out.push(pred({ family: "has-letter", slug: `has-${ch}`, domain: d, vs: `has the letter ${quote(ch)}`, vp: `have the letter ${quote(ch)}`,
      py: (w) => `${quote(ch)} in ${w}`, test: (x) => (x as string).includes(ch),
      slips: [
        { op: "wrong-predicate", bug: `only looks at the first letter`, py: (w) => `${w}.startswith(${quote(ch)})`, test: (x) => (x as string).startsWith(ch) },
        { op: "boundary", bug: `takes only the words with exactly one ${quote(ch)}`, py: (w) => `${w}.count(${quote(ch)}) == 1`, test: (x) => (x as string).split(ch).length === 2 },
      ] }));
  }
  for (let k = 1; k <= 4; k++) {
    out.push(pred({ family: "longer", slug: `longer-${k}`, domain: d, vs: `is longer than ${k} characters`, vp: `are longer than ${k} characters`,
      py: (w) => `len(${w}) > ${k}`, test: (x) => (x as string).length > k,
      slips: [
        { op: "boundary", bug: `non-strict comparison: also takes words of ${k} characters`, py: (w) => `len(${w}) >= ${k}`, test: (x) => (x as string).length >= k },
        { op: "boundary", bug: `off-by-one length: compares with ${k + 1}`, py: (w) => `len(${w}) > ${k + 1}`, test: (x) => (x as string).length > k + 1 },
      ] }));
  }
  for (let k = 1; k <= 4; k++) {
    out.push(pred({ family: "length", slug: `length-${k}`, domain: d, vs: `has ${k} characters`, vp: `have ${k} characters`,
      alts: [{ vs: `has a length of ${k}`, vp: `have a length of ${k}` }],
      py: (w) => `len(${w}) == ${k}`, test: (x) => (x as string).length === k,
      slips: [
        { op: "boundary", bug: `takes the words of at least ${k} characters`, py: (w) => `len(${w}) >= ${k}`, test: (x) => (x as string).length >= k },
        { op: "boundary", bug: `off-by-one length: ${k + 1} characters`, py: (w) => `len(${w}) == ${k + 1}`, test: (x) => (x as string).length === k + 1 },
      ] }));
  }
  out.push(pred({ family: "empty", slug: "empty", domain: d, vs: "is empty", vp: "are empty", alts: [{ vs: "has a length of 0", vp: "have a length of 0" }],
    py: (w) => `${w} == ''`, test: (x) => x === "",
    slips: [{ op: "boundary", bug: "also takes the words of one character", py: (w) => `len(${w}) <= 1`, test: (x) => (x as string).length <= 1 }] }));
  return out;
}

/** Every predicate of the task space, grouped by domain, in a fixed order. */
export const PREDICATES: readonly Predicate[] = [...intPredicates(), ...charPredicates(), ...wordPredicates()];

/** Predicates that fix the item itself (`equal to 3`): "the largest number equal to 3" says nothing. */
export function pinsItem(p: Predicate): boolean {
  return ["equal", "char", "empty"].includes(p.family);
}

/**
 * How a buggy variant's program departs from the reference's shape (all absent: the reference).
 * Each field is one mutation operator applied to the aggregation.
 */
export interface Shape {
  /** skip-first: loop over `X[1:]` instead of `X`. */
  skipFirst?: boolean;
  /** wrong-init: this initial value / default instead of the right one. */
  init?: Item;
  /** missing-empty: no guard for "none matches" (max of [] raises; the loop falls off the end). */
  dropGuard?: boolean;
  /** index-off-by-one: `i + 1` for the index. */
  indexShift?: boolean;
  /** missing-empty for all/any: the empty input gets the other answer. */
  emptyFlip?: boolean;
}

export type AggregationName = "count" | "sum" | "max" | "min" | "first" | "last" | "first-index" | "last-index" | "all" | "any" | "filter";

/** A shape slip an aggregation admits, for buggy variants. */
export interface ShapeSlip {
  op: MutationOp;
  bug: string;
  shape: Shape;
}

export interface Aggregation {
  name: AggregationName;
  domains: readonly DomainName[];
  /** first <-> last, max <-> min, all <-> any, first-index <-> last-index (the first-last operator). */
  partner?: AggregationName;
  returns(d: Domain): ArenaType;
  /** Values of the "or D if there is none" convention (a task parameter); [] when there is none. */
  defaults(d: Domain): Item[];
  /** Prompt paraphrases; slots {n} {N} item noun, {X} parameter, {vs} {vp} predicate, {D} default. */
  prompts(d: Domain): string[];
  /** Body lines (4-space indented) of `def f(X):`, given the predicate's Python over the item. */
  body(d: Domain, p: string, def: Item | undefined, s: Shape): string[];
  /** The model of that body's result on `items`. */
  run(d: Domain, items: readonly Item[], test: (x: Item) => boolean, def: Item | undefined, s: Shape): Outcome;
  slips(d: Domain, def: Item | undefined): ShapeSlip[];
}

const I1 = "    ";
const I2 = I1 + I1;
const I3 = I2 + I1;
/** A Python literal of an item (canonical: ints as written, strings single-quoted). */
export const itemLiteral = (x: Item) => (typeof x === "number" ? lit(x) : quote(x));
const iter = (d: Domain, s: Shape) => (s.skipFirst ? `${d.param}[1:]` : d.param);
const seen = (items: readonly Item[], s: Shape) => (s.skipFirst ? items.slice(1) : items);
const skipSlip = (d: Domain): ShapeSlip => ({ op: "skip-first", bug: `off-by-one loop bound: never looks at the first ${d.noun.sg}`, shape: { skipFirst: true } });
/** The other default of a list[int] convention (0 <-> -1); none for strings. */
const otherDefault = (def: Item | undefined): Item | undefined => (typeof def === "number" ? (def === 0 ? -1 : 0) : undefined);
const ofItem = (d: Domain): ArenaType => d.itemType;
const NONE_SENTENCE = ", or {D} if there is none.";

function extreme(name: "max" | "min"): Aggregation {
  const word = { max: { int: "largest", str: "longest" }, min: { int: "smallest", str: "shortest" } }[name];
  return {
    name,
    domains: name === "max" ? ["list[int]", "list[str]"] : ["list[int]"],
    partner: name === "max" ? "min" : "max",
    returns: ofItem,
    defaults: (d) => (d.itemType === "int" ? [0, -1] : [""]),
    prompts: (d) => d.itemType === "int"
      ? [`Return the ${word.int} {n} in {X} that {vs}${NONE_SENTENCE}`, `Return the ${word.int} of the {N} in {X} that {vp}${NONE_SENTENCE}`,
        `Return the ${name} of the {N} in {X} that {vp}${NONE_SENTENCE}`]
      : [`Return the ${word.str} {n} in {X} that {vs} (earliest on ties)${NONE_SENTENCE}`,
        `Return the first ${word.str} {n} in {X} that {vs}${NONE_SENTENCE}`],
    body: (d, p, def, s) => [
      `${I1}out = [${d.item} for ${d.item} in ${iter(d, s)} if ${p}]`,
      ...(s.dropGuard ? [] : [`${I1}if len(out) == 0:`, `${I2}return ${itemLiteral(s.init ?? def!)}`]),
      `${I1}return ${name}(out${d.itemType === "str" ? ", key=len" : ""})`,
    ],
    run: (d, items, test, def, s) => {
      const out = seen(items, s).filter(test);
      if (out.length === 0) return s.dropGuard ? RAISES : (s.init ?? def!);
      const better = (a: Item, b: Item) => {
        const [x, y] = d.itemType === "str" ? [(a as string).length, (b as string).length] : [a as number, b as number];
        return name === "max" ? x > y : x < y;
      };
      return out.reduce((best, x) => (better(x, best) ? x : best)); // the first of the ties, as Python
    },
    slips: (d, def) => [
      { op: "missing-empty", bug: `calls ${name} on an empty list when no ${d.noun.sg} qualifies (raises)`, shape: { dropGuard: true } },
      skipSlip(d),
      ...(otherDefault(def) !== undefined ? [{ op: "wrong-init" as const, bug: `wrong value when none qualifies: ${otherDefault(def)}`, shape: { init: otherDefault(def) } }] : []),
    ],
  };
}

function firstOrLast(name: "first" | "last"): Aggregation {
  return {
    name,
    domains: ["list[int]", "str", "list[str]"],
    partner: name === "first" ? "last" : "first",
    returns: ofItem,
    defaults: (d) => (d.itemType === "int" ? [0, -1] : [""]),
    prompts: () => name === "first"
      ? [`Return the first {n} in {X} that {vs}${NONE_SENTENCE}`, `Return the earliest {n} in {X} that {vs}${NONE_SENTENCE}`,
        "Return the first of the {N} in {X} that {vp}, or {D} if there are none."]
      : [`Return the last {n} in {X} that {vs}${NONE_SENTENCE}`, "Return the last of the {N} in {X} that {vp}, or {D} if there are none.",
        "Return the last {n} in {X} that {vs}, or {D} if {X} has none."],
    body: (d, p, def, s) => name === "first"
      ? [`${I1}for ${d.item} in ${iter(d, s)}:`, `${I2}if ${p}:`, `${I3}return ${d.item}`, ...(s.dropGuard ? [] : [`${I1}return ${itemLiteral(s.init ?? def!)}`])]
      : [`${I1}res = ${itemLiteral(s.init ?? def!)}`, `${I1}for ${d.item} in ${iter(d, s)}:`, `${I2}if ${p}:`, `${I3}res = ${d.item}`, `${I1}return res`],
    run: (_d, items, test, def, s) => {
      const out = seen(items, s).filter(test);
      if (out.length === 0) return s.dropGuard ? null : (s.init ?? def!);
      return name === "first" ? out[0] : out[out.length - 1];
    },
    slips: (d, def) => [
      ...(name === "first" ? [{ op: "missing-empty" as const, bug: `returns None when no ${d.noun.sg} qualifies`, shape: { dropGuard: true } }] : []),
      skipSlip(d),
      ...(otherDefault(def) !== undefined ? [{ op: "wrong-init" as const, bug: `wrong value when none qualifies: ${otherDefault(def)}`, shape: { init: otherDefault(def) } }] : []),
    ],
  };
}

function indexOf(name: "first-index" | "last-index"): Aggregation {
  const which = name === "first-index" ? "first" : "last";
  const other = name === "first-index" ? "earliest" : "last";
  return {
    name,
    domains: ["list[int]", "str", "list[str]"],
    partner: name === "first-index" ? "last-index" : "first-index",
    returns: () => "int",
    defaults: () => [],
    prompts: () => [`Return the index of the ${which} {n} in {X} that {vs}, or -1 if there is none.`,
      `Return the ${other} index of a {n} in {X} that {vs}, or -1 if there is none.`,
      `Return the ${which} index in {X} where the {n} {vs}, or -1 if there is none.`],
    body: (d, p, _def, s) => {
      const i = s.indexShift ? "i + 1" : "i";
      const loop = `${I1}for i, ${d.item} in enumerate(${iter(d, s)}):`;
      const none = lit(typeof s.init === "number" ? s.init : -1);
      return name === "first-index"
        ? [loop, `${I2}if ${p}:`, `${I3}return ${i}`, `${I1}return ${none}`]
        : [`${I1}res = ${none}`, loop, `${I2}if ${p}:`, `${I3}res = ${i}`, `${I1}return res`];
    },
    run: (_d, items, test, _def, s) => {
      const hits = seen(items, s).flatMap((x, i) => (test(x) ? [i + (s.indexShift ? 1 : 0)] : []));
      if (hits.length === 0) return typeof s.init === "number" ? s.init : -1;
      return name === "first-index" ? hits[0] : hits[hits.length - 1];
    },
    slips: (d) => [
      { op: "index-off-by-one", bug: "off-by-one: returns a 1-based index", shape: { indexShift: true } },
      { op: "wrong-init", bug: `returns 0 instead of -1 when no ${d.noun.sg} qualifies`, shape: { init: 0 } },
      skipSlip(d),
    ],
  };
}

function allOrAny(name: "all" | "any"): Aggregation {
  return {
    name,
    domains: ["list[int]", "str", "list[str]"],
    partner: name === "all" ? "any" : "all",
    returns: () => "bool",
    defaults: () => [],
    prompts: () => name === "all"
      ? ["Return True if every {n} in {X} {vs}.", "Return True if all {N} in {X} {vp}.", "Return True if each {n} in {X} {vs}."]
      : ["Return True if any {n} in {X} {vs}.", "Return True if {X} has a {n} that {vs}.", "Return True if there is a {n} in {X} that {vs}."],
    body: (d, p, _def, s) => {
      const call = `${name}(${p} for ${d.item} in ${iter(d, s)})`;
      if (!s.emptyFlip) return [`${I1}return ${call}`];
      return [`${I1}return ${name === "all" ? `len(${d.param}) > 0 and ${call}` : `len(${d.param}) == 0 or ${call}`}`];
    },
    run: (_d, items, test, _def, s) => {
      if (s.emptyFlip && items.length === 0) return name !== "all";
      const xs = seen(items, s);
      return name === "all" ? xs.every(test) : xs.some(test);
    },
    slips: (d) => [
      { op: "missing-empty", bug: `wrong answer for an empty ${d.name === "str" ? "string" : "list"}`, shape: { emptyFlip: true } },
      skipSlip(d),
    ],
  };
}

function accumulate(name: "count" | "sum"): Aggregation {
  const acc = name === "count" ? "count" : "total";
  const add = (d: Domain) => (name === "count" ? "1" : d.itemType === "int" ? d.item : `len(${d.item})`);
  return {
    name,
    domains: name === "count" ? ["list[int]", "str", "list[str]"] : ["list[int]", "list[str]"],
    returns: () => "int",
    defaults: () => [],
    prompts: (d) => name === "count"
      ? ["Return how many {N} in {X} {vp}.", "Return the number of {N} in {X} that {vp}.", "Count the {N} in {X} that {vp}."]
      : d.itemType === "int"
        ? ["Return the sum of the {N} in {X} that {vp}.", "Return the total of the {N} in {X} that {vp}.", "Add up the {N} in {X} that {vp}."]
        : ["Return the total length of the {N} in {X} that {vp}.", "Return the sum of the lengths of the {N} in {X} that {vp}.",
          "Add up the lengths of the {N} in {X} that {vp}."],
    body: (d, p, _def, s) => [
      `${I1}${acc} = ${lit(typeof s.init === "number" ? s.init : 0)}`,
      `${I1}for ${d.item} in ${iter(d, s)}:`,
      `${I2}if ${p}:`,
      `${I3}${acc} += ${add(d)}`,
      `${I1}return ${acc}`,
    ],
    run: (d, items, test, _def, s) => seen(items, s).filter(test)
      .reduce<number>((a, x) => a + (name === "count" ? 1 : d.itemType === "int" ? (x as number) : (x as string).length), typeof s.init === "number" ? s.init : 0),
    slips: (d) => [{ op: "wrong-init", bug: `${acc} starts at 1 instead of 0`, shape: { init: 1 } }, skipSlip(d)],
  };
}

const filterAggregation: Aggregation = {
  name: "filter",
  domains: ["list[int]", "str", "list[str]"],
  returns: (d) => d.name,
  defaults: () => [],
  prompts: (d) => d.name === "str"
    ? ["Return the string of the characters in s that {vp}.", "Return the characters in s that {vp}, joined together.",
      "Return the characters in s that {vp}, joined together in order."]
    : ["Return the {N} in {X} that {vp}, in order.", "Return a list of the {N} in {X} that {vp}.", "Return the {N} in {X} that {vp}, keeping the order."],
  body: (d, p, _def, s) => d.name === "str"
    ? [`${I1}return ''.join(${d.item} for ${d.item} in ${iter(d, s)} if ${p})`]
    : [`${I1}return [${d.item} for ${d.item} in ${iter(d, s)} if ${p}]`],
  run: (d, items, test, _def, s) => {
    const out = seen(items, s).filter(test);
    return d.name === "str" ? out.join("") : out;
  },
  slips: (d) => [skipSlip(d)],
};

/** Every aggregation of the task space, in a fixed order. */
export const AGGREGATIONS: readonly Aggregation[] = [
  accumulate("count"), accumulate("sum"), extreme("max"), extreme("min"), firstOrLast("first"), firstOrLast("last"),
  indexOf("first-index"), indexOf("last-index"), allOrAny("all"), allOrAny("any"), filterAggregation,
];

export function aggregation(name: AggregationName): Aggregation {
  const a = AGGREGATIONS.find((x) => x.name === name);
  if (!a) throw new Error(`no aggregation '${name}' (known: ${AGGREGATIONS.map((x) => x.name).join(", ")})`);
  return a;
}

/** The items of a domain's one argument, as the model sees them. */
export function itemsOf(d: Domain, arg: string | Item[]): Item[] {
  return d.name === "str" ? [...(arg as string)] : (arg as Item[]);
}

/** Deep equality of outcomes with Python's typed equality (ints, strs, bools, lists, None, raising). */
export function sameOutcome(a: Outcome, b: Outcome): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  return a === b;
}
