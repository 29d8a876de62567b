/**
 * The grading harness under native CPython (python3): a runner speaking the same line protocol as
 * the Pyodide runners (src/core/grader/runner.js), driven by the same supervisor, so that the
 * executor benchmark compares the interpreters and nothing else. No memory restore, no permission
 * model, no interrupt (only the supervisor's kill): trusted batches only.
 */
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { childProcessRunner, HARNESS_PATH } from "./grader.ts";
import { RUNNER_ENV } from "../core/grader/runner.js";
import { createSupervisedGrader, type SpawnRunner, type SupervisedGrader } from "../core/grader/supervisor.ts";
import type { GradeRequest, GradeResult } from "../core/grader/types.ts";

/** runner.js's `handle`, in Python: requests on stdin, events on stdout, one JSON line each. */
const DRIVER = `
import json, sys, time
role = sys.argv[2]
ns = {"__name__": "harness"}
exec(compile(open(sys.argv[1]).read(), "harness.py", "exec"), ns)
load, call, plan, dumps, loads, clock = ns["load"], ns["call"], ns["plan"], json.dumps, json.loads, time.perf_counter
out = sys.stdout
def emit(m):
    out.write(dumps(m) + "\\n")
    out.flush()
def timed(limit_ms, fn, *args):
    t0 = clock()
    r = fn(*args)
    return r if (clock() - t0) * 1000 <= limit_ms else dumps(["timeout", "exceeded %d ms" % limit_ms])
report = timed(float("inf"), ns["setup"], role)  # at load's and call's depth (harness.py CALL_DEPTH)
emit({"type": "ready", "report": report})
for line in sys.stdin:
    req = loads(line)
    rid = req["id"]
    if req["type"] == "plan":
        emit({"type": "plan", "id": rid, "plan": plan(req["request"])})
        continue
    u = req["unit"]
    r = timed(u["loadMs"], load, u["code"], u["entry"])
    emit({"type": "step", "id": rid, "step": 0, "result": r})
    if r.startswith('["ok"'):
        fresh = set(u.get("fresh") or [])
        for i, args in enumerate(u["calls"]):
            r = timed(u["loadMs"], load, u["code"], u["entry"]) if i in fresh else '["ok"'
            if r.startswith('["ok"'):
                r = timed(u["testMs"], call, args, u["literal"])
            emit({"type": "step", "id": rid, "step": i + 1, "result": r})
            if r.startswith('["timeout"'):
                break
    emit({"type": "done", "id": rid, "fit": True, "why": ""})
`;

/** True when a python3 (>= 3.11, the harness's floor) is on PATH. */
export function nativePythonAvailable(python = "python3"): boolean {
  const r = spawnSync(python, ["-c", "import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)"]);
  return r.status === 0;
}

function spawnNativeRunner(python: string): SpawnRunner {
  return (role, onEvent, onExit) => {
    const child = spawn(python, ["-u", "-c", DRIVER, fileURLToPath(HARNESS_PATH), role], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...RUNNER_ENV } });
    return childProcessRunner(child, child.stdout, `native ${role} (${python})`, onEvent, onExit);
  };
}

/** A grader whose runners are native python3 processes (no warm spare: a kill costs a start). */
export function createNativeGrader(python = "python3"): SupervisedGrader {
  return createSupervisedGrader(spawnNativeRunner(python), { warmSpare: false });
}

/** Grade `request` `repeats` times on one native grader: seconds per batch and the last result. */
export async function gradeNative(request: GradeRequest, repeats = 1, python = "python3"): Promise<{ seconds: number[]; result: GradeResult }> {
  const grader = createNativeGrader(python);
  try {
    const seconds: number[] = [];
    let result: GradeResult | undefined;
    for (let i = 0; i < repeats; i++) {
      const t0 = performance.now();
      result = await grader.grade(request);
      seconds.push((performance.now() - t0) / 1000);
    }
    return { seconds, result: result! };
  } finally {
    await grader.close();
  }
}
