import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { rejecterFor } from '../decision.js';
import { buildCommand, identityOf } from '../ladder/index.js';
import { canonicalSha256 } from '../idempotency/canonical-sha256.js';
import {
  auditEvent,
  auditEventId,
  MAX_INTERNAL_DETAIL_CHARS,
  type AuditInput,
} from './audit-event.js';
import { auditFactsOf, auditFactsOfCommand, auditFactsOfPending } from './audit-facts.js';
import { AUDIT_KINDS, type AuditKind } from './audit-kinds.js';
import { createMessageChecker } from './create-message-checker.js';
import {
  ARGS,
  authorized,
  NOW,
  pending,
  repairableRefusal,
  validated,
} from './messages.test-support.js';
import { clearedEnvelope } from './stage-envelope.js';

const check = createMessageChecker();
const SOURCE = { topic: 'toolgate.validated', partition: 3, offset: '1042' };
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl';
const denied = rejecterFor('authorization')('not_authorized', undefined, 'denied by policy7');

/** One input of every kind, with the facts the stage emitting it would have. */
function everyKind(): Record<AuditKind, AuditInput> {
  const a = authorized();
  const command = buildCommand(a, identityOf(a).key, { now: NOW, timeoutMs: 10_000 });
  const facts = auditFactsOf(a);
  return {
    rejected: { kind: 'rejected', rejected: denied, ...facts },
    quarantined: { kind: 'quarantined', raw: new Uint8Array([0xff, 0xfe, 0x00]), source: SOURCE },
    internal_error: { kind: 'internal_error', ...facts, internalDetail: 'TypeError: boom' },
    validated: { kind: 'validated', ...auditFactsOf(validated()), source: SOURCE },
    authorized: { kind: 'authorized', ...facts },
    pending_confirmation: { kind: 'pending_confirmation', ...auditFactsOfPending(pending()) },
    cleared: {
      kind: 'cleared',
      ...auditFactsOf(
        clearedEnvelope(a, NOW.toISOString(), {
          confirmedBy: 'bob',
          confirmedAt: NOW.toISOString(),
        }),
      ),
      decidedBy: 'bob',
    },
    command_issued: { kind: 'command_issued', ...auditFactsOfCommand(command) },
    replay: { kind: 'replay', outcome: 'result', ...auditFactsOfCommand(command) },
    result: {
      kind: 'result',
      rejected: rejecterFor('result')('withheld', undefined, 'matched ignore-previous'),
      ...auditFactsOfCommand(command),
    },
    unknown_outcome: { kind: 'unknown_outcome', ...auditFactsOfCommand(command) },
    expired: { kind: 'expired', ...auditFactsOfPending(pending()) },
    late_result: { kind: 'late_result', ...auditFactsOfCommand(command) },
    unmatched_result: { kind: 'unmatched_result', commandId: 'cmd_unknown', source: SOURCE },
    forged_result: { kind: 'forged_result', ...auditFactsOfCommand(command), source: SOURCE },
  };
}

describe('auditEvent', () => {
  it('writes every DESIGN §8 field for a refusal', () => {
    const e = auditEvent(
      { kind: 'rejected', rejected: denied, ...auditFactsOf(authorized()) },
      NOW,
    );
    expect(e).toEqual({
      eventId: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
      kind: 'rejected',
      at: '2025-03-01T12:00:00.000Z',
      requestId: 'req-42',
      runId: 'run-7',
      proposalId: 'p-81f2',
      callId: 'call_abc',
      subject: 'alice',
      tenant: 'tenant-a',
      tool: 'refund_payment',
      toolVersion: '3',
      policyVersion: 'a'.repeat(64),
      stage: 'authorization',
      disposition: 'deny',
      code: 'not_authorized',
      objectIds: ['pay_11'],
      confirmationId: null,
      decidedBy: null,
      confirmedBy: null,
      confirmedAt: null,
      idempotencyKey: null,
      commandId: null,
      outcome: 'rejected',
      argsDigest: canonicalSha256(ARGS),
      args: { payment_id: 'pay_11', amount_cents: 1200, note: '[redacted: 20 chars]' },
      internalDetail: 'denied by policy7',
    });
  });

  it('writes a schema-valid event of every kind, with the stage and code of its kind', () => {
    for (const [kind, input] of Object.entries(everyKind())) {
      const e = auditEvent(input, NOW);
      expect(check('audit', e), kind).toEqual([]);
      expect(e.kind).toBe(kind);
      const spec = AUDIT_KINDS[kind as AuditKind];
      if (kind !== 'rejected' && kind !== 'result') {
        expect(e.stage).toBe(spec.stage);
        expect(e.code).toBe(spec.code);
      }
    }
  });

  it('never writes the free-text arguments or a session token', () => {
    for (const input of Object.values(everyKind())) {
      const json = JSON.stringify(auditEvent(input, NOW));
      expect(json).not.toContain('SECRET');
      expect(json).not.toContain(TOKEN);
    }
  });

  it('files a refusal under its own stage, code and disposition', () => {
    const r = repairableRefusal();
    const e = auditEvent({ kind: 'rejected', rejected: r.rejected, proposalId: 'p-2' }, NOW);
    expect(e).toMatchObject({ stage: 'schema', code: 'unknown_tool', disposition: 'repair' });
    expect(e.outcome).toBe('rejected');
  });

  it('records no outcome for a refusal that published no observation', () => {
    const stale = rejecterFor('confirmation')('content_changed', undefined, 'stale digest');
    const e = auditEvent(
      { kind: 'rejected', rejected: stale, answered: false, ...auditFactsOfPending(pending()) },
      NOW,
    );
    expect(e).toMatchObject({ stage: 'confirmation', code: 'content_changed', outcome: null });
    expect(check('audit', e)).toEqual([]);
  });

  it('leaves out an empty object id, which names nothing, so that the refusal is still written', () => {
    // A tool whose schema lets an id be "" still names it: resolution refuses it as not_found.
    const missing = rejecterFor('resolution')('not_found', undefined, 'Customer  not found');
    const objects = [
      { type: 'Customer', id: '' },
      { type: 'Invoice', id: 'inv_1' },
    ];
    const e = auditEvent({ kind: 'rejected', rejected: missing, proposalId: 'p', objects }, NOW);
    expect(e.objectIds).toEqual(['inv_1']);
    expect(check('audit', e)).toEqual([]);
  });

  it('files a withheld result as result/withheld and a plain one with no code', () => {
    const kinds = everyKind();
    expect(auditEvent(kinds.result, NOW)).toMatchObject({
      stage: 'result',
      code: 'withheld',
      disposition: 'execute',
      outcome: 'result',
    });
    const plain = auditEvent({ kind: 'result', proposalId: 'p-1' }, NOW);
    expect(plain).toMatchObject({ stage: 'result', code: null, outcome: 'result' });
    const toolError = rejecterFor('execution')('tool_error', undefined, 'card declined');
    const failed = auditEvent({ kind: 'result', rejected: toolError, proposalId: 'p-1' }, NOW);
    expect(failed).toMatchObject({ stage: 'execution', code: 'tool_error' });
    expect(check('audit', failed)).toEqual([]);
  });

  it('files a result whose tool cannot tell whether it acted under outcome unknown_outcome', () => {
    const unknown = rejecterFor('execution')('timeout_outcome_unknown', undefined, 'no idea');
    const e = auditEvent({ kind: 'result', rejected: unknown, proposalId: 'p-1' }, NOW);
    expect(e).toMatchObject({
      stage: 'execution',
      code: 'timeout_outcome_unknown',
      outcome: 'unknown_outcome',
    });
    expect(check('audit', e)).toEqual([]);
  });

  it('records the replayed outcome on a replay', () => {
    const e = auditEvent({ kind: 'replay', outcome: 'unknown_outcome', proposalId: 'p-3' }, NOW);
    expect(e).toMatchObject({ stage: 'idempotency', outcome: 'unknown_outcome' });
    expect(check('audit', e)).toEqual([]);
  });

  it('records undecodable input by hash and size only', () => {
    const raw = new TextEncoder().encode('\u0000not json SECRET');
    const e = auditEvent({ kind: 'quarantined', raw, source: SOURCE }, NOW);
    expect(e.raw).toEqual({
      sha256: createHash('sha256').update(raw).digest('hex'),
      bytes: 16,
    });
    expect(JSON.stringify(e)).not.toContain('SECRET');
    expect(e).toMatchObject({
      stage: 'representation',
      code: 'unsupported_format',
      proposalId: null,
    });
  });

  it('cuts a long internal detail without splitting a surrogate pair', () => {
    const detail = `${'x'.repeat(MAX_INTERNAL_DETAIL_CHARS - 1)}😀${'y'.repeat(500)}`;
    const e = auditEvent({ kind: 'internal_error', internalDetail: detail }, NOW);
    expect(e.internalDetail?.startsWith('x'.repeat(MAX_INTERNAL_DETAIL_CHARS - 1))).toBe(true);
    expect(e.internalDetail).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(e.internalDetail).toMatch(/… \[502 more chars\]$/);
    expect(check('audit', e)).toEqual([]);
  });

  it('joins the detail of a refusal with the detail the stage adds', () => {
    const e = auditEvent(
      { kind: 'rejected', rejected: denied, internalDetail: 'while loading pay_11' },
      NOW,
    );
    expect(e.internalDetail).toBe('denied by policy7; while loading pay_11');
  });

  it('leaves argsDigest null when the arguments are not canonical JSON', () => {
    const e = auditEvent({ kind: 'validated', args: { s: '\ud800' } }, NOW);
    expect(e.argsDigest).toBeNull();
    expect(e.args).toEqual({ s: '[redacted: 1 chars]' });
  });

  it('carries the registry schema id and version when given', () => {
    const e = auditEvent({ kind: 'validated', schemaId: 17, schemaVersion: 2 }, NOW);
    expect(e).toMatchObject({ schemaId: 17, schemaVersion: 2 });
    expect(auditEvent({ kind: 'validated' }, NOW)).not.toHaveProperty('schemaId');
  });
});

describe('auditEventId', () => {
  it('is the same for a redelivered decision, whatever the clock says', () => {
    for (const input of Object.values(everyKind())) {
      const first = auditEvent(input, NOW);
      const again = auditEvent(input, new Date('2025-03-05T00:00:00.000Z'));
      expect(again.eventId).toBe(first.eventId);
    }
  });

  it('differs between every kind of decision about one proposal', () => {
    const ids = Object.values(everyKind()).map((input) => auditEvent(input, NOW).eventId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("differs by tenant, so one tenant cannot mint the ids of another tenant's events", () => {
    const base = { kind: 'rejected' as const, rejected: denied, proposalId: 'p-1' };
    const a = auditEvent({ ...base, tenant: 'tenant-a' }, NOW);
    const b = auditEvent({ ...base, tenant: 'tenant-b' }, NOW);
    expect(a.eventId).not.toBe(b.eventId);
  });

  it('differs by source message, so two approvals of one confirmation stay two events', () => {
    const base = { kind: 'rejected' as const, proposalId: 'p-1', tenant: 'tenant-a' };
    const taken = rejecterFor('confirmation')('already_decided', undefined, 'taken');
    const one = auditEvent({ ...base, rejected: taken, source: { ...SOURCE, offset: '7' } }, NOW);
    const two = auditEvent({ ...base, rejected: taken, source: { ...SOURCE, offset: '8' } }, NOW);
    expect(one.eventId).not.toBe(two.eventId);
  });

  it('keeps the parts apart: moving text between parts changes the id', () => {
    const a = auditEventId({
      kind: 'validated',
      tenant: 'ab',
      proposalId: 'c',
      stage: 'semantics',
      code: null,
    });
    const b = auditEventId({
      kind: 'validated',
      tenant: 'a',
      proposalId: 'bc',
      stage: 'semantics',
      code: null,
    });
    expect(a).not.toBe(b);
  });

  it('does not throw on a lone surrogate in an id the caller chose', () => {
    const id = auditEventId({
      kind: 'rejected',
      proposalId: '\ud800',
      stage: 'schema',
      code: 'missing_field',
    });
    expect(id).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('the audit facts helpers', () => {
  it('take the requester, not the approver, as the subject of a pending confirmation', () => {
    const f = auditFactsOfPending(pending());
    expect(f).toMatchObject({
      subject: 'alice',
      tenant: 'tenant-a',
      confirmationId: pending().confirmationId,
    });
  });

  it('take ids, key and command id from a command', () => {
    const a = authorized();
    const { key } = identityOf(a);
    const f = auditFactsOfCommand(
      buildCommand(a, key, { now: NOW, timeoutMs: 1000, confirmedBy: 'bob' }),
    );
    expect(f).toMatchObject({
      proposalId: 'p-81f2',
      idempotencyKey: key,
      commandId: `cmd_${key.slice(0, 32)}`,
      confirmedBy: 'bob',
    });
  });
});
