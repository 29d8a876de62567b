/**
 * Settings > Task sets in the browser: a JSONL of MBPP- or HumanEval-format tasks becomes an arena
 * task set (src/core/arena/importers/arenise.ts) and is stored in IndexedDB by its hash (storage/task-sets.ts).
 * The user's code is untrusted here: every run of a reference goes through the grader's sandbox
 * workers (arenise-sandbox.ts sandboxRuntime), the parsing through the grader worker's `tools`
 * role, and the checks through the grader; nothing of the file runs in the page. A grader and a
 * parser are started for one import and closed after it.
 */
import { importArenaTasks, type TaskReport } from "../core/arena/importers/arenise.ts";
import { sandboxRuntime } from "../core/arena/importers/arenise-sandbox.ts";
import type { ImportFormat } from "../core/arena/importers/import.ts";
import { createRoundTrip } from "../core/arena/task-round-trip.ts";
import { taskSetHash } from "../core/bundle.ts";
import type { ArenaDatabase, TaskSetRecord } from "../storage/db.ts";
import { importedSetName, listTaskSets, saveTaskSet } from "../storage/task-sets.ts";
import type { StoredTaskSet, TaskSetsIO } from "../ui/deps.ts";

type GraderClient = typeof import("./grader-client.ts");

/** Larger files are refused before they are read (an MBPP line is well under 2 KB). */
export const MAX_IMPORT_BYTES = 4 * 2 ** 20;

function stored(r: TaskSetRecord): StoredTaskSet {
  const report = r.report as TaskReport[];
  return { name: importedSetName(r.hash), hash: r.hash, title: r.name, tasks: r.file.tasks.length, report, stored: r.stored, file: r.file };
}

/** A set's name from its file's: lower-case letters, digits and dashes. */
function setTitle(fileName: string): string {
  const base = fileName.replace(/\.[^.]*$/, "").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  return base || "imported";
}

export function createTaskSets(db: () => Promise<ArenaDatabase>, grader: () => Promise<GraderClient>): TaskSetsIO {
  return {
    async list() {
      // A bundle's set can also be stored under its run's hash of the whole file: list each set once,
      // under the hash of its task list (what config.task_set names).
      const all = await listTaskSets(await db());
      const own = await Promise.all(all.map(async (r) => (await taskSetHash(r.file.tasks)) === r.hash));
      return all.filter((_, i) => own[i]).map(stored);
    },
    async importFile(file, format: ImportFormat, onProgress) {
      if (file.size > MAX_IMPORT_BYTES) throw new Error(`${file.name} is ${(file.size / 2 ** 20).toFixed(1)} MiB; an import takes at most ${MAX_IMPORT_BYTES / 2 ** 20} MiB`);
      const text = await file.text();
      const client = await grader();
      const g = client.createBrowserGrader();
      const tools = client.createBrowserAreniseTools();
      try {
        onProgress({ done: 0, total: 0, text: "starting the Python sandbox" });
        const { file: tasks, report } = await importArenaTasks(text, format, { grader: g, roundTrip: createRoundTrip(), runtime: sandboxRuntime(g, tools) }, {
          name: setTitle(file.name),
          split: "train",
          onProgress: (done, total, id) => onProgress({ done, total, text: `${id}: ${done} of ${total} tasks` }),
        });
        if (tasks.tasks.length === 0) return { report, set: null };
        return { report, set: stored(await saveTaskSet(await db(), tasks, report)) };
      } finally {
        tools.close();
        await g.close();
      }
    },
  };
}
