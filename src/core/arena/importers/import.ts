/**
 * Bring your own tasks: MBPP-style JSONL (`task_id`, `text`, `code`, `test_list`) and
 * HumanEval-style JSONL (`task_id`, `prompt`, `canonical_solution`, `test`, `entry_point`) into the
 * task format (task.ts). Parameter and return types are inferred from the golden tests' literals;
 * no input_spec is invented, so plus inputs come from type-aware mutation of the golden inputs
 * (plus.ts, as EvalPlus does). Tasks the policies cannot write in arena-Python are kept and flagged
 * with `outside_arena` (why), usable for play and evaluation. All or nothing: any bad line makes the
 * whole import fail with every problem listed as `line N: field: message`.
 */
import { formatArgs, formatLiteral, LiteralSyntaxError, literalType, parseAssert, unifyTypes, type ParsedAssert } from "../task-literals.ts";
import type { RoundTrip } from "../task-round-trip.ts";
import type { ArenaType } from "../types.ts";
import { own } from "../../own.ts";
import { IDENTIFIER_RULE, isPythonIdentifier, PARAM_POOL, taskProblems, type Split, type Task, type TaskFile, type TaskParam } from "../task.ts";

export type ImportFormat = "mbpp" | "humaneval";

export class ImportError extends Error {
  constructor(readonly problems: string[]) {
    super(`import failed, nothing imported: ${problems.length} problem(s):\n  ${problems.join("\n  ")}`);
    this.name = "ImportError";
  }
}

export interface ImportOptions {
  split?: Split;
  name?: string;
  /** Optional arena-Python check of a reference (decode(encode(code)) === code); throws when outside. */
  roundTrip?: RoundTrip;
}

export interface ImportResult {
  file: TaskFile;
  outside: { id: string; reason: string }[];
}

/** Converts a whole JSONL text; throws ImportError naming line and field for any bad record. */
export function importJsonl(text: string, format: ImportFormat, opts: ImportOptions = {}): ImportResult {
  const problems: string[] = [];
  const tasks: Task[] = [];
  const ids = new Map<string, number>();
  text.split("\n").forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === "") return;
    let rec: unknown;
    try {
      rec = JSON.parse(raw);
    } catch (e) {
      problems.push(`line ${line}: not valid JSON (${(e as Error).message})`);
      return;
    }
    try {
      const task = format === "mbpp" ? fromMbpp(rec, opts) : fromHumanEval(rec, opts);
      const prev = ids.get(task.id);
      if (prev !== undefined) throw new FieldError("task_id", `duplicate of line ${prev} (id '${task.id}')`);
      ids.set(task.id, line);
      for (const p of taskProblems(task, { strict: false })) problems.push(`line ${line}: ${p}`);
      tasks.push(task);
    } catch (e) {
      if (!(e instanceof FieldError)) throw e;
      const looks = formatOfRecord(rec);
      const hint = looks && looks !== format ? ` (this record has ${FORMAT_FIELDS[looks].label}'s fields ${FORMAT_FIELDS[looks].fields.join(", ")}: import it as ${FORMAT_FIELDS[looks].label})` : "";
      problems.push(`line ${line}: field ${e.field}: ${e.message}${hint}`);
    }
  });
  if (problems.length === 0 && tasks.length === 0) problems.push("file: no records");
  if (problems.length > 0) throw new ImportError(problems);
  return {
    file: { version: 1, name: opts.name ?? `import-${format}`, tasks },
    outside: tasks.filter((t) => t.outside_arena).map((t) => ({ id: t.id, reason: t.outside_arena! })),
  };
}

/** The fields that tell the formats apart, for the hint on a file imported as the other one. */
const FORMAT_FIELDS: Record<ImportFormat, { label: string; fields: string[] }> = {
  mbpp: { label: "MBPP", fields: ["text", "code", "test_list"] },
  humaneval: { label: "HumanEval", fields: ["prompt", "canonical_solution", "entry_point"] },
};

function formatOfRecord(rec: unknown): ImportFormat | null {
  if (typeof rec !== "object" || rec === null) return null;
  const has = (f: string) => Object.prototype.hasOwnProperty.call(rec, f);
  for (const format of Object.keys(FORMAT_FIELDS) as ImportFormat[]) {
    if (FORMAT_FIELDS[format].fields.filter((f) => f !== "text").every(has)) return format;
  }
  return null;
}

class FieldError extends Error {
  constructor(readonly field: string, message: string) {
    super(message);
  }
}

function field(rec: Record<string, unknown>, name: string, kind: "string" | "string[]"): unknown {
  const v = own(rec, name);
  if (kind === "string" && (typeof v !== "string" || v.trim() === "")) throw new FieldError(name, "missing or not a non-empty string");
  if (kind === "string[]" && (!Array.isArray(v) || v.length === 0 || v.some((s) => typeof s !== "string"))) {
    throw new FieldError(name, "missing or not a non-empty list of strings");
  }
  return v;
}

function asRecord(rec: unknown): Record<string, unknown> {
  if (typeof rec !== "object" || rec === null || Array.isArray(rec)) throw new FieldError("(record)", "must be a JSON object");
  return rec as Record<string, unknown>;
}

function fromMbpp(raw: unknown, opts: ImportOptions): Task {
  const rec = asRecord(raw);
  const idRaw = own(rec, "task_id");
  if (typeof idRaw !== "number" && typeof idRaw !== "string") throw new FieldError("task_id", "missing (number or string)");
  const text = field(rec, "text", "string") as string;
  const code = normalise(field(rec, "code", "string") as string);
  const tests = field(rec, "test_list", "string[]") as string[];
  // The entry point: the first function defined in `code` that the tests call.
  const defs = [...code.matchAll(/^def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(/gm)].map((m) => m[1]);
  const called = new Set(tests.flatMap(calledNames));
  const entry = defs.find((d) => called.has(d));
  if (!entry) throw new FieldError("test_list", `calls none of the functions defined in code (${defs.join(", ") || "none"})`);
  return build(`mbpp-${idRaw}`, text, entry, code, tests, "test_list", opts);
}

function fromHumanEval(raw: unknown, opts: ImportOptions): Task {
  const rec = asRecord(raw);
  const idRaw = field(rec, "task_id", "string") as string;
  const prompt = normalise(field(rec, "prompt", "string") as string);
  const body = normalise(field(rec, "canonical_solution", "string") as string);
  const test = normalise(field(rec, "test", "string") as string);
  // Checked before any use: it becomes part of test lines and names the function to find.
  const entry = field(rec, "entry_point", "string") as string;
  if (!isPythonIdentifier(entry as unknown)) {
    throw new FieldError("entry_point", `must be ${IDENTIFIER_RULE}, got ${JSON.stringify(entry.slice(0, 80))}${entry.length > 80 ? "..." : ""}`);
  }
  // `def check(candidate):` with `assert candidate(ARGS) == ANSWER` lines: keep those, under the entry point's name.
  const tests = test
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => /^assert\s+candidate\s*\(/.test(l))
    .map((l) => l.replace(/^assert\s+candidate\s*\(/, `assert ${entry}(`));
  if (tests.length === 0) throw new FieldError("test", "has no 'assert candidate(...)' line");
  const doc = /("""|''')([\s\S]*?)\1/.exec(prompt)?.[2] ?? "";
  const sentence = doc.trim().split(/\n\s*\n/)[0].replace(/\s+/g, " ").trim() || `Implement ${entry}.`;
  return build(idRaw, sentence, entry, prompt + body, tests, "test", opts);
}

function build(rawId: string, prompt: string, entry: string, reference: string, testLines: string[], testField: string, opts: ImportOptions): Task {
  const id = rawId.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
  const def = defHeaders(reference).find((d) => d.name === entry);
  if (!def) throw new FieldError("code", `does not define ${entry}(...) (the function the tests call)`);
  const names = def.params
    .split(",")
    .map((p) => p.split(/[:=]/)[0].trim())
    .filter((p) => p !== "" && !p.startsWith("*"));

  // Golden tests: the lines of the form `assert ENTRY(LITERALS) == LITERAL`, rewritten canonically.
  const parsed: ParsedAssert[] = [];
  const skipped: string[] = [];
  testLines.forEach((l, i) => {
    try {
      const p = parseAssert(l, entry);
      if (p.args.length !== names.length) {
        throw new FieldError(`${testField}[${i}]`, `calls ${entry} with ${p.args.length} arguments but it takes ${names.length}`);
      }
      parsed.push(p);
    } catch (e) {
      if (e instanceof LiteralSyntaxError) skipped.push(`${testField}[${i}]`);
      else throw e;
    }
  });
  if (parsed.length === 0) {
    throw new FieldError(testField, `no test of the form 'assert ${entry}(LITERALS) == LITERAL' (e.g. float tolerances are not supported)`);
  }
  const params: TaskParam[] = names.map((name, i) => ({ name, type: unifyTypes(parsed.map((p) => literalType(p.args[i]))) }));
  const returns = unifyTypes(parsed.map((p) => literalType(p.expected)));

  const reasons: string[] = [];
  const other = [...params.filter((p) => p.type === "other").map((p) => p.name), ...(returns === "other" ? ["return value"] : [])];
  if (other.length > 0) reasons.push(`types outside int/bool/str/list[int]/list[str]: ${other.join(", ")}`);
  if (entry !== "f") reasons.push(`entry point '${entry}' (arena programs define f)`);
  const outPool = names.filter((n) => !(PARAM_POOL as readonly string[]).includes(n));
  if (outPool.length > 0) reasons.push(`parameter names outside the pool: ${outPool.join(", ")}`);
  if (opts.roundTrip && reasons.length === 0) {
    try {
      const sig = { entry_point: entry, params: params as { name: string; type: ArenaType }[], returns: returns as ArenaType };
      if (opts.roundTrip(reference, sig) !== reference) reasons.push("reference is not in canonical arena-Python formatting");
    } catch (e) {
      reasons.push(`reference is not arena-Python: ${(e as Error).message}`);
    }
  }
  return {
    id,
    title: entry.replace(/_/g, " "),
    prompt: prompt.trim(),
    entry_point: entry,
    params,
    returns,
    reference,
    golden_tests: parsed.map((p) => `assert ${entry}(${formatArgs(p.args)}) == ${formatLiteral(p.expected)}`),
    buggy_variants: [],
    split: opts.split ?? "heldout",
    tags: ["imported", ...(skipped.length > 0 ? [`skipped-tests:${skipped.length}`] : [])],
    ...(reasons.length > 0 ? { outside_arena: reasons.join("; ") } : {}),
  };
}

/**
 * Names called in a line of Python (`name(`), found with a fixed pattern: no regex is built from input.
 * A match starts only where a name starts: without the look-behind, a long name with no `(` after it
 * is rescanned from each of its characters (quadratic: a 1 MB test line held the page for minutes).
 */
function calledNames(line: string): string[] {
  return [...line.matchAll(/(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*)\s*\(/g)].map((m) => m[1]);
}

/**
 * Each `def NAME(PARAMS)` of `code`, PARAMS up to the next `)`, in linear time. (The pattern
 * `def NAME(([^)]*))` rescans to the end of the text from every `def f(` with no `)` after it:
 * a hostile reference of 1 MB held the page for minutes.)
 */
function defHeaders(code: string): { name: string; params: string }[] {
  const out: { name: string; params: string }[] = [];
  let close = -1;
  for (const m of code.matchAll(/\bdef\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(/g)) {
    const open = m.index + m[0].length;
    if (close < open) close = code.indexOf(")", open);
    if (close < 0) break;
    out.push({ name: m[1], params: code.slice(open, close) });
  }
  return out;
}

function normalise(code: string): string {
  return code.replace(/\r\n?/g, "\n").replace(/\t/g, "    ");
}
