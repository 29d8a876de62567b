/**
 * docs/RESULTS.md from the runs of `npm run reproduce`: the paper-style table (mean +- sample std
 * over seeds), the alpha ablation, curves as SVG files, and the expected outcomes of issue 5
 * section 6, each checked against the data rather than asserted.
 */
import type { StepMetrics } from "../core/loop/types.ts";
import type { EvalMetrics } from "../core/duel/evaluate.ts";
import { createHash } from "node:crypto";
import { Rng } from "../core/rng.ts";

/** One finished job: its evaluation and its per-step training metrics (empty for base). */
export interface JobResult {
  /** The row: a mode, or a mode with ablations (`self-play+no-mistake-book+no-topvar`). */
  mode: string;
  seed: number;
  alpha: number;
  metrics: EvalMetrics;
  steps: StepMetrics[];
  trainSeconds: number;
  /** Fewest and most times a train task was trained on in the run (task-order.ts); 0/0 for base. */
  visits: { min: number; max: number };
}

export interface ReportInput {
  command: string;
  preset: string;
  steps: number;
  seeds: number[];
  evalSamples: number;
  /** k of pass@k and mut@k (n = evalSamples >= k). */
  evalK: number;
  /** Sampling seed of every evaluation (independent of the run seeds). */
  evalSeed: number;
  evalTasks: string;
  /** The task set in words: its name and how many tasks each split holds. */
  taskSet: string;
  main: JobResult[];
  alpha: JobResult[];
  /** Relative path prefix of the SVG files from RESULTS.md. */
  curveDir: string;
  generatedAt: string;
  /**
   * The hand-written discussion of these numbers (docs/results/discussion.md), or null. Its first
   * line names the fingerprint of the results it discusses (`<!-- results HASH -->`); when the
   * numbers change, the report says the discussion was written for other numbers.
   */
  discussion: string | null;
}

const MODE_ORDER = ["base", "golden-tests", "self-play", "self-play-blackbox", "cure", "code-a1"];
const COLORS: Record<string, string> = {
  base: "#888888", "golden-tests": "#d95f02", "self-play": "#7570b3", "self-play-blackbox": "#a6761d", cure: "#e7298a", "code-a1": "#1b9e77",
};

/** Mean and sample standard deviation (0 for one value), ignoring NaN. */
export function meanStd(xs: readonly number[]): { mean: number; std: number; n: number } {
  const ok = xs.filter((x) => Number.isFinite(x));
  if (ok.length === 0) return { mean: NaN, std: NaN, n: 0 };
  const mean = ok.reduce((a, b) => a + b, 0) / ok.length;
  const std = ok.length > 1 ? Math.sqrt(ok.reduce((a, b) => a + (b - mean) ** 2, 0) / (ok.length - 1)) : 0;
  return { mean, std, n: ok.length };
}

function cell(xs: number[], scale: number, digits: number): string {
  const { mean, std, n } = meanStd(xs);
  if (n === 0) return "n/a";
  return n > 1 ? `${(mean * scale).toFixed(digits)} ± ${(std * scale).toFixed(digits)}` : (mean * scale).toFixed(digits);
}

const COLUMNS: Column[] = [
  { key: "plus_pass_train", title: "plus-pass@1 train (%)", scale: 100, digits: 1 },
  { key: "plus_pass_heldout", title: "plus-pass@1 held-out (%)", scale: 100, digits: 1 },
  { key: "plus_pass_heldout_compositional", title: "compositional (%)", scale: 100, digits: 1 },
  { key: "plus_pass_heldout_family", title: "family (%)", scale: 100, digits: 1 },
  { key: "plus_share_heldout", title: "plus tests passed held-out (%)", scale: 100, digits: 1 },
  { key: "golden_pass_train", title: "golden-pass@1 train (%)", scale: 100, digits: 1 },
  { key: "test_validity", title: "test validity (%)", scale: 100, digits: 1 },
  { key: "bug_detection_heldout", title: "bug detection held-out (%)", scale: 100, digits: 1 },
  { key: "mul_suite", title: "Mul per suite", scale: 1, digits: 2 },
  { key: "plain_plus_pass", title: "plus-pass plain (%)", scale: 100, digits: 1 },
  { key: "tts_plus_pass", title: "plus-pass ranked (%)", scale: 100, digits: 1 },
];

/**
 * The Test policy's figures: wrong programs caught, per suite and union@k, for hard mutants and
 * buggy variants, Mul on each mutant rate; then the OLD figures (union over every killable mutant,
 * bug detection over every task), kept beside the new for one release.
 */
const TEST_COLUMNS: Column[] = [
  { key: "test_validity", title: "validity (%)", scale: 100, digits: 1 },
  { key: "test_pass_k", title: "pass@k (%)", scale: 100, digits: 1 },
  { key: "mut_suite", title: "hard mutants per suite (%)", scale: 100, digits: 1 },
  { key: "mut_hard_k", title: "hard mutants union@k (%)", scale: 100, digits: 1 },
  { key: "mul_suite", title: "Mul per suite", scale: 1, digits: 2 },
  { key: "mul_hard_k", title: "Mul union@k", scale: 1, digits: 2 },
  { key: "bug_detection_heldout", title: "variants per suite, held-out (%)", scale: 100, digits: 1 },
  { key: "bug_k_heldout", title: "variants union@k, held-out (%)", scale: 100, digits: 1 },
  { key: "test_mut_k", title: "old: mut@k, every mutant (%)", scale: 100, digits: 1 },
  { key: "mul", title: "old: Mul", scale: 1, digits: 2 },
  { key: "bug_detection", title: "old: variants per suite, every task (%)", scale: 100, digits: 1 },
];

interface Column {
  key: keyof EvalMetrics;
  title: string;
  scale: number;
  digits: number;
}

function table(rows: { label: string; jobs: JobResult[] }[], columns: Column[] = COLUMNS): string {
  const head = `| | ${columns.map((c) => c.title).join(" | ")} |`;
  const sep = `|---|${columns.map(() => "---:").join("|")}|`;
  const body = rows.map((r) => `| ${r.label} | ${columns.map((c) => cell(r.jobs.map((j) => j.metrics[c.key]), c.scale, c.digits)).join(" | ")} |`);
  return [head, sep, ...body].join("\n");
}

/** Paired difference mode - base over the seeds both have, with a 95% percentile bootstrap interval. */
export interface PairedDifference {
  mean: number;
  lo: number;
  hi: number;
  /** Seeds paired. */
  n: number;
}

/**
 * Per seed s: d_s = metric(mode, s) - metric(base, s); the mean of d and the 2.5% / 97.5%
 * quantiles of the means of `resamples` bootstrap resamples of the seeds (seeded: the same jobs
 * give the same interval). With one seed the interval is the point.
 *
 * Example: diffs [0.1, 0.2, 0.3] -> mean 0.2, interval within [0.1, 0.3].
 */
export function pairedDifference(mode: readonly JobResult[], base: readonly JobResult[], key: keyof EvalMetrics, resamples = 2000): PairedDifference {
  const baseBySeed = new Map(base.map((j) => [j.seed, j.metrics[key]]));
  const d = mode.flatMap((j) => {
    const b = baseBySeed.get(j.seed);
    const x = j.metrics[key] - (b ?? NaN);
    return Number.isFinite(x) ? [x] : [];
  });
  if (d.length === 0) return { mean: NaN, lo: NaN, hi: NaN, n: 0 };
  const avg = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const rng = new Rng(`bootstrap-${String(key)}`);
  const means = Array.from({ length: resamples }, () => avg(Array.from({ length: d.length }, () => d[rng.int(d.length)]))).sort((a, b) => a - b);
  const q = (p: number) => means[Math.min(means.length - 1, Math.max(0, Math.round(p * (means.length - 1))))];
  return { mean: avg(d), lo: q(0.025), hi: q(0.975), n: d.length };
}

const PAIRED: Column[] = [
  { key: "plus_pass_heldout", title: "plus-pass@1 held-out (pts)", scale: 100, digits: 1 },
  { key: "plus_pass_heldout_compositional", title: "plus-pass@1 compositional (pts)", scale: 100, digits: 1 },
  { key: "plus_pass_heldout_family", title: "plus-pass@1 family (pts)", scale: 100, digits: 1 },
  { key: "plus_share_heldout", title: "plus tests passed held-out (pts)", scale: 100, digits: 1 },
  { key: "plus_pass_train", title: "plus-pass@1 train (pts)", scale: 100, digits: 1 },
  { key: "test_validity", title: "test validity (pts)", scale: 100, digits: 1 },
  { key: "bug_detection_heldout", title: "bug detection held-out (pts)", scale: 100, digits: 1 },
  { key: "mul_suite", title: "Mul per suite", scale: 1, digits: 2 },
];

/** The paired differences of the test figures, new then old (TEST_COLUMNS' order). */
const PAIRED_TESTS: Column[] = TEST_COLUMNS.map((c) => ({ ...c, title: c.title.replace("(%)", "(pts)") }));

/** Metrics of the Test policy: golden-tests does not train one, so they are the base's. */
const BASE_TEST_KEYS = new Set<keyof EvalMetrics>(TEST_COLUMNS.map((c) => c.key));

/** Each trained mode minus base, seed by seed: mean and 95% bootstrap interval; rows reusing the base Test policy say so. */
export function pairedTable(main: JobResult[], columns: Column[] = PAIRED): string {
  const base = byMode(main, "base");
  if (base.length === 0) return "(base not evaluated: no paired differences)";
  const head = `| vs base | seeds | ${columns.map((c) => c.title).join(" | ")} |`;
  const sep = `|---|---:|${columns.map(() => "---:").join("|")}|`;
  const rows = rowLabels(main).filter((m) => m !== "base" && byMode(main, m).length).map((m) => {
    const cells = columns.map((c) => {
      if (m.split("+")[0] === "golden-tests" && BASE_TEST_KEYS.has(c.key)) return "base Test policy";
      const p = pairedDifference(byMode(main, m), base, c.key);
      const f = (x: number) => (x * c.scale).toFixed(c.digits);
      return p.n === 0 ? "n/a" : `${f(p.mean)} [${f(p.lo)}, ${f(p.hi)}]`;
    });
    return `| ${m} | ${pairedDifference(byMode(main, m), base, "plus_pass_heldout").n} | ${cells.join(" | ")} |`;
  });
  return [head, sep, ...rows].join("\n");
}

const byMode = (jobs: JobResult[], mode: string) => jobs.filter((j) => j.mode === mode);
/** Row labels in order: the known modes first, then variants (mode+ablation) as they appear. */
const rowLabels = (jobs: readonly JobResult[]) => [...MODE_ORDER, ...jobs.map((j) => j.mode).filter((m) => !MODE_ORDER.includes(m))].filter((m, i, all) => all.indexOf(m) === i);
const mean = (xs: number[]) => meanStd(xs).mean;

/** Mean of a step metric over the first / last fifth of training, averaged over seeds. */
function earlyLate(jobs: JobResult[], key: keyof StepMetrics): { early: number; late: number } {
  const part = (j: JobResult, late: boolean) => {
    const n = Math.max(1, Math.round(j.steps.length / 5));
    const xs = late ? j.steps.slice(-n) : j.steps.slice(0, n);
    return mean(xs.map((m) => m[key] as number));
  };
  return { early: mean(jobs.map((j) => part(j, false))), late: mean(jobs.map((j) => part(j, true))) };
}

/**
 * The outcomes issue 5 expects, each checked on the data. Comparisons between modes are judged on
 * the paired difference's 95% bootstrap interval over seeds (pairedDifference): **holds** when the
 * interval lies above 0, **does not hold** when it lies below, **undecided** when it contains 0.
 */
export function expectations(main: JobResult[], alpha: JobResult[] = []): string[] {
  const m = (mode: string, key: keyof EvalMetrics) => mean(byMode(main, mode).map((j) => j.metrics[key]));
  const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : "n/a");
  const pts = (x: number) => `${x >= 0 ? "+" : ""}${(100 * x).toFixed(1)}`;
  const verdict = (ok: boolean | null) => (ok === null ? "**not measurable**" : ok ? "**holds**" : "**does not hold**");
  const known = (...xs: number[]) => (xs.every(Number.isFinite) ? true : null);
  /** Verdict and text of a paired difference (points). */
  const judged = (p: PairedDifference) => {
    if (p.n === 0) return { v: "**not measurable**", text: "no paired seeds" };
    if (p.n === 1) return { v: "**undecided** (one seed: no interval)", text: `difference ${pts(p.mean)} points on one seed` };
    const v = p.lo > 0 ? "**holds**" : p.hi < 0 ? "**does not hold**" : "**undecided** (the interval contains 0)";
    return { v, text: `paired difference ${pts(p.mean)} points, 95% interval [${pts(p.lo)}, ${pts(p.hi)}] over ${p.n} seed(s)` };
  };
  /** Jobs whose metric `key` is replaced by a - b of the same job (a within-run difference, paired by seed). */
  const within = (jobs: JobResult[], a: keyof EvalMetrics, b: keyof EvalMetrics): JobResult[] =>
    jobs.map((j) => ({ ...j, metrics: { ...j.metrics, plus_pass_heldout: j.metrics[a] - j.metrics[b] } }));
  const zero = (jobs: JobResult[]): JobResult[] => jobs.map((j) => ({ ...j, metrics: { ...j.metrics, plus_pass_heldout: 0 } }));
  const out: string[] = [];

  let p = judged(pairedDifference(byMode(main, "code-a1"), byMode(main, "base"), "plus_pass_heldout"));
  out.push(`- Code-A1 above base on plus-pass (held-out): ${p.v}: ${pct(m("code-a1", "plus_pass_heldout"))} vs ${pct(m("base", "plus_pass_heldout"))}, ${p.text}; train ${pct(m("code-a1", "plus_pass_train"))} vs ${pct(m("base", "plus_pass_train"))}.`);
  // Fooled by weak golden tests: golden-tests' golden-minus-plus gap beyond the base's own gap
  // (the base already shows one from pretraining; only the excess is golden-tests' doing).
  p = judged(pairedDifference(within(byMode(main, "golden-tests"), "golden_pass_train", "plus_pass_train"), within(byMode(main, "base"), "golden_pass_train", "plus_pass_train"), "plus_pass_heldout"));
  out.push(`- Golden-tests fooled by weak tests (its golden-pass minus plus-pass gap on train tasks above the base's gap): ${p.v}: gap ${pct(m("golden-tests", "golden_pass_train") - m("golden-tests", "plus_pass_train"))} vs base ${pct(m("base", "golden_pass_train") - m("base", "plus_pass_train"))}, ${p.text}.`);
  const validity = earlyLate(byMode(main, "code-a1"), "test_validity");
  out.push(`- Code-A1's test validity rising over training: ${verdict(known(validity.early, validity.late) && validity.late > validity.early)}: ${pct(validity.early)} in the first fifth of steps, ${pct(validity.late)} in the last (a trend of the mean over seeds, no interval).`);
  // The Test policy's bug detection is measured on held-out suites at evaluation, against base on
  // the same draws: not the rollout failure rate, which falls as the Code policy improves.
  p = judged(pairedDifference(byMode(main, "code-a1"), byMode(main, "base"), "bug_detection_heldout"));
  out.push(`- Code-A1's bug detection above base (buggy variants a single suite catches, held-out tasks): ${p.v}: ${pct(m("code-a1", "bug_detection_heldout"))} vs ${pct(m("base", "bug_detection_heldout"))}, ${p.text}; old figure (every task) ${pct(m("code-a1", "bug_detection"))} vs ${pct(m("base", "bug_detection"))}.`);
  // R_adv switches to (gen_fail - hist_fail + 1) / 2 once a task's Mistake Book has tests, which lifts
  // it towards 0.5 whatever the suites do: the trend is judged on gen_fail, R_adv shown beside it.
  const sp = earlyLate(byMode(main, "self-play"), "gen_fail");
  const spAdv = earlyLate(byMode(main, "self-play"), "r_adv");
  out.push(`- Self-play's tests growing easy (fresh-test failure rate gen_fail falling): ${verdict(known(sp.early, sp.late) && sp.late < sp.early)}: ${sp.early.toFixed(3)} early, ${sp.late.toFixed(3)} late (a trend of the mean over seeds, no interval; R_adv ${spAdv.early.toFixed(3)} -> ${spAdv.late.toFixed(3)}, not comparable across steps: it changes formula when the Mistake Book replays).`);
  const codeA1 = byMode(main, "code-a1");
  p = judged(pairedDifference(within(codeA1, "tts_plus_pass", "plain_plus_pass"), zero(codeA1), "plus_pass_heldout"));
  out.push(`- Test-time scaling helps the trained pair (ranked above plain sampling): ${p.v}: ${pct(m("code-a1", "tts_plus_pass"))} vs ${pct(m("code-a1", "plain_plus_pass"))}, ${p.text}; base pair ${pct(m("base", "tts_plus_pass"))} vs ${pct(m("base", "plain_plus_pass"))}.`);
  if (codeA1.some((j) => Number.isFinite(j.metrics.tts_dual_plus_pass))) {
    // CodeT's dual execution agreement on the same suites and executions (rank.ts).
    p = judged(pairedDifference(within(codeA1, "tts_dual_plus_pass", "plain_plus_pass"), zero(codeA1), "plus_pass_heldout"));
    out.push(`- Test-time scaling by dual execution agreement (CodeT) helps the trained pair: ${p.v}: ${pct(m("code-a1", "tts_dual_plus_pass"))} vs ${pct(m("code-a1", "plain_plus_pass"))}, ${p.text}; base pair ${pct(m("base", "tts_dual_plus_pass"))}.`);
  }
  // The same gap against Code-A1's: weak golden tests let through buggy programs that a trained
  // Test policy's suites catch (the paper's motivation for generating tests).
  if (byMode(main, "code-a1").length > 0 && byMode(main, "golden-tests").length > 0) {
    p = judged(pairedDifference(within(byMode(main, "golden-tests"), "golden_pass_train", "plus_pass_train"), within(byMode(main, "code-a1"), "golden_pass_train", "plus_pass_train"), "plus_pass_heldout"));
    out.push(`- Golden-tests fooled by weak tests, against Code-A1 (its golden-pass minus plus-pass gap on train tasks above Code-A1's): ${p.v}: gap ${pct(m("golden-tests", "golden_pass_train") - m("golden-tests", "plus_pass_train"))} vs Code-A1 ${pct(m("code-a1", "golden_pass_train") - m("code-a1", "plus_pass_train"))}, ${p.text}.`);
  }
  // The paper's orderings (spec, "Headline results"), each as a paired difference between two modes
  // trained on the same seeds: code on held-out plus-pass, tests on Mul.
  const isMul = (key: keyof EvalMetrics) => MUL_KEYS.has(key);
  const metricText = (key: keyof EvalMetrics, x: number) => (isMul(key) ? x.toFixed(2) : pct(x));
  for (const [a, b, key, what] of ORDERINGS) {
    if (byMode(main, a).length === 0 || byMode(main, b).length === 0) continue;
    const d = pairedDifference(byMode(main, a), byMode(main, b), key);
    const q = isMul(key) ? { ...d, mean: d.mean / 100, lo: d.lo / 100, hi: d.hi / 100 } : d;
    p = judged(q);
    const text = isMul(key) ? p.text.replace(/points/g, "Mul") : p.text;
    out.push(`- ${NAMES[a]} above ${NAMES[b]} on ${what}: ${p.v}: ${metricText(key, m(a, key))} vs ${metricText(key, m(b, key))}, ${text}.`);
  }
  if (alpha.length > 0) {
    // alpha = 0.5 is code-a1's own runs, taken on the seeds the other alphas ran on (same seeds, same task order).
    const seeds = new Set(alpha.map((j) => j.seed));
    const alphas = [...new Set([...alpha.map((j) => j.alpha), 0.5])].sort((x, y) => x - y);
    const jobsOf = (a: number) => (a === 0.5 ? byMode(main, "code-a1").filter((j) => seeds.has(j.seed)) : alpha.filter((j) => j.alpha === a));
    const sweep = (key: keyof EvalMetrics) => alphas.map((a) => ({ a, mul: mean(jobsOf(a).map((j) => j.metrics[key])) }));
    const best = (rows: { a: number; mul: number }[]) => rows.filter((r) => Number.isFinite(r.mul)).reduce((x, y) => (y.mul > x.mul ? y : x), { a: NaN, mul: -Infinity });
    const list = (rows: { a: number; mul: number }[]) => rows.map((r) => `${r.a}: ${r.mul.toFixed(2)}`).join(", ");
    const bySuite = sweep("mul_suite");
    out.push(`- alpha = 0.5 gives the best Mul of the sweep (Mul per suite; paper: 7.14 at 0.5, 3.94-6.00 elsewhere): ${verdict(Number.isFinite(best(bySuite).a) ? best(bySuite).a === 0.5 : null)}: ${list(bySuite)}; union@k over hard mutants ${list(sweep("mul_hard_k"))}; old Mul ${list(sweep("mul"))} (mean over seed(s) ${[...seeds].sort((x, y) => x - y).join(", ")}, the seeds every alpha ran on; no interval).`);
  }
  return out;
}

/** Mul figures (on the paper's 0-100 scale already): paired differences are printed as Mul, not points. */
const MUL_KEYS = new Set<keyof EvalMetrics>(["mul", "mul_suite", "mul_hard_k"]);

const NAMES: Record<string, string> = { "code-a1": "Code-A1", "golden-tests": "Golden Tests", "self-play": "Self-Play", cure: "CURE", base: "Base" };

/**
 * The orderings the paper reports (Code-A1 >= Golden Tests >= Self-Play > Base on code, so also
 * Code-A1 >= Self-Play; Code-A1 >= Self-Play > Base on tests), and Code-A1 against CURE, which the paper discusses but does not
 * tabulate, plus transfer to unseen combinations of seen primitives and to unseen primitives. Tests are
 * judged on the new figures (hard mutants, held-out bug detection) and, for one release, on the old Mul.
 */
const ORDERINGS: [string, string, keyof EvalMetrics, string][] = [
  ["code-a1", "base", "plus_pass_heldout_compositional", "plus-pass@1 (held-out compositional: unseen combinations of seen primitives)"],
  ["code-a1", "base", "plus_pass_heldout_family", "plus-pass@1 (held-out family: a primitive never seen in training)"],
  ["code-a1", "golden-tests", "plus_pass_heldout", "code (plus-pass@1, held-out)"],
  ["code-a1", "self-play", "plus_pass_heldout", "code (plus-pass@1, held-out)"],
  ["golden-tests", "self-play", "plus_pass_heldout", "code (plus-pass@1, held-out)"],
  ["self-play", "base", "plus_pass_heldout", "code (plus-pass@1, held-out)"],
  ["code-a1", "self-play", "mul_suite", "tests (Mul per suite, hard mutants)"],
  ["code-a1", "self-play", "mul_hard_k", "tests (Mul union@k, hard mutants)"],
  ["code-a1", "self-play", "bug_detection_heldout", "tests (bug detection, held-out)"],
  ["code-a1", "self-play", "mul", "tests (old Mul: union@k over every mutant)"],
  ["self-play", "base", "mul_suite", "tests (Mul per suite, hard mutants)"],
  ["self-play", "base", "mul", "tests (old Mul: union@k over every mutant)"],
  ["code-a1", "cure", "plus_pass_heldout", "code (plus-pass@1, held-out)"],
  ["code-a1", "cure", "mul_suite", "tests (Mul per suite, hard mutants)"],
  ["code-a1", "cure", "mul", "tests (old Mul: union@k over every mutant)"],
];

/** A line chart of one step metric: mean over seeds per mode. */
export function curveSvg(main: JobResult[], key: keyof StepMetrics, title: string): string {
  const W = 560;
  const H = 300;
  const L = 50;
  const R = 120;
  const T = 30;
  const B = 36;
  const series = rowLabels(main).filter((mode) => byMode(main, mode).some((j) => j.steps.length > 0)).map((mode) => {
    const jobs = byMode(main, mode).filter((j) => j.steps.length > 0);
    const n = Math.max(...jobs.map((j) => j.steps.length));
    const ys = Array.from({ length: n }, (_, i) => mean(jobs.map((j) => (j.steps[i]?.[key] as number | undefined) ?? NaN)));
    return { mode, ys };
  });
  const all = series.flatMap((s) => s.ys).filter(Number.isFinite);
  const lo = Math.min(0, ...all);
  const hi = Math.max(lo + 1e-9, ...all);
  const n = Math.max(1, ...series.map((s) => s.ys.length));
  const x = (i: number) => L + ((W - L - R) * i) / Math.max(1, n - 1);
  const y = (v: number) => T + (H - T - B) * (1 - (v - lo) / (hi - lo));
  const lines = series.map((s, si) => {
    const pts = s.ys.map((v, i) => (Number.isFinite(v) ? `${x(i).toFixed(1)},${y(v).toFixed(1)}` : "")).filter(Boolean).join(" ");
    const color = COLORS[s.mode] ?? "#000";
    return `<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts}"/>` +
      `<text x="${W - R + 10}" y="${T + 16 * si + 10}" fill="${color}" font-size="12">${s.mode}</text>`;
  });
  const ticks = [lo, (lo + hi) / 2, hi].map((v) => `<text x="${L - 6}" y="${y(v) + 4}" font-size="11" text-anchor="end">${v.toFixed(2)}</text>`);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${L}" y="18" font-size="14">${title} (mean over seeds)</text>`,
    `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#333"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#333"/>`,
    ...ticks,
    `<text x="${(L + W - R) / 2}" y="${H - 8}" font-size="12" text-anchor="middle">step (1..${n})</text>`,
    ...lines,
    "</svg>",
  ].join("\n");
}

export const CURVES: { key: keyof StepMetrics; title: string; file: string }[] = [
  { key: "code_reward", title: "Code reward R_C", file: "curve-code-reward.svg" },
  { key: "test_reward", title: "Test reward R_T", file: "curve-test-reward.svg" },
  { key: "test_validity", title: "Test validity", file: "curve-test-validity.svg" },
  { key: "r_adv", title: "Adversarial reward R_adv", file: "curve-r-adv.svg" },
  { key: "gen_fail", title: "gen_fail (fresh tests failed / N)", file: "curve-gen-fail.svg" },
  // Named "Bug detection (pairs)" before: a rate over the step's own codes, not the Test policy's bug detection.
  { key: "rollout_fail_rate", title: "Rollout failure rate (code, suite pairs)", file: "curve-rollout-fail-rate.svg" },
];

/**
 * Per trained run: how often train tasks recurred (fewest / most visits) and Mistake Book replays
 * (sum over steps of the tasks shown stored tests; metric mistake_book_replays).
 */
export function replayTable(jobs: readonly JobResult[]): string {
  const trained = jobs.filter((j) => j.steps.length > 0);
  if (trained.length === 0) return "(no trained runs yet)";
  const rows = trained.map((j) => {
    const replays = j.steps.reduce((a, m) => a + (m.mistake_book_replays ?? NaN), 0);
    const last = j.steps[j.steps.length - 1];
    return `| ${j.mode}${j.alpha !== 0.5 ? ` alpha ${j.alpha}` : ""} | ${j.seed} | ${j.steps.length} | ${j.visits.min}-${j.visits.max} | ${Number.isFinite(replays) ? replays : "n/a"} | ${last.mistake_book_size} |`;
  });
  return ["| run | seed | steps | visits per train task | Mistake Book replays | Mistake Book size at the end |", "|---|---:|---:|---:|---:|---:|", ...rows].join("\n");
}

/**
 * A short hash of every job's evaluation (mode, seed, alpha, metrics to 4 decimals): the discussion
 * names the numbers it was written for, and the report notices when they changed.
 */
export function resultsFingerprint(jobs: readonly JobResult[]): string {
  const rows = jobs
    .map((j) => [j.mode, j.seed, j.alpha, ...Object.keys(j.metrics).sort().map((k) => `${k}=${Number(j.metrics[k as keyof EvalMetrics]).toFixed(4)}`)].join(","))
    .sort();
  return createHash("sha256").update(rows.join("\n")).digest("hex").slice(0, 12);
}

/** The hand-written discussion, with a warning when it was written for other numbers. */
function discussionSection(discussion: string | null, fingerprint: string): string {
  if (discussion === null) return "(no discussion written for these numbers yet: docs/results/discussion.md)";
  const named = /^<!--\s*results\s+([0-9a-f]{12})\s*-->/.exec(discussion)?.[1];
  const body = discussion.replace(/^<!--[^\n]*-->\n?/, "").trim();
  if (named === fingerprint) return body;
  return `**The discussion below was written for other numbers (results ${named ?? "unnamed"}, these are ${fingerprint}): re-read it against the tables before trusting it.**\n\n${body}`;
}

/** The whole RESULTS.md. */
export function resultsMarkdown(r: ReportInput): string {
  const rows = rowLabels(r.main).filter((mode) => byMode(r.main, mode).length).map((mode) => ({ label: mode, jobs: byMode(r.main, mode) }));
  const alphas = [...new Set([...r.alpha.map((j) => j.alpha), 0.5])].sort((a, b) => a - b);
  const alphaRows = alphas.map((alpha) => ({
    label: `alpha = ${alpha}`,
    jobs: alpha === 0.5 ? byMode(r.main, "code-a1") : r.alpha.filter((j) => j.alpha === alpha),
  }));
  const seconds = [...r.main, ...r.alpha].reduce((a, j) => a + j.trainSeconds, 0);
  const fingerprint = resultsFingerprint([...r.main, ...r.alpha]);
  return `# Results: the Code-A1 claim in miniature

Generated by \`npm run reproduce\` on ${r.generatedAt}; do not edit by hand (the Discussion comes from docs/results/discussion.md).
${r.seeds.length < 3 || r.steps < 5 ? `\n**A smoke run (${r.seeds.length} seed(s), ${r.steps} steps): it shows the pipeline works end to end, not whether the claim holds.**\n` : ""}
\`\`\`sh
${r.command}
\`\`\`

Task set ${r.taskSet}. Preset \`${r.preset}\`, ${r.steps} training steps, seeds ${r.seeds.join(", ")}; evaluation: ${r.evalSamples} samples per task at
temperature 0.7 on ${r.evalTasks}, evaluation seed ${r.evalSeed} for every run (it does not follow the run seed); pass@k and
mut@k with k = ${r.evalK} (n = ${r.evalSamples}). Cells are mean ± sample standard deviation over seeds. Training time of all
runs: ${(seconds / 60).toFixed(1)} min.

## Main comparison

${table(rows)}

Columns as in the paper: plus-pass@1 is the share of sampled programs passing every plus test (EvalPlus-style,
~100 seeded inputs per task); held-out is every task outside the train split, "compositional" the held-out tasks that
combine primitives each seen in training, "family" those with a primitive never seen in training (docs/TASKS.md); golden-pass@1 the same on the tasks' hand-written tests, test validity the share of
generated assert lines that are correct on the reference, bug detection held-out the share of a held-out task's hand-written
buggy variants a single suite catches (averaged over suites and tasks), Mul per suite = pass@k x (hard mutants a single
suite kills) x 100 (test figures in full below). "plain" / "ranked": test-time scaling, the
plus-pass@1 of a random sample vs the sample the Test policy's own suites rank first (section 5 of issue 5).

${byMode(r.main, "golden-tests").length ? "golden-tests trains no Test policy: its test columns (validity, bug detection, Mul) are the base Test policy's.\n" : ""}
## Test metrics: what the suites catch

${table(rows, TEST_COLUMNS)}

Two sets of wrong programs, each measured two ways. **Mutants**: first-order mutants of the reference
(Cosmic-Ray-style operators, src/core/arena/mutate.py) that some plus test kills; the **hard** ones also
survive the default input (the empty list, 0, "") and at least 12 of 16 random inputs, so a suite does not kill
them by luck (src/core/arena/mutants.ts). **Buggy variants**: each task's hand-written wrong programs. **Per suite**: the
share a single suite catches, averaged over the n = ${r.evalSamples} suites and over tasks. **union@k**: the share at least one of
the first k = ${r.evalK} suites catches (the paper's mut@k). Mul = pass@k x rate x 100 on the paper's scale.

Old figures, kept for one release: "mut@k, every mutant" and "Mul" are the union over every killable mutant (what
the paper-style Mul column showed before; near 100% for any valid suite, so Mul tracked pass@k), and "variants per suite,
every task" is the former bug-detection column (train and held-out tasks together).

## Paired differences against base

${pairedTable(r.main)}

Test figures:

${pairedTable(r.main, PAIRED_TESTS)}

Per seed, the mode's metric minus base's (base players are the same checkpoints for every seed and are measured
with the same evaluation seed); mean over seeds and a 95% percentile bootstrap interval over seeds (2000 resamples).
An interval that contains 0 is no evidence of a difference.

"plus tests passed" is partial credit beside the all-or-nothing plus-pass@1: the mean share of a task's plus tests a
sample passes.

## Task recurrence and Mistake Book replays

${replayTable([...r.main, ...r.alpha])}

## Alpha ablation (Code-A1)

${table(alphaRows)}

## Curves

${CURVES.map((c) => `![${c.title}](${r.curveDir}/${c.file})`).join("\n")}

Training-time rates over the step's own samples. The rollout failure rate, the share of (sampled code, suite) pairs in
which the code fails a test, was called "Bug detection (pairs)" before: it falls as the Code policy improves, so it
does not measure the Test policy (bug detection held-out above does). gen_fail is the spec's share of a suite's first N
fresh tests the code fails, over N; R_adv equals it until a task's Mistake Book has tests, then becomes
(gen_fail - hist_fail + 1) / 2, which lifts it towards 0.5 as tasks recur.

## What we expected, checked on these numbers

${expectations(r.main, r.alpha).join("\n")}

## Discussion

${discussionSection(r.discussion, fingerprint)}

## Where the miniature does and does not match the paper

- Scale: the paper trains 1.5B-7B pretrained LLMs for ~111 steps of 256 tasks on MBPP/HumanEval-style data; here one
  joint base transformer of ~0.14M parameters (\`tiny\`; Code-A1 trains two copies of it) trains for ${r.steps} steps of 4
  tasks on ${r.taskSet}, on CPU (wasm). Absolute numbers are not comparable; only the direction of differences is.
- Seeds: ${r.seeds.length} seed(s) per mode. Where the ± spread is as large as a difference between rows, that difference is
  not evidence either way. The base is measured once (one evaluation seed), so its own sampling noise (about 1.5 points on
  held-out plus-pass, docs/TASKS.md) is not in the intervals.
- The base players are ${r.main.some((j) => j.mode === "base") ? "the one shipped joint checkpoint (public/checkpoints/base-tiny.bin, docs/BASE-MODELS.md), which every mode also starts from" : "not evaluated in this run"}.
- Rewards, the Mistake Book, TopVar and GRPO follow the spec exactly; the grammar-constrained decoding (every sample is
  runnable arena-Python) has no counterpart in the paper and removes the syntax-error failure mode the paper's models
  must unlearn.
- Each expectation above is marked holds / does not hold / undecided by its paired 95% interval over seeds (the
  trends by their means); a "does not hold" is a result, not a bug report.

<sub>results fingerprint ${fingerprint}</sub>
`;
}
