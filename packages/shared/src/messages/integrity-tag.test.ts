import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../auth/index.js';
import { checkFreshness, checkIntegrity } from './check-integrity.js';
import {
  integrityKeyProblems,
  integrityTag,
  MIN_INTEGRITY_KEY_BYTES,
  verifyIntegrity,
} from './integrity-tag.js';
import { INTEGRITY_HEADER, SESSION_HEADER } from './message-headers.js';
import { KEY, validated } from './messages.test-support.js';
import { validatedEnvelope } from './stage-envelope.js';

const TOPIC = 'toolgate.validated';
const envelope = () => validatedEnvelope(validated(), '2025-03-01T12:00:00.000Z');
/** `value` as JSON bytes, as a record's value carries them. */
const bytesOf = (value: unknown) => Buffer.from(JSON.stringify(value));

/** `text` with the character at `i` replaced by another printable ASCII character. */
function flip(text: string, i: number): string {
  const c = text.charCodeAt(i);
  const other = c === 0x7e ? 0x21 : c + 1;
  return text.slice(0, i) + String.fromCharCode(other) + text.slice(i + 1);
}

describe('the headers', () => {
  it('are named toolgate-integrity and toolgate-session', () => {
    expect(INTEGRITY_HEADER).toBe('toolgate-integrity');
    expect(SESSION_HEADER).toBe('toolgate-session');
  });
});

describe('integrityKeyProblems', () => {
  it('accepts a key of 32 bytes', () => {
    expect(MIN_INTEGRITY_KEY_BYTES).toBe(32);
    expect(integrityKeyProblems('k'.repeat(32))).toEqual([]);
  });

  it('refuses a key of 31 bytes, naming its length and not its value', () => {
    const problems = integrityKeyProblems('s'.repeat(31));
    expect(problems).toEqual(['the integrity key is 31 bytes; at least 32 are required']);
  });

  it('counts UTF-8 bytes, not characters', () => {
    expect(integrityKeyProblems('é'.repeat(16))).toEqual([]);
    expect(integrityKeyProblems('é'.repeat(15))).toHaveLength(1);
  });

  it('refuses a key that is not a string', () => {
    expect(integrityKeyProblems(undefined)).toEqual(['the integrity key is not a string']);
  });
});

describe('integrityTag', () => {
  it('is 64 lowercase hex characters', () => {
    expect(integrityTag(KEY, TOPIC, bytesOf(envelope()))).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is the HMAC-SHA256 of the topic, a NUL byte and the bytes', () => {
    const bytes = bytesOf({ a: 1 });
    const expected = createHmac('sha256', KEY)
      .update(Buffer.concat([Buffer.from(`${TOPIC}\0`), bytes]))
      .digest('hex');
    expect(integrityTag(KEY, TOPIC, bytes)).toBe(expected);
  });

  it('differs by key, by topic and by bytes', () => {
    const tag = integrityTag(KEY, TOPIC, bytesOf({ a: 1 }));
    expect(integrityTag('m'.repeat(32), TOPIC, bytesOf({ a: 1 }))).not.toBe(tag);
    expect(integrityTag(KEY, 'toolgate.authorized', bytesOf({ a: 1 }))).not.toBe(tag);
    expect(integrityTag(KEY, TOPIC, bytesOf({ a: 2 }))).not.toBe(tag);
  });

  it('binds the representation: the same value spelled otherwise is another tag', () => {
    const tag = integrityTag(KEY, TOPIC, Buffer.from('{"x":1,"y":2}'));
    expect(integrityTag(KEY, TOPIC, Buffer.from('{"y":2,"x":1}'))).not.toBe(tag);
    expect(integrityTag(KEY, TOPIC, Buffer.from('{"x": 1,"y":2}'))).not.toBe(tag);
  });

  it('cannot be moved between the topic and the bytes', () => {
    // Without the NUL, topic "t.a" with bytes "b…" and topic "t.ab" with bytes "…" would collide.
    expect(integrityTag(KEY, 'toolgate.a', Buffer.from('b{}'))).not.toBe(
      integrityTag(KEY, 'toolgate.ab', Buffer.from('{}')),
    );
  });

  it('throws a ConfigError for a short key instead of tagging with it', () => {
    expect(() => integrityTag('short', TOPIC, bytesOf({}))).toThrow(ConfigError);
  });
});

describe('verifyIntegrity', () => {
  it('accepts the tag written for the same bytes on the same topic', () => {
    const bytes = bytesOf(envelope());
    expect(verifyIntegrity(KEY, TOPIC, bytes, integrityTag(KEY, TOPIC, bytes))).toBe(true);
  });

  it('accepts a copy of the bytes, as a consumer receives them', () => {
    const bytes = bytesOf(envelope());
    const tag = integrityTag(KEY, TOPIC, bytes);
    expect(verifyIntegrity(KEY, TOPIC, Buffer.from(new Uint8Array(bytes)), tag)).toBe(true);
  });

  it('refuses a tag from another topic', () => {
    const bytes = bytesOf(envelope());
    const tag = integrityTag(KEY, 'toolgate.authorized', bytes);
    expect(verifyIntegrity(KEY, TOPIC, bytes, tag)).toBe(false);
  });

  it('refuses a tag made with another key', () => {
    const bytes = bytesOf(envelope());
    expect(verifyIntegrity(KEY, TOPIC, bytes, integrityTag('z'.repeat(40), TOPIC, bytes))).toBe(
      false,
    );
  });

  it('refuses a missing, empty, short, long or upper-case tag', () => {
    const bytes = bytesOf(envelope());
    const tag = integrityTag(KEY, TOPIC, bytes);
    for (const bad of [undefined, '', tag.slice(1), `${tag}0`, tag.toUpperCase()]) {
      expect(verifyIntegrity(KEY, TOPIC, bytes, bad)).toBe(false);
    }
  });

  it('refuses the tag when any one character of it is changed', () => {
    const bytes = bytesOf(envelope());
    const tag = integrityTag(KEY, TOPIC, bytes);
    for (let i = 0; i < tag.length; i += 1) {
      expect(verifyIntegrity(KEY, TOPIC, bytes, flip(tag, i))).toBe(false);
    }
  });

  it('refuses the tag when any one character of the topic is changed', () => {
    const bytes = bytesOf({ a: 1 });
    const tag = integrityTag(KEY, TOPIC, bytes);
    for (let i = 0; i < TOPIC.length; i += 1) {
      expect(verifyIntegrity(KEY, flip(TOPIC, i), bytes, tag)).toBe(false);
    }
  });

  it('refuses the tag when any one byte of the value is changed, added or removed', () => {
    const json = JSON.stringify(envelope());
    const tag = integrityTag(KEY, TOPIC, Buffer.from(json));
    for (let i = 0; i < json.length; i += 1) {
      expect(verifyIntegrity(KEY, TOPIC, Buffer.from(flip(json, i)), tag)).toBe(false);
    }
    expect(verifyIntegrity(KEY, TOPIC, Buffer.from(`${json} `), tag)).toBe(false);
    expect(verifyIntegrity(KEY, TOPIC, Buffer.from(json.slice(0, -1)), tag)).toBe(false);
  });

  it('refuses any other bytes under a tag (property)', () => {
    const bytes = bytesOf(envelope());
    const tag = integrityTag(KEY, TOPIC, bytes);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (other) => {
        fc.pre(!bytes.equals(other));
        expect(verifyIntegrity(KEY, TOPIC, other, tag)).toBe(false);
      }),
    );
  });

  it('refuses a record without a value (a tombstone) rather than throwing', () => {
    const tag = integrityTag(KEY, TOPIC, new Uint8Array(0));
    expect(verifyIntegrity(KEY, TOPIC, null, tag)).toBe(false);
  });

  it('throws a ConfigError for a short key', () => {
    expect(() => verifyIntegrity('', TOPIC, bytesOf({}), 'a'.repeat(64))).toThrow(ConfigError);
  });
});

describe('checkIntegrity', () => {
  it('accepts a message the gate tagged for this topic', () => {
    const bytes = bytesOf(envelope());
    expect(checkIntegrity([KEY], TOPIC, bytes, integrityTag(KEY, TOPIC, bytes))).toEqual({
      ok: true,
      value: undefined,
    });
  });

  it('refuses a message without a tag as authentication/forged_envelope (deny)', () => {
    const refused = checkIntegrity([KEY], TOPIC, bytesOf(envelope()), undefined);
    expect(refused).toMatchObject({
      ok: false,
      stage: 'authentication',
      code: 'forged_envelope',
      disposition: 'deny',
      publicMessage: 'The gate refused a message it did not write.',
      internalDetail: `no toolgate-integrity header on ${TOPIC}`,
    });
  });

  it('refuses a tagged message without a value, saying so', () => {
    const refused = checkIntegrity([KEY], TOPIC, null, 'a'.repeat(64));
    expect(refused).toMatchObject({
      ok: false,
      code: 'forged_envelope',
      internalDetail: `no value to verify on ${TOPIC}`,
    });
  });

  it('refuses a wrong tag without echoing it', () => {
    const bytes = bytesOf(envelope());
    const forged = 'f'.repeat(64);
    const refused = checkIntegrity([KEY], TOPIC, bytes, forged);
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.code).toBe('forged_envelope');
    expect(refused.internalDetail).toBe(
      `toolgate-integrity does not verify for these bytes on ${TOPIC}`,
    );
    expect(refused.internalDetail).not.toContain(forged);
    expect(refused.publicMessage).not.toContain(TOPIC);
  });

  it('refuses a genuine envelope replayed onto another internal topic', () => {
    const bytes = bytesOf(envelope());
    const tag = integrityTag(KEY, TOPIC, bytes);
    expect(checkIntegrity([KEY], 'toolgate.cleared', bytes, tag).ok).toBe(false);
  });
});

describe('checkIntegrity during a key rotation', () => {
  it('accepts a tag made with any key still accepted, and no other', () => {
    const bytes = bytesOf(envelope());
    const next = 'n'.repeat(32);
    const tag = integrityTag(next, TOPIC, bytes);
    expect(checkIntegrity([KEY, next], TOPIC, bytes, tag).ok).toBe(true);
    expect(checkIntegrity([KEY], TOPIC, bytes, tag).ok).toBe(false);
  });
});

describe('checkFreshness', () => {
  const NOW = new Date('2026-12-07T12:00:00.000Z');

  it('accepts an envelope issued within the bound, refuses one issued before it', () => {
    expect(checkFreshness({ issuedAt: '2026-12-07T11:30:00.000Z' }, NOW, 3_600_000).ok).toBe(true);
    const stale = checkFreshness({ issuedAt: '2026-12-06T11:59:59.000Z' }, NOW, 3_600_000);
    expect(stale).toMatchObject({
      ok: false,
      stage: 'authentication',
      code: 'stale_envelope',
      disposition: 'deny',
    });
    expect(stale.ok ? '' : stale.internalDetail).toMatch(/issued 86401000 ms ago/);
  });

  it('refuses an envelope that does not say when it was issued', () => {
    for (const value of [{}, { issuedAt: 'yesterday' }, { issuedAt: 17 }, null]) {
      expect(checkFreshness(value, NOW, 3_600_000)).toMatchObject({
        ok: false,
        code: 'stale_envelope',
      });
    }
  });
});
