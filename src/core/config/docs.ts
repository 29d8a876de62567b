/**
 * docs/CONFIG.md is rendered from the field table (fields.ts) and the presets, so the documentation
 * cannot drift from the code: tests/unit/config/docs.test.ts fails when the file is stale, and
 * `npx tsx scripts/config-doc.ts` rewrites it.
 */
import { CONFIG_FIELDS, CONFIG_KEYS, type FieldSpec } from "./fields.ts";
import { ALPHA_SWEEP, PRESETS, PRESET_NAMES } from "./presets.ts";

/** Section titles of the config groups, in docs/CONFIG.md and the Settings view. */
export const GROUP_TITLES: Record<FieldSpec["group"], string> = {
  run: "Run",
  sampling: "Sampling",
  rewards: "Rewards (Code-A1)",
  optimisation: "Optimisation (GRPO, both policies)",
  models: "Models",
  persistence: "Persistence",
};

function typeText(f: FieldSpec): string {
  switch (f.kind) {
    case "bool":
      return "bool";
    case "enum":
      return [...f.values, ...(f.pattern ? [f.pattern.text] : [])].map((v) => `\`${v}\``).join(" | ");
    case "int":
      return `int ${f.min}..${f.max}`;
    case "number":
      return `number ${"exclusiveMin" in f && f.exclusiveMin ? "(" : "["}${f.min}, ${f.max}]`;
  }
}

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** The full text of docs/CONFIG.md. */
export function renderConfigDoc(): string {
  const out: string[] = [
    "# Configuration",
    "",
    "<!-- Generated from src/core/config/fields.ts and presets.ts by `npx tsx scripts/config-doc.ts`; do not edit by hand. -->",
    "",
    "One typed object configures a run (`Config` in `src/core/config/fields.ts`). Unknown fields and bad values are",
    "rejected with an error naming the field. Fields marked TRL have the name and meaning of TRL's `GRPOConfig`.",
    "The same table drives the URL query: `?preset=classroom&alpha=0.25&mistake_book=false` (only fields that differ",
    "from the preset are written; `configToQuery` / `configFromQuery` in `src/core/config/query.ts`).",
    "",
  ];
  const groups = [...new Set(CONFIG_KEYS.map((k) => CONFIG_FIELDS[k].group))];
  for (const g of groups) {
    out.push(`## ${GROUP_TITLES[g]}`, "", "| field | type | default | effect | when to change |", "|---|---|---|---|---|");
    for (const k of CONFIG_KEYS) {
      const f: FieldSpec = CONFIG_FIELDS[k];
      if (f.group !== g) continue;
      const name = f.trl ? `\`${k}\` (TRL)` : `\`${k}\``;
      out.push(`| ${name} | ${cell(typeText(f))} | \`${String(f.default)}\` | ${cell(f.effect)} | ${cell(f.when)} |`);
    }
    out.push("");
  }
  out.push("## Presets", "", "| preset | what it is | overrides |", "|---|---|---|");
  for (const name of PRESET_NAMES) {
    const p = PRESETS[name];
    const o = Object.entries(p.overrides).map(([k, v]) => `${k}=${String(v)}`).join(", ") || "(the defaults)";
    out.push(`| \`${name}\` | ${cell(p.description)} | ${cell(o)} |`);
  }
  out.push("", `The alpha sweep of the paper's ablation: ${ALPHA_SWEEP.join(", ")} (0.5 is the default).`, "");
  return out.join("\n");
}
