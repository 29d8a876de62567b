/**
 * The primitives arena-v2 composes its tasks from (docs/TASKS.md, "arena-v2"): an input type, a
 * predicate on one item (here), and an aggregation over the items that satisfy it
 * (task-aggregations.ts).
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
/** An int as canonical arena-Python writes it (`-2`: unary minus, tight). */
export const lit = (k: number) => String(k);
const slugNum = (k: number) => (k < 0 ? `m${-k}` : String(k));
/** A string literal as canonical arena-Python writes it (single quotes). */
export const quote = (c: string) => `'${c}'`;

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

/** The items of a domain's one argument, as the model sees them. */
export function itemsOf(d: Domain, arg: string | Item[]): Item[] {
  return d.name === "str" ? [...(arg as string)] : (arg as Item[]);
}

/** Deep equality of outcomes with Python's typed equality (ints, strs, bools, lists, None, raising). */
export function sameOutcome(a: Outcome, b: Outcome): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  return a === b;
}
