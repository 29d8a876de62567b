/**
 * A configuration as a URL query (TensorFlow Playground style): `?preset=classroom&alpha=0.25`.
 * Derived from the field table, so every field is addressable and nothing else is accepted. Only
 * the fields that differ from the preset (or the defaults) are written, so links stay short.
 */
import type { Config } from "./fields.ts";
import { ConfigError, configDiff, fieldFromText, parseConfig } from "./parse.ts";
import { PRESET_NAMES, isPresetName, presetConfig, type PresetName } from "./presets.ts";

/** Encode: `preset=` first when given, then the differing fields in table order. */
export function configToQuery(config: Readonly<Config>, preset?: PresetName): string {
  const base = preset ? presetConfig(preset) : undefined;
  const params = new URLSearchParams();
  if (preset) params.set("preset", preset);
  for (const [k, v] of Object.entries(configDiff(config, base))) params.set(k, String(v));
  return params.toString();
}

/**
 * Decode a query (with or without the leading `?`). Unknown keys, repeated keys and bad values
 * throw ConfigError naming the field; several bad fields are all named in one ConfigError
 * (its `field`: the names joined by ", ", its message: every field's own message).
 */
export function configFromQuery(query: string | URLSearchParams): { config: Config; preset: PresetName | null } {
  const params = typeof query === "string" ? new URLSearchParams(query.startsWith("?") ? query.slice(1) : query) : query;
  const seen = new Set<string>();
  let preset: PresetName | null = null;
  const fields: Record<string, unknown> = {};
  const problems: ConfigError[] = [];
  for (const [k, v] of params) {
    try {
      if (seen.has(k)) throw new ConfigError(k, "given more than once in the query");
      seen.add(k);
      if (k === "preset") {
        if (!isPresetName(v)) throw new ConfigError("preset", `unknown preset ${JSON.stringify(v)}; known: ${PRESET_NAMES.join(", ")}`);
        preset = v;
      } else {
        fields[k] = fieldFromText(k, v);
      }
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      problems.push(e);
    }
  }
  if (problems.length === 1) throw problems[0];
  if (problems.length > 1) {
    const all = new ConfigError(problems.map((p) => p.field).join(", "), "");
    all.message = problems.map((p) => p.message).join("; ");
    throw all;
  }
  const config = preset ? presetConfig(preset, fields) : parseConfig(fields);
  return { config, preset };
}
