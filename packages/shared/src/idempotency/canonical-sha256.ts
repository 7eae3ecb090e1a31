import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** SHA-256 of a UTF-8 string, as lowercase hex (64 characters). */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * SHA-256 (lowercase hex) over the RFC 8785 canonical JSON of `value`, so that two structurally
 * equal values hash alike whatever their key order.
 *
 * @throws TypeError when `value` is not a JSON value RFC 8785 can serialize: `undefined`, a
 *   function, NaN or ±Infinity, a BigInt, a cycle, or a string with a lone UTF-16 surrogate. Values
 *   hashed here have passed the representation rung, so this is a fault of the caller, not a
 *   refusal of the proposal.
 */
export function canonicalSha256(value: unknown): string {
  let text: string | undefined;
  try {
    text = canonicalize(value);
  } catch (cause) {
    throw new TypeError(`cannot canonicalize: ${String(cause)}`, { cause });
  }
  if (text === undefined) throw new TypeError('cannot canonicalize: not a JSON value');
  return sha256Hex(text);
}

/** {@link canonicalSha256}, or undefined for a value it cannot serialize, instead of a throw. */
export function canonicalSha256OrUndefined(value: unknown): string | undefined {
  try {
    return canonicalSha256(value);
  } catch {
    return undefined;
  }
}
