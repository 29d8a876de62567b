/**
 * Every configuration field, documented once: type, default, bounds, effect and when to change it.
 * This table is the single source of truth for the Config type, validation (parse.ts), the URL
 * query (query.ts) and docs/CONFIG.md (docs.ts), as TensorFlow Playground's state table drives both
 * its URL and its parser. Names follow TRL's GRPOConfig where one exists (marked `trl`).
 *
 * Defaults are the `classroom` scale, the app's embedded config: a few minutes to a visible change.
 */

export const MODES = ["code-a1", "golden-tests", "self-play", "self-play-blackbox", "cure", "base"] as const;
export const MODEL_SIZES = ["tiny", "small"] as const;
export const LR_SCHEDULES = ["cosine", "constant"] as const;
export const BACKENDS = ["auto", "webgpu", "wasm", "cpu"] as const;
export const TASK_ORDERS = ["epochs", "random"] as const;
/** Built-in task sets (src/core/arena/task-suite.ts BUILTIN_TASK_SETS). */
export const TASK_SETS = ["arena-v2", "arena-v1"] as const;
/** A task set imported in the app and stored in IndexedDB: `imported:` + the first 16 hex digits of its hash. */
export const IMPORTED_TASK_SET = /^imported:[0-9a-f]{16}$/;
export type TaskSetName = (typeof TASK_SETS)[number] | `imported:${string}`;

interface Doc {
  group: "run" | "sampling" | "rewards" | "optimisation" | "models" | "persistence";
  effect: string;
  when: string;
  /** Same name and meaning as in TRL's GRPOConfig. */
  trl?: true;
  /**
   * The Policy's name for this knob (src/core/policy/train-config.ts TrainConfig): the policy takes
   * its default and bounds from this table, so the two cannot disagree.
   */
  policy?: string;
}
interface IntField extends Doc {
  kind: "int";
  default: number;
  min: number;
  max: number;
}
interface NumberField extends Doc {
  kind: "number";
  default: number;
  min: number;
  max: number;
  /** Lower bound excluded (e.g. learning_rate > 0). */
  exclusiveMin?: true;
}
interface BoolField extends Doc {
  kind: "bool";
  default: boolean;
}
interface EnumField extends Doc {
  kind: "enum";
  default: string;
  values: readonly string[];
  /** Other values accepted besides `values`, and how the docs write them. */
  pattern?: { re: RegExp; text: string };
}
export type FieldSpec = IntField | NumberField | BoolField | EnumField;

export const CONFIG_FIELDS = {
  // --- run ---
  mode: {
    kind: "enum", values: MODES, default: "code-a1", group: "run",
    effect: "What trains and how it is scored; one row per mode in `MODE_TABLE` (src/core/duel/modes.ts): `code-a1` two policies, white-box, Mistake Book, TopVar; `golden-tests` the Code policy on the human golden tests only; `self-play` one shared policy writes code and (white-box) tests with Code-A1's rewards, `self-play-blackbox` the same without seeing the code; `cure` one shared policy, programs by golden tests, tests by CURE's rule on their own expected outputs; `base` no training.",
    when: "Baselines and the paper's comparison (`npm run reproduce`).",
  },
  task_set: {
    kind: "enum", values: TASK_SETS, default: "arena-v2", group: "run",
    pattern: { re: IMPORTED_TASK_SET, text: "imported:HASH16" },
    effect: "The task set a run trains and is evaluated on: `arena-v2` (1,050 generated tasks in splits that measure transfer: train, held-out compositional, held-out family), `arena-v1` (63 hand-written tasks), or in the app `imported:HASH16`, a set imported in Settings > Task sets and stored in this browser (the first 16 hex digits of its hash; its live evaluation is skipped). On the command line `--tasks FILE` trains on a task file instead.",
    when: "`arena-v1` to compare with runs made before arena-v2 (stored runs without this field were arena-v1).",
  },
  seed: {
    kind: "int", default: 1, min: 0, max: 2 ** 32 - 1, group: "run",
    effect: "Seeds every random choice (task order, sampling, initial weights).",
    when: "Repeat a run with another seed to measure spread; the same seed and backend give the same run.",
  },
  steps: {
    kind: "int", default: 36, min: 1, max: 100_000, group: "run",
    effect: "Training steps (one step = sample, grade, score, update both policies). 36 x 4 tasks = 3 epochs of the 48 train tasks the classroom run trains on (train_tasks).",
    when: "Longer runs for stable curves; the paper ran about 111 steps of 256 tasks (3 epochs).",
  },
  train_tasks: {
    kind: "int", default: 48, min: 0, max: 100_000, group: "run",
    effect: "How many of the task set's train tasks a run trains on (0: all): that many spread evenly over the set in file order, the same for every seed (src/core/duel/task-order.ts runTrainTasks), so tasks recur within a short run and the Mistake Book replays. Held-out evaluation is unaffected.",
    when: "0 for long runs over the whole train split (arena-v2 has 762 train tasks; the paper's runs saw each task 3 times).",
  },
  tasks_per_step: {
    kind: "int", default: 4, min: 1, max: 1024, group: "run",
    effect: "Train tasks sampled per step (the batch).",
    when: "Raise for smoother gradients if grading time allows; the paper used 256.",
  },
  task_order: {
    kind: "enum", values: TASK_ORDERS, default: "epochs", group: "run",
    effect: "How steps draw train tasks (src/core/duel/task-order.ts): `epochs` walks a seeded permutation of all train tasks per epoch, each task once per epoch (the paper's 3 epochs), so tasks recur and the Mistake Book replays; `random` draws each step's tasks at random.",
    when: "`random` to reproduce runs made before epochs existed.",
  },
  curriculum: {
    kind: "bool", default: false, group: "run",
    effect: "Easy to hard (reference length): with `epochs`, the first epoch runs shortest first; with `random`, the first half of the run draws from the shorter half.",
    when: "Tiny models that get no reward signal on hard tasks early on.",
  },
  eval_every: {
    kind: "int", default: 10, min: 0, max: 100_000, group: "run",
    effect: "Evaluate plus-pass, golden-pass and the test metrics every this many steps (0: only at the end).",
    when: "Lower for finer evaluation curves, at the cost of time.",
  },
  // --- sampling ---
  num_generations: {
    kind: "int", default: 4, min: 2, max: 64, group: "sampling", trl: true,
    effect: "Codes sampled per task: the Code policy's GRPO group size (G).",
    when: "Larger groups give better advantage estimates; the paper used 8.",
  },
  suites_per_code: {
    kind: "int", default: 4, min: 1, max: 64, group: "sampling",
    effect: "Test suites the Test policy writes for each code: its GRPO group size.",
    when: "The paper used 8 (64 suites per task); cost grows as num_generations x suites_per_code.",
  },
  tests_per_suite: {
    kind: "int", default: 8, min: 1, max: 32, group: "sampling",
    effect: "N: assert lines read from a suite; R_val and gen_fail are normalised by it.",
    when: "Keep at 8 to match the paper's rewards.",
  },
  temperature: {
    kind: "number", default: 1, min: 0, max: 4, exclusiveMin: true, group: "sampling", trl: true,
    effect: "Sampling temperature of both policies during training.",
    when: "Lower if samples are mostly garbage; the paper used 1.0.",
  },
  top_p: {
    kind: "number", default: 1, min: 0, max: 1, exclusiveMin: true, group: "sampling", trl: true,
    effect: "Nucleus sampling mass during training.",
    when: "Rarely; the paper used 1.0.",
  },
  max_completion_length: {
    kind: "int", default: 160, min: 32, max: 4096, group: "sampling", trl: true,
    effect: "Most tokens generated per code or suite; the grammars always finish within it, and the models' 256-token context caps it at 96 for codes and 112 for suites.",
    when: "Lower it for faster steps and shorter programs and suites.",
  },
  white_box: {
    kind: "bool", default: true, group: "sampling",
    effect: "The Test policy sees the candidate code (Code-A1's white-box); off: task only. `self-play-blackbox` is always black-box.",
    when: "The black-box ablation.",
  },
  anonymise_code: {
    kind: "bool", default: false, group: "sampling",
    effect: "Rename the code's identifiers before the Test policy reads it.",
    when: "To test whether the Test policy keys on surface names rather than logic.",
  },
  // --- rewards ---
  alpha: {
    kind: "number", default: 0.5, min: 0, max: 1, group: "rewards",
    effect: "R_T = alpha R_val + (1 - alpha) R_adv: weight of validity against adversarial strength.",
    when: "The alpha ablation (paper: 0.5 best; too high gives trivial tests, too low invalid ones).",
  },
  mistake_book: {
    kind: "bool", default: true, group: "rewards",
    effect: "Keep failed tests per task and replay them in both rewards.",
    when: "Off for the no-Mistake-Book ablation.",
  },
  mistake_book_top_k: {
    kind: "int", default: 8, min: 1, max: 64, group: "rewards",
    effect: "Mistake Book tests replayed per task (highest frequency first).",
    when: "Rarely; the paper used 8.",
  },
  topvar: {
    kind: "bool", default: true, group: "rewards",
    effect: "TopVar asymmetric sampling: only the suites of the `topvar_k` codes with the highest R_T spread train the Test policy; off: every code's suites do. Applies to code-a1, self-play and self-play-blackbox (cure always trains on all suites).",
    when: "Off for the no-TopVar ablation, or for a plain self-play baseline (with `mistake_book` off). Default on: the paper's Code-A1 setting.",
  },
  topvar_k: {
    kind: "int", default: 1, min: 1, max: 64, group: "rewards",
    effect: "TopVar: the suites of this many codes per task (highest R_T std) train the Test policy.",
    when: "Raise to give the Test policy more (but flatter) data; the paper used 1. At most num_generations.",
  },
  // --- optimisation ---
  learning_rate: {
    kind: "number", default: 3e-4, min: 0, max: 1, exclusiveMin: true, group: "optimisation", policy: "lr", trl: true,
    effect: "Peak AdamW learning rate of both policies. At 3e-4 the classroom run's second mini-batch is off-policy enough for the PPO clip to act on a few steps; at 1e-4 it never does, at 1e-3 the Code policy collapses (docs/TASKS.md).",
    when: "Lower if KL explodes or rewards collapse; tiny models take far larger rates than the paper's 1e-6.",
  },
  lr_scheduler_type: {
    kind: "enum", values: LR_SCHEDULES, default: "cosine", group: "optimisation", trl: true,
    effect: "Learning-rate schedule after warm-up. `cosine`: half a cosine from lr down to 0.1 x lr at the last step (TRL's `cosine_with_min_lr` with min_lr_rate 0.1, not TRL's `cosine`, which ends at 0); `constant`: lr held (TRL's `constant_with_warmup`; TRL's `constant` has no warm-up). The verl export writes verl's `warmup_style` and `min_lr_ratio` to match (docs/SCALING.md).",
    when: "`constant` for open-ended runs.",
  },
  warmup_steps: {
    kind: "int", default: 2, min: 0, max: 100_000, group: "optimisation", trl: true,
    effect: "Linear warm-up of the learning rate, counted in training steps (the optimiser steps of those training steps share the ramp, from lr / its length up to lr). verl's `lr_warmup_steps` counts the same unit.",
    when: "The paper used 10 of ~111 steps; scale with `steps`.",
  },
  weight_decay: {
    kind: "number", default: 0.1, min: 0, max: 1, group: "optimisation", policy: "weightDecay", trl: true,
    effect: "AdamW decoupled weight decay.",
    when: "Rarely.",
  },
  max_grad_norm: {
    kind: "number", default: 1, min: 0, max: 100, exclusiveMin: true, group: "optimisation", policy: "gradClip", trl: true,
    effect: "Global gradient-norm clip.",
    when: "Lower if loss spikes.",
  },
  num_iterations: {
    kind: "int", default: 1, min: 1, max: 16, group: "optimisation", policy: "epochs", trl: true,
    effect: "PPO epochs over each step's samples (GRPO's mu).",
    when: "Raise to squeeze more from expensive samples; 1 keeps the update on-policy.",
  },
  mini_batches: {
    kind: "int", default: 2, min: 1, max: 64, group: "optimisation", policy: "miniBatches",
    effect: "Mini-batches each policy's rollout batch is split into, each one optimiser step (more when one would exceed 64 sequences, fewer when the batch has fewer sequences), times num_iterations; each policy's schedule counts its own batch. With 1 the only step is on-policy, so the PPO ratio is 1 and clipping never acts.",
    when: "The paper ran 2 (256 tasks in mini-batches of 128); 1 for strictly on-policy updates. Measured (classroom code-a1 from the base checkpoints, `npm run train -- --steps N --learning_rate LR`): at learning_rate 1e-4 the second step moves no token's ratio past the clip (clip fraction exactly 0 in all 12 steps); at 3e-4, 0.1-0.2% in 3 of 8 steps; at 1e-3, 0.3-1.6% in every step of 4.",
  },
  drop_zero_advantage: {
    kind: "bool", default: false, group: "optimisation",
    effect: "Drop sequences whose group-relative advantage is 0 before the update. Off (the reference's behaviour, verl core_algos.py): they stay in the batch, so the token-mean denominator and the KL term cover every sequence.",
    when: "On for faster updates when most groups have equal rewards, at the cost of departing from the reference.",
  },
  beta: {
    kind: "number", default: 0.001, min: 0, max: 10, group: "optimisation", policy: "klCoef", trl: true,
    effect: "KL penalty coefficient to the frozen initial policy (k3 estimator, in the loss).",
    when: "Raise if the policies drift into degenerate text.",
  },
  epsilon: {
    kind: "number", default: 0.2, min: 0, max: 1, exclusiveMin: true, group: "optimisation", policy: "clipLow", trl: true,
    effect: "Lower clip of the probability ratio (1 - epsilon).",
    when: "Rarely.",
  },
  epsilon_high: {
    kind: "number", default: 0.28, min: 0, max: 1, exclusiveMin: true, group: "optimisation", policy: "clipHigh", trl: true,
    effect: "Upper clip of the probability ratio (1 + epsilon_high); above epsilon: clip-higher.",
    when: "Rarely; the paper used 0.28.",
  },
  dual_clip: {
    kind: "number", default: 10, min: 1, max: 1000, exclusiveMin: true, group: "optimisation", policy: "dualClip",
    effect: "Dual-clip c: bounds the loss of negative-advantage tokens at c times the advantage.",
    when: "Rarely; the paper used 10.",
  },
  // --- models ---
  code_model: {
    kind: "enum", values: MODEL_SIZES, default: "tiny", group: "models",
    effect: "Size of the Code policy's transformer.",
    when: "`small` on a fast GPU for stronger results.",
  },
  test_model: {
    kind: "enum", values: MODEL_SIZES, default: "tiny", group: "models",
    effect: "Size of the Test policy's transformer (the shared policy's in self-play and cure).",
    when: "`small` on a fast GPU.",
  },
  backend: {
    kind: "enum", values: BACKENDS, default: "auto", group: "models",
    effect: "tfjs backend the browser's policies train on. `auto` never uses a software or fallback WebGPU adapter (SwiftShader, llvmpipe...): those train on wasm; another adapter is timed against wasm on a short probe and used only if faster. `webgpu`, `wasm`, `cpu` force one (falling back if it cannot start). The header says what was chosen and why. Node uses wasm, except `webgpu` where ARENA_DAWN names Dawn's Node binding (src/node/dawn.ts).",
    when: "`webgpu` to test the WebGPU path on any adapter (`?backend=webgpu`); `wasm` for the same bytes as Node.",
  },
  // --- persistence ---
  checkpoint_every: {
    kind: "int", default: 10, min: 1, max: 100_000, group: "persistence",
    effect: "Save both policies every this many steps (and always at pause).",
    when: "Lower for finer resume points, at the cost of storage.",
  },
  duel_records_kept: {
    kind: "int", default: 20, min: 0, max: 10_000, group: "persistence",
    effect: "Steps of duel records (codes, suites, verdicts, rewards) kept for the UI.",
    when: "Raise to browse older duels; they are the largest per-step records.",
  },
} as const satisfies Record<string, FieldSpec>;

type Fields = typeof CONFIG_FIELDS;
type ValueOf<F> = F extends { kind: "enum"; values: readonly (infer V)[]; pattern: object }
  ? V | `imported:${string}`
  : F extends { kind: "enum"; values: readonly (infer V)[] }
  ? V
  : F extends { kind: "bool" }
    ? boolean
    : number;

/** The whole configuration of a run. */
export type Config = { -readonly [K in keyof Fields]: ValueOf<Fields[K]> };
export type ConfigKey = keyof Config;
export type Mode = (typeof MODES)[number];

export const CONFIG_KEYS = Object.keys(CONFIG_FIELDS) as ConfigKey[];

/** The defaults, from the table. */
export const DEFAULT_CONFIG: Readonly<Config> = Object.freeze(
  Object.fromEntries(CONFIG_KEYS.map((k) => [k, CONFIG_FIELDS[k].default])) as Config,
);

export function fieldSpec(key: ConfigKey): FieldSpec {
  return CONFIG_FIELDS[key];
}
