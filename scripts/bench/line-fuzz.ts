/**
 * `npm run bench -- line-fuzz [--lines N] [--seed S] [--json]`: the differential fuzzer of the
 * judge's reading of test lines (docs/SECURITY.md, rule 1 of the judge). Seeded generated lines,
 * honest and hostile (Unicode names that NFKC-normalise to the entry point or only look like it,
 * parentheses, walrus, attribute chains, set displays of every size, lists and dicts either side of
 * CPython's folding and chunks (repeated keys), nested calls, comments,
 * backslashes, semicolons, string prefixes, number forms, random cuts), are read twice in one
 * Pyodide:
 *   - by the judge: harness.py's `plan` (the code the grader's judge runs), under an audit hook
 *     that counts every `exec` event while it reads (it must run nothing: zero);
 *   - by the oracle: CPython's own `ast.parse` and `ast.literal_eval` decide whether the line has
 *     the shape `assert ENTRY(literal, ...) == literal`; if so CPython EXECUTES the line with a
 *     recorder bound to the entry point's name, which sees the arguments and the answer exactly as
 *     a clean interpreter builds them (set iteration order included).
 * They must agree on every line: refused by one iff refused by the other, and for an accepted line
 * the same arguments (ordered canonical text), the same answer, arguments rebuilt by a runner
 * (`_from_canon` of argv) equal to CPython's and built alike (types, `__sizeof__`: a list's capacity,
 * a table's size; which objects are one object: `_layout`), and a corrected call that reads back to
 * the same call. Keys: lines, accepted, refused, mismatches, exec_events, lines_per_s. The unit suite runs
 * a fixed seed (tests/unit/grader/line-fuzz.test.ts); this command a longer run (default 50,000).
 */
import { readFileSync } from "node:fs";
import { loadPyodide } from "pyodide";
import { HARNESS_PATH } from "../../src/node/grader.ts";
import { parseArgs } from "../../src/node/cli.ts";
import { RUNNER_ENV } from "../../src/core/grader/runner.js";
import { Rng } from "../../src/core/rng.ts";

// ---------------------------------------------------------------------------------------------
// Generator.

const ENTRIES = ["fix", "find", "flip", "offset", "first", "stack", "f", "solve"];
/** NFKC folds each of these to the letters on the left. */
const LIGATURES: [string, string][] = [["ffi", "\ufb03"], ["ffl", "\ufb04"], ["ff", "\ufb00"], ["fi", "\ufb01"], ["fl", "\ufb02"], ["st", "\ufb06"]];
const fullWidth = (ch: string) => (/[A-Za-z0-9_]/.test(ch) && ch !== "_" ? String.fromCodePoint(ch.codePointAt(0)! + 0xfee0) : ch);
const mathBold = (ch: string) => (/[a-z]/.test(ch) ? String.fromCodePoint(0x1d41a + ch.codePointAt(0)! - 97) : ch);
/** Look-alikes that NFKC leaves alone: a different name to Python. */
const CONFUSABLE: Record<string, string> = { a: "\u0430", e: "\u0435", o: "\u043e", i: "\u0456", s: "\u0455" };

/** A spelling of `name`: as is, or with compatibility characters NFKC folds back, or a near miss. */
function spell(rng: Rng, name: string): string {
  switch (rng.int(9)) {
    case 0: {
      let out = name;
      for (const [plain, lig] of LIGATURES) if (rng.int(2)) out = out.replace(plain, lig);
      return out;
    }
    case 1:
      return [...name].map((c) => (rng.int(2) ? fullWidth(c) : c)).join("");
    case 2:
      return [...name].map((c) => (rng.int(3) ? c : mathBold(c))).join("");
    case 3:
      return [...name].map((c) => (rng.int(3) || !CONFUSABLE[c] ? c : CONFUSABLE[c])).join("");
    case 4:
      return rng.int(2) ? name.toUpperCase() : name + rng.pick(["_", "1", "x", ""]);
    default:
      return name;
  }
}

function intText(rng: Rng): string {
  const n = rng.int(4) === 0 ? rng.range(0, 2 ** 31) * 2 ** rng.int(40) : rng.range(-20, 20);
  const abs = Math.abs(n);
  const sign = n < 0 ? "-" : rng.int(12) === 0 ? "+" : "";
  switch (rng.int(8)) {
    case 0:
      return `${sign}0x${abs.toString(16)}`;
    case 1:
      return `${sign}0o${abs.toString(8)}`;
    case 2:
      return `${sign}0b${abs.toString(2)}`;
    case 3:
      return `${sign}${abs.toString().replace(/\B(?=(\d{3})+$)/g, "_")}`;
    default:
      return `${sign}${abs}`;
  }
}

function floatText(rng: Rng): string {
  return rng.pick(["1.5", "-0.0", "0.0", ".5", "5.", "1e3", "-2.5e-3", "1e999", "-1e999", "3.141592653589793", "1_0.0_1", "0.1", "-7.25", "+2.0"]);
}

function strText(rng: Rng): string {
  const bodies = ["", "a", "abc", "é", "😀", "\\n", "\\t", "\\x41", "\\u00e9", "\\N{BULLET}", "\\ud83d", "ﬁx", "ＡＢ", "it''s", "\\\\", "#", "'; import os; '", "\\0", "a\\\"b"];
  const body = rng.pick(bodies).replace("''", "'");
  const q = rng.pick(["'", '"', "'''", '"""']);
  const prefix = rng.pick(["", "", "", "", "u", "r", "R", "b", "f", "rb"]);
  const esc = q.startsWith("'") ? body.replace(/'/g, "\\'") : body.replace(/"/g, '\\"');
  const one = `${prefix}${q}${esc}${q}`;
  return rng.int(10) === 0 ? `${one} ${q}x${q}` : one; // implicit concatenation
}

/** A literal (or now and then a near-literal that is not one), `depth` levels at most. */
function value(rng: Rng, depth: number): string {
  const k = rng.int(depth > 0 ? 16 : 9);
  switch (k) {
    case 0:
    case 1:
      return intText(rng);
    case 2:
      return floatText(rng);
    case 3:
    case 4:
      return strText(rng);
    case 5:
      return rng.pick(["True", "False", "None"]);
    case 6:
      return rng.pick(["set()", "ｓｅｔ()", "frozenset()", "set([1])", "()", "[]", "{}"]);
    case 7:
      // Not literals, each a different reason.
      return rng.pick(["x", "1 + 2", "[1] * 2", "len([])", "lambda: 0", "...", "1j", "-True", "--1", "not 1", "~1", "(y := 1)", "f'{1}'", "b'x'", "[i for i in ()]", "{**{}}", "{*()}", "[*()]", "print(1)", "__import__('os')", "(1).real", "'a'.upper()"]);
    case 8:
      return rng.pick(["-(1)", "- 1", "(1)", "((2))", "-0", "+0.5", "(- 3)"]);
    case 9:
    case 10: {
      // Now and then a size either side of CPython's list folding (3-30 constants) and capacity steps.
      if (rng.int(5) === 0) return `[${Array.from({ length: rng.pick([3, 5, 8, 9, 17, 30, 31, 33]) }, () => (rng.int(8) === 0 ? "[1]" : intText(rng))).join(", ")}]`;
      return `[${seq(rng, depth, rng.int(4))}]`;
    }
    case 11: {
      const n = rng.int(4);
      return n === 1 ? `(${value(rng, depth - 1)},)` : `(${seq(rng, depth, n)})`;
    }
    case 12:
    case 13:
      return setDisplay(rng, depth);
    default: {
      // Now and then a size either side of CPython's dict chunks (15, 16-17, 18+), keys repeated.
      if (rng.int(5) === 0) {
        const n = rng.pick([5, 6, 9, 15, 16, 17, 18, 34, 35]);
        return `{${Array.from({ length: n }, () => `${rng.int(2) === 0 ? rng.pick(["0", "1", "True", "0.0", "-0.0", "'a'"]) : intText(rng)}: ${intText(rng)}`).join(", ")}}`;
      }
      const n = rng.int(4);
      return `{${Array.from({ length: n }, () => `${hashable(rng, depth - 1)}: ${value(rng, depth - 1)}`).join(", ")}}`;
    }
  }
}

const seq = (rng: Rng, depth: number, n: number) => Array.from({ length: n }, () => value(rng, depth - 1)).join(rng.pick([", ", ",", " , "]));

/** A set display: the sizes either side of CPython's folding (1-2, 3-30, 31+), repeats and equal values of other types. */
function setDisplay(rng: Rng, depth: number): string {
  const n = rng.pick([1, 2, 3, 4, 5, 8, 9, 12, 29, 30, 31, 33, 40]);
  const items = Array.from({ length: n }, () => (rng.int(6) === 0 ? rng.pick(["1", "True", "1.0", "0", "-0.0", "0.0", "False"]) : hashable(rng, depth - 1)));
  if (rng.int(12) === 0) items.push(rng.pick(["[1]", "{}", "set()", "x"])); // unhashable or not a literal
  return `{${items.join(", ")}}`;
}

function hashable(rng: Rng, depth: number): string {
  switch (rng.int(depth > 0 ? 6 : 5)) {
    case 0:
    case 1:
      return intText(rng);
    case 2:
      return floatText(rng);
    case 3:
      return strText(rng).replace(/^[bf]+|^rb/, "");
    case 4:
      return rng.pick(["True", "False", "None", "()"]);
    default:
      return `(${Array.from({ length: rng.int(4) + 1 }, () => hashable(rng, depth - 1)).join(", ")},)`;
  }
}

/** The left side: a call of the entry point, spelled and wrapped in the ways Python allows and the ways it does not. */
function callee(rng: Rng, entry: string): string {
  const name = spell(rng, entry);
  switch (rng.int(14)) {
    case 0:
      return `(${name})`;
    case 1:
      return `((${name}))`;
    case 2:
      return `(${name} := len)`;
    case 3:
      return `${name}.__call__`;
    case 4:
      return `${name}.__globals__['x']`;
    case 5:
      return `obj.${name}`;
    case 6:
      return `${name}(1)`;
    case 7:
      return `${name}[0]`;
    case 8:
      return `( ${name} )`;
    default:
      return name;
  }
}

/** One generated test line for `entry`. */
export function generateLine(rng: Rng, entry: string): string {
  const argc = rng.pick([0, 1, 1, 1, 2, 2, 3]);
  const args = Array.from({ length: argc }, () => (rng.int(20) === 0 ? rng.pick(["*[1]", "**{}", "x=1", `${spell(rng, entry)}(1)`]) : value(rng, 3)));
  const call = `${callee(rng, entry)}(${args.join(rng.pick([", ", ",", " ,  "]))}${rng.int(15) === 0 ? "," : ""})`;
  const answer = rng.int(15) === 0 ? `${spell(rng, entry)}(1)` : value(rng, 2);
  const assertKw = rng.int(25) === 0 ? rng.pick(["ａｓｓｅｒｔ", "Assert", "assert\t", "assert\f"]) : "assert";
  let line: string;
  switch (rng.int(16)) {
    case 0:
      line = `${assertKw}(${call} == ${answer})`;
      break;
    case 1:
      line = `${assertKw} (${call}) == (${answer})`;
      break;
    case 2:
      line = `${assertKw} ${call} == ${answer}  # ${rng.pick(["ok", "é ﬁ", "\\", "'''", "; x"])}`;
      break;
    case 3:
      line = `${assertKw} ${call} == ${answer}; ${rng.pick(["x = 1", "import os", `${entry}(2)`, ""])}`;
      break;
    case 4:
      line = `${assertKw} ${call} ${rng.pick(["!=", "is", "in", "<=", "== 1 =="])} ${answer}`;
      break;
    case 5:
      line = `${assertKw} ${call} == ${answer}, ${rng.pick(["'msg'", "1"])}`;
      break;
    case 6:
      line = `${assertKw} ${call} == \\ ${answer}`;
      break;
    case 7:
      line = `${rng.pick([" ", "\t", "\f", ""])}${assertKw} ${call} == ${answer}`;
      break;
    case 8:
      line = `${assertKw} ${answer} == ${call}`;
      break;
    default:
      line = `${assertKw} ${call} == ${answer}`;
  }
  if (rng.int(12) === 0) {
    // A random cut or insertion: near misses of every shape.
    const at = rng.int(line.length + 1);
    line = rng.int(2) ? line.slice(0, at) + line.slice(at + 1 + rng.int(3)) : line.slice(0, at) + rng.pick(["(", ")", "[", "{", "}", ",", ":", "'", "\\", "#", ";", "=", " ", "ﬁ", "\u00a0", "\u200b", "\x0c", "\t"]) + line.slice(at);
  }
  return line.length > 1800 ? line.slice(0, 1800) : line;
}

// ---------------------------------------------------------------------------------------------
// Oracle and comparison (Python, in the fuzzer's own Pyodide; the harness in a namespace of its own).

const ORACLE_PY = String.raw`
import ast, builtins, json, sys, warnings
warnings.simplefilter("ignore")  # invalid escapes in generated strings: SyntaxWarning on every read

_ALLOWED = (int, float, str, bool, type(None))
_exec_events = [0, False]
def _hook(event, args):
    if _exec_events[1] and event == "exec":
        _exec_events[0] += 1
sys.addaudithook(_hook)

def _plain(v):
    t = type(v)
    if t in _ALLOWED:
        return True
    if t in (list, tuple, set):
        return all(_plain(x) for x in v)
    if t is dict:
        return all(_plain(k) and _plain(x) for k, x in v.items())
    return False

class _Seen:
    def __init__(self):
        self.calls = []
        self.answers = []
    def recorder(self, *args, **kwargs):
        self.calls.append(args)
        seen = self
        class Probe:
            def __eq__(self, other):
                seen.answers.append(other)
                return True
            __hash__ = None
        return Probe()

def oracle(line, entry):
    """What CPython makes of the line: None (not the accepted shape) or (args, answer) as a clean
    interpreter builds them when it executes the line."""
    try:
        tree = ast.parse(line)
    except (SyntaxError, ValueError):
        return None
    if len(tree.body) != 1 or type(tree.body[0]) is not ast.Assert or tree.body[0].msg is not None:
        return None
    test = tree.body[0].test
    if type(test) is not ast.Compare or len(test.ops) != 1 or type(test.ops[0]) is not ast.Eq:
        return None
    call = test.left
    if type(call) is not ast.Call or type(call.func) is not ast.Name or call.func.id != entry or call.keywords:
        return None
    if any(type(a) is ast.Starred for a in call.args):
        return None
    try:
        values = [ast.literal_eval(a) for a in call.args] + [ast.literal_eval(test.comparators[0])]
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if not all(_plain(v) for v in values):
        return None
    # A value a repeated dict key overwrote is built all the same: every constant written counts.
    if any(type(n) is ast.Constant and type(n.value) not in _ALLOWED for n in ast.walk(test)):
        return None
    for n in ast.walk(tree):  # see _interned_order
        if type(n) is ast.Constant and _name_like(n.value):
            sys.intern(n.value)
    seen = _Seen()
    exec(compile(line, "<oracle>", "exec"), {"__builtins__": builtins, entry: seen.recorder})
    assert len(seen.calls) == 1 and len(seen.answers) == 1, (line, seen.calls)
    return seen.calls[0], seen.answers[0]

def _name_like(v):
    if type(v) is str:
        return v.isascii() and (v.replace("_", "a").isalnum() or v == "")
    return type(v) is tuple and any(_name_like(x) for x in v)

def _interned_order(harness, line):
    """The line's arguments as CPython builds them once every name-like str constant is interned:
    CPython interns such strings when it makes the line's code object, and a folded set display
    (3 to 30 constants) holding one that was interned before (by anything the interpreter ever
    ran) is rebuilt from its own iteration order. The oracle interns them all before it executes
    a line, so its order is this one exactly; the judge's rule leaves the intern table out."""
    lo, hi = harness["_SET_FOLD"]
    def rebuilt(items):
        s = set()
        if lo <= len(items) <= hi:
            fs = frozenset(items)
            s.update(frozenset(tuple(fs)) if any(_name_like(x) for x in fs) else fs)
        else:
            for x in items:
                s.add(x)
        return s
    own = harness["_build_set"]
    harness["_build_set"] = rebuilt
    try:
        call = ast.parse(line).body[0].test.left
        return harness["canonical"](tuple([harness["_literal"](a) for a in call.args]), True)
    finally:
        harness["_build_set"] = own

def _rebuilt(harness, argv):
    """The arguments a runner builds from argv for one call (its constants merged within the call)."""
    harness["_folded"].clear()
    try:
        return harness["_from_canon"](argv)
    finally:
        harness["_folded"].clear()

def _layout(v):
    """What a program can read of its arguments beyond their values: each object's type, its memory
    size (a list's capacity, a set's or dict's table: __sizeof__) and which objects are one object."""
    ids, out = {}, []
    def walk(x):
        t = type(x)
        out.append((t.__name__, ids.setdefault(id(x), len(ids)), x.__sizeof__() if t in (list, tuple, set, frozenset, dict) else 0))
        if t is dict:
            for k, y in x.items():
                walk(k)
                walk(y)
        elif t in (list, tuple, set, frozenset):
            for y in x:
                walk(y)
    walk(v)
    return out

def compare(harness, lines_json, entry):
    """Read every line with the judge and the oracle; return the counts and the disagreements."""
    groups = json.loads(lines_json)
    req = {"tasks": [{"id": "t", "entry_point": entry, "reference": ""}], "codes": [{"task": "t", "code": ""}],
           "suites": [{"code": 0, "text": "\n".join(g)} for g in groups], "limits": {"max_lines": 8}}
    _exec_events[1] = True
    try:
        plan = json.loads(harness["plan"](json.dumps(req)))
    finally:
        _exec_events[1] = False
    canonical = harness["canonical"]
    accepted = refused = interned = 0
    bad = []
    for group, judged in zip(groups, plan["s"]):
        if len(judged) != len(group):
            bad.append({"line": group, "why": "the judge read %d lines of %d" % (len(judged), len(group))})
            continue
        seen = set()
        for line, j in zip(group, judged):
            o = oracle(line, entry)
            if o is None:
                refused += 1
                if j[0] != "invalid":
                    bad.append({"line": line, "why": "CPython's reading refuses it; the judge took it", "judge": j})
                continue
            accepted += 1
            args = canonical(o[0], True)
            if args in seen:
                if j[0] != "invalid" or "repeats" not in j[1]:
                    bad.append({"line": line, "why": "a repeated call the judge did not call one", "judge": j})
                continue
            seen.add(args)
            if j[0] != "valid":
                bad.append({"line": line, "why": "CPython's reading accepts it; the judge refused: " + j[1]})
                continue
            if json.dumps(j[2]) != json.dumps(json.loads(args)):
                if _interned_order(harness, line) == args:
                    interned += 1  # CPython's own order depends on its intern table here
                    continue
                bad.append({"line": line, "why": "arguments differ", "judge": j[2], "cpython": args})
            elif json.dumps(j[3]) != json.dumps(json.loads(canonical(o[1]))):
                bad.append({"line": line, "why": "answers differ", "judge": j[3], "cpython": canonical(o[1])})
            elif canonical(rebuilt := tuple(_rebuilt(harness, j[5])), True) != args:
                bad.append({"line": line, "why": "a runner rebuilds other arguments", "argv": j[5], "cpython": args})
            elif (runner := _layout(rebuilt)) != _layout(o[0]):
                bad.append({"line": line, "why": "a runner builds the arguments otherwise (capacities, shared objects)",
                            "runner": runner, "cpython": _layout(o[0])})
            else:
                again = oracle("assert " + j[4] + " == 0", entry)
                if again is None or canonical(again[0], True) != args:
                    bad.append({"line": line, "why": "the corrected call reads back to another call", "call": j[4]})
    return json.dumps({"accepted": accepted, "refused": refused, "interned_order": interned, "exec_events": _exec_events[0], "mismatches": bad[:20], "mismatch_count": len(bad)})
`;

export interface FuzzReport {
  lines: number;
  accepted: number;
  refused: number;
  /**
   * Accepted lines whose only difference is the iteration order of a set display holding a
   * name-like str, exactly the order CPython gives when that str was interned before
   * (`_interned_order`): CPython's own order there depends on its intern table.
   */
  interned_order: number;
  /** `exec` audit events raised while the judge read the lines: must be 0. */
  exec_events: number;
  mismatch_count: number;
  /** The first disagreements (at most 20). */
  mismatches: unknown[];
  seconds: number;
}

/** A Pyodide with the harness (as the judge loads it) and the oracle, ready for `fuzzLines`. */
export async function startLineFuzzer(): Promise<(seed: number, lines: number) => FuzzReport> {
  const pyodide = await loadPyodide({ env: { ...RUNNER_ENV } });
  const harness = pyodide.toPy({}) as unknown as { get(k: string): unknown };
  pyodide.runPython(readFileSync(HARNESS_PATH, "utf8"), { globals: harness as never, filename: "harness.py" });
  const oracle = pyodide.toPy({}) as unknown as { get(k: string): (...a: unknown[]) => string };
  pyodide.runPython(ORACLE_PY, { globals: oracle as never, filename: "oracle.py" });
  const compare = oracle.get("compare");
  return (seed, lines) => {
    const rng = new Rng(seed);
    const t0 = performance.now();
    const total: FuzzReport = { lines: 0, accepted: 0, refused: 0, interned_order: 0, exec_events: 0, mismatch_count: 0, mismatches: [], seconds: 0 };
    // In chunks of suites of 1-8 lines: a suite is read in one parse when it can be, line by line otherwise.
    while (total.lines < lines) {
      const entry = rng.pick(ENTRIES);
      const groups: string[][] = [];
      for (let n = 0; n < 200 && total.lines < lines; n++) {
        const size = Math.min(lines - total.lines, rng.pick([1, 1, 2, 4, 8]));
        groups.push(Array.from({ length: size }, () => generateLine(rng, entry)).map((l) => (l.trim() ? l : "assert")));
        total.lines += size;
      }
      const r = JSON.parse(compare(harness, JSON.stringify(groups), entry)) as Omit<FuzzReport, "lines" | "seconds">;
      total.accepted += r.accepted;
      total.refused += r.refused;
      total.interned_order += r.interned_order;
      total.exec_events = r.exec_events;
      total.mismatch_count += r.mismatch_count;
      total.mismatches.push(...r.mismatches.slice(0, 20 - total.mismatches.length));
    }
    total.seconds = (performance.now() - t0) / 1000;
    return total;
  };
}

export async function main(args: string[]): Promise<void> {
  const { flags } = parseArgs(args, {
    lines: { kind: "int", help: "how many lines to generate (default 50000)" },
    seed: { kind: "int", help: "generator seed (default 1)" },
    json: { kind: "bool", help: "print exactly one JSON line" },
  }, 0);
  const fuzz = await startLineFuzzer();
  const r = fuzz((flags.seed as number | undefined) ?? 1, (flags.lines as number | undefined) ?? 50_000);
  const out = { ...r, lines_per_s: Math.round(r.lines / r.seconds) };
  if (flags.json) console.log(JSON.stringify(out));
  else {
    console.log(`${r.lines} lines (seed ${flags.seed ?? 1}): ${r.accepted} read as calls, ${r.refused} refused (${r.interned_order} calls whose set order CPython leaves to its intern table); ${r.mismatch_count} disagreements with CPython; ${r.exec_events} exec events in the judge; ${out.lines_per_s} lines/s`);
    for (const m of r.mismatches) console.log(JSON.stringify(m));
  }
  if (r.mismatch_count || r.exec_events) process.exitCode = 1;
}
