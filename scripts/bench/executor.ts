/**
 * `npm run bench -- executor [--json]`: grading throughput on the standard batch (64 codes x 8
 * suites x 8 lines on small list tasks; a pair = one code x one suite) of
 *   - the hardened executor: createNodeGrader (Pyodide in a worker thread, watchdog, audit hook);
 *   - the same harness.py run by native python3 (no worker, no Pyodide);
 *   - one python3 subprocess per test line, the naive approach: measured on a sample of
 *     SUBPROCESS_SAMPLE lines and extrapolated (pairs/s = lines/s / 8).
 * Keys: executor_pairs_per_s, native_pairs_per_s, ratio_vs_native (native / executor),
 * ratio_vs_subprocess (executor / subprocess). Targets: <= 3.0 and >= 300.
 */
import { spawnSync } from "node:child_process";
import { createNodeGrader } from "../../src/node/grader.ts";
import { gradeNative, nativePythonAvailable } from "../../src/node/python-native.ts";
import { Rng } from "../../src/core/rng.ts";
import { parseArgs } from "../../src/node/cli.ts";
import type { GradeRequest } from "../../src/core/grader/types.ts";

const CODES_PER_TASK = 8;
const SUITES_PER_CODE = 8;
const LINES_PER_SUITE = 8;
const REPEATS = 5;
const SUBPROCESS_SAMPLE = 40;

/** Small list tasks: the reference (Python), a JS twin to write answers, and buggy variants. */
const TASKS: { id: string; reference: string; js: (xs: number[]) => unknown; variants: string[] }[] = [
  { id: "max", reference: "def f(xs):\n    return max(xs)", js: (xs) => Math.max(...xs),
    variants: ["def f(xs):\n    return sorted(xs)[-1]", "def f(xs):\n    return xs[0]", "def f(xs):\n    best = xs[0]\n    for x in xs:\n        if x > best:\n            best = x\n    return best"] },
  { id: "sum_even", reference: "def f(xs):\n    return sum(x for x in xs if x % 2 == 0)", js: (xs) => xs.filter((x) => x % 2 === 0).reduce((a, b) => a + b, 0),
    variants: ["def f(xs):\n    total = 0\n    for x in xs:\n        if x % 2 == 0:\n            total += x\n    return total", "def f(xs):\n    return sum(xs)", "def f(xs):\n    return sum(x for x in xs if x % 2 == 1)"] },
  { id: "reverse", reference: "def f(xs):\n    return xs[::-1]", js: (xs) => xs.slice().reverse(),
    variants: ["def f(xs):\n    return list(reversed(xs))", "def f(xs):\n    return xs", "def f(xs):\n    return sorted(xs)"] },
  { id: "count_pos", reference: "def f(xs):\n    return len([x for x in xs if x > 0])", js: (xs) => xs.filter((x) => x > 0).length,
    variants: ["def f(xs):\n    return sum(1 for x in xs if x > 0)", "def f(xs):\n    return sum(1 for x in xs if x >= 0)", "def f(xs):\n    return len(xs)"] },
  { id: "uniq", reference: "def f(xs):\n    return sorted(set(xs))", js: (xs) => [...new Set(xs)].sort((a, b) => a - b),
    variants: ["def f(xs):\n    out = []\n    for x in sorted(xs):\n        if x not in out:\n            out.append(x)\n    return out", "def f(xs):\n    return sorted(xs)", "def f(xs):\n    return list(set(xs))"] },
  { id: "prefix", reference: "def f(xs):\n    out = []\n    acc = 0\n    for x in xs:\n        acc += x\n        out.append(acc)\n    return out",
    js: (xs) => xs.map(((acc) => (x: number) => (acc += x))(0)),
    variants: ["def f(xs):\n    return [sum(xs[:i + 1]) for i in range(len(xs))]", "def f(xs):\n    return [sum(xs[:i]) for i in range(len(xs))]", "def f(xs):\n    return xs"] },
  { id: "min_abs", reference: "def f(xs):\n    return min(abs(x) for x in xs)", js: (xs) => Math.min(...xs.map(Math.abs)),
    variants: ["def f(xs):\n    return min(xs, key=abs) if min(xs, key=abs) >= 0 else -min(xs, key=abs)", "def f(xs):\n    return min(xs)", "def f(xs):\n    return abs(min(xs))"] },
  { id: "evens_first", reference: "def f(xs):\n    return [x for x in xs if x % 2 == 0] + [x for x in xs if x % 2 == 1]",
    js: (xs) => [...xs.filter((x) => x % 2 === 0), ...xs.filter((x) => x % 2 !== 0)],
    variants: ["def f(xs):\n    return sorted(xs, key=lambda x: x % 2)", "def f(xs):\n    return sorted(xs)", "def f(xs):\n    return [x for x in xs if x % 2 == 0]"] },
];

const pyLiteral = (v: unknown): string => (Array.isArray(v) ? `[${v.map(pyLiteral).join(", ")}]` : String(v));

/** The standard batch, deterministic for a seed: 64 codes (8 per task), 8 suites of 8 lines each. */
export function standardBatch(seed = 1): GradeRequest {
  const rng = new Rng(seed);
  const request: GradeRequest = { tasks: [], codes: [], suites: [], limits: { test_ms: 1000 } };
  for (const task of TASKS) {
    request.tasks.push({ id: task.id, entry_point: "f", reference: task.reference });
    const pool = [task.reference, ...task.variants];
    for (let c = 0; c < CODES_PER_TASK; c++) {
      const code = request.codes.length;
      request.codes.push({ task: task.id, code: rng.pick(pool) });
      for (let s = 0; s < SUITES_PER_CODE; s++) {
        const lines: string[] = [];
        for (let l = 0; l < LINES_PER_SUITE; l++) {
          const xs = Array.from({ length: rng.range(1, 8) }, () => rng.range(-9, 9));
          let answer = task.js(xs);
          if (rng.int(8) === 0) answer = typeof answer === "number" ? answer + 1 : [];
          lines.push(`assert f(${pyLiteral(xs)}) == ${pyLiteral(answer)}`);
        }
        request.suites!.push({ code, text: lines.join("\n") });
      }
    }
  }
  return request;
}

const pairsOf = (r: GradeRequest) => r.suites!.length;
const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function executorSeconds(request: GradeRequest): Promise<number[]> {
  const grader = await createNodeGrader();
  try {
    await grader.grade(request); // warm: first-call costs (imports, caches) out of the figure
    const seconds: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      const t0 = performance.now();
      await grader.grade(request);
      seconds.push((performance.now() - t0) / 1000);
    }
    return seconds;
  } finally {
    await grader.close();
  }
}

/** One python3 process per test line: lines/s over a sample, as pairs/s (8 lines a pair). */
function subprocessPairsPerSecond(request: GradeRequest): number {
  const t0 = performance.now();
  for (let i = 0; i < SUBPROCESS_SAMPLE; i++) {
    const suite = request.suites![i % request.suites!.length];
    const line = suite.text.split("\n")[i % LINES_PER_SUITE];
    const program = `${request.codes[suite.code].code}\ntry:\n    ${line}\nexcept AssertionError:\n    pass\n`;
    const r = spawnSync("python3", ["-c", program], { timeout: 10_000 });
    if (r.status !== 0) throw new Error(`subprocess baseline failed: ${r.stderr}`);
  }
  const linesPerSecond = SUBPROCESS_SAMPLE / ((performance.now() - t0) / 1000);
  return linesPerSecond / LINES_PER_SUITE;
}

export async function main(args: string[]): Promise<void> {
  const json = parseArgs(args, { json: { kind: "bool", help: "print exactly one JSON line" } }, 0).flags.json === true;
  const request = standardBatch();
  const pairs = pairsOf(request);
  const executor = pairs / median(await executorSeconds(request));
  const native = nativePythonAvailable();
  const nativePairs = native ? pairs / median((await gradeNative(request, REPEATS + 1)).seconds.slice(1)) : null;
  const subprocess = native ? subprocessPairsPerSecond(request) : null;
  const result = {
    batch: { codes: request.codes.length, suites: pairs, lines_per_suite: LINES_PER_SUITE },
    executor_pairs_per_s: Math.round(executor),
    native_pairs_per_s: nativePairs === null ? null : Math.round(nativePairs),
    subprocess_pairs_per_s: subprocess === null ? null : Number(subprocess.toFixed(2)),
    ratio_vs_native: nativePairs === null ? null : Number((nativePairs / executor).toFixed(2)),
    ratio_vs_subprocess: subprocess === null ? null : Math.round(executor / subprocess),
    subprocess_sample_lines: SUBPROCESS_SAMPLE,
  };
  if (json) {
    console.log(JSON.stringify(result));
    return;
  }
  console.log(`standard batch: ${result.batch.codes} codes x ${SUITES_PER_CODE} suites x ${LINES_PER_SUITE} lines = ${pairs} pairs`);
  console.log(`executor (Pyodide, hardened): ${result.executor_pairs_per_s} pairs/s`);
  if (nativePairs === null) {
    console.log("native python3: not found (>= 3.11 needed); native and subprocess figures skipped");
    return;
  }
  console.log(`native python3, same harness: ${result.native_pairs_per_s} pairs/s  -> ratio_vs_native ${result.ratio_vs_native} (target <= 3.0)`);
  console.log(
    `python3 subprocess per line (sample of ${SUBPROCESS_SAMPLE} lines, extrapolated): ${result.subprocess_pairs_per_s} pairs/s` +
      `  -> ratio_vs_subprocess ${result.ratio_vs_subprocess} (target >= 300)`,
  );
}
