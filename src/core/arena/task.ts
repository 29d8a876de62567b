/**
 * The task format: one schema for the built-in suite (src/core/arena/tasks/*.json) and for imported
 * tasks (import.ts). Documented field by field in docs/TASKS.md; this file is its single source of
 * truth. Validation reports every problem at once, each naming the task and the field
 * (`tasks[3] (sum-positive).golden_tests[1]: ...`), so a hand-edited suite can be fixed in one pass.
 */
import { ARENA_TYPES, type ArenaType, type Signature } from "./types.ts";
import { own } from "../own.ts";

/** Literal bounds of the test-suite grammar (docs/ARENA-PYTHON.md, "Test suites"). */
export const LITERAL_BOUNDS = { intDigits: 4, strLen: 12, listIntLen: 8, listStrLen: 6 } as const;

/** Parameter names a built-in task may use (docs/ARENA-PYTHON.md, "Names"). */
export const PARAM_POOL = ["xs", "ys", "s", "t", "n", "m", "k", "x", "a", "b", "words"] as const;

/**
 * `heldout` is arena-v1's one held-out split; arena-v2 splits its held-out tasks by what is new in
 * them: an unseen combination of primitives each seen in train, or a primitive never seen in train.
 */
export const SPLITS = ["train", "heldout", "heldout_compositional", "heldout_family"] as const;
export type Split = (typeof SPLITS)[number];

/** Every split but train is held out: never trained on, evaluated as held-out. */
export function isHeldout(split: Split): boolean {
  return split !== "train";
}

/**
 * How to draw one argument. Which fields apply depends on the parameter's type:
 * - int: `min`, `max` (inclusive);
 * - bool: nothing;
 * - str: `min_len`, `max_len`, `alphabet` (the characters drawn from, with repeats as weights);
 * - list[int]: `min_len`, `max_len` (item count), `min`, `max` (item values);
 * - list[str]: `min_len`, `max_len` (item count), `item_min_len`, `item_max_len`, `alphabet`.
 */
export interface ParamSpec {
  min?: number;
  max?: number;
  min_len?: number;
  max_len?: number;
  item_min_len?: number;
  item_max_len?: number;
  alphabet?: string;
}

export interface InputSpec {
  /** One entry per parameter, keyed by parameter name. */
  params: Record<string, ParamSpec>;
  /** Python boolean expressions over the parameters that every input must satisfy, e.g. `len(set(xs)) >= 2`. */
  preconditions: string[];
}

export interface BuggyVariant {
  code: string;
  /** One line: what is wrong (off-by-one, forgotten empty input, duplicates, ties, sign, case). */
  bug: string;
}

/** A parameter of an imported task may have a type outside the arena's types ("other"). */
export interface TaskParam {
  name: string;
  type: ArenaType | "other";
}

export interface Task {
  id: string;
  title: string;
  /** One sentence, like an MBPP prompt. */
  prompt: string;
  entry_point: string;
  params: TaskParam[];
  returns: ArenaType | "other";
  /** Ground-truth solution defining `entry_point`. */
  reference: string;
  /** 2-4 lines `assert f(...) == ...`, written like real benchmark tests (built-in suite). */
  golden_tests: string[];
  /** Required for the built-in suite; imported tasks without it derive plus inputs by mutation. */
  input_spec?: InputSpec;
  buggy_variants: BuggyVariant[];
  split: Split;
  /** Generated tasks (arena-v2): their primitives, `aggregation/predicate-family/type`. */
  family?: string;
  tags: string[];
  /** Set on imported tasks that fall outside arena-Python: why (they still work for play and evaluation). */
  outside_arena?: string;
}

/** The shape of a task-suite file. */
export interface TaskFile {
  version: 1;
  name: string;
  tasks: Task[];
}

export class TaskValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid task file: ${problems.length} problem(s):\n  ${problems.join("\n  ")}`);
    this.name = "TaskValidationError";
  }
}

const TASK_KEYS = [
  "id", "title", "prompt", "entry_point", "params", "returns", "reference", "golden_tests",
  "input_spec", "buggy_variants", "split", "family", "tags", "outside_arena",
];
const SPEC_KEYS: Record<ArenaType, string[]> = {
  int: ["min", "max"],
  bool: [],
  str: ["min_len", "max_len", "alphabet"],
  "list[int]": ["min_len", "max_len", "min", "max"],
  "list[str]": ["min_len", "max_len", "item_min_len", "item_max_len", "alphabet"],
};
const ID_RE = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const IDENT_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Longest entry point or parameter name accepted (HumanEval's longest is 35 characters). */
export const MAX_IDENTIFIER_LENGTH = 64;
/** Python 3's hard keywords: not usable as names (soft ones such as `match` are). */
const PYTHON_KEYWORDS: ReadonlySet<string> = new Set(("False None True and as assert async await break class continue def del elif else except " +
  "finally for from global if import in is lambda nonlocal not or pass raise return try while with yield").split(" "));

/** An ASCII Python identifier of at most MAX_IDENTIFIER_LENGTH characters, not a keyword. */
export function isPythonIdentifier(s: unknown): s is string {
  return typeof s === "string" && s.length <= MAX_IDENTIFIER_LENGTH && IDENT_RE.test(s) && !PYTHON_KEYWORDS.has(s);
}
export const IDENTIFIER_RULE = `a Python identifier (ASCII letters, digits, _; not a keyword; at most ${MAX_IDENTIFIER_LENGTH} characters)`;
const PRINTABLE_RE = /^[ -&(-[\]-~]*$/; // printable ASCII except ' and \

export interface ValidateOptions {
  /**
   * Built-in suite rules (default true): entry point `f`, names from the pool, arena types only,
   * 2-4 golden tests, >= 3 buggy variants, an input_spec within the literal bounds.
   */
  strict?: boolean;
}

/** Checks one task; returns problems as `field: message` strings (empty when valid). */
export function taskProblems(raw: unknown, opts: ValidateOptions = {}): string[] {
  const strict = opts.strict ?? true;
  const out: string[] = [];
  if (!isObject(raw)) return ["task: must be an object"];
  const t = raw as Record<string, unknown>;
  for (const k of Object.keys(t)) if (!TASK_KEYS.includes(k)) out.push(`${k}: unknown field (known: ${TASK_KEYS.join(", ")})`);

  if (typeof t.id !== "string" || !ID_RE.test(t.id)) out.push("id: must be kebab-case letters/digits, e.g. 'sum-positive'");
  for (const k of ["title", "prompt", "reference"]) {
    if (typeof t[k] !== "string" || (t[k] as string).trim() === "") out.push(`${k}: must be a non-empty string`);
  }
  if (!isPythonIdentifier(t.entry_point)) out.push(`entry_point: must be ${IDENTIFIER_RULE}`);
  else if (strict && t.entry_point !== "f") out.push("entry_point: must be 'f' in the built-in suite (docs/ARENA-PYTHON.md)");
  if (strict && typeof t.prompt === "string" && /[.?!]\s+[A-Z]/.test(t.prompt.trim())) {
    out.push("prompt: must be one sentence");
  }

  const types: readonly string[] = strict ? ARENA_TYPES : [...ARENA_TYPES, "other"];
  const names: string[] = [];
  if (!Array.isArray(t.params) || t.params.length === 0) out.push("params: must be a non-empty list of {name, type}");
  else {
    t.params.forEach((p, i) => {
      if (!isObject(p)) return out.push(`params[${i}]: must be {name, type}`);
      const { name, type } = p as Record<string, unknown>;
      if (!isPythonIdentifier(name)) out.push(`params[${i}].name: must be ${IDENTIFIER_RULE}`);
      else if (strict && !(PARAM_POOL as readonly string[]).includes(name)) {
        out.push(`params[${i}].name: '${name}' is not in the parameter pool (${PARAM_POOL.join(" ")})`);
      } else if (names.includes(name)) out.push(`params[${i}].name: duplicate '${name}'`);
      else names.push(name);
      if (typeof type !== "string" || !types.includes(type)) out.push(`params[${i}].type: must be one of ${types.join(", ")}`);
    });
  }
  if (typeof t.returns !== "string" || !types.includes(t.returns)) out.push(`returns: must be one of ${types.join(", ")}`);

  const golden = t.golden_tests;
  const [gMin, gMax] = strict ? [2, 4] : [1, 1000];
  if (!Array.isArray(golden) || golden.length < gMin || golden.length > gMax) {
    out.push(`golden_tests: must be a list of ${gMin}-${gMax} assert lines`);
  } else {
    golden.forEach((g, i) => {
      const ep = isPythonIdentifier(t.entry_point) ? t.entry_point : "f";
      // One line as Python reads it: \r is a line break too (round 46).
      if (typeof g !== "string" || !g.startsWith(`assert ${ep}(`) || !g.includes(" == ") || /[\r\n]/.test(g)) {
        out.push(`golden_tests[${i}]: must be one line 'assert ${ep}(...) == ...'`);
      }
    });
  }

  if (!Array.isArray(t.buggy_variants) || (strict && t.buggy_variants.length < 3)) {
    out.push(`buggy_variants: must be a list${strict ? " of at least 3" : ""} of {code, bug}`);
  } else {
    t.buggy_variants.forEach((v, i) => {
      if (!isObject(v)) return out.push(`buggy_variants[${i}]: must be {code, bug}`);
      const { code, bug } = v as Record<string, unknown>;
      if (typeof code !== "string" || code.trim() === "") out.push(`buggy_variants[${i}].code: must be a non-empty string`);
      else if (code === t.reference) out.push(`buggy_variants[${i}].code: identical to the reference`);
      if (typeof bug !== "string" || bug.trim() === "" || bug.includes("\n")) out.push(`buggy_variants[${i}].bug: must be a one-line description`);
      for (const k of Object.keys(v)) if (k !== "code" && k !== "bug") out.push(`buggy_variants[${i}].${k}: unknown field`);
    });
  }

  if (!(SPLITS as readonly unknown[]).includes(t.split)) out.push(`split: must be one of ${SPLITS.join(", ")}`);
  if (t.family !== undefined && (typeof t.family !== "string" || t.family.trim() === "")) out.push("family: must be a non-empty string");
  if (!Array.isArray(t.tags) || t.tags.some((g) => typeof g !== "string" || g === "")) out.push("tags: must be a list of non-empty strings");
  if (t.outside_arena !== undefined && (strict || typeof t.outside_arena !== "string")) {
    out.push(strict ? "outside_arena: not allowed in the built-in suite" : "outside_arena: must be a string (the reason)");
  }

  if (t.input_spec === undefined) {
    if (strict) out.push("input_spec: required in the built-in suite");
  } else if (Array.isArray(t.params)) {
    out.push(...inputSpecProblems(t.input_spec, t.params as TaskParam[]));
  }
  return out;
}

function inputSpecProblems(raw: unknown, params: TaskParam[]): string[] {
  const out: string[] = [];
  if (!isObject(raw)) return ["input_spec: must be {params, preconditions}"];
  const spec = raw as Record<string, unknown>;
  for (const k of Object.keys(spec)) if (k !== "params" && k !== "preconditions") out.push(`input_spec.${k}: unknown field`);
  if (!Array.isArray(spec.preconditions) || spec.preconditions.some((p) => typeof p !== "string" || p.includes("\n"))) {
    out.push("input_spec.preconditions: must be a list of one-line Python expressions");
  }
  if (!isObject(spec.params)) return [...out, "input_spec.params: must be an object keyed by parameter name"];
  const specs = spec.params as Record<string, unknown>;
  for (const k of Object.keys(specs)) {
    if (!params.some((p) => p?.name === k)) out.push(`input_spec.params.${k}: no such parameter`);
  }
  for (const p of params) {
    if (!p || typeof p.name !== "string") continue;
    const at = `input_spec.params.${p.name}`;
    const s = own(specs, p.name);
    if (!isObject(s)) {
      out.push(`${at}: missing (every parameter needs a spec; {} for bool)`);
      continue;
    }
    if (!(ARENA_TYPES as readonly string[]).includes(p.type)) {
      out.push(`${at}: parameter type '${p.type}' cannot be drawn from a spec`);
      continue;
    }
    out.push(...paramSpecProblems(at, p.type as ArenaType, s as Record<string, unknown>));
  }
  return out;
}

function paramSpecProblems(at: string, type: ArenaType, s: Record<string, unknown>): string[] {
  const out: string[] = [];
  const allowed = SPEC_KEYS[type];
  for (const k of Object.keys(s)) if (!allowed.includes(k)) out.push(`${at}.${k}: not a field of a ${type} spec (${allowed.join(", ") || "none"})`);
  for (const k of allowed) {
    if (k === "alphabet") {
      if (typeof s.alphabet !== "string" || s.alphabet === "" || !PRINTABLE_RE.test(s.alphabet)) {
        out.push(`${at}.alphabet: must be a non-empty string of printable ASCII without ' or \\`);
      }
    } else if (!Number.isInteger(s[k])) out.push(`${at}.${k}: must be an integer`);
  }
  if (out.length > 0) return out;
  const maxInt = 10 ** LITERAL_BOUNDS.intDigits - 1;
  const pair = (lo: string, hi: string, min: number, max: number) => {
    const a = s[lo] as number;
    const b = s[hi] as number;
    if (a > b) out.push(`${at}: ${lo} (${a}) > ${hi} (${b})`);
    if (a < min || b > max) out.push(`${at}: ${lo}..${hi} must lie within ${min}..${max} (literal bounds)`);
  };
  if (type === "int" || type === "list[int]") pair("min", "max", -maxInt, maxInt);
  if (type === "str") pair("min_len", "max_len", 0, LITERAL_BOUNDS.strLen);
  if (type === "list[int]") pair("min_len", "max_len", 0, LITERAL_BOUNDS.listIntLen);
  if (type === "list[str]") {
    pair("min_len", "max_len", 0, LITERAL_BOUNDS.listStrLen);
    pair("item_min_len", "item_max_len", 0, LITERAL_BOUNDS.strLen);
  }
  return out;
}

/**
 * Validates a parsed task file and returns it typed. Throws TaskValidationError listing every
 * problem as `tasks[i] (id).field: message`, plus duplicate ids.
 */
export function validateTaskFile(raw: unknown, opts: ValidateOptions = {}): TaskFile {
  const problems: string[] = [];
  if (!isObject(raw)) throw new TaskValidationError(["file: must be an object {version, name, tasks}"]);
  const f = raw as Record<string, unknown>;
  if (f.version !== 1) problems.push("version: must be 1");
  if (typeof f.name !== "string" || f.name === "") problems.push("name: must be a non-empty string");
  for (const k of Object.keys(f)) if (!["version", "name", "tasks"].includes(k)) problems.push(`${k}: unknown field`);
  if (!Array.isArray(f.tasks) || f.tasks.length === 0) problems.push("tasks: must be a non-empty list");
  else {
    const seen = new Set<string>();
    f.tasks.forEach((t, i) => {
      const id = isObject(t) && typeof (t as Task).id === "string" ? (t as Task).id : "?";
      for (const p of taskProblems(t, opts)) problems.push(`tasks[${i}] (${id}).${p}`);
      if (seen.has(id)) problems.push(`tasks[${i}] (${id}).id: duplicate id`);
      seen.add(id);
    });
  }
  if (problems.length > 0) throw new TaskValidationError(problems);
  return raw as TaskFile;
}

/** The grammar's view of a task; throws for imported tasks with types outside the arena. */
export function taskSignature(task: Task): Signature {
  const bad = [...task.params.map((p) => p.type), task.returns].filter((t) => t === "other");
  if (bad.length > 0) throw new Error(`task ${task.id}: has types outside the arena (${task.outside_arena ?? "other"}); no signature`);
  return { entry_point: task.entry_point, params: task.params as Signature["params"], returns: task.returns as ArenaType };
}

function isObject(v: unknown): v is object {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
