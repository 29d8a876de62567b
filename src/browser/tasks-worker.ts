/**
 * What the task worker (workers/tasks.worker.ts) serves: the built-in task sets for the page's
 * pickers, arena-v1 then arena-v2. Generating arena-v2 takes 1-2 s on a laptop and several seconds
 * on a loaded machine: on the page's thread that froze the app at every start, and Firefox stops a
 * script that runs past its limit (10 s), which left the app half started.
 */
import { arenaV1 } from "../core/arena/task-suite.ts";
import { arenaV2 } from "../core/arena/arena-v2.ts";
import type { Task } from "../core/arena/task.ts";

export interface BuiltinTasks {
  builtinTasks(): Task[];
}

export const builtinTasks: BuiltinTasks = { builtinTasks: () => [...arenaV1().tasks, ...arenaV2().tasks] };
