/**
 * Which charts the dashboard and Compare draw, and how StepMetrics become uPlot's column data
 * ([x, y1, y2, ...], null for gaps). Pure, so the series logic is tested in Node.
 */
import type { StepMetrics } from "../core/loop/types.ts";

export type MetricKey = Exclude<keyof StepMetrics, "step">;
export type ChartUnit = "fraction" | "reward" | "count" | "ms" | "nats" | "score";

export interface ChartSpec {
  id: string;
  title: string;
  /** One sentence: what the chart shows and what a good run looks like. */
  help: string;
  unit: ChartUnit;
  series: { key: MetricKey; label: string }[];
  /** Draw the series stacked (time split). */
  stacked?: true;
}

/** The dashboard's charts, in reading order (issue 6: "Dashboard"). */
export const CHARTS: readonly ChartSpec[] = [
  {
    id: "rewards", title: "Rewards", unit: "reward",
    help: "Mean reward of the Code policy (R_C) and the Test policy (R_T) over the step's samples.",
    series: [{ key: "code_reward", label: "code reward R_C" }, { key: "test_reward", label: "test reward R_T" }],
  },
  {
    id: "pass", title: "Pass@1", unit: "fraction",
    help: "Share of tasks the Code policy solves, on hidden plus tests (train and held-out) and golden tests; held-out split into unseen combinations of seen primitives (compositional) and unseen primitives (family); measured every eval_every steps.",
    series: [
      { key: "plus_pass_train", label: "plus-pass train" },
      { key: "plus_pass_heldout", label: "plus-pass held-out" },
      { key: "plus_pass_heldout_compositional", label: "held-out compositional" },
      { key: "plus_pass_heldout_family", label: "held-out family" },
      { key: "golden_pass", label: "golden-pass" },
    ],
  },
  {
    id: "bug-detection", title: "Bug detection on held-out tasks", unit: "fraction",
    help: "What the Test policy's suites catch, measured every eval_every steps on the live evaluation's held-out tasks: the share of a task's buggy variants one suite catches, and the share of hard mutants (not caught by the default input nor by most random inputs) one suite kills. A tester that learns to break code pushes both up.",
    series: [
      { key: "bug_detection_heldout", label: "buggy variants caught, held-out" },
      { key: "mut_suite", label: "hard mutants killed" },
    ],
  },
  {
    id: "tests", title: "Test writing during training", unit: "fraction",
    help: "Over the step's own samples: lines valid on the reference; gen_fail (fresh tests the code fails among the first N, over N) and R_adv, which equals gen_fail until a task's Mistake Book has tests and then becomes (gen_fail - hist_fail + 1) / 2; the rollout failure rate, the share of (code, suite) pairs where the code fails a test, which falls as the Code policy improves (it is not bug detection).",
    series: [
      { key: "test_validity", label: "test validity" },
      { key: "gen_fail", label: "gen_fail" },
      { key: "r_adv", label: "R_adv" },
      { key: "rollout_fail_rate", label: "rollout failure rate (pairs)" },
    ],
  },
  {
    id: "mul", title: "Mul (test pass@k × mutants killed × 100)", unit: "score",
    help: "The paper's test-generation score, measured every eval_every steps: per suite on hard mutants, and the old figure (union of k suites over every mutant, near saturation for any valid suite), kept for one release.",
    series: [
      { key: "mul_suite", label: "Mul per suite (hard mutants)" },
      { key: "mul", label: "old Mul (union, every mutant)" },
    ],
  },
  {
    id: "mistake-book", title: "Mistake Book", unit: "count",
    help: "Stored failing tests over all tasks, how many entered and left the book this step, and how many of the step's tasks had stored tests to replay (tasks recur once per epoch).",
    series: [
      { key: "mistake_book_size", label: "size" },
      { key: "mistake_book_added", label: "added" },
      { key: "mistake_book_removed", label: "removed" },
      { key: "mistake_book_replays", label: "tasks replayed" },
    ],
  },
  {
    id: "kl-entropy", title: "KL and entropy", unit: "nats",
    help: "KL to the frozen initial policy (should stay small) and token entropy (falls as a policy becomes sure).",
    series: [
      { key: "kl_code", label: "KL code" },
      { key: "kl_test", label: "KL test" },
      { key: "entropy_code", label: "entropy code" },
      { key: "entropy_test", label: "entropy test" },
    ],
  },
  {
    id: "clip", title: "PPO clip fraction", unit: "fraction",
    help: "Share of scored tokens whose probability ratio was clipped in the step's update: 0 when every mini-batch is on-policy; a few percent when the update moves the policy as far as the clip allows.",
    series: [
      { key: "clip_fraction_code", label: "code" },
      { key: "clip_fraction_test", label: "test" },
    ],
  },
  {
    id: "time", title: "Time per step", unit: "ms", stacked: true,
    help: "Wall time of each step split into sampling, grading in the Python sandbox, and the GRPO updates.",
    series: [
      { key: "time_sample_ms", label: "sample" },
      { key: "time_grade_ms", label: "grade" },
      { key: "time_update_ms", label: "update" },
    ],
  },
];

/** Column data for one chart: [steps, series...]; missing values are null (uPlot draws gaps). */
export function chartData(metrics: readonly StepMetrics[], spec: ChartSpec): (number | null)[][] {
  const rows = [...metrics].sort((a, b) => a.step - b.step);
  const x = rows.map((m) => m.step);
  const ys = spec.series.map(({ key }) => rows.map((m) => finiteOrNull(m[key])));
  if (spec.stacked) {
    // Cumulative sums so each band's top is the running total (gaps count as 0 in the total).
    for (let i = 1; i < ys.length; i++) ys[i] = ys[i].map((v, j) => (v === null ? null : v + (ys[i - 1][j] ?? 0)));
  }
  return [x, ...ys];
}

/** The latest non-null value of a metric (the dashboard's headline numbers). */
export function latestValue(metrics: readonly StepMetrics[], key: MetricKey): { step: number; value: number } | null {
  for (let i = metrics.length - 1; i >= 0; i--) {
    const v = finiteOrNull(metrics[i][key]);
    if (v !== null) return { step: metrics[i].step, value: v };
  }
  return null;
}

export interface RunSeries {
  label: string;
  metrics: readonly StepMetrics[];
}

/**
 * Compare: one metric of several runs on a shared step axis (union of their steps); each run
 * contributes one column, null where it has no value.
 */
export function overlayData(runs: readonly RunSeries[], key: MetricKey): (number | null)[][] {
  const steps = [...new Set(runs.flatMap((r) => r.metrics.map((m) => m.step)))].sort((a, b) => a - b);
  const index = new Map(steps.map((s, i) => [s, i]));
  const cols = runs.map((r) => {
    const col: (number | null)[] = new Array(steps.length).fill(null);
    for (const m of r.metrics) col[index.get(m.step)!] = finiteOrNull(m[key]);
    return col;
  });
  return [steps, ...cols];
}

function finiteOrNull(v: number | null | undefined): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}
