/**
 * The integrity tag of internal topics (DESIGN §2): an HMAC over the record's value bytes and the
 * topic it was written to, with a key only the gate's stages hold, so a message written to
 * `validated`, `authorized` or `cleared` by anyone else is refused, and a genuine message copied
 * to another topic is refused too.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../auth/index.js';

/** Shortest integrity key accepted, in UTF-8 bytes: the HMAC-SHA-256 output size (RFC 2104 §3). */
export const MIN_INTEGRITY_KEY_BYTES = 32;

/** A well-formed tag: 64 lowercase hex characters. */
const TAG = /^[0-9a-f]{64}$/;

const TOPIC_END = Buffer.from([0]);
const EMPTY = new Uint8Array(0);

/**
 * Every problem with an integrity key, one sentence each (never the key itself); empty when the
 * key is usable. For configuration validation (`TOOLGATE_INTEGRITY_KEY`).
 */
export function integrityKeyProblems(key: unknown): string[] {
  if (typeof key !== 'string') return ['the integrity key is not a string'];
  const bytes = Buffer.byteLength(key, 'utf8');
  return bytes < MIN_INTEGRITY_KEY_BYTES
    ? [`the integrity key is ${bytes} bytes; at least ${MIN_INTEGRITY_KEY_BYTES} are required`]
    : [];
}

/**
 * The tag of a record written to `topic` (the full, prefixed topic name) whose value is `bytes`:
 * HMAC-SHA256, lowercase hex, over the topic, a NUL byte (which no Kafka topic name contains) and
 * the value's bytes exactly as produced (the wire format: magic byte, schema id, JSON). Binding
 * the bytes rather than a canonical form of the decoded value costs one pass of the HMAC, and it
 * is stricter: the consumer acts on what it decodes from exactly these bytes. Binding the topic
 * keeps a `validated` envelope from passing as an `authorized` one.
 *
 * @throws ConfigError when `key` is shorter than {@link MIN_INTEGRITY_KEY_BYTES}.
 */
export function integrityTag(key: string, topic: string, bytes: Uint8Array): string {
  const problems = integrityKeyProblems(key);
  if (problems.length > 0) throw new ConfigError('integrity key', problems);
  return createHmac('sha256', Buffer.from(key, 'utf8'))
    .update(topic, 'utf8')
    .update(TOPIC_END)
    .update(bytes)
    .digest('hex');
}

/**
 * True when `tag` is the tag of a record with value `bytes` on `topic` under `key`. Fails closed:
 * a missing or malformed tag, or no bytes (a tombstone), is not valid. The comparison is
 * constant-time over the 64 tag characters, so timing says nothing about how much of a guess was
 * right.
 *
 * @throws ConfigError when `key` is shorter than {@link MIN_INTEGRITY_KEY_BYTES}.
 */
export function verifyIntegrity(
  key: string,
  topic: string,
  bytes: Uint8Array | null,
  tag: string | undefined,
): boolean {
  const expected = integrityTag(key, topic, bytes ?? EMPTY);
  if (bytes === null || tag === undefined || !TAG.test(tag)) return false;
  return timingSafeEqual(Buffer.from(tag, 'latin1'), Buffer.from(expected, 'latin1'));
}
