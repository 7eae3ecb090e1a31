import type { ResolvedObject } from '@toolgate/shared';
import { describe, expect, it } from 'vitest';
import { SEED_OBJECTS } from './data.js';
import {
  APPLIED_COMMANDS_KEPT,
  markApplied,
  planDecision,
  planRefund,
  planSend,
  wasAppliedBy,
} from './plan-changes.js';

const seeded = (id: string): ResolvedObject => {
  const found = SEED_OBJECTS.find((o) => o.id === id);
  if (found === undefined) throw new Error(`no seed object ${id}`);
  return found;
};

describe('planDecision', () => {
  it('approves an open invoice, keeping its amount and naming who decided', () => {
    expect(planDecision(seeded('inv_481'), { status: 'approved' }, 'alice')).toEqual({
      ok: true,
      attributes: {
        amount_cents: 120_000,
        currency: 'EUR',
        status: 'approved',
        decided_by: 'alice',
      },
    });
    expect(
      planDecision(seeded('inv_481'), { status: 'rejected', reason: 'duplicate' }, 'alice'),
    ).toMatchObject({ ok: true, attributes: { status: 'rejected', reason: 'duplicate' } });
  });

  it('refuses an invoice that is not open, and arguments it does not take', () => {
    expect(planDecision(seeded('inv_483'), { status: 'approved' }, 'alice')).toMatchObject({
      ok: false,
      code: 'not_open',
    });
    expect(planDecision(seeded('inv_481'), { status: 'paid' }, 'alice')).toMatchObject({
      ok: false,
      code: 'invalid_arguments',
    });
  });
});

describe('planSend', () => {
  it('marks a draft sent once, at the given time', () => {
    const now = new Date('2030-01-01T00:00:00.000Z');
    const planned = planSend(seeded('draft_7'), now);
    expect(planned).toMatchObject({
      ok: true,
      attributes: { sent: true, sent_at: now.toISOString() },
    });
    const sent = { ...seeded('draft_7'), attributes: planned.ok ? planned.attributes : {} };
    expect(planSend(sent, now)).toMatchObject({ ok: false, code: 'already_sent' });
  });
});

describe('planRefund', () => {
  it('adds the amount to what was refunded, up to the amount paid and no further', () => {
    expect(planRefund(seeded('pay_11'), { amount_cents: 5_000 })).toMatchObject({
      ok: true,
      attributes: { amount_cents: 5_000, refunded_cents: 5_000 },
    });
    const partly = {
      ...seeded('pay_11'),
      attributes: { amount_cents: 5_000, refunded_cents: 4_000 },
    };
    expect(planRefund(partly, { amount_cents: 1_001 })).toMatchObject({
      ok: false,
      code: 'refund_exceeds_remaining',
    });
  });

  it('refuses an amount that is not a positive whole number of cents', () => {
    for (const amount of [0, -1, 1.5, '100', undefined]) {
      expect(planRefund(seeded('pay_11'), { amount_cents: amount }), String(amount)).toMatchObject({
        ok: false,
        code: 'invalid_arguments',
      });
    }
  });
});

describe('markApplied and wasAppliedBy', () => {
  it('remember the latest writers of an object, and only the latest few', () => {
    let attributes: Record<string, unknown> = { status: 'open' };
    for (let i = 0; i <= APPLIED_COMMANDS_KEPT; i += 1)
      attributes = markApplied(attributes, `cmd-${i}`);
    const object = { ...seeded('inv_481'), attributes };
    expect(wasAppliedBy(object, `cmd-${APPLIED_COMMANDS_KEPT}`)).toBe(true);
    expect(wasAppliedBy(object, 'cmd-1')).toBe(true);
    expect(wasAppliedBy(object, 'cmd-0')).toBe(false);
    expect(wasAppliedBy(seeded('inv_481'), 'cmd-1')).toBe(false);
  });
});
