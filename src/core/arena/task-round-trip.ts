/**
 * decode(encode(code)) through the arena tokenizer, for the round-trip invariant (task-check.ts)
 * and the import's arena-Python flag. Loaded lazily: returns null when the tokenizer module is not
 * in the tree (it was built in parallel), so a check can say the invariant was skipped.
 */
import type { Signature } from "./types.ts";

/** decode(encode(code)); throws (ArenaSyntaxError) when the code is not arena-Python. */
export type RoundTrip = (code: string, sig: Signature) => string;

interface TokenizerModule {
  encodeCode?: (vocab: unknown, src: string, sig: Signature) => number[];
  decodeCode?: (vocab: unknown, tokens: readonly number[]) => string;
}
interface VocabModule {
  buildVocabulary?: (words: string[]) => unknown;
}

/** The round trip, or null when the tokenizer does not exist (yet). */
export async function loadRoundTrip(): Promise<RoundTrip | null> {
  const paths = ["./tokenizer.ts", "./vocab.ts"];
  let tok: TokenizerModule;
  let voc: VocabModule;
  try {
    tok = (await import(/* @vite-ignore */ paths[0])) as TokenizerModule;
    voc = (await import(/* @vite-ignore */ paths[1])) as VocabModule;
  } catch {
    return null;
  }
  const { encodeCode, decodeCode } = tok;
  if (!encodeCode || !decodeCode || !voc.buildVocabulary) return null;
  // Prompt words do not matter for code tokens: an empty word list gives the code vocabulary.
  const vocab = voc.buildVocabulary([]);
  return (code, sig) => decodeCode(vocab, encodeCode(vocab, code, sig));
}
