/**
 * Settings: one input per CONFIG_FIELDS entry, generated from the table (so a new field appears
 * with its documentation and bounds), and typed text validated with the config's own errors
 * (ConfigError names the field).
 */
import { CONFIG_FIELDS, CONFIG_KEYS, ConfigError, fieldFromText, parseConfig, type Config, type ConfigKey, type FieldSpec } from "../core/config/index.ts";

export interface FieldView {
  key: ConfigKey;
  group: FieldSpec["group"];
  kind: FieldSpec["kind"];
  effect: string;
  when: string;
  trl: boolean;
  /** enum values; empty for other kinds. */
  options: readonly string[];
  /** Bounds as text, e.g. "1..100000" or "(0, 1]". */
  range: string;
  default: string;
}

export function fieldViews(): FieldView[] {
  return CONFIG_KEYS.map((key) => {
    const f: FieldSpec = CONFIG_FIELDS[key];
    const range =
      f.kind === "int" ? `${f.min}..${f.max}` : f.kind === "number" ? `${"exclusiveMin" in f && f.exclusiveMin ? "(" : "["}${f.min}, ${f.max}]` : "";
    return {
      key,
      group: f.group,
      kind: f.kind,
      effect: f.effect,
      when: f.when,
      trl: "trl" in f && f.trl === true,
      options: f.kind === "enum" ? f.values : [],
      range,
      default: String(f.default),
    };
  });
}

/** The text an input shows for a value. */
export function fieldText(value: Config[ConfigKey]): string {
  return String(value);
}

/** Parse an input's text into the field's type (the same parser as the URL and the command line); throws ConfigError naming the field. */
export const parseFieldText = fieldFromText;

export type EditResult = { ok: true; config: Config } | { ok: false; field: string; message: string };

/**
 * Apply one edited field to a configuration, checking the field and the rules between fields
 * (e.g. topvar_k <= num_generations). On error, `field` is the field to highlight.
 */
export function applyFieldEdit(config: Readonly<Config>, key: string, text: string): EditResult {
  try {
    const value = parseFieldText(key, text);
    return { ok: true, config: parseConfig({ [key]: value }, config) };
  } catch (e) {
    if (e instanceof ConfigError) return { ok: false, field: e.field, message: e.message };
    throw e;
  }
}
