/**
 * Option objects of the core (a policy's training config, pretraining, the pretraining corpus):
 * defaults overridden by the caller's keys, with unknown keys and bad values rejected by name,
 * each module throwing its own error class.
 */
type ErrorClass = new (message: string) => Error;

/**
 * `defaults` overridden by `overrides`. A key in neither `defaults` nor `extraKeys` throws
 * `unknown <noun> "<key>": known are ...` (e.g. noun "corpus option").
 */
export function mergeOptions<D extends object, O extends object>(noun: string, defaults: Readonly<D>, overrides: O, error: ErrorClass, extraKeys: readonly string[] = []): D & O {
  for (const k of Object.keys(overrides)) {
    if (!extraKeys.includes(k) && !Object.hasOwn(defaults, k)) throw new error(`unknown ${noun} "${k}": known are ${[...extraKeys, ...Object.keys(defaults)].join(", ")}`);
  }
  return { ...defaults, ...overrides } as D & O;
}

/** Each of `keys` must be an integer >= `min` (default 1): else `<label> <key> must be ...`. */
export function requireIntegers<T extends object>(label: string, o: T, keys: readonly (keyof T & string)[], error: ErrorClass, min = 1): void {
  for (const k of keys) {
    const v = o[k];
    if (!Number.isInteger(v) || (v as number) < min) {
      throw new error(`${label} ${k} must be ${min === 1 ? "a positive integer" : `an integer >= ${min}`}, got ${String(v)}`);
    }
  }
}
