import { INTEGRITY_HEADER, SESSION_HEADER } from '@toolgate/shared';
import { generateOutputKeys } from './gate-keys.js';
import { describe, expect, it } from 'vitest';
import {
  createGateOutputs,
  MAX_QUARANTINE_HEADER_BYTES,
  MAX_QUARANTINE_VALUE_BYTES,
  QUARANTINE_HEADERS_DROPPED_HEADER,
  QUARANTINE_VALUE_BYTES_HEADER,
} from './gate-outputs.js';
import { gateTopics } from './gate-topics.js';
import { MAX_REQUEST_RECORD_BYTES, recordBytes } from './record-size.js';

const outputs = createGateOutputs(
  gateTopics('ns.'),
  generateOutputKeys(),
  new Set(['acme', 'globex']),
);

describe('createGateOutputs: quarantine', () => {
  it("keeps undecodable bytes and their headers, but never the caller's session token", () => {
    const raw = Buffer.from('{"truncated":');
    const quarantined = outputs.quarantine(raw, {
      [SESSION_HEADER]: 'the-callers-session-token',
      [INTEGRITY_HEADER]: 'ab'.repeat(32),
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    expect(quarantined).toEqual({
      topic: 'ns.toolgate.quarantine',
      key: null,
      raw,
      headers: {
        [INTEGRITY_HEADER]: 'ab'.repeat(32),
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      },
    });
  });

  it('drops the session header whatever its case', () => {
    const quarantined = outputs.quarantine(Buffer.from('x'), {
      'Toolgate-Session': 'token',
      'TOOLGATE-SESSION': 'token',
    });
    expect(quarantined.headers).toEqual({});
  });

  it('keeps a value of exactly the most bytes whole, and no header says it was cut', () => {
    const raw = Buffer.alloc(MAX_QUARANTINE_VALUE_BYTES, 0xff);
    const quarantined = outputs.quarantine(raw, { traceparent: 't' });
    expect(quarantined.raw).toBe(raw);
    expect(quarantined.headers).toEqual({ traceparent: 't' });
  });

  it('keeps the first bytes of a larger value, says how long it was, and fits one request', () => {
    // As large as the broker takes by default: more than one request of the gate may carry.
    const raw = Buffer.alloc(1024 * 1024, 0xff);
    raw.write('{"start":', 0);
    const quarantined = outputs.quarantine(raw, { traceparent: 't' });
    expect(quarantined.raw.equals(raw.subarray(0, MAX_QUARANTINE_VALUE_BYTES))).toBe(true);
    expect(quarantined.headers).toEqual({
      traceparent: 't',
      [QUARANTINE_VALUE_BYTES_HEADER]: String(1024 * 1024),
    });
    const record = { ...quarantined, value: quarantined.raw };
    expect(recordBytes(record)).toBeLessThan(MAX_REQUEST_RECORD_BYTES);
  });

  it('leaves out headers that are together over their bound, and counts them', () => {
    const half = 'h'.repeat(MAX_QUARANTINE_HEADER_BYTES / 2);
    const within = outputs.quarantine(Buffer.from('x'), { a: half.slice(2), b: half });
    expect(Object.keys(within.headers ?? {})).toEqual(['a', 'b']);
    const over = outputs.quarantine(Buffer.from('x'), { a: half, b: half, c: 'x' });
    expect(over.headers).toEqual({ [QUARANTINE_HEADERS_DROPPED_HEADER]: '3' });
  });
});
