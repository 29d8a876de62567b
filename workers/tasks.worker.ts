/** The built-in task sets, generated off the page's thread (src/browser/tasks-worker.ts), exposed with comlink. */
import { expose } from "comlink";
import { builtinTasks } from "../src/browser/tasks-worker.ts";

expose(builtinTasks);
