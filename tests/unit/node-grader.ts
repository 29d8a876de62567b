/**
 * One real Node grader (Pyodide in a worker thread) for a test file or describe block: started in
 * beforeAll, closed in afterAll, registered where this is called (so later beforeAll hooks may use
 * it). The returned object stands for the grader: its methods reach the live one, and using it
 * outside the hooks' lifetime throws.
 */
import { afterAll, beforeAll } from "vitest";
import type { SupervisedGrader } from "../../src/core/grader/supervisor.ts";
import { createNodeGrader } from "../../src/node/grader.ts";

export function sharedNodeGrader(): SupervisedGrader {
  let live: SupervisedGrader | undefined;
  beforeAll(async () => {
    live = await createNodeGrader();
  }, 120_000);
  afterAll(async () => {
    await live?.close();
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
