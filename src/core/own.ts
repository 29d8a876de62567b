/**
 * Lookups of keys that come from input (JSON files, bundles, task ids, flags) in plain objects.
 * `obj[key]` and `key in obj` also see what every object inherits: `constructor`, `toString`,
 * `__proto__` (the prototype itself). A task named "constructor" would then find a function where
 * its Mistake Book entries should be. These helpers see own properties only.
 */

/** `record[key]` when `key` is the record's own property, else undefined. */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * Set `record[key]` as an own property. Plain assignment to "__proto__" would replace the record's
 * prototype instead of storing a value.
 */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
}
