/**
 * arena-v2: a seeded, generated task space where transfer can be measured (issue 11, parts 1-2).
 * Every task is aggregation x predicate x input type (primitives in task-space.ts and
 * task-aggregations.ts) with its
 * parameters (`greater than 3`, `or -1 if there is none`); the set is generated on load, the same
 * in Node and the browser, from the code alone: no generated file to keep in sync.
 *
 *   1. enumerate the combinations (aggregation, predicate, default) of each input type;
 *   2. assign splits: every task using a HELDOUT_FAMILY primitive -> heldout_family; a seeded
 *      share of the remaining (aggregation, predicate family) pairs of each type ->
 *      heldout_compositional, keeping each of their primitives in train with other partners;
 *   3. per task (its own forked Rng): a prompt from the aggregation's paraphrases with one of the
 *      predicate's phrasings, the reference, 2-4 golden tests (answers from the model of the
 *      reference), and 3-4 buggy variants from the mutation operators that the model shows
 *      really differ from the reference on drawn inputs. A task with fewer than 3 is dropped.
 *
 * `npm run tasks -- check --tasks arena-v2` verifies all of it by executing the Python.
 */
import { Rng } from "../rng.ts";
import { drawInput } from "./plus.ts";
import { formatArgs, formatLiteral, int, list, str, bool, type PyLit } from "./task-literals.ts";
import type { BuggyVariant, Split, Task, TaskFile } from "./task.ts";
import { validateTaskFile } from "./task.ts";
import {
  DOMAINS, PREDICATES, RAISES, itemsOf, pinsItem, sameOutcome,
  type Domain, type DomainName, type Item, type MutationOp, type Outcome, type Predicate, type PredicateCore,
} from "./task-space.ts";
import { AGGREGATIONS, aggregation, itemLiteral, type Aggregation, type AggregationName, type Shape } from "./task-aggregations.ts";
import { HeldoutIndex, constantFree } from "./split-leaks.ts";

export const ARENA_V2_NAME = "arena-v2";
/** The seed of the shipped arena-v2 (changing it changes every task: rebuild benches and base models). */
export const ARENA_V2_SEED = 11;

/**
 * Primitives no train task uses: the heldout_family split is every task with one of them. The
 * predicates are a whole predicate class (below): `is even` (`v % 2 == 0`) is `divisible by 2`, so
 * holding out `divisible` alone would leave its programs in train up to a constant.
 */
export const HELDOUT_FAMILY = { predicateFamilies: ["divisible", "even", "odd"], aggregations: ["last-index"] as AggregationName[] } as const;
/** Share of each input type's (aggregation, predicate family) pairs held out as unseen combinations. */
export const COMPOSITIONAL_SHARE = 0.12;

/** Random inputs the model of each variant is compared with the reference on. */
const PROBE_INPUTS = 160;
/** A variant is kept when it differs on the empty input or on at least this share of random inputs. */
const MIN_DIFFER_SHARE = 0.06;

/** One combination before it becomes a task. */
export interface Combination {
  domain: Domain;
  agg: Aggregation;
  pred: Predicate;
  /** The "or D if there is none" value, for aggregations that have one. */
  def?: Item;
}

/** The family of a task: its primitives, `aggregation/predicate-family/type`. */
export function familyOf(c: Combination): string {
  return `${c.agg.name}/${c.pred.family}/${c.domain.name}`;
}

const slugDefault = (x: Item) => (typeof x === "number" ? (x < 0 ? `m${-x}` : String(x)) : "empty");

function taskId(c: Combination): string {
  const withDefault = c.def !== undefined && c.agg.defaults(c.domain).length > 1;
  return `${c.agg.name}-${c.pred.slug}-${c.domain.slug}${withDefault ? `-or-${slugDefault(c.def!)}` : ""}`;
}

/** Step 1: every combination, in a fixed order. */
export function combinations(): Combination[] {
  const out: Combination[] = [];
  for (const domain of Object.values(DOMAINS)) {
    for (const agg of AGGREGATIONS) {
      if (!agg.domains.includes(domain.name)) continue;
      for (const pred of PREDICATES) {
        if (pred.domain !== domain.name) continue;
        const defaults = agg.defaults(domain);
        if (defaults.length > 0 && pinsItem(pred)) continue; // "the largest number equal to 3": no task
        for (const def of defaults.length > 0 ? defaults : [undefined]) out.push({ domain, agg, pred, ...(def !== undefined ? { def } : {}) });
      }
    }
  }
  return out;
}

/**
 * The split unit of a predicate: its Python with integer constants written N (split-leaks.ts) and
 * string constants S, so `is positive` (`v > 0`) and `is greater than 3` (`v > 3`) are one class,
 * `is even`, `is odd` and `is divisible by 3` another, `is a space` and `is equal to 'a'` a third.
 * Splitting by class, a held-out reference never equals a train reference up to constants.
 */
export function predicateClass(p: Predicate): string {
  return constantFree(p.py(DOMAINS[p.domain].item)).replace(/'(?:[^'\\]|\\.)*'/g, "S");
}

const pairKey = (d: DomainName, agg: string, predClass: string) => `${d}|${agg}|${predClass}`;

const HELDOUT_CLASSES = new Set(PREDICATES.filter((p) => (HELDOUT_FAMILY.predicateFamilies as readonly string[]).includes(p.family)).map(predicateClass));
{
  // The held-out predicate families must be whole classes (else a train predicate equals one up to constants).
  const partial = PREDICATES.filter((p) => HELDOUT_CLASSES.has(predicateClass(p)) && !(HELDOUT_FAMILY.predicateFamilies as readonly string[]).includes(p.family));
  if (partial.length > 0) throw new Error(`HELDOUT_FAMILY must list whole predicate classes: add ${[...new Set(partial.map((p) => p.family))].join(", ")}`);
}

function isFamilyHeldout(c: Combination): boolean {
  return HELDOUT_CLASSES.has(predicateClass(c.pred)) || HELDOUT_FAMILY.aggregations.includes(c.agg.name);
}

/**
 * Step 2: the held-out (aggregation, predicate class) pairs of each type. A pair is held out only
 * while its aggregation and its predicate class each keep at least two other pairs in train.
 */
export function compositionalPairs(all: Combination[], rng: Rng): Set<string> {
  const held = new Set<string>();
  for (const d of Object.keys(DOMAINS) as DomainName[]) {
    const pairs = [...new Set(all.filter((c) => c.domain.name === d && !isFamilyHeldout(c)).map((c) => `${c.agg.name}|${predicateClass(c.pred)}`))].sort();
    const trainAggs = new Map<string, number>();
    const trainFams = new Map<string, number>();
    for (const p of pairs) {
      const [a, f] = splitPair(p);
      trainAggs.set(a, (trainAggs.get(a) ?? 0) + 1);
      trainFams.set(f, (trainFams.get(f) ?? 0) + 1);
    }
    const target = Math.round(pairs.length * COMPOSITIONAL_SHARE);
    let n = 0;
    for (const p of rng.shuffle(pairs)) {
      if (n >= target) break;
      const [a, f] = splitPair(p);
      if (trainAggs.get(a)! <= 2 || trainFams.get(f)! <= 2) continue;
      trainAggs.set(a, trainAggs.get(a)! - 1);
      trainFams.set(f, trainFams.get(f)! - 1);
      held.add(pairKey(d, a, f));
      n++;
    }
  }
  return held;
}

/** `agg|class` -> [agg, class] (a class may itself hold a `|`). */
function splitPair(p: string): [string, string] {
  const at = p.indexOf("|");
  return [p.slice(0, at), p.slice(at + 1)];
}

function splitOf(c: Combination, held: Set<string>): Split {
  if (isFamilyHeldout(c)) return "heldout_family";
  return held.has(pairKey(c.domain.name, c.agg.name, predicateClass(c.pred))) ? "heldout_compositional" : "train";
}

function fill(template: string, c: Combination, phrase: { vs: string; vp: string }): string {
  const slots: Record<string, string> = {
    n: c.domain.noun.sg, N: c.domain.noun.pl, X: c.domain.param, vs: phrase.vs, vp: phrase.vp,
    D: c.def !== undefined ? itemLiteral(c.def) : "",
  };
  return template.replace(/\{(\w+)\}/g, (_, k: string) => {
    if (!(k in slots)) throw new Error(`prompt template '${template}': unknown slot {${k}}`);
    return slots[k];
  });
}

/** A program of the task space: the reference, or a variant (another predicate or shape). */
interface Program {
  agg: Aggregation;
  pred: PredicateCore;
  shape: Shape;
}

function render(c: Combination, p: Program): string {
  return [`def f(${c.domain.param}):`, ...p.agg.body(c.domain, p.pred.py(c.domain.item), c.def, p.shape)].join("\n");
}

function run(c: Combination, p: Program, args: PyLit[]): Outcome {
  return p.agg.run(c.domain, itemsOf(c.domain, fromLit(args[0]) as string | Item[]), p.pred.test, c.def, p.shape);
}

function fromLit(x: PyLit): unknown {
  if (x.t === "int" || x.t === "str" || x.t === "bool") return x.v;
  if (x.t === "list") return x.items.map(fromLit);
  throw new Error(`arena-v2 inputs are ints, strs and lists, got ${x.t}`);
}

function toLit(v: Outcome): PyLit {
  if (v === RAISES || v === null) throw new Error("the reference of a generated task raised or returned None");
  if (typeof v === "number") return int(v);
  if (typeof v === "string") return str(v);
  if (typeof v === "boolean") return bool(v);
  return list(v.map((x) => toLit(x)));
}

/** Every candidate variant of a task: predicate slips, negation, shape slips, the partner aggregation. */
function candidateVariants(c: Combination): { program: Program; op: MutationOp; bug: string }[] {
  const out: { program: Program; op: MutationOp; bug: string }[] = [];
  for (const s of c.pred.slips) out.push({ program: { agg: c.agg, pred: s, shape: {} }, op: s.op, bug: s.bug });
  out.push({
    program: { agg: c.agg, pred: { py: (e) => `not ${c.pred.py(e)}`, test: (x) => !c.pred.test(x) }, shape: {} },
    op: "negated-predicate", bug: `takes the ${c.domain.noun.pl} that do not qualify`,
  });
  for (const s of c.agg.slips(c.domain, c.def)) out.push({ program: { agg: c.agg, pred: c.pred, shape: s.shape }, op: s.op, bug: s.bug });
  if (c.agg.partner) {
    const partner = aggregation(c.agg.partner);
    if (partner.domains.includes(c.domain.name)) {
      out.push({ program: { agg: partner, pred: c.pred, shape: {} }, op: "first-last", bug: `${partner.name} instead of ${c.agg.name}` });
    }
  }
  return out;
}

/** A task skeleton (no golden tests or variants yet): what plus.ts needs to draw inputs. */
function skeleton(c: Combination, split: Split, rng: Rng): Task {
  const d = c.domain;
  return {
    id: taskId(c),
    title: `${c.agg.name} of ${d.noun.pl} that ${c.pred.vp}`,
    // The aggregation's paraphrase and the predicate's, each drawn (the model must read, not match one string).
    prompt: fill(rng.pick(c.agg.prompts(d)), c, rng.fork("phrase").pick([{ vs: c.pred.vs, vp: c.pred.vp }, ...(c.pred.alts ?? [])])),
    entry_point: "f",
    params: [{ name: d.param, type: d.name }],
    returns: c.agg.returns(d),
    reference: render(c, { agg: c.agg, pred: c.pred, shape: {} }),
    golden_tests: [],
    input_spec: { params: { [d.param]: d.spec }, preconditions: [] },
    buggy_variants: [],
    split,
    family: familyOf(c),
    tags: [d.name, c.agg.name, c.pred.family, "generated"],
  };
}

/**
 * Step 3 for one combination; null when fewer than 3 variants differ from the reference. A train
 * task's candidate variant that equals a held-out reference up to constants (`heldout`) is never
 * kept: `count the even numbers` is the wrong-predicate variant of `count the odd numbers`.
 */
export function buildTask(c: Combination, split: Split, seed: number, heldout?: HeldoutIndex): Task | null {
  const rng = new Rng(seed).fork(`arena-v2:${taskId(c)}`);
  const task = skeleton(c, split, rng.fork("prompt"));
  const reference: Program = { agg: c.agg, pred: c.pred, shape: {} };

  // Buggy variants: keep the candidates whose model differs from the reference's often enough.
  const probeRng = rng.fork("probe");
  const empty = [c.domain.name === "str" ? str("") : list([])];
  const probes = Array.from({ length: PROBE_INPUTS }, () => drawInput(task, probeRng));
  const refOut = probes.map((a) => run(c, reference, a));
  const refEmpty = run(c, reference, empty);
  const kept: { code: string; bug: string; op: MutationOp; program: Program }[] = [];
  for (const v of rng.fork("variants").shuffle(candidateVariants(c))) {
    const code = render(c, v.program);
    if (code === task.reference || kept.some((k) => k.code === code)) continue;
    if (split === "train" && heldout?.has(code)) continue;
    const differs = probes.filter((a, i) => !sameOutcome(run(c, v.program, a), refOut[i])).length;
    if (!sameOutcome(run(c, v.program, empty), refEmpty) || differs >= MIN_DIFFER_SHARE * PROBE_INPUTS) kept.push({ code, bug: v.bug, op: v.op, program: v.program });
  }
  // Distinct operators first, then the rest, in the shuffled order; 3 or 4 variants.
  const ordered = [...kept.filter((k, i) => kept.findIndex((o) => o.op === k.op) === i), ...kept.filter((k, i) => kept.findIndex((o) => o.op === k.op) !== i)];
  const chosen = ordered.slice(0, rng.range(3, 4));
  if (chosen.length < 3) return null;
  task.buggy_variants = chosen.map((k): BuggyVariant => ({ code: k.code, bug: `${k.op}: ${k.bug}` }));

  // Golden tests: 2-4 typical inputs (drawn from the spec, as a benchmark author would pick them).
  const goldenRng = rng.fork("golden");
  const want = goldenRng.range(2, 4);
  const calls = new Set<string>();
  for (let tries = 0; calls.size < want && tries < 50; tries++) {
    const args = drawInput(task, goldenRng);
    const call = `f(${formatArgs(args)})`;
    if (calls.has(call)) continue;
    calls.add(call);
    task.golden_tests.push(`assert ${call} == ${formatLiteral(toLit(run(c, reference, args)))}`);
  }
  return task;
}

/** Generates arena-v2 (deterministic for a seed). Throws TaskValidationError if the generator broke the format. */
export function generateArenaV2(seed = ARENA_V2_SEED): TaskFile {
  const all = combinations();
  const held = compositionalPairs(all, new Rng(seed).fork("arena-v2:splits"));
  const splits = all.map((c) => splitOf(c, held));
  // Every held-out reference, known before any train task picks its variants.
  const heldout = new HeldoutIndex(all.map((c, i) => ({ id: taskId(c), split: splits[i], reference: render(c, { agg: c.agg, pred: c.pred, shape: {} }) })));
  const tasks: Task[] = [];
  for (const [i, c] of all.entries()) {
    const t = buildTask(c, splits[i], seed, heldout);
    if (t) tasks.push(t);
  }
  return validateTaskFile({ version: 1, name: ARENA_V2_NAME, tasks });
}

let cached: TaskFile | null = null;
/** The shipped arena-v2 (generated once per process, then cached). */
export function arenaV2(): TaskFile {
  cached ??= generateArenaV2();
  return cached;
}
