import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FAULT_CODES, type FaultCode } from './fault-codes.js';
import { renderFaultCodes } from './fault-codes-doc.js';
import { Fault, faultCode, isRetriable } from './fault.js';

const docPath = new URL('../../../docs/fault-codes.md', import.meta.url);
const codes = Object.keys(FAULT_CODES) as FaultCode[];

describe('the fault catalogue', () => {
  it('matches docs/fault-codes.md (run `npm run docs:faults` after changing a code)', () => {
    expect(readFileSync(docPath, 'utf8')).toBe(renderFaultCodes());
  });

  it('says for every code what it means and what an operator does', () => {
    for (const code of codes) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(FAULT_CODES[code].meaning, code).not.toBe('');
      expect(FAULT_CODES[code].operator, code).not.toBe('');
    }
  });

  it('lets "could not reach it" pass and "it is broken" end the call', () => {
    const retriable = codes.filter((code) => FAULT_CODES[code].retriable);
    expect(retriable.sort()).toEqual([
      'kafka_unavailable',
      'read_timed_out',
      'redis_unavailable',
      'registry_unavailable',
      'schema_not_registered',
      'stage_not_running',
      'tool_call_running',
    ]);
  });
});

describe('Fault', () => {
  it('takes retriable from its code, not from where it is thrown', () => {
    expect(new Fault('redis_unavailable', 'down').retriable).toBe(true);
    expect(new Fault('store_corrupt', 'not ours').retriable).toBe(false);
    expect(isRetriable(new Fault('kafka_fenced', 'newer producer'))).toBe(false);
  });

  it('keeps its cause', () => {
    const cause = new Error('ECONNREFUSED');
    expect(new Fault('kafka_unavailable', 'no broker', { cause }).cause).toBe(cause);
  });

  it('counts anything else thrown as internal_error, which is not retriable', () => {
    expect(faultCode(new Error('bug'))).toBe('internal_error');
    expect(FAULT_CODES[faultCode('a string')].retriable).toBe(false);
  });
});
