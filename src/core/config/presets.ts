/**
 * Named configurations. A preset is a set of overrides on DEFAULT_CONFIG (itself the classroom
 * scale); ablations are overlays that also apply on any other preset (ABLATIONS), so that
 * `reproduce` can run "paper-mini without the Mistake Book" as easily as the classroom one.
 */
import { DEFAULT_CONFIG, type Config } from "./fields.ts";
import { ConfigError, parseConfig } from "./parse.ts";
import { classroomTime, extrapolatedTime } from "./measured-times.ts";

/** The alpha values of the paper's ablation (spec: 0, 0.25, 0.5, 0.75, 1). */
export const ALPHA_SWEEP = [0, 0.25, 0.5, 0.75, 1] as const;

/** Ablation overlays: what each ablation changes, whatever the base. */
export const ABLATIONS = {
  "no-mistake-book": { mistake_book: false },
  "no-topvar": { topvar: false },
  "black-box": { white_box: false },
  "alpha-0": { alpha: 0 },
  "alpha-0.25": { alpha: 0.25 },
  "alpha-0.75": { alpha: 0.75 },
  "alpha-1": { alpha: 1 },
} as const satisfies Record<string, Partial<Config>>;
export type AblationName = keyof typeof ABLATIONS;

interface Preset {
  description: string;
  overrides: Partial<Config>;
}

// Times in the descriptions come from measured-times.json (npm run bench -- newcomer --record), never typed.
const CLASSROOM: Preset = {
  description: `Small and fast: tiny models on arena-v2, 4 tasks x 4 codes x 4 suites per step, 36 steps (3 epochs of 48 train tasks), measured on held-out tasks that recombine what training saw; ${classroomTime()}.`,
  overrides: {},
};

const PAPER_MINI: Preset = {
  description: "The paper's ratios scaled down: 8 codes x 8 suites per task, N = 8, alpha 0.5, TopVar top-1, Mistake Book top-8, clip 0.2/0.28, KL 0.001, warm-up ~9% of steps; small models.",
  overrides: {
    num_generations: 8,
    suites_per_code: 8,
    tests_per_suite: 8,
    tasks_per_step: 8,
    steps: 60,
    // 60 steps x 8 tasks = 3 epochs of 160 train tasks.
    train_tasks: 160,
    warmup_steps: 5,
    alpha: 0.5,
    topvar_k: 1,
    mistake_book_top_k: 8,
    epsilon: 0.2,
    epsilon_high: 0.28,
    beta: 0.001,
    temperature: 1,
    top_p: 1,
    code_model: "small",
    test_model: "small",
    checkpoint_every: 10,
  },
};

/**
 * Longer runs on more tasks for a machine left alone (issue 26): `npm run reproduce -- --preset
 * research --steps 240` in the background; every finished run is cached, so a stopped reproduce
 * resumes where it was.
 */
const RESEARCH_OVERRIDES = {
  train_tasks: 192,
  tasks_per_step: 8,
  steps: 240,
  checkpoint_every: 20,
} satisfies Partial<Config>;
const RESEARCH: Preset = {
  description: `Longer runs on more tasks, for the background: tiny models on arena-v2, 192 train tasks, 8 tasks per step, 240 steps (10 epochs, so the Mistake Book replays often); ${extrapolatedTime(RESEARCH_OVERRIDES.tasks_per_step, RESEARCH_OVERRIDES.steps, DEFAULT_CONFIG.tasks_per_step)}.`,
  overrides: RESEARCH_OVERRIDES,
};

export const PRESETS = {
  classroom: CLASSROOM,
  "paper-mini": PAPER_MINI,
  research: RESEARCH,
  ...(Object.fromEntries(
    Object.entries(ABLATIONS).map(([name, overlay]) => [
      name,
      { description: `Ablation on classroom: ${Object.entries(overlay).map(([k, v]) => `${k} = ${v}`).join(", ")}.`, overrides: overlay },
    ]),
  ) as Record<AblationName, Preset>),
} satisfies Record<string, Preset>;
export type PresetName = keyof typeof PRESETS;
export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

export function isPresetName(name: string): name is PresetName {
  return Object.prototype.hasOwnProperty.call(PRESETS, name);
}

/** The configuration of a preset, with optional extra overrides (validated). */
export function presetConfig(name: string, overrides: unknown = {}): Config {
  if (!isPresetName(name)) throw new ConfigError("preset", `unknown preset ${JSON.stringify(name)}; known: ${PRESET_NAMES.join(", ")}`);
  const base = parseConfig(PRESETS[name].overrides, DEFAULT_CONFIG);
  return parseConfig(overrides, base);
}

/** Apply an ablation overlay to any configuration. */
export function withAblation(config: Readonly<Config>, ablation: AblationName): Config {
  return parseConfig(ABLATIONS[ablation], config);
}
