import { describe, expect, it } from 'vitest';
import { headersFromRecord } from './record-headers.js';

describe('headersFromRecord', () => {
  it('reads Buffer and string values as UTF-8 text', () => {
    expect(headersFromRecord({ 'toolgate-session': Buffer.from('eyJ.a.b'), trace: 'abc' })).toEqual(
      { 'toolgate-session': 'eyJ.a.b', trace: 'abc' },
    );
  });

  it('leaves out a name that appears more than once, so the gate sees it as missing', () => {
    const headers = headersFromRecord({
      'toolgate-integrity': [Buffer.from('tag-a'), Buffer.from('tag-b')],
      other: 'kept',
    });
    expect(headers).toEqual({ other: 'kept' });
    expect('toolgate-integrity' in headers).toBe(false);
  });

  it('leaves out a header with no value (null), alone or repeated, instead of throwing', () => {
    expect(headersFromRecord({ 'toolgate-session': null, kept: 'yes' })).toEqual({ kept: 'yes' });
    expect(headersFromRecord({ 'toolgate-integrity': [null, Buffer.from('tag')] })).toEqual({});
  });

  it('leaves out undefined values and accepts no headers at all', () => {
    expect(headersFromRecord({ a: undefined })).toEqual({});
    expect(headersFromRecord(undefined)).toEqual({});
  });

  it('turns invalid UTF-8 into replacement characters instead of throwing', () => {
    expect(headersFromRecord({ h: Buffer.from([0x61, 0xff]) })).toEqual({ h: 'a\uFFFD' });
  });
});
