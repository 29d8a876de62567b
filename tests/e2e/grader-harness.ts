/**
 * Page-side code for tests/e2e/grader.test.ts, served from source by the vite dev server: drives
 * the browser grader (src/browser/grader-client.ts) while a counter on the page keeps ticking.
 */
import { baseSnapshotStats, createBrowserGrader, probeSandboxScope } from "../../src/browser/grader-client.ts";
import type { GradeRequest, GradeResult } from "../../src/core/grader/types.ts";

export interface GraderRun {
  result: GradeResult;
  /** Page timer ticks (every 10 ms) while the batch was graded, and the wall time it took. */
  ticks: number;
  ms: number;
  spawns: number;
  crossOriginIsolated: boolean;
}

export async function gradeWithCounter(request: GradeRequest): Promise<GraderRun> {
  const grader = createBrowserGrader();
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  const t0 = performance.now();
  try {
    const result = await grader.grade(request);
    return { result, ticks, ms: performance.now() - t0, spawns: grader.spawns, crossOriginIsolated: self.crossOriginIsolated };
  } finally {
    clearInterval(timer);
    await grader.close();
  }
}

export const probe = probeSandboxScope;

/** How this page's runners started, and the base snapshots in Cache Storage. */
export async function snapshotState(): Promise<typeof baseSnapshotStats & { cached: string[] }> {
  const keys = await (await caches.open("code-a1-base-snapshot")).keys();
  return { ...baseSnapshotStats, cached: keys.map((k) => new URL(k.url).pathname) };
}

/** The CSP header the server sends with the sandbox worker script. */
export async function sandboxCsp(): Promise<string | null> {
  const url = new URL("../../workers/grader.worker.ts", import.meta.url);
  return (await fetch(url)).headers.get("content-security-policy");
}

let shared: ReturnType<typeof createBrowserGrader> | null = null;

/** Like gradeWithCounter, on one grader kept across calls (what one batch leaves, the next meets). */
export async function gradeOnShared(request: GradeRequest): Promise<GraderRun> {
  shared ??= createBrowserGrader();
  const t0 = performance.now();
  const result = await shared.grade(request);
  return { result, ticks: 0, ms: performance.now() - t0, spawns: shared.spawns, crossOriginIsolated: self.crossOriginIsolated };
}
