import { checkResult, MAX_RESULT_BYTES, observationForResult } from '@toolgate/shared';
import { describe, expect, it } from 'vitest';
import type { OutRecord } from './bus-types.js';
import { MAX_REQUEST_RECORD_BYTES, recordBytes, requestsOf } from './record-size.js';

const rec = (bytes: number, key: string | null = 'k', headers?: Record<string, string>) =>
  ({ topic: 't', key, value: Buffer.alloc(bytes), ...(headers ? { headers } : {}) }) as OutRecord;

describe('recordBytes', () => {
  it('counts the value, the key and headers in UTF-8, and a bound on the framing', () => {
    expect(recordBytes(rec(100, null))).toBe(141);
    expect(recordBytes(rec(100, 'é'))).toBe(143);
    expect(recordBytes(rec(100, null, { 'x-tag': 'ab', ü: '' }))).toBe(141 + 10 + 7 + 10 + 2);
  });
});

describe('requestsOf', () => {
  it('leaves a small send whole, and sends nothing for no records', () => {
    const records = [rec(10), rec(20), rec(30)];
    expect(requestsOf(records)).toEqual([records]);
    expect(requestsOf([])).toEqual([]);
  });

  it('cuts records, in order, into runs that stay within the bound', () => {
    const records = Array.from({ length: 7 }, (_, i) => rec(400_000 + i));
    const runs = requestsOf(records);
    expect(runs.flat()).toEqual(records);
    expect(runs.map((r) => r.length)).toEqual([2, 2, 2, 1]);
    for (const run of runs) {
      expect(run.reduce((sum, r) => sum + recordBytes(r), 0)).toBeLessThanOrEqual(
        MAX_REQUEST_RECORD_BYTES,
      );
    }
  });

  it('fills a run exactly to the bound, and gives a record over it a run of its own', () => {
    const half = MAX_REQUEST_RECORD_BYTES / 2 - 41 - 1;
    const a = rec(half);
    const b = rec(half);
    const big = rec(MAX_REQUEST_RECORD_BYTES);
    const c = rec(1);
    expect(recordBytes(a) + recordBytes(b)).toBe(MAX_REQUEST_RECORD_BYTES);
    expect(requestsOf([a, b, big, c])).toEqual([[a, b], [big], [c]]);
  });
});

describe('the largest output a deployment may allow', () => {
  it('fits one record in its observation, escaped at six bytes for one', () => {
    // A control character takes one byte of output and six (\u0001) in the observation's JSON.
    const output = '\u0001'.repeat(MAX_RESULT_BYTES);
    const shown = checkResult(output, { maxBytes: MAX_RESULT_BYTES });
    if (!shown.ok) throw new Error(`the result rung refused it: ${shown.code}`);
    const long = 'i'.repeat(256);
    const ids = { proposalId: long, runId: long, requestId: long, callId: long };
    const observation = observationForResult(ids, shown.value, new Date(0));
    // The wire format's five bytes before the JSON, and headers as large as any stage adds.
    const value = Buffer.concat([Buffer.alloc(5), Buffer.from(JSON.stringify(observation))]);
    expect(value.length).toBeGreaterThan(6 * MAX_RESULT_BYTES);
    const headers = { 'toolgate-integrity': 'x'.repeat(1024) };
    expect(recordBytes({ topic: 't', key: long, value, headers })).toBeLessThanOrEqual(
      MAX_REQUEST_RECORD_BYTES,
    );
  });
});
