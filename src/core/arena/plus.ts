/**
 * Plus tests, as EvalPlus builds HumanEval+ / MBPP+: many seeded inputs per task, expected values
 * from the reference. Inputs come from the task's input_spec (boundary cases first, then random
 * draws biased towards duplicates, ties, sorted lists and related arguments), or, for imported
 * tasks without a spec, from type-aware mutation of the golden tests' inputs. The reference then
 * runs on every candidate in Python (an injected `runPython`, so this file stays runtime-free):
 * inputs that break a precondition, or on which the reference raises, are dropped.
 * Evaluation only: plus tests are never a training reward.
 */
import { Rng } from "../rng.ts";
import { formatArgs, parseAssert, type PyLit, int, str, bool, list } from "./task-literals.ts";
import type { ParamSpec, Task } from "./task.ts";

/**
 * Runs a Python program in a fresh namespace and returns the value of its last line, which must be
 * an expression evaluating to a str. Node: src/node/python-runner.ts; browser: the sandbox worker.
 */
export type RunPython = (src: string) => Promise<string>;

export interface PlusOptions {
  /** Seed of the input draws; the same seed gives the same tests. Default 0. */
  seed?: number;
  /** Random inputs kept after filtering, on top of the boundary cases. Default 100. */
  count?: number;
  /**
   * Runs the reference on the candidates instead of runPython(referenceProgram(...)), with the same
   * answer per candidate: the browser's import runs an imported reference in the grader's sandbox.
   */
  runReference?: (task: Task, candidates: PyLit[][]) => Promise<ReferenceAnswer[]>;
}

/** Per candidate input: the reference's repr, a failed precondition, or what it raised. */
export type ReferenceAnswer = { ok: string } | { pre: false } | { err: string };

export interface PlusTests {
  task: string;
  /** `assert f(ARGS) == EXPECTED` lines, boundary cases first; EXPECTED is the reference's repr. */
  lines: string[];
  /** How many of `lines` are boundary cases. */
  boundary: number;
  /** Inputs satisfying the preconditions on which the reference raised: a spec bug when non-empty. */
  referenceErrors: string[];
}

const MAX_DRAWS = 8; // candidates drawn per kept input, before giving up on a tight precondition

/** Draws one argument from its spec. Lists get duplicates, ties and sorted order often (edge cases). */
export function drawValue(type: string, spec: ParamSpec, rng: Rng): PyLit {
  switch (type) {
    case "int": {
      const lo = spec.min!;
      const hi = spec.max!;
      // Small values (-5..5) a third of the time: zero, one and sign changes are where bugs live.
      if (rng.next() < 0.33 && lo <= 5 && hi >= -5) return int(rng.range(Math.max(lo, -5), Math.min(hi, 5)));
      return int(rng.range(lo, hi));
    }
    case "bool":
      return bool(rng.next() < 0.5);
    case "str":
      return str(drawString(rng, rng.range(spec.min_len!, spec.max_len!), spec.alphabet!));
    case "list[int]": {
      const n = rng.range(spec.min_len!, spec.max_len!);
      const pool = rng.next() < 0.4 ? Array.from({ length: 3 }, () => rng.range(spec.min!, spec.max!)) : null;
      let items = Array.from({ length: n }, () => (pool ? rng.pick(pool) : rng.range(spec.min!, spec.max!)));
      const order = rng.next();
      if (order < 0.15) items = items.sort((a, b) => a - b);
      else if (order < 0.25) items = items.sort((a, b) => b - a);
      return list(items.map(int));
    }
    case "list[str]": {
      const n = rng.range(spec.min_len!, spec.max_len!);
      const draw = () => drawString(rng, rng.range(spec.item_min_len!, spec.item_max_len!), spec.alphabet!);
      const pool = rng.next() < 0.3 ? [draw(), draw()] : null;
      return list(Array.from({ length: n }, () => str(pool ? rng.pick(pool) : draw())));
    }
    default:
      throw new Error(`cannot draw a value of type '${type}' from a spec`);
  }
}

function drawString(rng: Rng, n: number, alphabet: string): string {
  let s = "";
  for (let i = 0; i < n; i++) s += alphabet[rng.int(alphabet.length)];
  return s;
}

/** Whether a value lies within its parameter's spec (used before reusing one argument for another). */
export function fitsSpec(type: string, spec: ParamSpec, v: PyLit): boolean {
  const inAlphabet = (s: string) => [...s].every((c) => spec.alphabet!.includes(c));
  if (type === "int") return v.t === "int" && v.v >= spec.min! && v.v <= spec.max!;
  if (type === "bool") return v.t === "bool";
  if (type === "str") return v.t === "str" && v.v.length >= spec.min_len! && v.v.length <= spec.max_len! && inAlphabet(v.v);
  if (v.t !== "list" || v.items.length < spec.min_len! || v.items.length > spec.max_len!) return false;
  if (type === "list[int]") return v.items.every((i) => i.t === "int" && i.v >= spec.min! && i.v <= spec.max!);
  return v.items.every(
    (i) => i.t === "str" && i.v.length >= spec.item_min_len! && i.v.length <= spec.item_max_len! && inAlphabet(i.v),
  );
}

/**
 * One random input. Later arguments are sometimes tied to earlier ones, since many tasks are only
 * interesting then: `k` taken from `xs`, `t` a piece of `s`, `ys` a shuffle of `xs`.
 */
export function drawInput(task: Task, rng: Rng): PyLit[] {
  const specs = task.input_spec!.params;
  const args: PyLit[] = [];
  task.params.forEach((p, i) => {
    let v = drawValue(p.type, specs[p.name], rng);
    if (i > 0 && rng.next() < 0.3) {
      const j = rng.int(i);
      const related = relate(args[j], p.type, rng);
      if (related && fitsSpec(p.type, specs[p.name], related)) v = related;
    }
    args.push(v);
  });
  return args;
}

function relate(from: PyLit, type: string, rng: Rng): PyLit | null {
  if (type === "int" && from.t === "list" && from.items.length > 0) return rng.pick(from.items);
  if (type === "int" && from.t === "str") return int(from.v.length === 0 ? 0 : rng.int(from.v.length + 1));
  if (type === "str" && from.t === "str") {
    const a = rng.int(from.v.length + 1);
    const piece = from.v.slice(a, a + rng.range(1, 3));
    return str(rng.next() < 0.5 ? piece : rng.shuffle([...from.v]).join(""));
  }
  if (type === "str" && from.t === "list" && from.items.length > 0) {
    const w = rng.pick(from.items);
    return w.t === "str" ? str(w.v.slice(0, rng.range(1, 2))) : null;
  }
  if (from.t === "list" && (type === "list[int]" || type === "list[str]")) return list(rng.shuffle(from.items));
  return null;
}

/** Extreme values of one parameter: empty/shortest, longest, all equal, sorted both ways, bounds. */
export function extremes(type: string, spec: ParamSpec, rng: Rng): PyLit[] {
  switch (type) {
    case "int":
      return [...new Set([spec.min!, spec.max!, 0, 1, -1].filter((v) => v >= spec.min! && v <= spec.max!))].map(int);
    case "bool":
      return [bool(true), bool(false)];
    case "str": {
      const a = spec.alphabet!;
      const c = a[rng.int(a.length)];
      return [
        str(drawString(rng, spec.min_len!, a)),
        str(drawString(rng, spec.max_len!, a)),
        str(c.repeat(spec.max_len!)),
        str(c.repeat(Math.max(spec.min_len!, 1))),
      ];
    }
    case "list[int]": {
      const n = spec.max_len!;
      const mid = rng.range(spec.min!, spec.max!);
      const full = Array.from({ length: n }, () => rng.range(spec.min!, spec.max!));
      return [
        list(Array.from({ length: spec.min_len! }, () => int(rng.range(spec.min!, spec.max!)))),
        list(full.map(int)),
        list(Array(n).fill(mid).map(int)),
        list([...full].sort((x, y) => x - y).map(int)),
        list([...full].sort((x, y) => y - x).map(int)),
        list(Array(n).fill(spec.min!).map(int)),
        list(Array(n).fill(spec.max!).map(int)),
      ];
    }
    case "list[str]": {
      const word = (len: number) => str(drawString(rng, len, spec.alphabet!));
      const w = word(spec.item_max_len!);
      return [
        list(Array.from({ length: spec.min_len! }, () => word(spec.item_min_len!))),
        list(Array.from({ length: spec.max_len! }, () => word(rng.range(spec.item_min_len!, spec.item_max_len!)))),
        list(Array(spec.max_len!).fill(w)),
        list(Array.from({ length: spec.max_len! }, () => word(spec.item_min_len!))),
      ];
    }
    default:
      throw new Error(`cannot take extremes of type '${type}'`);
  }
}

/** Boundary inputs: each extreme of each parameter on top of a random base input. */
export function boundaryInputs(task: Task, rng: Rng): PyLit[][] {
  const specs = task.input_spec!.params;
  const out: PyLit[][] = [];
  task.params.forEach((p, i) => {
    for (const e of extremes(p.type, specs[p.name], rng)) {
      const base = drawInput(task, rng);
      base[i] = e;
      out.push(base);
    }
  });
  return out;
}

/**
 * The default input: every argument at its emptiest within the spec (0 or the bound nearest it,
 * False, the shortest string or list of the first alphabet character / of such items). The input
 * a test writer reaches for first, so a mutant it exposes is trivially killed (mutants.ts).
 *
 * Example: `f(xs: list[int], k: int)` with xs min_len 0, k in [1, 9] -> `f([], 1)`.
 */
export function defaultInput(task: Task): PyLit[] {
  const specs = task.input_spec!.params;
  const zero = (spec: ParamSpec) => int(Math.min(spec.max!, Math.max(spec.min!, 0)));
  return task.params.map((p) => {
    const spec = specs[p.name];
    switch (p.type) {
      case "int":
        return zero(spec);
      case "bool":
        return bool(false);
      case "str":
        return str(spec.alphabet![0].repeat(spec.min_len!));
      case "list[int]":
        return list(Array.from({ length: spec.min_len! }, () => zero(spec)));
      case "list[str]":
        return list(Array.from({ length: spec.min_len! }, () => str(spec.alphabet![0].repeat(spec.item_min_len!))));
      default:
        throw new Error(`cannot make a default value of type '${p.type}'`);
    }
  });
}

/** Type-aware mutation of one value (EvalPlus-style), for tasks known only by their golden tests. */
export function mutateValue(v: PyLit, rng: Rng, alphabet: string): PyLit {
  switch (v.t) {
    case "int":
      return int(rng.pick([v.v + 1, v.v - 1, -v.v, 0, v.v * 2, v.v + rng.range(-10, 10)]));
    case "float":
      return { t: "float", v: rng.pick([v.v + 1, v.v - 1, -v.v, 0, v.v * 2, v.v / 2]) };
    case "bool":
      return bool(!v.v);
    case "str": {
      const s = v.v;
      const i = rng.int(s.length + 1);
      const c = alphabet[rng.int(alphabet.length)];
      const ops = [
        () => s.slice(0, i) + c + s.slice(i),
        () => s.slice(0, i) + s.slice(i + 1),
        () => s.slice(0, i) + c + s.slice(i + 1),
        () => s.slice(0, i) + (s[i] ?? "").toUpperCase() + s.slice(i + 1),
        () => [...s].reverse().join(""),
        () => s + s.slice(0, 2),
        () => "",
      ];
      return str(rng.pick(ops)());
    }
    case "list":
    case "tuple":
    case "set": {
      const items = v.items.slice();
      const i = rng.int(Math.max(items.length, 1));
      const op = items.length === 0 ? 0 : rng.int(v.t === "tuple" ? 1 : 6);
      if (items.length === 0) return v; // nothing to derive a new item from
      if (op === 0) items[i] = mutateValue(items[i], rng, alphabet);
      else if (op === 1) items.splice(i, 0, mutateValue(items[i], rng, alphabet));
      else if (op === 2) items.splice(i, 1);
      else if (op === 3) items.splice(i, 0, items[i]);
      else if (op === 4) return { ...v, items: rng.shuffle(items) };
      else return { ...v, items: [] };
      return { ...v, items };
    }
    default:
      return v;
  }
}

/** Inputs derived from the golden tests' inputs by repeated mutation (seeds grow as in EvalPlus). */
export function mutatedInputs(task: Task, rng: Rng, count: number): PyLit[][] {
  const seeds = task.golden_tests.flatMap((g) => {
    try {
      return [parseAssert(g, task.entry_point).args];
    } catch {
      return [];
    }
  });
  if (seeds.length === 0) {
    throw new Error(`task ${task.id}: no input_spec and no golden test of the form 'assert ${task.entry_point}(LITERALS) == LITERAL'`);
  }
  const chars = [...new Set(task.golden_tests.join("").replace(/[^A-Za-z0-9 ]/g, ""))].join("") || "ab";
  const out: PyLit[][] = [];
  for (let n = 0; n < count; n++) {
    const base = rng.pick(n < seeds.length * 4 ? seeds : [...seeds, ...out]);
    const args = base.slice();
    const i = rng.int(args.length);
    args[i] = mutateValue(args[i], rng, chars);
    out.push(args);
  }
  return out;
}

/**
 * The Python program that runs the reference on every candidate and prints, per candidate,
 * `{"ok": repr}`, `{"pre": false}` (a precondition fails) or `{"err": message}`.
 */
export function referenceProgram(task: Task, candidates: PyLit[][]): string {
  const names = task.params.map((p) => p.name).join(", ");
  const pre = task.input_spec?.preconditions ?? [];
  return [
    "import json, copy",
    `__ns = {}`,
    `exec(${JSON.stringify(task.reference)}, __ns)`,
    `__f = __ns[${JSON.stringify(task.entry_point)}]`,
    `def __pre(${names}):`,
    `    return ${pre.length > 0 ? pre.map((p) => `(${p})`).join(" and ") : "True"}`,
    ...candidateLines(candidates),
    "__out = []",
    "for __a in __cands:",
    "    try:",
    "        if not __pre(*copy.deepcopy(__a)):",
    "            __out.append({'pre': False})",
    "            continue",
    "        __out.append({'ok': repr(__f(*copy.deepcopy(__a)))})",
    "    except Exception as __e:",
    "        __out.append({'err': type(__e).__name__ + ': ' + str(__e)})",
    "json.dumps(__out)",
  ].join("\n");
}

/** A literal JSON carries as the same Python value: int, bool, str and lists of them. */
function jsonValue(x: PyLit): unknown {
  if (x.t === "int" && Number.isSafeInteger(x.v)) return x.v;
  if (x.t === "bool" || x.t === "str") return x.v;
  if (x.t === "list") {
    const items = x.items.map(jsonValue);
    return items.includes(undefined) ? undefined : items;
  }
  return undefined;
}

/**
 * `__cands`, the candidate argument tuples. Pyodide compiles large source slowly (hundreds of
 * literal tuples took ~200 ms a task), so inputs JSON can carry are one json.loads of one string
 * literal (the same values); others (tuples, sets, floats, None) are written as Python literals.
 */
function candidateLines(candidates: PyLit[][]): string[] {
  const json = candidates.map((args) => args.map(jsonValue));
  if (json.every((args) => !args.includes(undefined))) {
    return [`__cands = [tuple(__a) for __a in json.loads(${JSON.stringify(JSON.stringify(json))})]`];
  }
  return ["__cands = [", ...candidates.map((args) => `    (${formatArgs(args)}${args.length === 1 ? "," : ""}),`), "]"];
}

/**
 * Builds a task's plus tests: boundary cases plus `count` random inputs (spec or mutation), each
 * kept only if it satisfies the preconditions and the reference returns on it; duplicates dropped.
 */
export async function buildPlusTests(task: Task, runPython: RunPython, opts: PlusOptions = {}): Promise<PlusTests> {
  const count = opts.count ?? 100;
  const rng = new Rng(opts.seed ?? 0).fork(`plus:${task.id}`);
  const boundary = task.input_spec ? boundaryInputs(task, rng) : [];
  const random = task.input_spec
    ? Array.from({ length: count * MAX_DRAWS }, () => drawInput(task, rng))
    : mutatedInputs(task, rng, count * MAX_DRAWS);
  const candidates = [...boundary, ...random];
  const results = (opts.runReference
    ? await opts.runReference(task, candidates)
    : JSON.parse(await runPython(referenceProgram(task, candidates)))) as { ok?: string; err?: string }[];
  const lines: string[] = [];
  const seen = new Set<string>();
  const referenceErrors: string[] = [];
  let keptBoundary = 0;
  let keptRandom = 0;
  candidates.forEach((args, i) => {
    const r = results[i];
    const isBoundary = i < boundary.length;
    if (!isBoundary && keptRandom >= count) return;
    const call = `${task.entry_point}(${formatArgs(args)})`;
    if (r.err !== undefined && task.input_spec) referenceErrors.push(`${call}: ${r.err}`);
    if (r.ok === undefined || seen.has(call)) return;
    seen.add(call);
    lines.push(`assert ${call} == ${r.ok}`);
    if (isBoundary) keptBoundary++;
    else keptRandom++;
  });
  return { task: task.id, lines, boundary: keptBoundary, referenceErrors };
}
