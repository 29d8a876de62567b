/**
 * A host that was busy is not a program that was slow. The supervisor's kill timers run on the host's
 * event loop, beside the runner's answers: when the host's thread is held past a step's kill time
 * (a long synchronous task of the page or of Node, a collection, a machine under load) while the
 * runner answers at once, the expired timer and the answer are both waiting when the loop comes
 * back, and Node runs timers before it reads a pipe. The kill must wait for what already arrived.
 */
import { describe, expect, it } from "vitest";
import { sharedNodeGrader } from "../node-grader.ts";
import { show } from "./grade-lines.ts";

const grader = sharedNodeGrader();
const REF = "def f(x):\n    return x + 1";
const LINES = ["assert f(1) == 2", "assert f(2) == 3", "assert f(3) == 4"];

/** Hold this thread (the host's event loop) for `ms`. */
function hold(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy: no timer, no pipe is read meanwhile
  }
}

describe("a host held past a kill time", () => {
  it("grades an honest candidate as if it had not been: answers already in are read before any kill", async () => {
    const request = {
      tasks: [{ id: "t", entry_point: "f", reference: REF }],
      codes: [0, 1, 2].map(() => ({ task: "t", code: REF })),
      suites: [0, 1, 2].map((c) => ({ code: c, text: LINES.join("\n") })),
      // A step is killed 400 ms after it starts (a reference call 300 ms); the host is held 0.8 s, three times, mid-batch.
      limits: { test_ms: 200, load_ms: 200, max_lines: 8 },
    };
    expect((await grader.grade(request)).suites.flat().map(show)).toEqual(Array(9).fill("valid/pass")); // alone
    const spawns = grader.spawns;
    let held = 0;
    const r = await grader.grade(request, (p) => {
      // Right after a step is in (its successor's timer is armed, the runner already at work).
      if (p.phase === "grade" && held < 3 && p.done % 3 === 1) {
        held++;
        setImmediate(() => hold(800));
      }
    });
    expect(held).toBeGreaterThan(0);
    expect(r.suites.flat().map(show), JSON.stringify(r.suites)).toEqual(Array(9).fill("valid/pass"));
    expect(grader.spawns - spawns).toBe(0);
  }, 120_000);
});
