/** BundleIO over IndexedDB: export a stored run as a `.a1run` file, import one as a new run. */
import { BUNDLE_EXTENSION, exportBundle, importBundle } from "../core/bundle.ts";
import type { ArenaDatabase } from "../storage/db.ts";
import { snapshotRun, storeSnapshot } from "../storage/snapshot.ts";
import type { BundleIO } from "./deps.ts";

export function indexedDbBundles(db: () => Promise<ArenaDatabase>): BundleIO {
  return {
    async exportRun(runId) {
      const bytes = await exportBundle(await snapshotRun(await db(), runId));
      return { blob: new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "application/zip" }), fileName: `${runId}${BUNDLE_EXTENSION}` };
    },
    async importRun(file) {
      if (!file.name.endsWith(BUNDLE_EXTENSION)) throw new Error(`${file.name} is not a ${BUNDLE_EXTENSION} file`);
      const snapshot = await importBundle(new Uint8Array(await file.arrayBuffer()));
      return (await storeSnapshot(await db(), snapshot)).id;
    },
  };
}
