/**
 * BundleIO over IndexedDB: export a stored run as a `.a1run` file, import one as a new run. Two
 * implementations of import, one interface: in a worker (the app: src/browser/run-import.ts, the page never
 * blocks and Cancel ends the worker) or in-thread (Node tests, where there is no Worker).
 */
import { BUNDLE_EXTENSION, checkBundleSize, exportBundle, importBundle, WHAT_IS_A1RUN } from "../core/bundle.ts";
import { importInWorker } from "../browser/run-import.ts";
import type { ArenaDatabase } from "../storage/db.ts";
import { snapshotRun, storeSnapshot } from "../storage/snapshot.ts";
import type { BundleIO } from "./deps.ts";

export function indexedDbBundles(db: () => Promise<ArenaDatabase>, makeWorker?: () => Worker): BundleIO {
  return {
    async exportRun(runId) {
      const bytes = await exportBundle(await snapshotRun(await db(), runId));
      return { blob: new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "application/zip" }), fileName: `${runId}${BUNDLE_EXTENSION}` };
    },
    async importRun(file, onProgress = () => {}, signal) {
      if (!file.name.endsWith(BUNDLE_EXTENSION)) throw new Error(`${file.name} is not a ${BUNDLE_EXTENSION} file. ${WHAT_IS_A1RUN}`);
      checkBundleSize(file.size);
      if (makeWorker) return importInWorker(makeWorker, file, onProgress, signal);
      const snapshot = await importBundle(new Uint8Array(await file.arrayBuffer()), { onProgress, signal });
      return (await storeSnapshot(await db(), snapshot)).id;
    },
  };
}
