/**
 * `RunPython` for Node (src/core/arena/plus.ts): one Pyodide instance, loaded once, running each
 * program in a fresh globals dict. Used by plus-test building and mutant generation, which run
 * trusted code (references, mutate.py); untrusted code goes through the grader instead.
 */
import { readFileSync } from "node:fs";
import { loadPyodide, type PyodideInterface } from "pyodide";
import type { RunPython } from "../core/arena/plus.ts";

let pyodide: Promise<PyodideInterface> | null = null;

/** Returns a RunPython backed by a shared, lazily loaded Pyodide. */
export function createNodeRunPython(): RunPython {
  pyodide ??= loadPyodide();
  return async (src: string) => {
    const py = await pyodide!;
    const globals = py.globals.get("dict")();
    try {
      const out: unknown = py.runPython(src, { globals });
      if (typeof out !== "string") throw new Error(`Python program must end with a str expression, got ${typeof out}`);
      return out;
    } finally {
      globals.destroy();
    }
  };
}

/** The source of src/core/arena/mutate.py, for generateMutants / prepareBench. */
export function mutateSource(): string {
  return readFileSync(new URL("../core/arena/mutate.py", import.meta.url), "utf8");
}

/** The source of src/core/arena/importers/arenise.py, for importArenaTasks (src/core/arena/importers/arenise.ts). */
export function areniseSource(): string {
  return readFileSync(new URL("../core/arena/importers/arenise.py", import.meta.url), "utf8");
}
