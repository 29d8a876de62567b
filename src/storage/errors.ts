/**
 * One named error per storage failure, each saying what to do (WebLLM style). Every write path
 * runs in one transaction that is aborted on failure, so none of these leaves a half-written step.
 */

/** The browser refused to store more (QuotaExceededError). */
export class StorageQuotaError extends Error {
  override name = "StorageQuotaError";
  constructor(what: string, options?: ErrorOptions) {
    super(
      `Browser storage is full while ${what}. Nothing already stored was changed. ` +
        "Export runs you want to keep as .a1run files and delete old runs, or lower checkpoint_every / duel_records_kept.",
      options,
    );
  }
}

/** Checked before storing (navigator.storage.estimate): the browser would not have room for what is about to be written. */
export class StorageRoomError extends Error {
  override name = "StorageRoomError";
  constructor(what: string, neededBytes: number, freeBytes: number) {
    const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MB`;
    super(
      `Not enough browser storage for ${what}: it needs about ${mb(neededBytes)}, and this browser leaves Code-A1 Arena ${mb(freeBytes)}. ` +
        "Nothing was stored. Delete runs you no longer need under Runs & Compare (export them as .a1run files first), or free disk space, then try again.",
    );
  }
}

/** An upgrade of the database is blocked by another tab holding the old version open. */
export class StorageBlockedError extends Error {
  override name = "StorageBlockedError";
  constructor(currentVersion: number, wantedVersion: number) {
    super(
      `Code-A1 Arena needs to upgrade its stored data from version ${currentVersion} to ${wantedVersion}, ` +
        "but another tab still has the old version open. Close or reload the other Code-A1 Arena tabs, then reload this one. " +
        "Nothing stored has been changed.",
    );
  }
}

/** The stored data was written by a newer version of the app. */
export class StorageVersionError extends Error {
  override name = "StorageVersionError";
  constructor(options?: ErrorOptions) {
    super(
      "The stored runs were written by a newer version of Code-A1 Arena than this page. Reload the page (clear the cache if it persists) to get the new version; nothing was changed.",
      options,
    );
  }
}

export class RunNotFoundError extends Error {
  override name = "RunNotFoundError";
  constructor(readonly runId: string) {
    super(`No run with id ${JSON.stringify(runId)} is stored; it may have been deleted in another tab.`);
  }
}

/** A step was committed out of order (a second driver, or a bug in the loop). */
export class StepOrderError extends Error {
  override name = "StepOrderError";
  constructor(runId: string, expected: number, got: number) {
    super(
      `Run ${runId}: expected to commit step ${expected}, got step ${got}. ` +
        "Only the tab holding the run's lock may train it; reload to see its current state.",
    );
  }
}

/** Map a DOMException from IndexedDB to the specific errors above; others pass through. */
export function toStorageError(e: unknown, what: string): unknown {
  const name = (e as { name?: unknown } | null)?.name;
  if (name === "QuotaExceededError") return new StorageQuotaError(what, { cause: e });
  if (name === "VersionError") return new StorageVersionError({ cause: e });
  return e;
}
