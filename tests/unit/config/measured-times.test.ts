/**
 * The preset texts quote measured times (src/core/config/measured-times.json, written by
 * `npm run bench -- newcomer --record`), never typed ones.
 */
import { describe, expect, it } from "vitest";
import { PRESETS } from "../../../src/core/config/index.ts";
import { aboutDuration, classroomTime, extrapolatedTime, MEASURED_TIMES, type MeasuredTimes } from "../../../src/core/config/measured-times.ts";

const sample: MeasuredTimes = {
  command: "npm run bench -- newcomer --record",
  date: "2026-12-06",
  where: "headless Chromium 1.0 (wasm) from a static host, 2 CPU cores at load average 1.0",
  classroom: { steps: 36, ready_s: 5.6, first_step_s: 15.6, run_s: 111, step_s: 1.04 },
};

describe("measured times", () => {
  it("rounds durations the way a person says them", () => {
    expect(aboutDuration(43)).toBe("about 45 seconds");
    expect(aboutDuration(111)).toBe("about 2 minutes");
    expect(aboutDuration(14 * 60)).toBe("about 14 minutes");
    expect(aboutDuration(5 * 3600)).toBe("about 5 hours");
  });

  it("says the classroom's time from the figures, with where and how they were measured", () => {
    expect(classroomTime(sample)).toBe(
      "about 2 minutes from opening the page (first step after 16 s, then about 1.0 s a step; measured 2026-12-06 in headless Chromium 1.0 (wasm) from a static host, 2 CPU cores at load average 1.0: npm run bench -- newcomer --record)",
    );
    // A longer preset: the classroom's steady pace per task, scaled and labelled as such.
    expect(extrapolatedTime(8, 240, 4, sample)).toBe("about 8 minutes at the classroom's measured pace");
  });

  it("the presets quote the recorded file, not a typed time", () => {
    expect(MEASURED_TIMES.classroom.steps).toBe(36);
    expect(PRESETS.classroom.description).toContain(classroomTime());
    expect(PRESETS.classroom.description).not.toMatch(/15 minutes on a laptop/);
    expect(PRESETS.research.description).toContain(extrapolatedTime(8, 240, 4));
  });
});
