import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../auth/index.js';
import { checkIntegrity } from './check-integrity.js';
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
    expect(integrityTag(KEY, TOPIC, envelope())).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not depend on key order in the value', () => {
    const a = { x: 1, y: { p: 'q', r: [1, 2] } };
    const b = { y: { r: [1, 2], p: 'q' }, x: 1 };
    expect(integrityTag(KEY, TOPIC, a)).toBe(integrityTag(KEY, TOPIC, b));
  });

  it('differs by key, by topic and by value', () => {
    const tag = integrityTag(KEY, TOPIC, { a: 1 });
    expect(integrityTag('m'.repeat(32), TOPIC, { a: 1 })).not.toBe(tag);
    expect(integrityTag(KEY, 'toolgate.authorized', { a: 1 })).not.toBe(tag);
    expect(integrityTag(KEY, TOPIC, { a: 2 })).not.toBe(tag);
  });

  it('throws a ConfigError for a short key instead of tagging with it', () => {
    expect(() => integrityTag('short', TOPIC, {})).toThrow(ConfigError);
  });

  it('throws a TypeError for a value RFC 8785 cannot serialize', () => {
    expect(() => integrityTag(KEY, TOPIC, { n: Number.NaN })).toThrow(TypeError);
    expect(() => integrityTag(KEY, TOPIC, { s: '\ud800' })).toThrow(TypeError);
    expect(() => integrityTag(KEY, TOPIC, undefined)).toThrow(TypeError);
  });
});

describe('verifyIntegrity', () => {
  it('accepts the tag written for the same value on the same topic', () => {
    const value = envelope();
    expect(verifyIntegrity(KEY, TOPIC, value, integrityTag(KEY, TOPIC, value))).toBe(true);
  });

  it('accepts the value after a JSON round trip, as a consumer decodes it', () => {
    const value = envelope();
    const tag = integrityTag(KEY, TOPIC, value);
    expect(verifyIntegrity(KEY, TOPIC, JSON.parse(JSON.stringify(value)), tag)).toBe(true);
  });

  it('refuses a tag from another topic', () => {
    const value = envelope();
    const tag = integrityTag(KEY, 'toolgate.authorized', value);
    expect(verifyIntegrity(KEY, TOPIC, value, tag)).toBe(false);
  });

  it('refuses a tag made with another key', () => {
    const value = envelope();
    expect(verifyIntegrity(KEY, TOPIC, value, integrityTag('z'.repeat(40), TOPIC, value))).toBe(
      false,
    );
  });

  it('refuses a missing, empty, short, long or upper-case tag', () => {
    const value = envelope();
    const tag = integrityTag(KEY, TOPIC, value);
    for (const bad of [undefined, '', tag.slice(1), `${tag}0`, tag.toUpperCase()]) {
      expect(verifyIntegrity(KEY, TOPIC, value, bad)).toBe(false);
    }
  });

  it('refuses the tag when any one character of it is changed', () => {
    const value = envelope();
    const tag = integrityTag(KEY, TOPIC, value);
    for (let i = 0; i < tag.length; i += 1) {
      expect(verifyIntegrity(KEY, TOPIC, value, flip(tag, i))).toBe(false);
    }
  });

  it('refuses the tag when any one character of the topic is changed', () => {
    const value = { a: 1 };
    const tag = integrityTag(KEY, TOPIC, value);
    for (let i = 0; i < TOPIC.length; i += 1) {
      expect(verifyIntegrity(KEY, flip(TOPIC, i), value, tag)).toBe(false);
    }
  });

  it('refuses the tag when any one byte of the encoded value is changed', () => {
    const value = envelope();
    const tag = integrityTag(KEY, TOPIC, value);
    const json = JSON.stringify(value);
    let decodable = 0;
    for (let i = 0; i < json.length; i += 1) {
      let tampered: unknown;
      try {
        tampered = JSON.parse(flip(json, i));
      } catch {
        continue; // bytes that no longer decode never reach the check
      }
      decodable += 1;
      expect(verifyIntegrity(KEY, TOPIC, tampered, tag)).toBe(false);
    }
    expect(decodable).toBeGreaterThan(json.length / 2);
  });

  it('refuses any other JSON value under a tag (property)', () => {
    const value = envelope();
    const tag = integrityTag(KEY, TOPIC, value);
    fc.assert(
      fc.property(fc.jsonValue(), (other) => {
        expect(verifyIntegrity(KEY, TOPIC, other, tag)).toBe(false);
      }),
    );
  });

  it('refuses a value that cannot be canonicalized rather than throwing', () => {
    const tag = integrityTag(KEY, TOPIC, { s: 'x' });
    expect(verifyIntegrity(KEY, TOPIC, { s: '\udc00' }, tag)).toBe(false);
    expect(verifyIntegrity(KEY, TOPIC, undefined, tag)).toBe(false);
  });

  it('throws a ConfigError for a short key', () => {
    expect(() => verifyIntegrity('', TOPIC, {}, 'a'.repeat(64))).toThrow(ConfigError);
  });
});

describe('checkIntegrity', () => {
  it('accepts a message the gate tagged for this topic', () => {
    const value = envelope();
    expect(checkIntegrity(KEY, TOPIC, value, integrityTag(KEY, TOPIC, value))).toEqual({
      ok: true,
      value: undefined,
    });
  });

  it('refuses a message without a tag as authentication/forged_envelope (deny)', () => {
    const refused = checkIntegrity(KEY, TOPIC, envelope(), undefined);
    expect(refused).toMatchObject({
      ok: false,
      stage: 'authentication',
      code: 'forged_envelope',
      disposition: 'deny',
      publicMessage: 'The gate refused a message it did not write.',
      internalDetail: `no toolgate-integrity header on ${TOPIC}`,
    });
  });

  it('refuses a wrong tag without echoing it', () => {
    const value = envelope();
    const forged = 'f'.repeat(64);
    const refused = checkIntegrity(KEY, TOPIC, value, forged);
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.code).toBe('forged_envelope');
    expect(refused.internalDetail).not.toContain(forged);
    expect(refused.publicMessage).not.toContain(TOPIC);
  });

  it('refuses a genuine envelope replayed onto another internal topic', () => {
    const value = envelope();
    const tag = integrityTag(KEY, TOPIC, value);
    expect(checkIntegrity(KEY, 'toolgate.cleared', value, tag).ok).toBe(false);
  });
});
