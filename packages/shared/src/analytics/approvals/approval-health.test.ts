import { describe, expect, it } from 'vitest';
import { rejecterFor } from '../../decision.js';
import { auditEvent, type AuditEvent, type AuditInput } from '../../messages/audit-event.js';
import { approvalStepOf, approvalTally } from './approval-health.js';
import { ApprovalLedger } from './approval-ledger.js';

const T0 = Date.parse('2026-03-01T09:00:00.000Z');
const MIN = 60_000;
const refuse = rejecterFor('confirmation');

/** An audit event as the confirm stage writes it, about confirmation `id` of tenant `acme`. */
function event(input: AuditInput, atMs: number, id: string | null = 'c1'): AuditEvent {
  const facts = { tenant: 'acme', proposalId: `p-${id}`, confirmationId: id ?? undefined };
  return auditEvent({ ...facts, ...input }, new Date(atMs));
}

const parked = (id: string, atMs: number) => event({ kind: 'pending_confirmation' }, atMs, id);
const approved = (id: string, atMs: number) => event({ kind: 'cleared' }, atMs, id);
const expired = (id: string, atMs: number) => event({ kind: 'expired' }, atMs, id);
const rejected = (id: string, atMs: number) =>
  event({ kind: 'rejected', rejected: refuse('rejected_by_human', undefined, 'no') }, atMs, id);
const changed = (id: string, atMs: number, answered = true) =>
  event(
    { kind: 'rejected', rejected: refuse('content_changed', undefined, 'x'), answered },
    atMs,
    id,
  );

describe('approvalStepOf', () => {
  it('names the parking, approval, rejection, expiry and change of a confirmation', () => {
    expect(approvalStepOf(parked('c', T0))).toBe('parked');
    expect(approvalStepOf(approved('c', T0))).toBe('approved');
    expect(approvalStepOf(rejected('c', T0))).toBe('rejected');
    expect(approvalStepOf(expired('c', T0))).toBe('expired');
    expect(approvalStepOf(changed('c', T0))).toBe('changed');
  });

  it('ignores a call cleared without confirmation, a stale card that ends nothing, and other refusals', () => {
    expect(approvalStepOf(event({ kind: 'cleared' }, T0, null))).toBeUndefined();
    expect(approvalStepOf(changed('c', T0, false))).toBeUndefined();
    const unauthorized = refuse('approver_not_authorized', undefined, 'x');
    expect(approvalStepOf(event({ kind: 'rejected', rejected: unauthorized }, T0))).toBeUndefined();
    expect(approvalStepOf(event({ kind: 'validated' }, T0))).toBeUndefined();
  });
});

describe('approvalTally', () => {
  const step = (kind: 'parked' | 'approved' | 'expired', atMs: number, decideMs: number | null) =>
    ({ kind, atMs, tenant: 'acme', decideMs }) as const;

  it('counts the steps in the span, the approval rate over ended ones and the median decision time', () => {
    const tally = approvalTally(
      [
        step('parked', T0, null),
        step('approved', T0 + 1, 4_000),
        step('approved', T0 + 2, 1_000),
        step('approved', T0 + 3, 2_000),
        step('expired', T0 + 4, null),
        step('approved', T0 + MIN, 9_000),
      ],
      { sinceMs: T0, untilMs: T0 + MIN },
    );
    expect(tally).toEqual({
      parked: 1,
      approved: 3,
      rejected: 0,
      expired: 1,
      changed: 0,
      approvalRate: 0.75,
      medianDecideMs: 2_000,
    });
  });

  it('takes the mean of the middle two for an even count, and null when nothing ended', () => {
    const even = [step('approved', T0, 1_000), step('approved', T0, 2_000)];
    expect(approvalTally(even, { sinceMs: T0, untilMs: T0 + 1 }).medianDecideMs).toBe(1_500);
    const none = approvalTally([step('parked', T0, null)], { sinceMs: T0, untilMs: T0 + 1 });
    expect(none).toMatchObject({ parked: 1, approvalRate: null, medianDecideMs: null });
  });
});

describe('ApprovalLedger', () => {
  const span = { sinceMs: T0, untilMs: T0 + 60 * MIN };
  const record = (ledger: ApprovalLedger, e: AuditEvent, partition = 0) =>
    ledger.record(partition, e, Date.parse(e.at), Date.parse(e.at));

  it("pairs each person's decision with its parking by confirmation id, and leaves expiries out of the time", () => {
    const ledger = new ApprovalLedger();
    ledger.hold(0, T0);
    for (const e of [
      parked('a', T0),
      parked('b', T0 + 1_000),
      parked('c', T0 + 2_000),
      parked('d', T0 + 3_000),
      rejected('b', T0 + 31_000),
      approved('a', T0 + 10_000),
      changed('d', T0 + 63_000),
      expired('c', T0 + 5 * MIN),
    ]) {
      record(ledger, e);
    }
    expect(ledger.health(span)).toEqual({
      sinceMs: T0,
      parked: 4,
      approved: 1,
      rejected: 1,
      expired: 1,
      changed: 1,
      approvalRate: 0.25,
      medianDecideMs: 30_000,
    });
  });

  it("answers a tenant's own steps only when asked for one", () => {
    const ledger = new ApprovalLedger();
    ledger.hold(0, T0);
    record(ledger, parked('a', T0));
    record(
      ledger,
      auditEvent(
        { kind: 'pending_confirmation', tenant: 'globex', confirmationId: 'g' },
        new Date(T0),
      ),
    );
    expect(ledger.health(span, 'globex')).toMatchObject({ parked: 1 });
    expect(ledger.health(span)).toMatchObject({ parked: 2 });
  });

  it('keeps its pairing bounded: the earliest open confirmation is forgotten first', () => {
    const ledger = new ApprovalLedger({ maxOpen: 1 });
    ledger.hold(0, T0);
    record(ledger, parked('a', T0));
    record(ledger, parked('b', T0 + 1_000));
    record(ledger, approved('a', T0 + 2_000));
    record(ledger, approved('b', T0 + 5_000));
    expect(ledger.health(span)).toMatchObject({ approved: 2, medianDecideMs: 4_000 });
  });

  it('measures from when every partition was held and nothing was dropped, and forgets a partition given away', () => {
    const ledger = new ApprovalLedger({ maxSteps: 2 });
    ledger.hold(0, T0);
    ledger.hold(1, T0 + MIN);
    record(ledger, parked('a', T0 + 2 * MIN));
    record(ledger, parked('b', T0 + 3 * MIN), 1);
    expect(ledger.health(span)).toMatchObject({ sinceMs: T0 + MIN, parked: 2 });
    record(ledger, parked('c', T0 + 4 * MIN));
    expect(ledger.health(span)).toMatchObject({ sinceMs: T0 + 2 * MIN + 1, parked: 2 });
    ledger.release(1);
    expect(ledger.health(span)).toMatchObject({ parked: 1 });
    ledger.release(0);
    expect(ledger.health(span)).toMatchObject({ sinceMs: span.untilMs, parked: 0 });
  });
});
