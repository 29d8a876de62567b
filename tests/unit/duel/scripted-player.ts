/**
 * A player for driving `duelStep` with the real grader where the programs and suites must be known:
 * it writes `code` for every code prompt and `suite` for every suite prompt (encoded as the policy
 * would, under the task's grammar), and its update trains nothing. The grader, the rewards and the
 * Mistake Book around it are the real ones.
 */
import { encodeCode, encodeSuite } from "../../../src/core/arena/tokenizer.ts";
import type { Signature } from "../../../src/core/arena/types.ts";
import type { Vocabulary } from "../../../src/core/arena/vocab.ts";
import type { Player } from "../../../src/core/duel/step.ts";
import { maskBytes, type Rollout } from "../../../src/core/policy/sampler.ts";
import type { UpdateMetrics } from "../../../src/core/policy/policy.ts";

/** A rollout of `completions` for `rows` as a sampler returns it (no log-probabilities, empty masks). */
export function scriptedRollout(vocab: Vocabulary, rows: number[][], completions: number[][], temperature = 1): Rollout {
  return {
    prompts: rows,
    completions,
    logProbs: completions.map((c) => new Float32Array(c.length)),
    masks: completions.map((c) => new Uint8Array(c.length * maskBytes(vocab.size))),
    done: completions.map(() => true),
    temperature,
    vocab: vocab.size,
  };
}

export function scriptedPlayer(vocab: Vocabulary, sig: Signature, code: string, suite: string): Player {
  return {
    async sample(rows, specs, opts) {
      const list = Array.isArray(specs) ? specs : rows.map(() => specs);
      const completions = rows.map((_, i) => (list[i].kind === "code" ? encodeCode(vocab, code, sig) : encodeSuite(vocab, suite, sig)));
      return { rollout: scriptedRollout(vocab, rows, completions, opts.temperature ?? 1), rngState: opts.rngState };
    },
    async update(_samples, rngState) {
      const metrics: UpdateMetrics = { loss: 0, pgLoss: 0, clipFraction: 0, dualClipFraction: 0, kl: 0, entropy: 0, gradNorm: 0, lr: 0, steps: 1, tokens: 0 };
      return { metrics, rngState };
    },
  };
}
