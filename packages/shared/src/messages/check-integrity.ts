/**
 * The first checks of every stage that reads an internal topic: did the gate write this, and
 * recently enough?
 */
import { accept, rejecterFor, type Decision } from '../decision.js';
import { INTEGRITY_HEADER } from './message-headers.js';
import { verifyIntegrity } from './integrity-tag.js';

const reject = rejecterFor('authentication');

/**
 * Accepts a message from an internal topic only when its {@link INTEGRITY_HEADER} tag verifies
 * for exactly these value bytes on exactly this topic (the full, prefixed name the message was read
 * from). A missing, malformed or wrong tag is `authentication/forged_envelope` (deny): the
 * envelope is never forwarded, and the internal detail says which case it was, never the tag.
 * Everything in a refused envelope (ids, tenant, subject) is a claim of whoever wrote it: audit
 * it as such, and publish a terminal observation only under the ids it names.
 *
 * @param keys - `TOOLGATE_INTEGRITY_KEY`, then any still accepted during a rotation.
 * @param topic - The topic the message was read from.
 * @param bytes - The record's value as it arrived (`Incoming.raw`); null for a tombstone.
 * @param tag - The header's value; undefined when the header is absent.
 * @throws ConfigError when `key` is too short (see `integrityKeyProblems`).
 */
export function checkIntegrity(
  keys: readonly string[],
  topic: string,
  bytes: Uint8Array | null,
  tag: string | undefined,
): Decision<void, 'authentication'> {
  if (tag === undefined) {
    return reject('forged_envelope', undefined, `no ${INTEGRITY_HEADER} header on ${topic}`);
  }
  if (bytes === null) return reject('forged_envelope', undefined, `no value to verify on ${topic}`);
  if (!keys.some((key) => verifyIntegrity(key, topic, bytes, tag))) {
    return reject(
      'forged_envelope',
      undefined,
      `${INTEGRITY_HEADER} does not verify for these bytes on ${topic}`,
    );
  }
  return accept(undefined);
}

/**
 * Accepts an envelope whose `issuedAt` (inside the tagged bytes) is at most `maxAgeMs` before
 * `now`; a missing or unreadable one, or an older one, is `authentication/stale_envelope` (deny).
 * Call it only on an envelope whose tag verified: then `issuedAt` is the gate's own word.
 */
export function checkFreshness(
  value: unknown,
  now: Date,
  maxAgeMs: number,
): Decision<void, 'authentication'> {
  const issuedAt = (value as { issuedAt?: unknown } | null | undefined)?.issuedAt;
  const at = typeof issuedAt === 'string' ? Date.parse(issuedAt) : Number.NaN;
  if (Number.isNaN(at)) {
    return reject('stale_envelope', undefined, 'the envelope says nothing of when it was issued');
  }
  const age = now.getTime() - at;
  return age > maxAgeMs
    ? reject(
        'stale_envelope',
        undefined,
        `issued ${age} ms ago, more than the ${maxAgeMs} ms allowed`,
      )
    : accept(undefined);
}
