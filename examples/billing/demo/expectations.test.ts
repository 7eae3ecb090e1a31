import { describe, expect, it } from 'vitest';
import type { AuditEvent, Observation } from '@toolgate/shared';
import {
  auditExpectationsOf,
  missingAudit,
  rungsNeverRefused,
  stepMismatch,
  type Step,
} from './expectations.js';

const observation = (fields: Partial<Observation>): Observation => ({
  proposalId: 'p-1',
  runId: 'demo-x-run',
  requestId: 'req-1',
  outcome: 'result',
  disposition: 'execute',
  message: '',
  at: '2026-11-29T12:00:00Z',
  ...fields,
});

const step = (fields: Partial<Step>): Step => ({
  scenario: 'refusals',
  label: 'a label',
  proposalId: 'p-1',
  expected: { outcome: 'rejected', stage: 'schema', code: 'unknown_tool' },
  ...fields,
});

const event = (fields: Partial<AuditEvent>): AuditEvent =>
  ({
    eventId: 'e-1',
    kind: 'rejected',
    proposalId: 'p-1',
    stage: 'schema',
    code: 'unknown_tool',
    confirmationId: null,
    decidedBy: null,
    ...fields,
  }) as AuditEvent;

describe('stepMismatch', () => {
  it('accepts the expected refusal and names any other outcome', () => {
    const refused = observation({ outcome: 'rejected', stage: 'schema', code: 'unknown_tool' });
    expect(stepMismatch(step({ observed: refused }))).toBeUndefined();
    const wrong = observation({ outcome: 'rejected', stage: 'schema', code: 'missing_field' });
    expect(stepMismatch(step({ observed: wrong }))).toBe(
      'expected rejected schema/unknown_tool, got rejected schema/missing_field',
    );
    expect(stepMismatch(step({ observed: observation({}) }))).toBe(
      'expected rejected schema/unknown_tool, got result',
    );
  });

  it('tells a replay from a first execution, and reports a missing observation', () => {
    const replay = step({ expected: { outcome: 'result', replay: true } });
    expect(stepMismatch({ ...replay, observed: observation({ replay: true }) })).toBeUndefined();
    expect(stepMismatch({ ...replay, observed: observation({}) })).toBe(
      'expected result (replay), got result',
    );
    expect(stepMismatch(step({ error: 'no observation of p-1 within 60000 ms' }))).toBe(
      'no observation (no observation of p-1 within 60000 ms)',
    );
  });
});

describe('missingAudit', () => {
  it('requires each step’s refusal, replay or plain result in the audit stream', () => {
    const steps = [
      step({}),
      step({ proposalId: 'p-2', expected: { outcome: 'result', replay: true } }),
      step({ proposalId: 'p-3', expected: { outcome: 'result' } }),
    ];
    const wanted = auditExpectationsOf(steps);
    const all = [
      event({}),
      event({ proposalId: 'p-2', kind: 'replay', stage: 'idempotency', code: null }),
      event({ proposalId: 'p-3', kind: 'result', stage: 'result', code: null }),
    ];
    expect(missingAudit(wanted, all)).toEqual([]);
    expect(missingAudit(wanted, all.slice(1)).map((x) => x.match.proposalId)).toEqual(['p-1']);
    const refusedResult = event({
      proposalId: 'p-3',
      kind: 'result',
      stage: 'result',
      code: 'withheld',
    });
    expect(missingAudit(wanted, [...all.slice(0, 2), refusedResult]).length).toBe(1);
  });
});

describe('rungsNeverRefused', () => {
  it('counts refusals only, not passes or pending confirmations', () => {
    const never = rungsNeverRefused([
      event({ stage: 'schema', code: 'unknown_tool' }),
      event({ kind: 'pending_confirmation', stage: 'confirmation', code: 'pending' }),
      event({ kind: 'command_issued', stage: 'idempotency', code: null }),
      event({ kind: 'result', stage: 'execution', code: 'tool_error' }),
    ]);
    expect(never).not.toContain('schema');
    expect(never).not.toContain('execution');
    expect(never).toContain('confirmation');
    expect(never).toContain('idempotency');
    expect(never).toHaveLength(10);
  });
});
