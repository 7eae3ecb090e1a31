/**
 * The integrity tag of internal topics (DESIGN §2): an HMAC over the message and the topic it was
 * written to, with a key only the gate's stages hold, so a message written to `validated`,
 * `authorized` or `cleared` by anyone else is refused, and a genuine message copied to another
 * topic is refused too.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import canonicalize from 'canonicalize';
import { ConfigError } from '../auth/index.js';

/** Shortest integrity key accepted, in UTF-8 bytes: the HMAC-SHA-256 output size (RFC 2104 §3). */
export const MIN_INTEGRITY_KEY_BYTES = 32;

/** A well-formed tag: 64 lowercase hex characters. */
const TAG = /^[0-9a-f]{64}$/;

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
 * The tag of `value` written to `topic` (the full, prefixed topic name): HMAC-SHA256, lowercase
 * hex, over the RFC 8785 canonical JSON of `{topic, value}`. Canonical JSON makes the tag
 * independent of key order and of how the codec spaced the JSON; binding the topic keeps a
 * `validated` envelope from passing as an `authorized` one.
 *
 * @throws ConfigError when `key` is shorter than {@link MIN_INTEGRITY_KEY_BYTES}.
 * @throws TypeError when `value` is not a JSON value RFC 8785 can serialize (undefined, NaN,
 *   ±Infinity, a cycle, a string with a lone surrogate): a fault of the writer, never a refusal.
 */
export function integrityTag(key: string, topic: string, value: unknown): string {
  const text = canonicalText(topic, value);
  if (text === undefined) throw new TypeError(`cannot canonicalize a message for ${topic}`);
  return hmacHex(key, text);
}

/**
 * True when `tag` is the tag of `value` on `topic` under `key`. Fails closed: a missing or
 * malformed tag, or a value that cannot be canonicalized, is not valid. The comparison is
 * constant-time over the 64 tag characters, so timing says nothing about how much of a guess
 * was right.
 *
 * @throws ConfigError when `key` is shorter than {@link MIN_INTEGRITY_KEY_BYTES}.
 */
export function verifyIntegrity(
  key: string,
  topic: string,
  value: unknown,
  tag: string | undefined,
): boolean {
  const text = canonicalText(topic, value);
  const expected = hmacHex(key, text ?? '');
  if (text === undefined || tag === undefined || !TAG.test(tag)) return false;
  return timingSafeEqual(Buffer.from(tag, 'latin1'), Buffer.from(expected, 'latin1'));
}

function canonicalText(topic: string, value: unknown): string | undefined {
  // canonicalize drops an undefined member, which would make "no value" tag like `{topic}` alone.
  if (value === undefined) return undefined;
  try {
    return canonicalize({ topic, value });
  } catch {
    return undefined;
  }
}

function hmacHex(key: string, text: string): string {
  const problems = integrityKeyProblems(key);
  if (problems.length > 0) throw new ConfigError('integrity key', problems);
  return createHmac('sha256', Buffer.from(key, 'utf8')).update(text, 'utf8').digest('hex');
}
