/**
 * A grader runner (judge, sandbox or the import's tools) in a module Web Worker. Everything, in the
 * order it must happen, is in src/browser/grader-worker.ts; this script only starts it.
 */
import { serveGraderRunner } from "../src/browser/grader-worker.ts";

export type { RunnerInit, RunnerPortMessage, RunnerPortRequest } from "../src/browser/grader-worker.ts";

serveGraderRunner();
