/**
 * What a real run can hold, derived from its config: the one table of bounds an `.a1run` import
 * checks, first against the zip's declared sizes (before inflating anything), then against the
 * parsed records. Every bound follows from the config table's fields (src/core/config/fields.ts),
 * the model sizes (src/core/policy/config.ts) and the grader's limits; none is kept by hand twice.
 *
 * A run at step S of config c writes (src/core/duel/step.ts, src/storage/runs.ts):
 *   metrics        S rows of StepMetrics
 *   Mistake Book   at most S x failuresPerStep entries, failuresPerStep = tasks_per_step x
 *                  num_generations x suites_per_code x linesPerSuite (each failure inserts at most one)
 *   duel records   min(S, duel_records_kept) steps x tasks_per_step records, each of num_generations
 *                  codes x suites_per_code suites x linesPerSuite lines, mistake_book_top_k book tests
 *   checkpoints    at most S + 1 (step 0, and one per step at most), each with its policies' weights
 *                  of exactly the size the model size gives, and a Mistake Book
 */
import { CONFIG_FIELDS, type Config } from "./config/fields.ts";
import { arenaVocabulary } from "./duel/contexts.ts";
import { usesSharedPolicy } from "./duel/modes.ts";
import { EVAL_METRIC_KEYS, STEP_METRIC_KEYS } from "./loop/types.ts";
import { countParams, modelConfig, type ModelSize } from "./policy/config.ts";
import type { RecordLimits } from "./loop/record-schema.ts";

/** The grader's text limits (src/core/grader/harness.py MAX_LINE_CHARS, MAX_VALUE_CHARS): a line as written, a value's canonical text. */
export const GRADER_LINE_CHARS = 2000;
export const GRADER_VALUE_CHARS = 200_000;
/** The longest JSON text of one number (`-1.2345678901234567e-308`). */
const NUMBER_CHARS = 24;
/** A checkpoint's JSON header (config, train settings, parameter table): a few KB; this is generous. */
const CHECKPOINT_HEADER_BYTES = 64 << 10;
/** Largest single JSON file whatever the config says (what JSON.parse of one file may be asked to read). */
export const MAX_JSON_BYTES = 256 << 20;
/** Largest bundle and largest total after inflating, whatever the config says. */
export const MAX_BUNDLE_BYTES = 1 << 30;
export const MAX_TOTAL_BYTES = 2 ** 31;
/**
 * Largest magnitude of a stored float a run can reach: Adam's moments of gradients clipped to
 * max_grad_norm (|m| <= clip, v <= clip^2, clip at most the field's max); weights move by at most a
 * few learning rates per optimiser step from N(0, 0.02) and stay far below 1e4 (the shipped base
 * and every trained run here: below 10).
 */
export const WEIGHT_BOUNDS = {
  weights: 1e4,
  m: CONFIG_FIELDS.max_grad_norm.max,
  v: CONFIG_FIELDS.max_grad_norm.max ** 2,
} as const;

/** A bound and where it comes from, for the error message. */
export interface Bound {
  max: number;
  why: string;
}

export interface BundleBounds {
  /** Bytes each JSON file may inflate to. */
  json: Record<"manifest.json" | "config.json" | "metrics.json" | "mistake-book.json" | "duels.json" | "checkpoints.json" | "task-set.json", Bound>;
  /** Bytes of one policy's weights file, by policy name (only the policies the mode stores). */
  weights: Record<string, Bound>;
  /** Counts checked on the parsed records. */
  counts: {
    checkpoints: Bound;
    mistakeEntries: Bound;
    duelSteps: Bound;
    recordsPerStep: Bound;
    codesPerRecord: Bound;
    suitesPerCode: Bound;
    linesPerSuite: Bound;
    bookTests: Bound;
  };
  /** Characters of one stored text. */
  chars: { completion: Bound; line: Bound; reason: Bound; taskId: Bound };
}

const cap = (b: Bound, max: number, what: string): Bound => (b.max > max ? { max, why: `${what} (the config would allow ${b.max})` } : b);

/** config.json's largest size: every field of the config table at its longest value. */
export function configJsonBound(): Bound {
  const valueChars = (spec: (typeof CONFIG_FIELDS)[keyof typeof CONFIG_FIELDS]) =>
    spec.kind === "enum" ? 2 + Math.max(...spec.values.map((v) => v.length)) : spec.kind === "bool" ? 5 : NUMBER_CHARS;
  const max = 2 + Object.entries(CONFIG_FIELDS).reduce((a, [k, spec]) => a + k.length + 4 + valueChars(spec), 0);
  return { max, why: `every field of the config table at its longest value` };
}

/** Bytes of one policy checkpoint of a model size: header plus weights, Adam m and v, and the frozen reference, float32. */
export function checkpointBytes(size: ModelSize): number {
  const params = countParams(modelConfig(size, arenaVocabulary().size));
  return 12 + CHECKPOINT_HEADER_BYTES + 4 * params * 4;
}

/** The characters one policy completion can decode to: each of its tokens at most the longest token's text, a separator and a new line indented once per earlier token. */
function completionChars(maxTokens: number): number {
  const vocab = arenaVocabulary();
  let longest = 0;
  for (let id = 0; id < vocab.size; id++) longest = Math.max(longest, vocab.tokenToString(id).length);
  return maxTokens * (longest + 2 + 4 * maxTokens);
}

/** The per-record limits of a run's bounds (loop/record-schema.ts checks records against them). */
export function recordLimits(b: BundleBounds, steps: number): RecordLimits {
  const { counts, chars } = b;
  return {
    codesPerRecord: counts.codesPerRecord.max, suitesPerCode: counts.suitesPerCode.max, linesPerSuite: counts.linesPerSuite.max,
    bookTests: counts.bookTests.max, deltaEntries: counts.mistakeEntries.max, completionChars: chars.completion.max, lineChars: chars.line.max,
    reasonChars: chars.reason.max, taskIdChars: chars.taskId.max, steps,
  };
}

/** The bounds of a run at `step` of `config`. */
export function bundleBounds(config: Config, step: number): BundleBounds {
  const S = step;
  const linesPerSuite = Math.max(config.tests_per_suite, config.mistake_book_top_k);
  const failuresPerStep = config.tasks_per_step * config.num_generations * config.suites_per_code * linesPerSuite;
  const completion = completionChars(config.max_completion_length);
  const line = GRADER_LINE_CHARS + GRADER_VALUE_CHARS;
  const reason = 2 * GRADER_VALUE_CHARS + 200;
  const taskId = 200;
  // JSON of a text: quotes, and at most 6 characters per character (\u00XX).
  const json = (chars: number) => 2 + 6 * chars;
  const entryBytes = json(line) + json(completion) + 3 * NUMBER_CHARS + 80;
  const lineBytes = json(line) + json(reason) + 80;
  const suiteBytes = json(completion) + linesPerSuite * lineBytes + 3 * NUMBER_CHARS + 80;
  const codeBytes = json(completion) + 40 + NUMBER_CHARS + config.mistake_book_top_k * lineBytes + config.suites_per_code * suiteBytes;
  const deltaBytes = 2 * failuresPerStep * entryBytes;
  const recordBytes = 200 + json(taskId) + config.num_generations * (codeBytes + 2 * NUMBER_CHARS) + config.mistake_book_top_k * json(line) + deltaBytes;
  const duelSteps = Math.min(S, config.duel_records_kept);
  const mistakeEntries = S * failuresPerStep;
  const bookBytes = 20 + mistakeEntries * (entryBytes + json(taskId));
  const metricsRow = 10 + NUMBER_CHARS + [...STEP_METRIC_KEYS, ...EVAL_METRIC_KEYS].reduce((a, k) => a + k.length + 4 + NUMBER_CHARS, 0);
  const policies: [string, ModelSize][] = usesSharedPolicy(config.mode) ? [["shared", config.code_model]] : [["code", config.code_model], ["test", config.test_model]];
  const checkpoints = S + 1;
  const fileRow = 200;
  const runBytes = 2000 + json(1000);
  const jsonCap = (b: Bound) => cap(b, MAX_JSON_BYTES, `${MAX_JSON_BYTES} bytes, the most one JSON file of a bundle may hold`);
  return {
    json: {
      "config.json": configJsonBound(),
      "manifest.json": { max: 400 + runBytes + (6 + checkpoints * policies.length) * fileRow, why: `a manifest listing ${checkpoints} checkpoints of ${policies.length} policies` },
      "metrics.json": jsonCap({ max: 2 + S * metricsRow, why: `${S} steps x ${metricsRow} bytes of StepMetrics` }),
      "mistake-book.json": jsonCap({ max: bookBytes, why: `${mistakeEntries} entries (${S} steps x ${failuresPerStep} failures per step)` }),
      "duels.json": jsonCap({ max: 2 + duelSteps * (40 + config.tasks_per_step * recordBytes), why: `${duelSteps} steps of ${config.tasks_per_step} duel records` }),
      "checkpoints.json": jsonCap({ max: 2 + checkpoints * (bookBytes + 1000), why: `${checkpoints} checkpoints, each with a Mistake Book` }),
      "task-set.json": { max: MAX_JSON_BYTES, why: `${MAX_JSON_BYTES} bytes, the most one JSON file of a bundle may hold` },
    },
    weights: Object.fromEntries(policies.map(([name, size]) => [name, { max: checkpointBytes(size), why: `a ${size} policy's checkpoint` }])),
    counts: {
      checkpoints: { max: checkpoints, why: `one per step at most, plus step 0, at step ${S}` },
      mistakeEntries: { max: mistakeEntries, why: `${S} steps x ${failuresPerStep} failures per step (tasks_per_step x num_generations x suites_per_code x ${linesPerSuite} lines)` },
      duelSteps: { max: duelSteps, why: `min(step ${S}, duel_records_kept ${config.duel_records_kept})` },
      recordsPerStep: { max: config.tasks_per_step, why: "tasks_per_step" },
      codesPerRecord: { max: config.num_generations, why: "num_generations" },
      suitesPerCode: { max: config.suites_per_code, why: "suites_per_code" },
      linesPerSuite: { max: linesPerSuite, why: "the lines the grader reads per suite (max of tests_per_suite and mistake_book_top_k)" },
      bookTests: { max: config.mistake_book_top_k, why: "mistake_book_top_k" },
    },
    chars: {
      completion: { max: completion, why: `what ${config.max_completion_length} tokens (max_completion_length) decode to` },
      line: { max: line, why: "the grader's longest line plus its longest value" },
      reason: { max: reason, why: "two of the grader's longest values" },
      taskId: { max: taskId, why: "a task id" },
    },
  };
}
