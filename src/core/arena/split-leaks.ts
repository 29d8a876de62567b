/**
 * Whether a held-out task's reference reaches training (issue 26, part 1). A held-out split claims
 * its programs were never trained on; a program that equals a held-out reference up to integer
 * constants (`v > 3` and `v > 0`, `v % 2 == 0` and `v % 3 == 0`) breaks that claim wherever it sits
 * in training: as a train task's reference, one of its buggy variants, one of its mutants, or a
 * program in a pretraining sequence (a Code completion, or the program a Test context shows).
 *
 *   constantFree("def f(xs):\n    return [v for v in xs if v > -3]")
 *     === "def f(xs):\n    return [v for v in xs if v > N]"
 *
 * arena-v2 is clean by construction (arena-v2.ts): its split unit is a predicate's constant-free
 * form, not its name, and a train task keeps no buggy variant equal to a held-out reference; the
 * pretraining corpus draws no noise program that is one (pretrain-corpus.ts), and an evaluation
 * bench keeps no such mutant of a train task (`withoutLeakingMutants`, src/node/run-files.ts).
 */

/** A string literal (canonical arena-Python: single quotes, no escapes needed by the arena) or an int. */
const LITERAL = /'(?:[^'\\]|\\.)*'|\d+/g;

/** `code` with every integer constant written `N`; a unary minus belongs to its constant (`-3` -> `N`). */
export function constantFree(code: string): string {
  // Canonical formatting writes a unary minus tight (`-3`) and a binary one spaced (`i - 1`).
  return code.replace(LITERAL, (m) => (m.startsWith("'") ? m : "N")).replace(/-N\b/g, "N");
}

/** A program that equals a held-out reference up to integer constants, and where it sits. */
export interface Leak {
  /** The held-out task whose reference leaks. */
  heldout: string;
  /** Where the equal program was found: `train task count-odd-ints, buggy variant 2`. */
  where: string;
}

/**
 * An index of held-out references (by their constant-free text) to look programs up in:
 * `index.find(code)` names the held-out tasks `code` equals up to integer constants.
 */
export class HeldoutIndex {
  private readonly byKey = new Map<string, string[]>();

  constructor(tasks: readonly { id: string; split: string; reference: string }[]) {
    for (const t of tasks) {
      if (t.split === "train") continue;
      const key = constantFree(t.reference);
      this.byKey.set(key, [...(this.byKey.get(key) ?? []), t.id]);
    }
  }

  get size(): number {
    return this.byKey.size;
  }

  find(code: string): string[] {
    return this.byKey.get(constantFree(code)) ?? [];
  }

  has(code: string): boolean {
    return this.byKey.has(constantFree(code));
  }

  /** Leaks of `code`, found at `where`. */
  leaks(code: string, where: string): Leak[] {
    return this.find(code).map((heldout) => ({ heldout, where }));
  }
}

/** Every train task's reference and buggy variants checked against the held-out references. */
export function taskLeaks(tasks: readonly { id: string; split: string; reference: string; buggy_variants: { code: string }[] }[]): Leak[] {
  const index = new HeldoutIndex(tasks);
  const out: Leak[] = [];
  for (const t of tasks) {
    if (t.split !== "train") continue;
    out.push(...index.leaks(t.reference, `train task ${t.id}, reference`));
    t.buggy_variants.forEach((v, i) => out.push(...index.leaks(v.code, `train task ${t.id}, buggy variant ${i + 1}`)));
  }
  return out;
}

/**
 * `mutants` (task id -> mutants) without any mutant of a train task that equals a held-out
 * reference up to constants: mutate.py turns `v > 3` into `v < 3`, which is `is negative` held
 * out. Held-out tasks keep all of theirs (they are never trained on).
 */
export function withoutLeakingMutants<M extends { code: string }>(
  tasks: readonly { id: string; split: string }[],
  mutants: ReadonlyMap<string, M[]>,
  heldout: HeldoutIndex,
): Map<string, M[]> {
  const train = new Set(tasks.filter((t) => t.split === "train").map((t) => t.id));
  return new Map([...mutants].map(([id, ms]) => [id, train.has(id) ? ms.filter((m) => !heldout.has(m.code)) : ms]));
}
