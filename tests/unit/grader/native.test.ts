/**
 * The harness is one file for Pyodide and native CPython (the benchmark runs it under python3):
 * both must judge the same batch identically. Skipped where no python3 >= 3.11 is installed.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createNodeGrader } from "../../../src/node/grader.ts";
import { gradeNative, nativePythonAvailable } from "../../../src/node/python-native.ts";
import { standardBatch } from "../../../scripts/bench/executor.ts";
import type { Grader } from "../../../src/core/grader/types.ts";

const native = nativePythonAvailable();
let grader: Grader;
beforeAll(async () => {
  if (native) grader = await createNodeGrader();
});
afterAll(async () => {
  await grader?.close();
});

it.runIf(native)("Pyodide and python3 give the same result on the benchmark batch", async () => {
  const request = standardBatch(7);
  request.suites = request.suites!.slice(0, 96); // 12 codes' worth keeps this quick
  request.golden = [{ code: 0, text: "assert f([1]) == 1\nassert f([2, 2]) == 9" }];
  const inPyodide = await grader.grade(request);
  const { result: inPython } = await gradeNative(request);
  expect(inPython).toEqual(inPyodide);
  const verdicts = new Set(inPyodide.suites.flat().map((l) => `${l.validity}/${l.verdict}`));
  for (const seen of ["valid/pass", "valid/fail", "wrong-answer/pass", "invalid/skipped"]) expect(verdicts).toContain(seen);
});
