import { arenaVocabulary } from "../../../src/core/duel/contexts.ts";
import { encodeCheckpoint } from "../../../src/core/policy/checkpoint.ts";
import { modelConfig, parameterShapes, type ModelSize } from "../../../src/core/policy/config.ts";
import { trainConfig } from "../../../src/core/policy/train-config.ts";
import { EVAL_METRIC_KEYS, STEP_METRIC_KEYS, type DuelRecord, type StepMetrics } from "../../../src/core/loop/types.ts";
import { Rng } from "../../../src/core/rng.ts";

/** Metrics of a step with values drawn from a seeded Rng (every key present, eval keys on even steps). */
export function fakeMetrics(step: number, rng: Rng): StepMetrics {
  const m: Record<string, number | null> = { step };
  for (const k of STEP_METRIC_KEYS) m[k] = Math.round(rng.next() * 1000) / 1000;
  for (const k of EVAL_METRIC_KEYS) m[k] = step % 2 === 0 ? Math.round(rng.next() * 1000) / 1000 : null;
  return m as StepMetrics;
}

export function duel(step: number, task: string): DuelRecord {
  return {
    step,
    task,
    codes: [
      {
        text: "def f(x):\n    return x",
        status: "ok",
        reward: 0.5,
        mistake_book_lines: [],
        suites: [{ text: "assert f(1) == 1", lines: [{ validity: "valid", verdict: "pass", reason: "" }], r_val: 0.125, r_adv: 0, reward: 0.0625 }],
      },
    ],
    mistake_book_tests: [],
    topvar: { std: [0], selected: [0] },
    mistake_book: { task, step, added: [], removed: [], changed: [] },
  };
}

export function bytes(n: number, seed: number): ArrayBuffer {
  const rng = new Rng(seed);
  const a = new Uint8Array(n);
  for (let i = 0; i < n; i++) a[i] = rng.int(256);
  return a.buffer;
}

/**
 * A real policy checkpoint (the format import decodes) of `size` and the arena's vocabulary, with
 * seeded small weights and moments; no tfjs needed.
 */
export function policyBytes(seed: number, size: ModelSize = "tiny"): ArrayBuffer {
  const rng = new Rng(seed);
  const config = modelConfig(size, arenaVocabulary().size);
  const block = (scale: number, positive = false) =>
    parameterShapes(config).map(([, shape]) => Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => (positive ? rng.next() : rng.next() - 0.5) * scale));
  return encodeCheckpoint({ config, train: trainConfig(), optimizerStep: 3, weights: block(0.1), m: block(0.01), v: block(1e-4, true), reference: block(0.1) });
}
