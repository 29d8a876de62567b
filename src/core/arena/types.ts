/** Types shared by the task suite, the grammars and the tokenizer (docs/ARENA-PYTHON.md). */

export const ARENA_TYPES = ["int", "bool", "str", "list[int]", "list[str]"] as const;
export type ArenaType = (typeof ARENA_TYPES)[number];

export interface Param {
  name: string;
  type: ArenaType;
}

/** What the grammars need to know about a task: `def entry_point(params) -> returns`. */
export interface Signature {
  entry_point: string;
  params: Param[];
  returns: ArenaType;
}
