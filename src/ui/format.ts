/** Number, time and progress formatting for every view: one place, so charts, tables and the header agree. */

/** A metric value: "–" for missing (eval metrics on non-eval steps), fixed digits otherwise. */
export function formatNumber(x: number | null | undefined, digits = 3): string {
  if (x === null || x === undefined || Number.isNaN(x)) return "–";
  if (!Number.isFinite(x)) return x > 0 ? "∞" : "-∞";
  if (Number.isInteger(x) && Math.abs(x) < 1e6) return String(x);
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return x.toExponential(Math.max(1, digits - 1));
  return x.toFixed(digits);
}

/**
 * An axis tick: as many decimals as the tick spacing `step` needs to tell neighbours apart (0.25 ->
 * 2, 0.0005 -> 4, at most 6), so ticks 0.0005 and 0.0010 do not both read "0.00".
 */
export function formatTick(v: number, step: number): string {
  let d = 0;
  while (d < 6 && Math.abs(step * 10 ** d - Math.round(step * 10 ** d)) > 1e-6 * step * 10 ** d) d++;
  const s = v.toFixed(d);
  return /^-0(\.0*)?$/.test(s) ? s.slice(1) : s;
}

/** A fraction in [0, 1] as a percentage, "42.5 %". */
export function formatPercent(x: number | null | undefined, digits = 1): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return "–";
  return `${(x * 100).toFixed(digits)} %`;
}

/** A duration for people: "42 s", "3 min 05 s", "1 h 02 min". */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return "–";
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
}

/** Milliseconds as "850 ms" / "1.2 s". */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "–";
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export interface Progress {
  /** Fraction done in [0, 1]. */
  fraction: number;
  /** "step 12 / 30". */
  label: string;
  /** "about 3 min 05 s left", or "" when unknown or finished. */
  eta: string;
}

/** Progress of a run from its status event. */
export function runProgress(step: number, steps: number, eta_s: number | null): Progress {
  const fraction = steps > 0 ? Math.min(1, Math.max(0, step / steps)) : 0;
  const eta = eta_s === null || step >= steps ? "" : `about ${formatDuration(eta_s)} left`;
  return { fraction, label: `step ${step} / ${steps}`, eta };
}

/**
 * ETA from the step times seen so far: mean of the last `window` step durations times the steps
 * left. Used when the orchestrator has not sent one yet (its own estimate wins).
 */
export function estimateEta(stepMs: readonly number[], step: number, steps: number, window = 5): number | null {
  const recent = stepMs.slice(-window).filter((x) => Number.isFinite(x) && x >= 0);
  if (recent.length === 0 || step >= steps) return null;
  const mean = recent.reduce((a, b) => a + b, 0) / recent.length;
  return ((steps - step) * mean) / 1000;
}

/**
 * At most `max` characters of a stored text for display, and how many were left out: a text from a
 * stranger's run (an imported .a1run) may be as long as its config's bounds allow (megabytes), and
 * highlighting it whole would hold the page for seconds. No program or test the policies write here
 * comes near the limits the views use (CODE_SHOWN_CHARS, LINE_SHOWN_CHARS).
 */
export function clipText(text: string, max: number): { shown: string; hidden: number } {
  if (text.length <= max) return { shown: text, hidden: 0 };
  // Never split a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(text[max - 1] ?? "") ? max - 1 : max;
  return { shown: text.slice(0, end), hidden: text.length - end };
}

/** The note shown after a clipped text. */
export function hiddenNote(hidden: number): string {
  return `… ${hidden.toLocaleString("en-US")} more characters not shown`;
}
