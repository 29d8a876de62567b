/**
 * Validation of configurations from JSON, bundles, the command line and the URL: unknown keys and
 * bad values are rejected with a message that names the field, as nanoGPT's configurator does.
 */
import { CONFIG_FIELDS, CONFIG_KEYS, DEFAULT_CONFIG, type Config, type ConfigKey, type FieldSpec } from "./fields.ts";

/** A configuration field is unknown, missing or out of range; `field` names it. */
export class ConfigError extends Error {
  override name = "ConfigError";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`config.${field}: ${message}`);
  }
}

function isConfigKey(k: string): k is ConfigKey {
  return Object.prototype.hasOwnProperty.call(CONFIG_FIELDS, k);
}

/** The closest known key, for "did you mean" in errors. */
function suggest(key: string): string {
  let best = "";
  let bestD = Infinity;
  for (const k of CONFIG_KEYS) {
    const d = editDistance(key, k);
    if (d < bestD) [best, bestD] = [k, d];
  }
  return bestD <= Math.max(2, key.length / 3) ? ` (did you mean ${best}?)` : "";
}

/**
 * What is wrong with `value` for a field (type, integer, bounds), or null when it fits. The one
 * place a field's bounds are enforced: the config (checkField) and the Policy's training config
 * (policy/train-config.ts) both ask it.
 */
export function fieldProblem(spec: FieldSpec, value: unknown): string | null {
  switch (spec.kind) {
    case "bool":
      return typeof value === "boolean" ? null : `expected true or false, got ${show(value)}`;
    case "enum":
      if (typeof value === "string" && (spec.values.includes(value) || spec.pattern?.re.test(value))) return null;
      return `expected one of ${[...spec.values, ...(spec.pattern ? [spec.pattern.text] : [])].join(", ")}, got ${show(value)}`;
    case "int":
    case "number": {
      if (typeof value !== "number" || !Number.isFinite(value)) return `expected a finite number, got ${show(value)}`;
      if (spec.kind === "int" && !Number.isInteger(value)) return `expected an integer, got ${value}`;
      const exclusive = "exclusiveMin" in spec && spec.exclusiveMin === true;
      if (exclusive ? value > spec.min : value >= spec.min) {
        if (value <= spec.max) return null;
      }
      return `expected a value in ${exclusive ? "(" : "["}${spec.min}, ${spec.max}], got ${value}`;
    }
  }
}

/** Check one value against its field; returns it typed. */
export function checkField(key: string, value: unknown): Config[ConfigKey] {
  if (!isConfigKey(key)) throw new ConfigError(key, `unknown field${suggest(key)}; known fields: ${CONFIG_KEYS.join(", ")}`);
  const problem = fieldProblem(CONFIG_FIELDS[key], value);
  if (problem !== null) throw new ConfigError(key, problem);
  return value as Config[ConfigKey];
}

/**
 * A field's value from text: THE parser of the URL query, the settings form and command-line
 * flags. `true`/`false` for switches, a decimal or exponent number for numbers (surrounding blanks
 * ignored), the value's name for choices; then the field's own check. Throws ConfigError naming
 * the field (unknown fields with "did you mean").
 */
export function fieldFromText(key: string, text: string): Config[ConfigKey] {
  if (!isConfigKey(key)) return checkField(key, text);
  const spec: FieldSpec = CONFIG_FIELDS[key];
  const t = text.trim();
  if (spec.kind === "bool") {
    if (t === "true" || t === "false") return t === "true";
    throw new ConfigError(key, `expected true or false, got ${JSON.stringify(text)}`);
  }
  if (spec.kind === "int" || spec.kind === "number") {
    if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) throw new ConfigError(key, `expected a number, got ${JSON.stringify(text)}`);
    return checkField(key, Number(t));
  }
  return checkField(key, t);
}

/** Rules between fields. */
export function checkConsistency(c: Config): void {
  if (c.topvar_k > c.num_generations) {
    throw new ConfigError("topvar_k", `must be at most num_generations (${c.num_generations}), got ${c.topvar_k}`);
  }
  if (c.epsilon_high < c.epsilon) {
    throw new ConfigError("epsilon_high", `must be at least epsilon (${c.epsilon}), got ${c.epsilon_high}`);
  }
}

/**
 * Parse a (partial) configuration object over `base` (default: DEFAULT_CONFIG). Unknown keys, bad
 * values and inconsistent combinations throw ConfigError naming the field.
 */
export function parseConfig(input: unknown, base: Readonly<Config> = DEFAULT_CONFIG): Config {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new ConfigError("(root)", `expected an object of fields, got ${show(input)}`);
  }
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(input)) out[k] = checkField(k, v);
  const config = out as Config;
  checkConsistency(config);
  return config;
}

/**
 * Fields added after runs were first stored, with the value that reproduces how a run stored
 * without them trained: TopVar on, one mini-batch per update (every preset's batch fit the old
 * fixed 64), zero-advantage samples dropped, tasks drawn at random (the draws themselves now come
 * from another stream, so a resumed old run continues with other tasks), the backend chosen
 * automatically.
 */
export const LEGACY_FIELD_VALUES: Readonly<Partial<Config>> = Object.freeze({ topvar: true, mini_batches: 1, drop_zero_advantage: true, task_order: "random", backend: "auto", task_set: "arena-v1", train_tasks: 0 });

/**
 * Parse a complete configuration (a stored run, a bundle): every field must be present, except the
 * LEGACY_FIELD_VALUES ones, which a configuration written before they existed takes from there.
 */
export function parseFullConfig(input: unknown): Config {
  if (typeof input === "object" && input !== null && !Array.isArray(input)) {
    input = { ...LEGACY_FIELD_VALUES, ...input };
    const missing = CONFIG_KEYS.filter((k) => !Object.hasOwn(input as object, k));
    if (missing.length > 0) throw new ConfigError(missing[0], `missing (all fields are required here; missing: ${missing.join(", ")})`);
  }
  return parseConfig(input);
}

/** The fields whose values differ from `base`. */
export function configDiff(c: Readonly<Config>, base: Readonly<Config> = DEFAULT_CONFIG): Partial<Config> {
  const diff: Record<string, unknown> = {};
  for (const k of CONFIG_KEYS) if (c[k] !== base[k]) diff[k] = c[k];
  return diff as Partial<Config>;
}

function show(v: unknown): string {
  const s = typeof v === "string" ? JSON.stringify(v) : typeof v === "object" ? JSON.stringify(v) ?? String(v) : String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function editDistance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0];
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = d[j];
      d[j] = Math.min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return d[b.length];
}
