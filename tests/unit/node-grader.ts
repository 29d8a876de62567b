/**
 * One real Node grader (Pyodide in runner processes) for a test file or describe block: started in
 * beforeAll, closed in afterAll, registered where this is called (so later beforeAll hooks may use
 * it). The returned object stands for the grader: its methods reach the live one, and using it
 * outside the hooks' lifetime throws.
 *
 * In the `unit-grader` project (vitest.config.ts: files that need nothing but a grader, run without
 * isolation so one worker process runs many of them) every file of a process gets the same grader:
 * its start (judge, sandbox, warm-up: about 5 s) was most of a hostile round's time. That is the
 * grader's own guarantee put to use: nothing a candidate does reaches the next, across files as
 * within one. Its runner processes end with the worker process (their request pipe closes).
 */
import { afterAll, beforeAll } from "vitest";
import type { SupervisedGrader } from "../../src/core/grader/supervisor.ts";
import { createNodeGrader } from "../../src/node/grader.ts";

const SHARED = process.env.CODE_A1_SHARED_GRADER === "1";
let shared: Promise<SupervisedGrader> | undefined;

/** The process's one grader (started on first use; a failed start is not kept). */
function sharedGrader(): Promise<SupervisedGrader> {
  if (!shared) {
    shared = createNodeGrader();
    shared.catch(() => (shared = undefined));
  }
  return shared;
}

export function sharedNodeGrader(): SupervisedGrader {
  let live: SupervisedGrader | undefined;
  beforeAll(async () => {
    live = SHARED ? await sharedGrader() : await createNodeGrader();
  }, 120_000);
  afterAll(async () => {
    if (!SHARED) await live?.close();
    live = undefined;
  });
  return new Proxy({} as SupervisedGrader, {
    get(_, key) {
      if (!live) throw new Error("the shared grader exists only while its describe block runs (beforeAll to afterAll)");
      const value: unknown = Reflect.get(live, key);
      return typeof value === "function" ? value.bind(live) : value;
    },
  });
}
