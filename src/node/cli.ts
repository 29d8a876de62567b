/**
 * Argument parsing of the Node command lines (`npm run train / eval / reproduce`): each command
 * declares its flags once; unknown flags, missing values and bad numbers are a CliError naming
 * the flag, which the scripts print with their usage and exit 2.
 */
import { CONFIG_KEYS, ConfigError, fieldFromText, MODES, presetConfig, type Config, type ConfigKey, type Mode } from "../core/config/index.ts";
import { own } from "../core/own.ts";

export class CliError extends Error {
  override name = "CliError";
}

export interface FlagSpec {
  kind: "string" | "int" | "number" | "bool";
  /** Lower bound for numbers. */
  min?: number;
  help: string;
  /** A config field by its own name (withConfigFlags): its text is read by fieldFromText, as in the URL and the settings form. */
  configField?: true;
}

export interface ParsedArgs {
  flags: Record<string, string | number | boolean>;
  positional: string[];
}

/** `--name value`, `--name=value` and bare `--bool`; everything else positional. */
export function parseArgs(argv: readonly string[], specs: Record<string, FlagSpec>, maxPositional: number): ParsedArgs {
  const flags: ParsedArgs["flags"] = {};
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const spec = own(specs, name); // `--constructor` is not a flag
    if (!spec) {
      const named = Object.keys(specs).filter((k) => !specs[k].configField);
      const fields = named.length < Object.keys(specs).length ? " or any config field (--alpha 0.25, docs/CONFIG.md)" : "";
      throw new CliError(`unknown flag --${name}; known: ${named.map((k) => `--${k}`).join(", ")}${fields}`);
    }
    if (Object.hasOwn(flags, name)) throw new CliError(`--${name} given twice`);
    if (spec.kind === "bool") {
      if (eq >= 0) throw new CliError(`--${name} takes no value`);
      flags[name] = true;
      continue;
    }
    const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || (eq < 0 && value.startsWith("--"))) throw new CliError(`--${name} needs a value (${spec.help})`);
    if (spec.kind === "string") {
      flags[name] = value;
      continue;
    }
    const n = Number(value);
    if (value.trim() === "" || !Number.isFinite(n) || (spec.kind === "int" && !Number.isInteger(n))) {
      throw new CliError(`--${name} must be ${spec.kind === "int" ? "an integer" : "a number"}, got ${JSON.stringify(value)}`);
    }
    if (spec.min !== undefined && n < spec.min) throw new CliError(`--${name} must be >= ${spec.min}, got ${n}`);
    flags[name] = n;
  }
  if (positional.length > maxPositional) {
    throw new CliError(maxPositional === 0 ? `unexpected argument ${JSON.stringify(positional[0])}` : `unexpected argument ${JSON.stringify(positional[maxPositional])}`);
  }
  return { flags, positional };
}

/** Usage lines from the flag table. */
export function usage(command: string, synopsis: string, specs: Record<string, FlagSpec>): string {
  const rows = Object.entries(specs).filter(([, s]) => !s.configField).map(([k, s]) => `  --${k}${s.kind === "bool" ? "" : ` <${s.kind}>`}`.padEnd(26) + s.help);
  if (Object.values(specs).some((s) => s.configField)) rows.push("  --<field> <value>".padEnd(26) + "any config field by its name (docs/CONFIG.md), e.g. --alpha 0.25 --topvar false --mini_batches 1");
  return [`usage: npm run ${command} -- ${synopsis}`, ...rows].join("\n");
}

/** A command's flags plus every config field not already one of them, as a flag of its own name. */
export function withConfigFlags(specs: Record<string, FlagSpec>): Record<string, FlagSpec> {
  const out = { ...specs };
  for (const k of CONFIG_KEYS) if (!Object.hasOwn(out, k)) out[k] = { kind: "string", help: `config field ${k}`, configField: true };
  return out;
}

/** The config fields given as flags, each read by fieldFromText (the URL's and the settings form's parser). */
export function configFlagValues(flags: ParsedArgs["flags"]): Partial<Config> {
  const out: Record<string, unknown> = {};
  for (const k of CONFIG_KEYS) {
    const v = own(flags, k);
    if (v === undefined) continue;
    try {
      out[k] = fieldFromText(k as ConfigKey, String(v));
    } catch (e) {
      if (e instanceof ConfigError) throw new CliError(`--${k}: ${e.message}`);
      throw e;
    }
  }
  return out as Partial<Config>;
}

/**
 * A preset's config with a seed, mode and step count on top (and any other `fields`), config
 * errors turned into CliErrors.
 */
export function cliConfig(preset: string, overrides: { seed?: number; steps?: number; mode?: string; evalEvery?: number; alpha?: number }, fields: Partial<Config> = {}): Config {
  if (overrides.mode !== undefined && !(MODES as readonly string[]).includes(overrides.mode)) {
    throw new CliError(`--mode must be one of ${MODES.join(", ")}, got ${JSON.stringify(overrides.mode)}`);
  }
  const extra: Partial<Config> = { ...fields };
  if (overrides.seed !== undefined) extra.seed = overrides.seed;
  if (overrides.steps !== undefined) extra.steps = overrides.steps;
  if (overrides.mode !== undefined) extra.mode = overrides.mode as Mode;
  if (overrides.evalEvery !== undefined) extra.eval_every = overrides.evalEvery;
  if (overrides.alpha !== undefined) extra.alpha = overrides.alpha;
  try {
    return presetConfig(preset, extra);
  } catch (e) {
    if (e instanceof ConfigError) throw new CliError(e.message);
    throw e;
  }
}

/** `--train-tasks` / `--eval-train-tasks`: which train tasks an evaluation covers (default trained). */
export function trainTasksFlag(v: unknown): "trained" | "all" {
  if (v === undefined || v === "trained" || v === "all") return v ?? "trained";
  throw new CliError(`--train-tasks must be trained or all, got ${JSON.stringify(v)}`);
}

/** Seconds as `1h02m`, `3m05s`, `12s`. */
export function formatDuration(s: number): string {
  if (!Number.isFinite(s)) return "?";
  const r = Math.max(0, Math.round(s));
  if (r >= 3600) return `${Math.floor(r / 3600)}h${String(Math.floor((r % 3600) / 60)).padStart(2, "0")}m`;
  if (r >= 60) return `${Math.floor(r / 60)}m${String(r % 60).padStart(2, "0")}s`;
  return `${r}s`;
}
