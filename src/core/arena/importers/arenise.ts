/**
 * Imports that become real arena tasks (issue 14): an MBPP- or HumanEval-style JSONL is parsed
 * record by record (import.ts, all or nothing for a malformed file), then each task is made an
 * arena task, or honestly refused with the construct or type that stops it:
 *
 * 1. types of the parameters and the return value from the tests' literals (import.ts);
 * 2. normalise (arenise.py, Python's ast in Pyodide): entry point `f`, parameters and locals renamed
 *    to the arena pools, canonical arena-Python, checked by the tokenizer's round trip;
 * 3. an input_spec within the literal bounds inferred from the literals (ranges, lengths, alphabets);
 * 4. the ORIGINAL reference runs on the golden inputs and on drawn inputs (step-limited): where it
 *    raises or loops, preconditions chosen from a fixed family (`len(xs) >= 1`, `n >= 0`, `k < len(xs)`,
 *    `a <= b`, ...) exclude those inputs; its outputs must have the inferred return type;
 * 5. meaning preserved: the renamed reference, graded by the grader, must give the original's outputs
 *    on every one of those inputs;
 * 6. buggy variants: mutants of the renamed reference (mutate.py's operators and the semantic ones
 *    of arenise.py) that fail at least one plus test, graded by the grader; a task is "weak golden"
 *    when a kept variant passes all of its golden tests.
 *
 * References are trusted (written by people), as for every task file: they run in Pyodide through
 * the injected runPython (guarded by a per-call step limit), and candidates through the grader.
 */
import type { Grader } from "../../grader/types.ts";
import { Rng } from "../../rng.ts";
import { EVAL_TEST_MS, FIRST_PASS_LINES, runJobs } from "../metrics-evaluate.ts";
import { passesAll } from "../metrics.ts";
import { boundaryInputs, buildPlusTests, drawInput, type PlusTests, type RunPython } from "../plus.ts";
import { importJsonl, type ImportFormat } from "./import.ts";
import { formatArgs, formatLiteral, parseAssert, type PyLit } from "../task-literals.ts";
import type { RoundTrip } from "../task-round-trip.ts";
import { LITERAL_BOUNDS, taskProblems, type InputSpec, type ParamSpec, type Split, type Task, type TaskFile } from "../task.ts";
import type { ArenaType } from "../types.ts";

export interface AreniseDeps {
  grader: Grader;
  roundTrip: RoundTrip;
  /**
   * Where the Python runs. Absent: `pythonRuntime` over runPython (Node's command line, where the
   * user's own file runs in the user's own Pyodide). The browser passes `sandboxRuntime`
   * (arenise-sandbox.ts): references run only in the grader's sandbox.
   */
  runtime?: AreniseRuntime;
  runPython?: RunPython;
  /** Source of arenise.py and of mutate.py (Node: read from disk; browser: `?raw` imports). */
  arenisePy?: string;
  mutatePy?: string;
}

/** What normalise() in arenise.py answers (JSON). */
export type Normalised = { ok: true; code: string; renames: Record<string, string>; rewrites: string[] } | { ok: false; line: number; col: number; what: string };
/** One mutant from variants() in arenise.py. */
export interface Mutant {
  operator: string;
  line: number;
  code: string;
}

/**
 * The Python an import needs, in two kinds: trusted code that only parses the reference
 * (normalise, variants: arenise.py and mutate.py over its text) and runs of the reference itself
 * (probe, plus), which is the user's code.
 */
export interface AreniseRuntime {
  normalise(src: string, entry: string, types: ArenaType[]): Promise<Normalised>;
  variants(src: string, returns: ArenaType): Promise<Mutant[]>;
  /** The ORIGINAL reference on every input, and each precondition candidate (over its own names) on each. */
  probe(t: Task, inputs: PyLit[][], preconditions: string[]): Promise<ProbeResult>;
  /** The task's plus tests (buildPlusTests), the renamed reference run on drawn inputs. */
  plus(task: Task, seed: number): Promise<PlusTests>;
}

/** Raised by a runtime when a reference cannot run at all (it does not load): the task is refused with it. */
export class ReferenceLoadError extends Error {
  override name = "ReferenceLoadError";
}

/** The runtime of the command line: one Pyodide (or CPython) for everything, each reference call step-limited. */
export function pythonRuntime(runPython: RunPython, arenisePy: string, mutatePy: string): AreniseRuntime {
  return {
    async normalise(src, entry, types) {
      return JSON.parse(await runPython(
        `${arenisePy}\nimport json as __json\n__json.dumps(normalise(${pyStr(src)}, ${pyStr(entry)}, __json.loads(${pyStr(JSON.stringify(types))})))`,
      )) as Normalised;
    },
    async variants(src, returns) {
      return JSON.parse(await runPython(
        `${mutatePy}\n${arenisePy}\nimport json as __json\n__json.dumps(variants(${pyStr(src)}, ${pyStr(returns)}))`,
      )) as Mutant[];
    },
    probe: (t, inputs, preconditions) => probeOriginal(runPython, t, inputs, preconditions),
    plus: (task, seed) => buildPlusTests(task, guardRunPython(runPython), { seed }),
  };
}

function runtimeOf(deps: AreniseDeps): AreniseRuntime {
  if (deps.runtime) return deps.runtime;
  if (!deps.runPython || deps.arenisePy === undefined || deps.mutatePy === undefined) throw new Error("importArenaTasks: give a runtime, or runPython with arenisePy and mutatePy");
  return pythonRuntime(deps.runPython, deps.arenisePy, deps.mutatePy);
}

export interface AreniseOptions {
  split?: Split;
  name?: string;
  seed?: number;
  /** Keep refused tasks in the file, flagged `outside_arena` (play and evaluation only). */
  keepOutside?: boolean;
  onProgress?: (done: number, total: number, id: string) => void;
}

export interface PreconditionNote {
  expr: string;
  /** Drawn inputs it excludes on which the reference raised or looped / all it excludes / drawn. */
  excludedRaising: number;
  excluded: number;
  drawn: number;
  example: string;
}

export interface TaskReport {
  id: string;
  /** 1-based line of the record in the JSONL. */
  line: number;
  status: "trainable" | "refused";
  /** Refused: what stops it, with line and column of the construct when there is one. */
  reason?: string;
  renames?: Record<string, string>;
  rewrites?: string[];
  preconditions?: PreconditionNote[];
  /** Inputs on which the renamed reference was checked against the original (golden + drawn). */
  checkedInputs?: number;
  mutants?: number;
  variants?: number;
  weakGolden?: boolean;
}

export interface AreniseResult {
  file: TaskFile;
  report: TaskReport[];
}

/** Candidate inputs drawn per task for the precondition and equivalence checks. */
export const PROBE_DRAWS = 300;
/** Python line events one call of a reference may take before it counts as looping. */
export const STEP_LIMIT = 200_000;
/** Buggy variants kept per task (at least 3 needed). */
export const MAX_VARIANTS = 4;
const MIN_VARIANTS = 3;

/** A record that cannot become an arena task; `what` names the construct or type. */
class Refused extends Error {}

/**
 * Parses the JSONL (ImportError, nothing imported, when any record is malformed) and turns each
 * task into an arena task or a refusal. Throws ImportError too when no task can be imported.
 */
export async function importArenaTasks(text: string, format: ImportFormat, deps: AreniseDeps, opts: AreniseOptions = {}): Promise<AreniseResult> {
  const { file: raw } = importJsonl(text, format, { split: opts.split ?? "train", name: opts.name });
  const lines = recordLines(text);
  const tasks: Task[] = [];
  const report: TaskReport[] = [];
  const runtime = runtimeOf(deps);
  for (const [i, t] of raw.tasks.entries()) {
    const line = lines[i];
    try {
      const { task, note } = await arenise(t, deps, runtime, opts.seed ?? 0);
      tasks.push(task);
      report.push({ id: t.id, line, status: "trainable", ...note });
    } catch (e) {
      if (!(e instanceof Refused)) throw e;
      report.push({ id: t.id, line, status: "refused", reason: e.message });
      if (opts.keepOutside) tasks.push({ ...t, outside_arena: e.message });
    }
    opts.onProgress?.(i + 1, raw.tasks.length, t.id);
  }
  return { file: { version: 1, name: raw.name, tasks }, report };
}

/** Line numbers of the non-blank lines of a JSONL text, in order (the records importJsonl read). */
function recordLines(text: string): number[] {
  return text.split("\n").flatMap((l, i) => (l.trim() === "" ? [] : [i + 1]));
}

interface Note {
  renames: Record<string, string>;
  rewrites: string[];
  preconditions: PreconditionNote[];
  checkedInputs: number;
  mutants: number;
  variants: number;
  weakGolden: boolean;
}

async function arenise(t: Task, deps: AreniseDeps, rt: AreniseRuntime, seed: number): Promise<{ task: Task; note: Note }> {
  // 1. Types (from the tests' literals, import.ts).
  const other = t.params.filter((p) => p.type === "other").map((p) => p.name);
  if (other.length > 0 || t.returns === "other") {
    const what = [...other.map((n) => `parameter '${n}'`), ...(t.returns === "other" ? ["the return value"] : [])];
    throw new Refused(`type: ${what.join(", ")} ${what.length > 1 ? "are" : "is"} not int, bool, str, list[int] or list[str] in the tests (${describeOther(t)})`);
  }
  const types = t.params.map((p) => p.type as ArenaType);
  const parsed = t.golden_tests.map((g) => parseAssert(g, t.entry_point));
  if (parsed.length < 2) throw new Refused(`tests: only ${parsed.length} test of the form 'assert ${t.entry_point}(LITERALS) == LITERAL' (an arena task has 2-4)`);
  const golden = parsed.slice(0, 4);

  // 2. Normalise by renaming, in Python's ast.
  const norm = await rt.normalise(t.reference, t.entry_point, types).catch(parserFailed);
  if (!norm.ok) throw new Refused(`line ${norm.line}, column ${norm.col}: ${norm.what}`);
  const rename = (name: string) => norm.renames[name] ?? name;
  const params = t.params.map((p) => ({ name: rename(p.name), type: p.type as ArenaType }));
  const sig = { entry_point: "f", params, returns: t.returns as ArenaType };
  try {
    const back = deps.roundTrip(norm.code, sig);
    if (back !== norm.code) throw new Refused(`after renaming, the reference is not in canonical arena-Python (it prints back as ${JSON.stringify(back)})`);
  } catch (e) {
    if (e instanceof Refused) throw e;
    throw new Refused(`after renaming (${JSON.stringify(norm.code)}): ${(e as Error).message}`);
  }

  // 3. An input spec from the literals.
  const spec: InputSpec = { params: Object.fromEntries(params.map((p, i) => [p.name, inferSpec(p.type, golden.map((g) => g.args[i]))])), preconditions: [] };
  const draft: Task = {
    ...t,
    id: t.id,
    entry_point: "f",
    params,
    returns: sig.returns,
    reference: norm.code,
    golden_tests: golden.map((g) => `assert f(${formatArgs(g.args)}) == ${formatLiteral(g.expected)}`),
    input_spec: spec,
    prompt: firstSentence(t.prompt),
  };
  delete draft.outside_arena;

  // 4. The original on golden + drawn inputs; preconditions where it raises or loops.
  const rng = new Rng(seed).fork(`arenise:${t.id}`);
  const drawn = [...boundaryInputs(draft, rng), ...Array.from({ length: PROBE_DRAWS }, () => drawInput(draft, rng))];
  const candidates = preconditionCandidates(params.map((p, i) => ({ ...p, original: t.params[i].name })));
  const probe = await rt.probe(t, [...golden.map((g) => g.args), ...drawn], candidates.map((c) => c.original)).catch(refuseLoad);
  const goldenRuns = probe.results.slice(0, golden.length);
  goldenRuns.forEach((r, i) => {
    if (r.ok === undefined) throw new Refused(`tests: the reference raises on test ${i + 1}: ${r.err}`);
    if (!probe.goldenPass[i]) throw new Refused(`tests: the reference fails test ${i + 1} (returns ${r.ok})`);
  });
  const drawnRuns = probe.results.slice(golden.length);
  const raising = drawnRuns.map((r) => r.ok === undefined);
  const chosen: PreconditionNote[] = [];
  const usable = candidates.map((_, c) => probe.truth[c].slice(0, golden.length).every(Boolean));
  let left = raising.slice();
  while (left.some(Boolean)) {
    let best = -1;
    let bestScore = 0;
    candidates.forEach((_, c) => {
      if (!usable[c] || chosen.some((n) => n.expr === candidates[c].expr)) return;
      const truth = probe.truth[c].slice(golden.length);
      const fixes = left.filter((b, i) => b && !truth[i]).length;
      const cost = raising.filter((b, i) => !b && !truth[i]).length;
      const score = fixes - cost / (drawn.length + 1);
      if (fixes > 0 && score > bestScore) [best, bestScore] = [c, score];
    });
    if (best < 0) {
      const i = left.findIndex(Boolean);
      throw new Refused(`precondition: the reference raises on f(${formatArgs(drawn[i])}) (${drawnRuns[i].err}) and no precondition of the arena's family excludes such inputs`);
    }
    const truth = probe.truth[best].slice(golden.length);
    const example = drawn[left.findIndex((b, i) => b && !truth[i])];
    chosen.push({
      expr: candidates[best].expr,
      excludedRaising: left.filter((b, i) => b && !truth[i]).length,
      excluded: truth.filter((b) => !b).length,
      drawn: drawn.length,
      example: `f(${formatArgs(example)}): ${drawnRuns[drawn.indexOf(example)].err}`,
    });
    left = left.map((b, i) => b && truth[i]);
  }
  const keptIdx = drawn.flatMap((_, i) => (raising[i] ? [] : [i]));
  if (keptIdx.length < 20) throw new Refused(`input space: the reference returns on only ${keptIdx.length} of ${drawn.length} drawn inputs`);
  const badType = keptIdx.find((i) => !typeFits(drawnRuns[i].type!, sig.returns));
  if (badType !== undefined) {
    throw new Refused(`type: the reference returns ${drawnRuns[badType].type} (${drawnRuns[badType].ok!.slice(0, 40)}) on f(${formatArgs(drawn[badType])}), not ${sig.returns}`);
  }
  spec.preconditions = chosen.map((c) => candidates.find((x) => x.expr === c.expr)!.expr);

  // 5. Meaning preserved: the renamed reference, through the grader, on every input the original returned on.
  const checkInputs = [...golden.map((g) => g.args), ...keptIdx.map((i) => drawn[i])];
  const checkOutputs = [...goldenRuns, ...keptIdx.map((i) => drawnRuns[i])].map((r) => r.ok!);
  const calls = new Set<string>();
  const checkLines = checkInputs.flatMap((args, i) => {
    const call = `f(${formatArgs(args)})`;
    if (calls.has(call)) return []; // the grader judges a repeated line invalid
    calls.add(call);
    return [`assert ${call} == ${checkOutputs[i]}`];
  });
  const [equiv] = await runJobs(deps.grader, [draft], [{ task: draft.id, code: draft.reference, golden: [checkLines] }], { testMs: EVAL_TEST_MS * 4 });
  const diff = equiv.golden[0].findIndex((l) => l.verdict !== "pass");
  if (equiv.code.status !== "ok" || diff >= 0) {
    throw new Refused(`renaming: the renamed reference differs from the original on ${diff >= 0 ? checkLines[diff] : "loading"} (${diff >= 0 ? equiv.golden[0][diff].reason : equiv.code.reason})`);
  }

  // 6. Buggy variants from mutants, kept when they fail a plus test.
  const task: Task = { ...draft, input_spec: spec, tags: ["imported", ...t.tags.filter((g) => g !== "imported")] };
  const plus = await rt.plus(task, seed).catch(refuseLoad);
  if (plus.referenceErrors.length > 0) throw new Refused(`precondition: the reference raises on a plus input the preconditions allow: ${plus.referenceErrors[0]}`);
  const muts = await rt.variants(task.reference, sig.returns).catch(parserFailed);
  const arena = muts.filter((m) => {
    try {
      return deps.roundTrip(m.code, sig) === m.code;
    } catch {
      return false;
    }
  });
  const first = await runJobs(deps.grader, [task], arena.map((m) => ({ task: task.id, code: m.code, suites: [plus.lines.slice(0, FIRST_PASS_LINES)], golden: [task.golden_tests] })), { testMs: EVAL_TEST_MS });
  const needFull = arena.flatMap((_, k) => (passesAll(first[k].code, first[k].suites[0]) && plus.lines.length > FIRST_PASS_LINES ? [k] : []));
  const full = await runJobs(deps.grader, [task], needFull.map((k) => ({ task: task.id, code: arena[k].code, suites: [plus.lines.slice(FIRST_PASS_LINES)] })), { testMs: EVAL_TEST_MS });
  const killed = arena.map((_, k) => !passesAll(first[k].code, first[k].suites[0]));
  needFull.forEach((k, j) => { killed[k] = !passesAll(full[j].code, full[j].suites[0]); });
  const weak = arena.map((_, k) => first[k].code.status === "ok" && passesAll(first[k].code, first[k].golden[0]));
  const picked = pickVariants(arena.map((m, k) => ({ ...m, killed: killed[k], weak: weak[k] })), new Rng(seed).fork(`variants:${t.id}`));
  if (picked.length < MIN_VARIANTS) {
    throw new Refused(`variants: only ${picked.length} of ${arena.length} mutants of the reference fail a plus test (an arena task needs ${MIN_VARIANTS} buggy variants)`);
  }
  task.buggy_variants = picked.map((m) => ({ code: m.code, bug: bugText(m.operator, m.line) }));
  const weakGolden = picked.some((m) => m.weak);
  if (weakGolden) task.tags.push("weak-golden");
  const problems = taskProblems(task, { strict: true });
  if (problems.length > 0) throw new Refused(`task: ${problems.join("; ")}`);
  return {
    task,
    note: {
      renames: norm.renames,
      rewrites: norm.rewrites,
      preconditions: chosen,
      checkedInputs: checkLines.length,
      mutants: muts.length,
      variants: picked.length,
      weakGolden,
    },
  };
}

/**
 * The parser (trusted, never runs the reference) failed on this reference: deep nesting can overflow
 * the interpreter's stack before Python can raise (Pyodide's fatal error). The task is refused, not
 * the import; a parser that does not start at all still fails the import.
 */
function parserFailed(e: unknown): never {
  if (e instanceof Error && e.name === "SandboxStartError") throw e;
  throw new Refused(`the reference could not be parsed: ${String((e as Error)?.message ?? e).slice(0, 200)}`);
}

function refuseLoad(e: unknown): never {
  throw e instanceof ReferenceLoadError ? new Refused(`the reference does not run: ${e.message}`) : e;
}

function describeOther(t: Task): string {
  const [first] = t.golden_tests;
  return first ? `e.g. ${first.length > 80 ? first.slice(0, 77) + "..." : first}` : "no usable test";
}

export function pyStr(s: string): string {
  return JSON.stringify(s); // a JSON string literal is a valid Python str literal with the same value
}

function firstSentence(prompt: string): string {
  const m = /^(.*?[.?!])\s+[A-Z]/s.exec(prompt.trim());
  return (m ? m[1] : prompt.trim()).replace(/\s+/g, " ");
}

/** An input spec from the literals the tests pass, within the literal bounds (docs/TASKS.md). */
export function inferSpec(type: ArenaType, values: PyLit[]): ParamSpec {
  const maxInt = 10 ** LITERAL_BOUNDS.intDigits - 1;
  const clip = (v: number) => Math.max(-maxInt, Math.min(maxInt, v));
  const ints = (vs: PyLit[]) => vs.flatMap((v) => (v.t === "int" ? [v.v] : []));
  const strs = (vs: PyLit[]) => vs.flatMap((v) => (v.t === "str" ? [v.v] : []));
  const items = values.flatMap((v) => (v.t === "list" ? v.items : []));
  const range = (ns: number[]) => {
    const lo = clip(Math.min(0, ...ns));
    return { min: lo, max: clip(Math.max(lo + 9, ...ns)) };
  };
  const alphabet = (ss: string[]) => {
    const chars = [...new Set(ss.join(""))].filter((c) => c >= " " && c <= "~" && c !== "'" && c !== "\\").sort();
    return chars.length > 0 ? chars.join("") : "abc";
  };
  switch (type) {
    case "int":
      return range(ints(values));
    case "bool":
      return {};
    case "str":
      return { min_len: 0, max_len: LITERAL_BOUNDS.strLen, alphabet: alphabet(strs(values)) };
    case "list[int]":
      return { min_len: 0, max_len: LITERAL_BOUNDS.listIntLen, ...range(ints(items)) };
    case "list[str]": {
      const words = strs(items);
      const longest = Math.min(LITERAL_BOUNDS.strLen, Math.max(1, ...words.map((w) => w.length)));
      return { min_len: 0, max_len: LITERAL_BOUNDS.listStrLen, item_min_len: 0, item_max_len: longest, alphabet: alphabet(words) };
    }
  }
}

interface Candidate {
  /** Over the arena names (what the task file stores). */
  expr: string;
  /** The same over the original names (evaluated next to the original reference). */
  original: string;
}

/** The family preconditions are chosen from: emptiness, sign, index range, order. */
export function preconditionCandidates(params: { name: string; original: string; type: ArenaType }[]): Candidate[] {
  const out: Candidate[] = [];
  const add = (f: (n: (p: { name: string; original: string }) => string) => string) => out.push({ expr: f((p) => p.name), original: f((p) => p.original) });
  const sized = params.filter((p) => p.type === "str" || p.type.startsWith("list"));
  const ints = params.filter((p) => p.type === "int");
  for (const p of sized) for (const k of [1, 2, 3]) add((n) => `len(${n(p)}) >= ${k}`);
  for (const p of params.filter((x) => x.type === "list[int]")) {
    add((n) => `len(set(${n(p)})) >= 2`);
    add((n) => `all(v >= 0 for v in ${n(p)})`);
    add((n) => `all(v > 0 for v in ${n(p)})`);
    add((n) => `all(v != 0 for v in ${n(p)})`);
  }
  for (const p of params.filter((x) => x.type === "list[str]")) add((n) => `all(len(w) >= 1 for w in ${n(p)})`);
  for (const p of ints) {
    for (const e of [">= 0", ">= 1", "!= 0", "<= 20", "<= 100"]) add((n) => `${n(p)} ${e}`);
    for (const q of sized) {
      add((n) => `${n(p)} < len(${n(q)})`);
      add((n) => `${n(p)} <= len(${n(q)})`);
    }
  }
  for (const [i, p] of ints.entries()) {
    for (const q of ints.slice(i + 1)) {
      add((n) => `${n(p)} <= ${n(q)}`);
      add((n) => `${n(p)} < ${n(q)}`);
      add((n) => `${n(q)} <= ${n(p)}`);
    }
  }
  return out;
}

export interface ProbeResult {
  results: { ok?: string; type?: string; err?: string }[];
  /** truth[c][i]: candidate precondition c holds on input i (false when it raises). */
  truth: boolean[][];
  /** Per golden input (the first ones): whether output == expected held in Python. */
  goldenPass: boolean[];
}

/**
 * Python source of `def NAME(v)`: an answer's arena type as the import infers types (`int`,
 * `list[int]`, `list[]` for an empty list, else Python's type name); the trusted runner and the
 * sandbox probe (arenise-sandbox.ts) both define it from here.
 */
export function pyTypeOf(name: string): string[] {
  return [
    `def ${name}(v):`,
    "    if type(v) is bool: return 'bool'",
    "    if type(v) is int: return 'int'",
    "    if type(v) is str: return 'str'",
    "    if type(v) is list:",
    "        if len(v) == 0: return 'list[]'",
    "        if all(type(x) is int for x in v): return 'list[int]'",
    "        if all(type(x) is str for x in v): return 'list[str]'",
    "        return 'list'",
    "    return type(v).__name__",
  ];
}

/**
 * Runs the original reference on every input (deep copies, per-call step limit) and evaluates each
 * precondition candidate over the original parameter names.
 */
async function probeOriginal(runPython: RunPython, t: Task, inputs: PyLit[][], preconditions: string[]): Promise<ProbeResult> {
  const names = t.params.map((p) => p.name).join(", ");
  const expected = t.golden_tests.slice(0, 4).map((g) => formatLiteral(parseAssert(g, t.entry_point).expected));
  const program = [
    "import json, copy",
    `__ns = {}`,
    `exec(${pyStr(t.reference)}, __ns)`,
    `__f = __ns[${pyStr(t.entry_point)}]`,
    `__cands = [${inputs.map((args) => `(${formatArgs(args)}${args.length === 1 ? "," : ""})`).join(", ")}]`,
    `__pres = [${preconditions.map((p) => `lambda ${names}: (${p})`).join(", ")}]`,
    `__expected = [${expected.join(", ")}]`,
    ...pyTypeOf("__ty"),
    "__out = []",
    "__gold = []",
    "for __i, __a in enumerate(__cands):",
    "    try:",
    "        __v = __f(*copy.deepcopy(__a))",
    "        __out.append({'ok': repr(__v), 'type': __ty(__v)})",
    "        if __i < len(__expected): __gold.append(bool(__v == __expected[__i]))",
    "    except Exception as __e:",
    "        __out.append({'err': type(__e).__name__ + ': ' + str(__e)[:80]})",
    "        if __i < len(__expected): __gold.append(False)",
    "def __holds(__p, __a):",
    "    try:",
    "        return bool(__p(*copy.deepcopy(__a)))",
    "    except Exception:",
    "        return False",
    "__truth = [[__holds(__p, __a) for __a in __cands] for __p in __pres]",
    "json.dumps({'results': __out, 'truth': __truth, 'goldenPass': __gold})",
  ].join("\n");
  return JSON.parse(await guardRunPython(runPython)(program)) as ProbeResult;
}

/**
 * A RunPython for programs that `exec` a reference (referenceProgram in plus.ts, the probe here):
 * `exec` is shadowed in the program's globals so that every function the reference defines is
 * wrapped, and each outermost call stops after STEP_LIMIT traced Python lines with a TimeoutError,
 * caught by the program like any exception. A reference that loops on some drawn input is treated
 * as raising there and never hangs the import. (A trace function that raises is unset by Python,
 * so the trace is installed afresh for each call and removed after it.)
 */
export function guardRunPython(runPython: RunPython): RunPython {
  const guard = [
    "import sys as __sys, builtins as __builtins",
    "__steps = [0, 0]",
    "def __trace(frame, event, arg):",
    "    __steps[0] += 1",
    `    if __steps[0] > ${STEP_LIMIT}:`,
    `        raise TimeoutError('over ${STEP_LIMIT} steps (looping?)')`,
    "    return __trace",
    "def __guarded(fn):",
    "    def call(*args):",
    "        if __steps[1] > 0:",
    "            return fn(*args)",
    "        __steps[0] = 0",
    "        __steps[1] = 1",
    "        __sys.settrace(__trace)",
    "        try:",
    "            return fn(*args)",
    "        finally:",
    "            __sys.settrace(None)",
    "            __steps[1] = 0",
    "    return call",
    "def exec(src, ns):",
    "    __builtins.exec(src, ns)",
    "    for __k, __v in list(ns.items()):",
    "        if callable(__v) and not __k.startswith('__'):",
    "            ns[__k] = __guarded(__v)",
  ].join("\n");
  return (src) => runPython(`${guard}\n${src}`);
}

function typeFits(got: string, want: ArenaType): boolean {
  return got === want || (got === "list[]" && want.startsWith("list"));
}

interface Scored {
  operator: string;
  line: number;
  code: string;
  killed: boolean;
  weak: boolean;
}

/**
 * Up to MAX_VARIANTS killed mutants: one weak-golden variant first when there is one (the case
 * training on golden tests is fooled by), then distinct operator families, in a seeded order.
 */
export function pickVariants(all: Scored[], rng: Rng): Scored[] {
  const pool = rng.shuffle(all.filter((m) => m.killed));
  const family = (m: Scored) => m.operator.split(/[:>-]/)[0] + (m.operator.startsWith("semantic") ? m.operator : "");
  const out: Scored[] = [];
  const weak = pool.find((m) => m.weak);
  if (weak) out.push(weak);
  for (const m of pool) {
    if (out.length >= MAX_VARIANTS) break;
    if (!out.includes(m) && !out.some((o) => family(o) === family(m))) out.push(m);
  }
  for (const m of pool) {
    if (out.length >= MAX_VARIANTS) break;
    if (!out.includes(m)) out.push(m);
  }
  return out;
}

const OP_TEXT: Record<string, string> = {
  Add: "+", Sub: "-", Mult: "*", FloorDiv: "//", Mod: "%", Pow: "**", Lt: "<", LtE: "<=", Gt: ">", GtE: ">=",
  Eq: "==", NotEq: "!=", In: "in", NotIn: "not in", And: "and", Or: "or",
};

/** A one-line bug description for a mutant's operator (mutate.py / arenise.py names). */
export function bugText(operator: string, line: number): string {
  const at = ` (line ${line})`;
  const [kind, rest = ""] = operator.split(/:(.*)/s);
  const swap = (s: string) => {
    const [from, to] = s.split("->").map((x) => OP_TEXT[x] ?? x);
    return to === undefined ? from : `${to} instead of ${from}`;
  };
  switch (kind) {
    case "binary": return `wrong operator: ${swap(rest)}${at}`;
    case "compare": return `boundary or comparison: ${swap(rest)}${at}`;
    case "boolean": return `wrong logic: ${swap(rest)}${at}`;
    case "number": return `off by one: a constant ${rest}${at}`;
    case "bool": return `inverted flag: ${swap(rest)}${at}`;
    case "slice": return `off by one: slice ${rest}${at}`;
    case "builtin": return `wrong builtin: ${swap(rest)}${at}`;
    case "unary": return `sign or negation dropped${at}`;
    case "semantic": {
      if (rest.startsWith("wrong-predicate:")) return `wrong predicate: ${swap(rest.slice("wrong-predicate:".length))}${at}`;
      if (rest === "skip-first" || rest === "skip-first-item") return `skips the first item${at}`;
      if (rest === "skip-last-item") return `skips the last item${at}`;
      if (rest === "missing-guard") return `forgets a special case (empty input, none found)${at}`;
      if (rest === "return+1") return `off by one in the returned value${at}`;
      return `${rest}${at}`;
    }
    default:
      if (operator === "zero-iteration-loop") return `loop body never runs${at}`;
      if (operator.includes("->")) return `${swap(operator)}${at}`;
      return `${operator}${at}`;
  }
}
