/**
 * One tab drives a run, the others watch it (Web Locks API). The driver holds an exclusive lock
 * named after the run for as long as it trains; the browser releases it when the tab closes or
 * crashes, so a viewer waiting with waitForRunLock takes over without any stale-lock cleanup.
 * Every write of a step also checks the step order (StepOrderError), a second line of defence.
 */

/** A held run lock. */
export interface RunLock {
  readonly runId: string;
  /** Release the lock (idempotent); other tabs may then drive the run. */
  release(): void;
}

export class LocksUnavailableError extends Error {
  override name = "LocksUnavailableError";
  constructor() {
    super("This browser has no Web Locks API (navigator.locks); use a current Chrome, Edge, Firefox or Safari, served over https or localhost.");
  }
}

export const runLockName = (runId: string) => `code-a1-arena/run/${runId}`;

function defaultLocks(): LockManager {
  const locks = (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;
  if (!locks) throw new LocksUnavailableError();
  return locks;
}

/** Request the lock; `resolveHeld` gets the RunLock once granted, or null if not available. */
function request(runId: string, locks: LockManager, options: LockOptions): Promise<RunLock | null> {
  return new Promise((resolve, reject) => {
    locks
      .request(runLockName(runId), options, (lock) => {
        if (!lock) {
          resolve(null);
          return undefined;
        }
        // The lock is held until this promise settles.
        return new Promise<void>((release) => resolve({ runId, release: () => release() }));
      })
      .catch(reject);
  });
}

/** Take the run's lock if no other tab holds it; null means: open the run read-only. */
export function tryLockRun(runId: string, locks: LockManager = defaultLocks()): Promise<RunLock | null> {
  return request(runId, locks, { mode: "exclusive", ifAvailable: true });
}

/** Wait until the run's lock is free and take it (a viewer taking over). Abort with `signal`. */
export async function waitForRunLock(runId: string, options: { signal?: AbortSignal; locks?: LockManager } = {}): Promise<RunLock> {
  const lock = await request(runId, options.locks ?? defaultLocks(), { mode: "exclusive", signal: options.signal });
  if (!lock) throw new Error("unreachable: a waiting lock request is always granted or aborted");
  return lock;
}

/** Whether some tab (this one included) drives the run now. */
export async function isRunLocked(runId: string, locks: LockManager = defaultLocks()): Promise<boolean> {
  const state = await locks.query();
  return (state.held ?? []).some((l) => l.name === runLockName(runId));
}
