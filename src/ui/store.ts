/**
 * A tiny observable store: the app's one piece of mutable state. Views receive the state and
 * callbacks; only the app shell (app.ts) writes. Listeners run synchronously after each update.
 */
export interface Store<T> {
  get(): Readonly<T>;
  /** Merge a partial state (or the result of a function of the current state). */
  update(patch: Partial<T> | ((s: Readonly<T>) => Partial<T>)): void;
  /** Returns an unsubscribe function. */
  subscribe(listener: (s: Readonly<T>, prev: Readonly<T>) => void): () => void;
}

export function createStore<T extends object>(initial: T): Store<T> {
  let state: Readonly<T> = { ...initial };
  const listeners = new Set<(s: Readonly<T>, prev: Readonly<T>) => void>();
  return {
    get: () => state,
    update(patch) {
      const prev = state;
      const p = typeof patch === "function" ? patch(prev) : patch;
      state = { ...prev, ...p };
      for (const l of [...listeners]) l(state, prev);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
