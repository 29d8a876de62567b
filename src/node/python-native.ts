/**
 * The grading harness under native CPython (python3), for the executor benchmark: the same
 * harness.py the sandbox runs in Pyodide, in a private namespace, timed inside Python.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { HARNESS_PATH } from "./grader.ts";
import { checkRequest, ResultBuilder } from "../core/grader/request.ts";
import type { GradeRequest, GradeResult } from "../core/grader/types.ts";

/** Reads {request, repeats} on stdin; prints {seconds: [...], reports: [[code, json]...]} (last run's reports). */
const DRIVER = `
import json, sys, time
out = sys.stdout
job = json.loads(sys.stdin.read())
ns = {"__name__": "harness"}
exec(compile(open(sys.argv[1]).read(), "harness.py", "exec"), ns)
ns["setup"]()
request = json.dumps(job["request"])
seconds, reports = [], []
for _ in range(job["repeats"]):
    reports.clear()
    t0 = time.perf_counter()
    error = ns["grade"](request, 0, "{}", [0, 0, -1, 0], lambda c, text: reports.append([c, text]))
    seconds.append(time.perf_counter() - t0)
    if error:
        raise SystemExit(error)
out.write(json.dumps({"seconds": seconds, "reports": reports}) + "\\n")
`;

export class NativePythonError extends Error {
  override name = "NativePythonError";
}

/** True when a python3 (>= 3.11, the harness's floor) is on PATH. */
export function nativePythonAvailable(python = "python3"): boolean {
  const r = spawnSync(python, ["-c", "import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)"]);
  return r.status === 0;
}

/**
 * Grade `request` `repeats` times in one python3 process: seconds per batch (measured in Python)
 * and the last run's result. No watchdog here: a candidate that never returns hangs python3 until
 * the 10-minute timeout, so this is for trusted batches (benchmarks, cross-checks) only.
 */
export function gradeNative(request: GradeRequest, repeats = 1, python = "python3"): { seconds: number[]; result: GradeResult } {
  const checked = checkRequest(request);
  const r = spawnSync(python, ["-c", DRIVER, fileURLToPath(HARNESS_PATH)], {
    input: JSON.stringify({ request: checked, repeats }),
    encoding: "utf8",
    maxBuffer: 64 << 20,
    timeout: 600_000,
  });
  if (r.status !== 0) throw new NativePythonError(`native harness run failed (${python}): ${r.stderr || r.stdout || r.error}`);
  const out = JSON.parse(r.stdout) as { seconds: number[]; reports: [number, string][] };
  const builder = new ResultBuilder(checked);
  for (const [code, json] of out.reports) builder.add(code, json);
  return { seconds: out.seconds, result: builder.result };
}
