/** The first check of every stage that reads an internal topic: did the gate write this? */
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
 * @param key - `TOOLGATE_INTEGRITY_KEY`.
 * @param topic - The topic the message was read from.
 * @param bytes - The record's value as it arrived (`Incoming.raw`); null for a tombstone.
 * @param tag - The header's value; undefined when the header is absent.
 * @throws ConfigError when `key` is too short (see `integrityKeyProblems`).
 */
export function checkIntegrity(
  key: string,
  topic: string,
  bytes: Uint8Array | null,
  tag: string | undefined,
): Decision<void, 'authentication'> {
  if (tag === undefined) {
    return reject('forged_envelope', undefined, `no ${INTEGRITY_HEADER} header on ${topic}`);
  }
  if (bytes === null) return reject('forged_envelope', undefined, `no value to verify on ${topic}`);
  if (!verifyIntegrity(key, topic, bytes, tag)) {
    return reject(
      'forged_envelope',
      undefined,
      `${INTEGRITY_HEADER} does not verify for these bytes on ${topic}`,
    );
  }
  return accept(undefined);
}
