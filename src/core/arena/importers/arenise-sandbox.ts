/**
 * The import's runtime where the reference is untrusted (the browser): every run of a reference,
 * the original (probe) or the renamed one (plus tests), goes through the grader's sandbox as a
 * candidate does (docs/SECURITY.md): a pristine, locked-down interpreter per unit, each call within a
 * wall-clock limit, a kill past it. The reference is loaded with a small wrapper (`_a1_probe`) that
 * answers one input per call with plain values; a hostile reference can change what its own calls
 * answer (as any reference defines its own outputs) and nothing else, and every answer is checked
 * for shape here. Only the parsing (arenise.py's `normalise`, `variants`: trusted code over the
 * reference's text, which never runs it) is given by the caller, `tools`.
 */
import type { Canonical } from "../../grader/canonical.ts";
import type { SupervisedGrader } from "../../grader/supervisor.ts";
import type { StepResult } from "../../grader/verdicts.ts";
import { pyStr, pyTypeOf, ReferenceLoadError, type AreniseRuntime, type Mutant, type Normalised, type ProbeResult } from "./arenise.ts";
import { buildPlusTests, type ReferenceAnswer } from "../plus.ts";
import { formatArgs, formatLiteral, parseAssert, type PyLit } from "../task-literals.ts";
import type { Task } from "../task.ts";
import type { ArenaType } from "../types.ts";

/** arenise.py's two parsing entry points, run where trusted Python may run (never the page). */
export interface AreniseTools {
  normalise(src: string, entry: string, types: ArenaType[]): Promise<Normalised>;
  variants(src: string, returns: ArenaType): Promise<Mutant[]>;
}

export interface SandboxRuntimeOptions {
  /** Wall-clock limit of one call of the reference, ms (a call past it counts as raising). */
  callMs?: number;
  /** Calls that time out (or crash their runner) before the rest of one run is given up. */
  maxTimeouts?: number;
  /**
   * Wall-clock budget of one run (all the inputs of a probe or of the plus tests), ms: the calls not
   * run within it count as timeouts. Without it a reference that answers just under `callMs` on
   * every one of its ~300 inputs held the import for minutes per run, per task.
   */
  runMs?: number;
}

const ENTRY = "_a1_probe";

/**
 * The module the sandbox loads: the reference as written, exec'd in a namespace of its own with a
 * builtins dict of its own, then the wrapper in the module's. Mode 0 evaluates the precondition
 * candidates (the reference's guards, in its namespace) on an input; mode 1 calls the entry point
 * (mode 2: only when every precondition holds) and answers [returned, repr or error, type, equals
 * expected]. The wrapper's checks read none of the names the reference binds: a module-level
 * `bool = lambda v: True` (which the import then drops as unused) forged the golden check (round 48).
 */
export function probeModule(reference: string, entry: string, params: string[], preconditions: string[]): string {
  const names = params.join(", ");
  const pres = `[${preconditions.map((p) => `lambda ${names}: (${p})`).join(", ")}]`;
  return [
    "_a1_ns = {'__builtins__': dict(__builtins__ if type(__builtins__) is dict else vars(__builtins__))}",
    `exec(${pyStr(reference)}, _a1_ns)`,
    `_a1_pres = eval(${pyStr(pres)}, _a1_ns)`,
    "def _a1_missing(*args):",
    `    raise NameError(${pyStr(`name '${entry}' is not defined`)})`,
    "",
    "def _a1_copy(v):",
    "    return [_a1_copy(x) for x in v] if type(v) is list else v",
    ...pyTypeOf("_a1_ty"),
    "def _a1_holds(p, args):",
    "    try:",
    "        return bool(p(*_a1_copy(args)))",
    "    except Exception:",
    "        return False",
    "def _a1_probe(mode, expected, *args):",
    "    args = list(args)",
    "    if mode == 0:",
    "        return [_a1_holds(p, args) for p in _a1_pres]",
    "    if mode == 2 and not all(_a1_holds(p, args) for p in _a1_pres):",
    "        return [None, '', '', False]",
    `    f = _a1_ns.get(${pyStr(entry)}, _a1_missing)`,
    "    try:",
    "        v = f(*_a1_copy(args))",
    "    except Exception as e:",
    "        return [False, type(e).__name__ + ': ' + str(e)[:80], '', False]",
    "    return [True, repr(v), _a1_ty(v), bool(expected is not None and v == expected)]",
  ].join("\n");
}

/** A canonical value as plain JSON (None, bool, str, lists); undefined for anything else. */
function plain(c: Canonical): unknown {
  switch (c[0]) {
    case "n":
      return null;
    case "b":
    case "s":
      return c[1];
    case "u":
      return String.fromCodePoint(...c[1]);
    case "l":
    case "t": {
      const items = c[1].map(plain);
      return items.includes(undefined) ? undefined : items;
    }
    default:
      return undefined;
  }
}

/**
 * Runs `all` (argument sources; each distinct one once) on `module` in the sandbox, a unit at a time: after a call that
 * timed out or crashed its runner the rest go on in a fresh unit, up to `maxTimeouts` such calls,
 * and no unit is given more calls than fit in what is left of `runMs`; the calls left then are
 * answered as timeouts without running. Throws ReferenceLoadError when the
 * module does not load.
 */
async function runCalls(grader: SupervisedGrader, module: string, all: string[], opts: Required<SandboxRuntimeOptions>): Promise<StepResult[]> {
  // Each distinct input runs once (drawn inputs repeat: boundary cases, small spaces).
  const calls = [...new Set(all)];
  const out: StepResult[] = [];
  let stops = 0;
  const t0 = Date.now();
  while (out.length < calls.length) {
    // A unit of k calls takes at most k * callMs (and a kill's grace): k fits what is left of the budget.
    const left = opts.runMs - (Date.now() - t0);
    const why = stops >= opts.maxTimeouts ? `timed out on ${stops} inputs already` : left < opts.callMs ? `used its ${opts.runMs} ms for this run` : "";
    if (why) {
      const skipped: StepResult = ["timeout", `not run: the reference ${why}`];
      while (out.length < calls.length) out.push(skipped);
      break;
    }
    const pending = calls.slice(out.length, out.length + Math.floor(left / opts.callMs));
    const steps = await grader.runUnit({ code: module, entry: ENTRY, calls: pending.map((c) => JSON.stringify(c)), loadMs: 2 * opts.callMs + 1000, testMs: opts.callMs });
    const [load] = steps;
    if (!load || load[0] !== "ok") throw new ReferenceLoadError(load ? `${load[0]}: ${load[1]}` : "the sandbox answered nothing");
    out.push(...steps.slice(1));
    if (steps.length - 1 < pending.length) {
      const last = steps[steps.length - 1];
      if (steps.length === 1) out.push(["error", "the sandbox stopped before the call"]); // never loops
      else if (last[0] !== "timeout" && last[0] !== "error") out.push(["error", "the sandbox stopped early"]);
      stops++;
    }
  }
  const byCall = new Map(calls.map((c, i) => [c, out[i]]));
  return all.map((c) => byCall.get(c)!);
}

const callSource = (mode: number, expected: PyLit | null, args: PyLit[]) =>
  `(${mode}, ${expected ? formatLiteral(expected) : "None"}${args.length ? `, ${formatArgs(args)}` : ""})`;

function withDefaults(o: SandboxRuntimeOptions): Required<SandboxRuntimeOptions> {
  const callMs = o.callMs ?? 1000;
  return { callMs, maxTimeouts: o.maxTimeouts ?? 8, runMs: o.runMs ?? 30 * callMs };
}

/** Longest error text kept from one call (it reaches the stored report). */
const MAX_ERR_CHARS = 200;
/** Longest answer (a repr) kept: longer ones could not be a test line (the grader's limit is 2,000). */
const MAX_ANSWER_CHARS = 20_000;

/**
 * A step's answer to mode 1/2, checked for shape and size; anything else is what the reference
 * "raised". (Sizes: a reference that shadows `str` or `repr` answers up to a 1 MB step per input,
 * which went whole into the stored report.)
 */
function answer(step: StepResult): { ok?: string; type?: string; err?: string; gold: boolean; skipped?: true } {
  if (step[0] !== "ok") return { err: (step[0] === "timeout" ? `TimeoutError: ${step[1]} (looping?)` : `${step[0]}: ${step[1]}`).slice(0, MAX_ERR_CHARS), gold: false };
  const v = step[1] === "" ? undefined : plain(step[1]);
  if (Array.isArray(v) && v.length === 4 && typeof v[1] === "string" && typeof v[2] === "string" && typeof v[3] === "boolean") {
    if (v[0] === true && (v[1].length > MAX_ANSWER_CHARS || v[2].length > 40)) return { err: `the reference answered ${v[1].length} characters`, gold: false };
    if (v[0] === true) return { ok: v[1], type: v[2], gold: v[3] };
    if (v[0] === false) return { err: v[1].slice(0, MAX_ERR_CHARS), gold: false };
    if (v[0] === null) return { gold: false, skipped: true };
  }
  return { err: "the reference's run answered a malformed result", gold: false };
}

/** Truth of each precondition on one input (mode 0), checked for shape; false where unknown. */
function truthOf(step: StepResult, count: number): boolean[] {
  const v = step[0] === "ok" && step[1] !== "" ? plain(step[1]) : undefined;
  return Array.isArray(v) && v.length === count && v.every((b) => typeof b === "boolean") ? (v as boolean[]) : Array<boolean>(count).fill(false);
}

/**
 * A task's reference (`task.reference`: the reference or a buggy variant) on candidate inputs in the
 * sandbox, answered as referenceProgram (plus.ts) answers: where the task's preconditions fail,
 * `{pre: false}` without running it.
 */
export function sandboxRunReference(grader: SupervisedGrader, options: SandboxRuntimeOptions = {}): (task: Task, candidates: PyLit[][]) => Promise<ReferenceAnswer[]> {
  const opts = withDefaults(options);
  return async (tk, candidates) => {
    const pre = tk.input_spec?.preconditions ?? [];
    const module = probeModule(tk.reference, tk.entry_point, tk.params.map((p) => p.name), pre);
    const steps = await runCalls(grader, module, candidates.map((a) => callSource(2, null, a)), opts);
    return steps.map((s) => {
      const a = answer(s);
      return a.skipped ? { pre: false } : a.ok !== undefined ? { ok: a.ok } : { err: a.err! };
    });
  };
}

/** The import's runtime with every reference run in `grader`'s sandbox, and the parsing in `tools`. */
export function sandboxRuntime(grader: SupervisedGrader, tools: AreniseTools, options: SandboxRuntimeOptions = {}): AreniseRuntime {
  const opts = withDefaults(options);
  return {
    normalise: (src, entry, types) => tools.normalise(src, entry, types),
    variants: (src, returns) => tools.variants(src, returns),
    async probe(t: Task, inputs: PyLit[][], preconditions: string[]): Promise<ProbeResult> {
      const params = t.params.map((p) => p.name);
      const module = probeModule(t.reference, t.entry_point, params, preconditions);
      const expected = t.golden_tests.slice(0, 4).map((g) => parseAssert(g, t.entry_point).expected);
      const truths = preconditions.length === 0 ? inputs.map(() => []) : (await runCalls(grader, module, inputs.map((a) => callSource(0, null, a)), opts)).map((s) => truthOf(s, preconditions.length));
      const answers = (await runCalls(grader, module, inputs.map((a, i) => callSource(1, expected[i] ?? null, a)), opts)).map(answer);
      return {
        results: answers.map((a) => (a.ok !== undefined ? { ok: a.ok, type: a.type } : { err: a.err })),
        truth: preconditions.map((_, c) => truths.map((row) => row[c])),
        goldenPass: answers.slice(0, expected.length).map((a) => a.gold),
      };
    },
    plus(task: Task, seed: number) {
      return buildPlusTests(task, () => Promise.reject(new Error("unused: runReference is given")), { seed, runReference: sandboxRunReference(grader, opts) });
    },
  };
}
