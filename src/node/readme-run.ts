/**
 * What `npm run screenshots` needs of a run before it pictures it on the front page: proof that it is
 * a run the software really trained (metrics of every step with their timings, trained checkpoints,
 * duel records), and the `npm run train` command line that reproduces it, from the bundle's config.
 */
import type { RunSnapshot } from "../core/bundle.ts";
import { CONFIG_KEYS, configDiff, presetConfig, PRESET_NAMES, type Config, type PresetName } from "../core/config/index.ts";

/** A bundle that is not a really trained run; the message lists every reason. */
export class NotARealRunError extends Error {
  override name = "NotARealRunError";
}

/** Why this snapshot is not a run the software trained (empty: it is one). */
export function realRunProblems(s: RunSnapshot): string[] {
  const problems: string[] = [];
  if (s.run.step === 0 || s.metrics.length === 0) problems.push("it has no metrics: no step was trained");
  const untimed = s.metrics.filter((m) => !(m.time_sample_ms > 0 && m.time_grade_ms > 0));
  if (untimed.length > 0) problems.push(`${untimed.length} of its ${s.metrics.length} steps record no sampling or grading time (first: step ${untimed[0].step}), which a trained step always has`);
  const withWeights = s.checkpoints.filter((c) => Object.keys(c.policies).length > 0 && Object.values(c.policies).every((b) => b.length > 0));
  if (s.checkpoints.length === 0) problems.push("it has no checkpoints: a trained run saves the policies' weights");
  else if (withWeights.length < s.checkpoints.length) problems.push("some of its checkpoints carry no weights");
  else if (!s.checkpoints.some((c) => c.step > 0)) problems.push("its only checkpoint is the base players' (step 0): no trained weights");
  if (s.duels.length === 0 || s.duels.every((d) => d.records.length === 0)) problems.push("it has no duel records: the Duel view would be empty");
  return problems;
}

/** Throws NotARealRunError naming every problem. */
export function assertRealRun(s: RunSnapshot, label: string): void {
  const problems = realRunProblems(s);
  if (problems.length > 0) throw new NotARealRunError(`${label} is not a real run, refusing to picture it: ${problems.join("; ")}.`);
}

/** A flag's value as command-line text (config values read back by fieldFromText), quoted when it needs it. */
function flagText(v: Config[keyof Config] | string): string {
  const s = String(v);
  return /^[A-Za-z0-9._+/-]+$/.test(s) ? s : JSON.stringify(s);
}

/**
 * The `npm run train` command that trains this config: the preset it differs least from, the seed,
 * then every other field that differs, in the config table's order. `tasksFile`: the run trained on
 * a task file the app does not ship (`--tasks FILE`).
 */
export function trainCommand(config: Readonly<Config>, out: string, tasksFile?: string): { command: string; preset: PresetName } {
  let best: { preset: PresetName; diff: Partial<Config> } | null = null;
  for (const preset of PRESET_NAMES) {
    const diff = configDiff(config, presetConfig(preset));
    if (!best || Object.keys(diff).length < Object.keys(best.diff).length) best = { preset, diff };
  }
  const { preset, diff } = best!;
  const flags = [`--preset ${preset}`, `--seed ${config.seed}`];
  for (const k of CONFIG_KEYS) if (k !== "seed" && Object.hasOwn(diff, k)) flags.push(`--${k} ${flagText(config[k])}`);
  if (tasksFile !== undefined) flags.push(`--tasks ${flagText(tasksFile)}`);
  flags.push(`--out ${flagText(out)}`);
  return { command: `npm run train -- ${flags.join(" ")}`, preset };
}
