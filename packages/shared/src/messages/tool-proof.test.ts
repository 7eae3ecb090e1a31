import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../auth/index.js';
import { deriveToolKey, parseToolKeys, toolProof, verifyToolProof } from './tool-proof.js';

const COMMAND_KEY = 'c'.repeat(32);
const TOPIC = 'toolgate.commands.refund_payment';
const bytes = Buffer.from('{"commandId":"cmd_1","tool":"refund_payment"}');

describe('deriveToolKey', () => {
  it('is HMAC-SHA256 of the label, a NUL and the tool name under the command key', () => {
    const expected = createHmac('sha256', COMMAND_KEY)
      .update('toolgate tool key v1\u0000refund_payment')
      .digest('hex');
    expect(deriveToolKey(COMMAND_KEY, 'refund_payment')).toBe(expected);
  });

  it('gives every tool a key of its own, and another command key other keys', () => {
    const keys = ['search', 'refund_payment', 'send_email'].map((t) =>
      deriveToolKey(COMMAND_KEY, t),
    );
    expect(new Set(keys).size).toBe(3);
    expect(deriveToolKey('d'.repeat(32), 'search')).not.toBe(keys[0]);
  });

  it('refuses a command key shorter than 32 bytes, without quoting it', () => {
    expect(() => deriveToolKey('short-secret', 'search')).toThrow(ConfigError);
    try {
      deriveToolKey('short-secret', 'search');
    } catch (error) {
      expect(String(error)).not.toContain('short-secret');
    }
  });
});

describe('verifyToolProof', () => {
  const refundKey = deriveToolKey(COMMAND_KEY, 'refund_payment');
  const searchKey = deriveToolKey(COMMAND_KEY, 'search');
  const proof = toolProof(refundKey, TOPIC, bytes);

  it('returns the key that proves these bytes on this topic', () => {
    expect(verifyToolProof([searchKey, refundKey], TOPIC, bytes, proof)).toBe(refundKey);
  });

  it("refuses another tool's key, other bytes, another topic, no proof and no bytes", () => {
    expect(verifyToolProof([searchKey], TOPIC, bytes, proof)).toBeUndefined();
    expect(verifyToolProof([refundKey], TOPIC, Buffer.from('{}'), proof)).toBeUndefined();
    expect(verifyToolProof([refundKey], 'toolgate.commands.search', bytes, proof)).toBeUndefined();
    expect(verifyToolProof([refundKey], TOPIC, bytes, undefined)).toBeUndefined();
    expect(verifyToolProof([refundKey], TOPIC, null, proof)).toBeUndefined();
    expect(verifyToolProof([], TOPIC, bytes, proof)).toBeUndefined();
  });

  it("refuses a command's proof offered for a result: the topic is part of what is proved", () => {
    expect(verifyToolProof([refundKey], 'toolgate.results', bytes, proof)).toBeUndefined();
  });
});

describe('parseToolKeys', () => {
  const key = 'a'.repeat(64);

  it('groups keys by tool, keeping two of one tool for a rotation', () => {
    const keys = parseToolKeys([`search:${key}`, `search:${'b'.repeat(64)}`, `final:${key}`]);
    expect(keys.get('search')).toEqual([key, 'b'.repeat(64)]);
    expect(keys.get('final')).toEqual([key]);
  });

  it('names each malformed entry by position, never its key', () => {
    let problems: readonly string[] = [];
    try {
      parseToolKeys([`search:${key}`, 'no-colon', `bad tool:${key}`, 'search:XYZ-secret']);
    } catch (error) {
      problems = (error as ConfigError).problems;
    }
    expect(problems).toEqual([
      'entry 2 is not <tool>:<64 hex characters>',
      'entry 3 is not <tool>:<64 hex characters>',
      'entry 4 is not <tool>:<64 hex characters>',
    ]);
    expect(problems.join(' ')).not.toContain('XYZ-secret');
  });
});
