import { describe, expect, it } from 'vitest';
import { isRefusal } from '@toolgate/shared';
import { parseDimensions, tallyAudit } from './tally-audit.js';

const event = (
  eventId: string,
  kind: string,
  rung: string,
  code: string | null,
  tool = 'search',
) => ({
  eventId,
  kind,
  stage: rung,
  code,
  disposition: code === null ? null : 'deny',
  outcome: null,
  tool,
  tenant: 'acme',
});

const EVENTS = [
  event('e1', 'validated', 'semantics', null),
  event('e2', 'rejected', 'schema', 'unknown_tool'),
  event('e2', 'rejected', 'schema', 'unknown_tool'),
  event('e3', 'rejected', 'authorization', 'not_authorized', 'approve_invoice'),
  event('e4', 'pending_confirmation', 'confirmation', 'pending', 'refund_payment'),
  event('e5', 'expired', 'confirmation', 'expired', 'refund_payment'),
  event('e6', 'result', 'result', null),
  event('e7', 'result', 'execution', 'tool_error'),
  { eventId: 'x', kind: 'rejected' },
  'not an event',
  undefined,
];

describe('tallyAudit', () => {
  it('counts refusals by stage and code, each event once, skipping values that are not events', () => {
    const tally = tallyAudit(EVENTS, ['stage', 'code'], 'refusals');
    expect(tally.rows).toEqual([
      { values: { stage: 'authorization', code: 'not_authorized' }, count: 1 },
      { values: { stage: 'confirmation', code: 'expired' }, count: 1 },
      { values: { stage: 'execution', code: 'tool_error' }, count: 1 },
      { values: { stage: 'schema', code: 'unknown_tool' }, count: 1 },
    ]);
    expect(tally).toMatchObject({ counted: 4, skipped: 3 });
  });

  it('counts every kind with include all', () => {
    const tally = tallyAudit(EVENTS, ['kind'], 'all');
    expect(tally.counted).toBe(7);
    expect(tally.rows[0]).toEqual({ values: { kind: 'rejected' }, count: 2 });
    expect(tally.rows.map((r) => r.values.kind)).toContain('validated');
  });

  it('calls a pending confirmation no refusal, and a coded result one', () => {
    expect(isRefusal({ kind: 'pending_confirmation', code: 'pending' })).toBe(false);
    expect(isRefusal({ kind: 'result', code: null })).toBe(false);
    expect(isRefusal({ kind: 'result', code: 'withheld' })).toBe(true);
    expect(isRefusal({ kind: 'unknown_outcome', code: 'timeout_outcome_unknown' })).toBe(true);
  });
});

describe('parseDimensions', () => {
  it('reads a comma-separated list in order', () => {
    expect(parseDimensions('tool, tenant,stage')).toEqual(['tool', 'tenant', 'stage']);
  });

  it('refuses unknown, empty and repeated dimensions as usage errors', () => {
    expect(() => parseDimensions('stage,colour')).toThrow(/unknown "colour"; choose from kind/);
    expect(() => parseDimensions('')).toThrow(/unknown ""/);
    expect(() => parseDimensions('stage,stage')).toThrow(/twice/);
    expect(() => parseDimensions('x')).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});
