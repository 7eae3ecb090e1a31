/**
 * Small helpers a deployment's tool file needs in its callbacks: an id schema by prefix, and typed
 * reads of the objects resolution fetched. Resolution guarantees every referenced object is
 * present before `preconditions` and `confirm` run, so a missing one is a bug of the tool file.
 */
import type { ObjectsById } from '../tool-spec.js';
import type { ResolvedObject } from '../types.js';

/** A JSON Schema for an id `<prefix>_` followed by 1 to 32 lowercase letters and digits. */
export const idSchema = (prefix: string) =>
  ({ type: 'string', pattern: `^${prefix}_[a-z0-9]{1,32}$` }) as const;

/** The resolved object under `key`; throws if resolution did not fetch it (a tool-file bug). */
export function resolvedObject(objects: ObjectsById, key: string): ResolvedObject {
  const found = objects.get(key);
  if (found === undefined) throw new Error(`object ${key} was not resolved`);
  return found;
}

/** Attribute `name` of `o` as a number; 0 when it is missing or not a number. */
export function numberAttribute(o: ResolvedObject, name: string): number {
  const v = o.attributes[name];
  return typeof v === 'number' ? v : 0;
}

/** Attribute `name` of `o` as a string; '' when it is missing or not a string. */
export function stringAttribute(o: ResolvedObject, name: string): string {
  const v = o.attributes[name];
  return typeof v === 'string' ? v : '';
}
