/**
 * Step 1 of the duel: which train tasks a step trains on, as a pure function of the config and the
 * step number (so a resumed run, the app and the command line agree, and a run's task visits can
 * be counted without running it).
 *
 * `task_order: epochs` (default) follows the paper's runs (../shared/spec/code-a1.md, "Mistake
 * Book": each task is seen once per epoch; 3 epochs): every epoch is a seeded permutation of the
 * train tasks cut into consecutive batches of `tasks_per_step`; the last batch of an epoch is
 * topped up from the start of the same permutation, so no step repeats a task. Recurrence is what
 * lets the Mistake Book replay a task's failed tests. With `curriculum`, the first epoch runs from
 * the shortest reference to the longest (ties in seeded order).
 *
 * `task_order: random`: each step draws `tasks_per_step` distinct tasks uniformly at random (with
 * `curriculum`, the first half of the run draws from the shorter half of the references).
 */
import type { Config } from "../config/index.ts";
import type { Task, TaskFile } from "../arena/task.ts";
import { Rng } from "../rng.ts";

type OrderConfig = Pick<Config, "seed" | "tasks_per_step" | "task_order" | "curriculum" | "steps">;

const byLength = (a: Task, b: Task) => a.reference.length - b.reference.length;

/**
 * The train tasks a run of `config` trains on: all of the set's train split when `train_tasks` is
 * 0 or covers it, else `train_tasks` of them spread evenly in file order (index floor(i * n / k)),
 * with no randomness, so every seed, the base players' evaluation and the app see the same tasks.
 */
export function runTrainTasks(file: TaskFile, c: Pick<Config, "train_tasks">): Task[] {
  const train = file.tasks.filter((t) => t.split === "train");
  const k = c.train_tasks;
  if (k === 0 || k >= train.length) return train;
  return Array.from({ length: k }, (_, i) => train[Math.floor((i * train.length) / k)]);
}

/** Steps per epoch: ceil(train tasks / tasks_per_step). */
export function stepsPerEpoch(taskCount: number, c: Pick<Config, "tasks_per_step">): number {
  return Math.ceil(taskCount / Math.min(c.tasks_per_step, taskCount));
}

/** The tasks of step `step` (1-based). */
export function stepTasks(tasks: readonly Task[], c: Readonly<OrderConfig>, step: number): Task[] {
  if (tasks.length === 0) throw new RangeError("no train tasks to draw from");
  if (!Number.isInteger(step) || step < 1) throw new RangeError(`step must be a positive integer, got ${step}`);
  const T = Math.min(c.tasks_per_step, tasks.length);
  const root = new Rng(c.seed);
  if (c.task_order === "random") {
    let pool = tasks.slice();
    if (c.curriculum && step - 1 < c.steps / 2) pool = root.fork("curriculum").shuffle(pool).sort(byLength).slice(0, Math.max(T, Math.ceil(pool.length / 2)));
    return root.fork(`tasks-${step}`).shuffle(pool).slice(0, T);
  }
  const spe = stepsPerEpoch(tasks.length, c);
  const epoch = Math.floor((step - 1) / spe);
  const slot = (step - 1) % spe;
  let order = root.fork(`epoch-${epoch}`).shuffle(tasks);
  if (c.curriculum && epoch === 0) order = order.sort(byLength); // stable: ties keep the seeded order
  const batch = order.slice(slot * T, slot * T + T);
  for (let i = 0; batch.length < T; i++) if (!batch.includes(order[i])) batch.push(order[i]);
  return batch;
}

/** How often each train task is trained on in steps 1..`steps` (default: the whole run). */
export function taskVisits(tasks: readonly Task[], c: Readonly<OrderConfig>, steps = c.steps): Map<string, number> {
  const visits = new Map(tasks.map((t) => [t.id, 0]));
  for (let s = 1; s <= steps; s++) for (const t of stepTasks(tasks, c, s)) visits.set(t.id, visits.get(t.id)! + 1);
  return visits;
}

/** The train tasks a run trains on in steps 1..`steps`, in file order (what "trained-on" evaluation uses). */
export function trainedTasks(tasks: readonly Task[], c: Readonly<OrderConfig>, steps = c.steps): Task[] {
  const visits = taskVisits(tasks, c, steps);
  return tasks.filter((t) => visits.get(t.id)! > 0);
}
