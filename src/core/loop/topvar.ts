/**
 * TopVar, the asymmetric sampling of the Test policy's updates (../shared/spec/code-a1.md,
 * "Optimisation"): for each task, the population standard deviation of R_T across each code's
 * suites; only the suites of the top-k codes by that spread train the Test policy (paper: k = 1).
 * A code whose suites all score alike carries no group-relative signal for GRPO.
 */

/**
 * Population std (divide by n, not n - 1) of a list; 0 for fewer than two values. Summed in
 * ascending order, one addition at a time: the same value for any order of the same values (a
 * code's suites in another order tie with it, and a tie goes to the lower index), and the same bits
 * as arena_reward.py `population_std` (Python's `sum` compensates float rounding: round 59).
 */
export function populationStd(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  let total = 0;
  for (const x of sorted) total += x;
  const mean = total / sorted.length;
  let squares = 0;
  for (const x of sorted) squares += (x - mean) * (x - mean);
  return Math.sqrt(squares / sorted.length);
}

export interface TopVarChoice {
  /** std of R_T over each code's suites, one per code. */
  std: number[];
  /** Indices of the chosen codes, highest std first; ties go to the lower index. */
  selected: number[];
}

/**
 * Choose the codes whose suites update the Test policy.
 *
 * rewards: R_T as (codes, suites). Example: [[0, 1], [0.5, 0.5], [0.2, 0.6]] -> std
 * [0.5, 0, 0.2]; k = 1 selects [0]; k = 2 selects [0, 2].
 */
export function topVar(rewards: readonly (readonly number[])[], k: number): TopVarChoice {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`topvar_k must be a positive integer, got ${k}`);
  const std = rewards.map((row) => populationStd(row));
  const order = std.map((s, i) => i).sort((a, b) => std[b] - std[a] || a - b);
  return { std, selected: order.slice(0, Math.min(k, order.length)) };
}
