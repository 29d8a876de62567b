/**
 * Files the app serves from its own origin (public/): base checkpoints and the evaluation bench.
 * Works in the page and in workers.
 */
import { baseCheckpointFile } from "../core/duel/pretrain.ts";
import type { ModelSize } from "../core/policy/config.ts";

/** Where public/checkpoints/ is served. */
const CHECKPOINTS = "/checkpoints/";

/**
 * GET a file of the app. null when it is not there: a 404, or the index.html that dev and preview
 * servers answer for unknown paths. Other failures throw, naming the file.
 */
export async function fetchAppFile(path: string): Promise<Response | null> {
  const response = await fetch(new URL(path, self.location.origin));
  if (response.status === 404 || (response.headers.get("content-type") ?? "").includes("text/html")) return null;
  if (!response.ok) throw new Error(`could not load ${path} (${response.status} ${response.statusText})`);
  return response;
}

/** A shipped base checkpoint (npm run pretrain-base), or null when this build has none. */
export async function fetchBaseCheckpoint(size: ModelSize): Promise<ArrayBuffer | null> {
  const response = await fetchAppFile(`${CHECKPOINTS}${baseCheckpointFile(size)}`);
  return response ? response.arrayBuffer() : null;
}

/** A file `npm run pretrain-base` wrote next to the checkpoints, as bytes, or null when absent. */
export async function fetchCheckpointsFile(file: string): Promise<Uint8Array | null> {
  const response = await fetchAppFile(`${CHECKPOINTS}${file}`);
  return response ? new Uint8Array(await response.arrayBuffer()) : null;
}

/** A JSON file `npm run pretrain-base` wrote next to the checkpoints (manifest, corpus), or null when absent. */
export async function fetchCheckpointsJson<T>(file: string): Promise<T | null> {
  const response = await fetchAppFile(`${CHECKPOINTS}${file}`);
  return response ? ((await response.json()) as T) : null;
}
