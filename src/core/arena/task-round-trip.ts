/**
 * decode(encode(code)) through the arena tokenizer (tokenizer.ts), for the round-trip invariant
 * (task-check.ts) and the import's arena-Python flag. The check is that the program is arena-Python
 * (encodeCode throws ArenaSyntaxError otherwise) and written in its canonical formatting.
 */
import { decodeCode, encodeCode } from "./tokenizer.ts";
import type { Signature } from "./types.ts";
import { buildVocabulary } from "./vocab.ts";

/** decode(encode(code)); throws (ArenaSyntaxError) when the code is not arena-Python. */
export type RoundTrip = (code: string, sig: Signature) => string;

/** The round trip over the code vocabulary (prompt words play no part in code tokens). */
export function createRoundTrip(): RoundTrip {
  const vocab = buildVocabulary([]);
  return (code, sig) => decodeCode(vocab, encodeCode(vocab, code, sig));
}
