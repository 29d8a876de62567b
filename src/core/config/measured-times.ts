/**
 * Times the app states about its presets, from the last measurement (`npm run bench -- newcomer
 * --record` writes measured-times.json; scripts/bench/newcomer.ts): never typed by hand, so a
 * preset's description says what a newcomer actually waits, and where that was measured.
 */
import MEASURED from "./measured-times.json";

export interface MeasuredTimes {
  command: string;
  /** YYYY-MM-DD. */
  date: string;
  /** The browser, backend, host and machine of the measurement. */
  where: string;
  /** The classroom preset run as a newcomer does (seconds from opening the page; step_s: median of the steps after the first). */
  classroom: { steps: number; ready_s: number; first_step_s: number; run_s: number; step_s: number | null };
}

export const MEASURED_TIMES: MeasuredTimes = MEASURED;

/** "about 2 minutes", "about 40 seconds", "about 3 hours". */
export function aboutDuration(seconds: number): string {
  if (seconds < 90) return `about ${Math.max(5, Math.round(seconds / 5) * 5)} seconds`;
  if (seconds < 90 * 60) return `about ${Math.round(seconds / 60)} minutes`;
  return `about ${Math.round(seconds / 3600)} hour${Math.round(seconds / 3600) === 1 ? "" : "s"}`;
}

/**
 * The classroom run's time, as its description says it: the whole run, the first step (the Python
 * sandbox's cold start included) and the steady pace, with where it was measured.
 */
export function classroomTime(m: MeasuredTimes = MEASURED_TIMES): string {
  const c = m.classroom;
  const pace = c.step_s === null ? "" : `, then about ${c.step_s.toFixed(1)} s a step`;
  return `${aboutDuration(c.run_s)} from opening the page (first step after ${Math.round(c.first_step_s)} s${pace}; measured ${m.date} in ${m.where}: ${m.command})`;
}

/**
 * A longer run of the same model size, extrapolated from the classroom's steady pace (per task per
 * step) and labelled so: `tasksPerStep` x `steps` at that pace.
 */
export function extrapolatedTime(tasksPerStep: number, steps: number, classroomTasksPerStep: number, m: MeasuredTimes = MEASURED_TIMES): string {
  const pace = m.classroom.step_s;
  if (pace === null) return "not measured";
  return `${aboutDuration((pace * tasksPerStep * steps) / classroomTasksPerStep)} at the classroom's measured pace`;
}
