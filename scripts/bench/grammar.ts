/**
 * `npm run bench -- grammar [--json]`: cost of the arena constraints as a sampler uses them: 64
 * sequences decoded in lockstep, `allowed` + `advance` for each at every step (uniform choice over
 * the allowed tokens, seeded). Prints microseconds per call, split by prefix length to show that
 * the cost does not grow with it.
 */
import { codeConstraint } from "../../src/core/arena/code-grammar.ts";
import { suiteConstraint } from "../../src/core/arena/suite-grammar.ts";
import { ARENA_TYPES, type Signature } from "../../src/core/arena/types.ts";
import { buildVocabulary, PARAM_NAMES } from "../../src/core/arena/vocab.ts";
import type { TokenConstraint } from "../../src/core/decoding.ts";
import { Rng } from "../../src/core/rng.ts";
import { parseArgs } from "../../src/node/cli.ts";

const BATCH = 64;

interface Timing { allowedUs: number; advanceUs: number; earlyUs: number; lateUs: number; tokens: number }

function lockstep<S>(make: (i: number) => TokenConstraint<S>, rng: Rng, rounds: number): Timing {
  let allowedNs = 0, advanceNs = 0, calls = 0, early = 0, earlyN = 0, late = 0, lateN = 0, tokens = 0;
  for (let r = 0; r < rounds; r++) {
    const cs = Array.from({ length: BATCH }, (_, i) => make(r * BATCH + i));
    const states = cs.map((c) => c.start());
    const mask = new Uint8Array(cs[0].vocabSize);
    const ids: number[] = [];
    for (let step = 0; states.some((s, i) => !cs[i].isDone(s)); step++) {
      for (let i = 0; i < BATCH; i++) {
        if (cs[i].isDone(states[i])) continue;
        const t0 = process.hrtime.bigint();
        cs[i].allowed(states[i], mask);
        const t1 = process.hrtime.bigint();
        ids.length = 0;
        for (let t = 0; t < mask.length; t++) if (mask[t]) ids.push(t);
        const tok = rng.pick(ids);
        const t2 = process.hrtime.bigint();
        cs[i].advance(states[i], tok);
        const t3 = process.hrtime.bigint();
        const a = Number(t1 - t0);
        allowedNs += a; advanceNs += Number(t3 - t2); calls++; tokens++;
        if (step >= 12 && step < 40) { early += a; earlyN++; } else if (step >= 60) { late += a; lateN++; }
      }
    }
  }
  return { allowedUs: allowedNs / calls / 1e3, advanceUs: advanceNs / calls / 1e3, earlyUs: early / earlyN / 1e3,
    lateUs: lateN ? late / lateN / 1e3 : NaN, tokens };
}

export async function main(argv: string[]): Promise<void> {
  const json = parseArgs(argv, { json: { kind: "bool", help: "print exactly one JSON line" } }, 0).flags.json === true;
  const vocab = buildVocabulary([]);
  const rng = new Rng("bench-grammar");
  const sig = (i: number): Signature => {
    const r = new Rng(i);
    const names = r.shuffle(PARAM_NAMES).slice(0, r.range(1, 3));
    return { entry_point: "f", params: names.map((name) => ({ name, type: r.pick(ARENA_TYPES) })), returns: r.pick(ARENA_TYPES) };
  };
  lockstep((i) => codeConstraint(vocab, sig(i), { maxTokens: 128 }), rng, 2); // warm-up (JIT)
  const code = lockstep((i) => codeConstraint(vocab, sig(i), { maxTokens: 128 }), rng, 8);
  const suite = lockstep((i) => suiteConstraint(vocab, sig(i), { maxLines: 8, maxTokens: 160 }), rng, 8);
  const figures = {
    code_allowed_us: +code.allowedUs.toFixed(2), code_advance_us: +code.advanceUs.toFixed(2),
    code_allowed_us_steps12to40: +code.earlyUs.toFixed(2), code_allowed_us_after60: +code.lateUs.toFixed(2),
    suite_allowed_us: +suite.allowedUs.toFixed(2), suite_advance_us: +suite.advanceUs.toFixed(2),
    vocab_code_size: vocab.codeSize,
  };
  if (json) { console.log(JSON.stringify(figures)); return; }
  console.log(`vocabulary: ${vocab.codeSize} code tokens; ${BATCH} sequences in lockstep`);
  console.log(`code  (maxTokens 128): allowed ${figures.code_allowed_us} us/call (steps 12-39: ${figures.code_allowed_us_steps12to40}, steps >=60: ${figures.code_allowed_us_after60}), advance ${figures.code_advance_us} us/call, ${code.tokens} tokens`);
  console.log(`suite (8 lines, 160):  allowed ${figures.suite_allowed_us} us/call, advance ${figures.suite_advance_us} us/call, ${suite.tokens} tokens`);
}
