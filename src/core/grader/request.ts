/**
 * Request checking for the grader, independent of where Python runs.
 * Limits default here, once, and travel to the harness filled in.
 */
import type { GradeLimits, GradeRequest } from "./types.ts";

/**
 * Default limits. test_ms: wall clock per call (reference or candidate); raise it for slow tasks.
 * load_ms: running one module body (defining the function). max_lines: N of the spec.
 */
export const DEFAULT_LIMITS: Required<GradeLimits> = { test_ms: 1000, load_ms: 2000, max_lines: 8 };

export class GradeRequestError extends Error {
  override name = "GradeRequestError";
}

const isStr = (v: unknown): v is string => typeof v === "string";

/** Throw GradeRequestError naming the first malformed field; return the request with limits filled. */
export function checkRequest(request: GradeRequest): GradeRequest & { limits: Required<GradeLimits> } {
  const fail = (where: string, what: string): never => {
    throw new GradeRequestError(`grade request: ${where} ${what}`);
  };
  if (!request || typeof request !== "object") fail("request", "must be an object {tasks, codes, suites?, golden?, limits?}");
  if (!Array.isArray(request.tasks)) fail("tasks", "must be an array");
  if (!Array.isArray(request.codes)) fail("codes", "must be an array");
  const ids = new Set<string>();
  request.tasks.forEach((t, i) => {
    if (!t || !isStr(t.id) || !isStr(t.entry_point) || !isStr(t.reference)) {
      fail(`tasks[${i}]`, "must have string id, entry_point and reference");
    }
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(t.entry_point)) fail(`tasks[${i}].entry_point`, `${JSON.stringify(t.entry_point)} is not a Python identifier`);
    if (ids.has(t.id)) fail(`tasks[${i}].id`, `${JSON.stringify(t.id)} is repeated`);
    ids.add(t.id);
  });
  request.codes.forEach((c, i) => {
    if (!c || !isStr(c.task) || !isStr(c.code)) fail(`codes[${i}]`, "must have string task and code");
    if (!ids.has(c.task)) fail(`codes[${i}].task`, `${JSON.stringify(c.task)} is not a task id`);
  });
  for (const key of ["suites", "golden"] as const) {
    const list = request[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) fail(key, "must be an array");
    list.forEach((s, i) => {
      if (!s || !isStr(s.text)) fail(`${key}[${i}].text`, "must be a string");
      if (!Number.isInteger(s.code) || s.code < 0 || s.code >= request.codes.length) {
        fail(`${key}[${i}].code`, `must index codes (0..${request.codes.length - 1}), got ${JSON.stringify(s.code)}`);
      }
    });
  }
  const given = request.limits ?? {};
  if (typeof given !== "object" || Array.isArray(given)) fail("limits", "must be an object");
  const limits = { ...DEFAULT_LIMITS };
  // Own keys only: a parsed `{"__proto__": ...}` or `constructor` is an unknown key, not Object's.
  for (const k of Object.keys(given)) {
    if (!Object.hasOwn(DEFAULT_LIMITS, k)) fail(`limits.${k}`, `is unknown (known: ${Object.keys(DEFAULT_LIMITS).join(", ")})`);
    const v = (given as Record<string, unknown>)[k];
    if (!Number.isInteger(v) || (v as number) < 1 || (v as number) > 600_000) fail(`limits.${k}`, `must be an integer in 1..600000, got ${JSON.stringify(v)}`);
    limits[k as keyof GradeLimits] = v as number;
  }
  return { tasks: request.tasks, codes: request.codes, suites: request.suites, golden: request.golden, limits };
}
