/** The one way this package writes: a readwrite transaction aborted on any error. */
import type { IDBPTransaction, StoreNames } from "idb";
import type { ArenaDB, ArenaDatabase } from "./db.ts";
import { toStorageError } from "./errors.ts";

type Stores = StoreNames<ArenaDB>;

/**
 * Run `body` in one readwrite transaction. `body` may only await IndexedDB requests of `tx`
 * (awaiting anything else lets the transaction auto-commit early). On any error, thrown or from a
 * request, the transaction is aborted, so nothing of it is stored, and the error is mapped to the
 * specific storage errors (errors.ts).
 */
export async function inTransaction<S extends Stores[], T>(
  db: ArenaDatabase,
  stores: S,
  what: string,
  body: (tx: IDBPTransaction<ArenaDB, S, "readwrite">) => Promise<T>,
): Promise<T> {
  const tx = db.transaction(stores, "readwrite");
  try {
    const result = await body(tx);
    await tx.done;
    return result;
  } catch (e) {
    tx.done.catch(() => undefined); // rejects with the abort below; the cause is reported here
    try {
      tx.abort();
    } catch {
      // already aborted by the browser (quota, constraint): nothing left to undo
    }
    throw toStorageError(e, what);
  }
}

/**
 * The requests issued in a transaction, awaited together. Each gets a handler at once, so that when
 * the transaction is aborted part-way the requests not yet awaited do not surface as unhandled
 * rejections; the first failure still reaches `all()`.
 */
export class Requests {
  private readonly pending: Promise<unknown>[] = [];
  add(p: Promise<unknown>): void {
    p.catch(() => undefined);
    this.pending.push(p);
  }
  all(): Promise<unknown[]> {
    return Promise.all(this.pending);
  }
}
