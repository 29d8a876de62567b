/**
 * The aggregations of arena-v2's task space (task-space.ts has the input types and predicates):
 * each renders the body of `def f(X):` around a predicate's Python and models its result, for the
 * reference and for the shapes of its buggy variants (skip the first item, wrong initial value,
 * no guard for "none", 1-based index, the other answer on an empty input).
 */
import type { ArenaType } from "./types.ts";
import { lit, quote, RAISES, type Domain, type DomainName, type Item, type MutationOp, type Outcome } from "./task-space.ts";

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
