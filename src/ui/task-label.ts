/**
 * How the task pickers (Duel, Play, Mistake Book) name a task: its id, then its family (arena-v2:
 * `aggregation/predicate/type`) and its split, so a held-out task, and what is new in it, is
 * visible where it is chosen. Pure: tests/unit/ui/task-label.test.ts.
 */
import { SPLITS, type Split, type Task } from "../core/arena/task.ts";

export const SPLIT_LABELS: Readonly<Record<Split, string>> = {
  train: "train",
  heldout: "held-out",
  heldout_compositional: "held-out: unseen combination",
  heldout_family: "held-out: unseen primitive",
};

/** `count-even-ints (count/even/list[int], held-out: unseen combination)`; `sum-positive (train)`. */
export function taskLabel(t: Pick<Task, "id" | "family" | "split">): string {
  return `${t.id} (${[t.family, SPLIT_LABELS[t.split]].filter(Boolean).join(", ")})`;
}

/** The label of a task known by id only (a recorded duel, a Mistake Book entry); the bare id if the task is unknown. */
export function taskLabelById(tasks: readonly Task[], id: string): string {
  const t = tasks.find((x) => x.id === id);
  return t ? taskLabel(t) : id;
}

/** Tasks grouped by split (train first, then each held-out split), empty groups left out; order kept within a group. */
export function tasksBySplit(tasks: readonly Task[]): { split: Split; label: string; tasks: Task[] }[] {
  return SPLITS.map((split) => ({ split, label: SPLIT_LABELS[split], tasks: tasks.filter((t) => t.split === split) })).filter((g) => g.tasks.length > 0);
}
