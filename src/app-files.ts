/**
 * Files the app serves from its own origin (public/): base checkpoints and the evaluation bench.
 * Works in the page and in workers.
 */

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

/** A shipped base checkpoint (npm run pretrain), or null when this build has none. */
export async function fetchBaseCheckpoint(role: "code" | "test", size: string): Promise<ArrayBuffer | null> {
  const response = await fetchAppFile(`/checkpoints/${role}-${size}.bin`);
  return response ? response.arrayBuffer() : null;
}
