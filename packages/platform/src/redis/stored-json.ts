/**
 * Reading back what the store wrote: JSON parsed and its shape checked (a value that is not what
 * the gate wrote is a `store_corrupt` fault), and the bounds checked on numbers before anything is
 * written.
 */
import { corrupt } from './store-faults.js';

/** Parses a stored JSON value and checks its shape with `isT`; `what` and `key` name it in faults. */
export function decode<T>(text: string, what: string, key: string, isT: (v: unknown) => v is T): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw corrupt(what, key, cause);
  }
  if (!isT(value)) throw corrupt(what, key);
  return value;
}

/** True for a plain JSON object. */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** True when every field of `names` is a string. */
export const hasStrings = (v: Record<string, unknown>, names: readonly string[]) =>
  names.every((name) => typeof v[name] === 'string');

/**
 * Refuses `value` unless it is an integer from `least` to `most`.
 *
 * @throws RangeError naming `name`, before anything is written.
 */
export function checkCount(
  name: string,
  value: number,
  least: number,
  most = Number.MAX_SAFE_INTEGER,
): void {
  if (!Number.isSafeInteger(value) || value < least || value > most) {
    throw new RangeError(`${name} must be an integer from ${least} to ${most}, got ${value}`);
  }
}
