import { describe, expect, it } from 'vitest';
import { accept, rejecterFor } from '../decision.js';
import { refusal, type Step } from '../ladder/index.js';
import type { RebuiltCall } from './pending-view.js';
import { NO_LONGER_CONFIRMED_REASON, pendingView, TOOL_NOT_LOADED_REASON } from './pending-view.js';
import { authorized, pending } from './messages.test-support.js';
import type { Principal } from '../types.js';

const PENDING = pending();
const alice: Principal = { subject: 'alice', tenant: 'tenant-a', roles: ['clerk'] };
const carla: Principal = { subject: 'carla', tenant: 'tenant-a', roles: ['approver'] };
const denied = rejecterFor('confirmation')('approver_not_authorized', undefined, 'deny');
const allowed = accept({ policyVersion: PENDING.policyVersion });
const gone = refusal(rejecterFor('resolution')('not_found', undefined, 'Payment pay_11 gone'));
const toolMissing = refusal(rejecterFor('execution')('internal_error', undefined, 'not loaded'));
const CHANGED_CARD = { ...PENDING.card, effect: 'refund 1200 cents; 0 left' };

const liveCall = (digest = PENDING.digest, card = PENDING.card) =>
  accept({ authorized: authorized(), plan: { needed: true, card, digest } } as const);

const rebuilt = (change: Partial<RebuiltCall> = {}): Step<RebuiltCall> =>
  accept({
    live: liveCall(),
    callerAuthorized: allowed,
    requesterAuthorized: denied,
    sideEffect: 'destructive',
    ...change,
  });

describe('pendingView', () => {
  it('shows an approver the card, the arguments as they will run, the rule and the live call', () => {
    const view = pendingView({ pending: PENDING, caller: carla, rebuilt: rebuilt() });
    expect(view).toEqual({
      confirmationId: PENDING.confirmationId,
      proposalId: PENDING.proposalId,
      runId: PENDING.runId,
      tenant: 'tenant-a',
      requestedBy: 'alice',
      tool: 'refund_payment',
      card: PENDING.card,
      digest: PENDING.digest,
      expiresAt: PENDING.expiresAt,
      args: PENDING.args,
      rule: 'Destructive calls always wait for a person.',
      policyVersion: PENDING.policyVersion,
      fourEyes: true,
      caller: { mayDecide: true, isRequester: false },
      live: { state: 'same', card: PENDING.card, digest: PENDING.digest },
    });
  });

  it('shows the rule stored at park time over the default', () => {
    const ruled = { ...PENDING, rule: 'Refunds need a person.' };
    expect(pendingView({ pending: ruled, caller: carla, rebuilt: rebuilt() })?.rule).toBe(
      'Refunds need a person.',
    );
  });

  it("falls back to the default of the tool's class for a record parked without a rule", () => {
    const write = rebuilt({ sideEffect: 'write' });
    expect(pendingView({ pending: PENDING, caller: carla, rebuilt: write })?.rule).toBe(
      'This tool asks a person before it runs.',
    );
  });

  it('says changed, with the card and digest an approval would name now', () => {
    const moved = rebuilt({ live: liveCall('f'.repeat(64), CHANGED_CARD) });
    expect(pendingView({ pending: PENDING, caller: carla, rebuilt: moved })?.live).toEqual({
      state: 'changed',
      card: CHANGED_CARD,
      digest: 'f'.repeat(64),
    });
  });

  it('says unavailable, in public words, when the call no longer authorizes', () => {
    const view = pendingView({ pending: PENDING, caller: carla, rebuilt: rebuilt({ live: gone }) });
    expect(view?.live).toEqual({
      state: 'unavailable',
      reason: 'The referenced object was not found.',
    });
    expect(JSON.stringify(view?.live)).not.toContain('pay_11 gone');
  });

  it('says unavailable when the call as it stands would not wait for a person', () => {
    const noLonger = rebuilt({
      live: accept({ authorized: authorized(), plan: { needed: false } }),
    });
    expect(pendingView({ pending: PENDING, caller: carla, rebuilt: noLonger })?.live).toEqual({
      state: 'unavailable',
      reason: NO_LONGER_CONFIRMED_REASON,
    });
  });

  it('shows the requester their own call, which they may not decide under four eyes', () => {
    const own = rebuilt({ callerAuthorized: denied });
    const view = pendingView({ pending: PENDING, caller: alice, rebuilt: own });
    expect(view).toMatchObject({ fourEyes: true, caller: { mayDecide: false, isRequester: true } });
  });

  it('says no four eyes when policy lets the requester approve their own call', () => {
    const ownAllowed = rebuilt({ requesterAuthorized: allowed });
    const view = pendingView({ pending: PENDING, caller: alice, rebuilt: ownAllowed });
    expect(view).toMatchObject({ fourEyes: false, caller: { mayDecide: true, isRequester: true } });
  });

  it('shows nothing to someone who may not decide it and did not ask for it', () => {
    const viewer: Principal = { subject: 'vic', tenant: 'tenant-a', roles: ['viewer'] };
    const refused = rebuilt({ callerAuthorized: denied });
    expect(pendingView({ pending: PENDING, caller: viewer, rebuilt: refused })).toBeUndefined();
  });

  it('shows nothing to an approver or a namesake of another tenant', () => {
    for (const subject of ['carla', 'alice']) {
      const other: Principal = { subject, tenant: 'tenant-b', roles: ['approver'] };
      expect(pendingView({ pending: PENDING, caller: other, rebuilt: rebuilt() })).toBeUndefined();
    }
  });

  it('shows the requester a call whose tool is not loaded here, that nobody may decide', () => {
    const view = pendingView({ pending: PENDING, caller: alice, rebuilt: toolMissing });
    expect(view).toMatchObject({
      rule: 'This tool asks a person before it runs.',
      fourEyes: false,
      caller: { mayDecide: false, isRequester: true },
      live: { state: 'unavailable', reason: TOOL_NOT_LOADED_REASON },
    });
    expect(pendingView({ pending: PENDING, caller: carla, rebuilt: toolMissing })).toBeUndefined();
  });

  it("carries the card's changes, as the tool named them", () => {
    const changes = [{ field: 'refunded', before: '0', after: '1200' }];
    const card = { ...PENDING.card, changes };
    const view = pendingView({ pending: { ...PENDING, card }, caller: carla, rebuilt: rebuilt() });
    expect(view?.card.changes).toEqual(changes);
  });
});
