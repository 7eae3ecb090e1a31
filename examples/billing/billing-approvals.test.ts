/**
 * Approvals on the example deployment: the call a confirmation waits for is authorized again for
 * its requester against live objects and current policy, and the card is rebuilt from them.
 */
import { describe, expect, it } from 'vitest';
import {
  authorizedEnvelope,
  createGate,
  createMemoryObjectStore,
  pendingConfirmationFor,
  planConfirmation,
  reauthorizeForApproval,
  referencesOf,
  requestedCallOf,
  toolOf,
  validateProposal,
  authorizeProposal,
  confirmationRuleOf,
  type Deployment,
  type Principal,
} from '@toolgate/shared';
import deployment from './toolgate.config.js';
import { SEED_OBJECTS, USERS } from './data.js';
import { mcp, openaiChat } from './fixtures/proposals.js';

const NOW = new Date('2026-11-29T12:00:00Z');

/** Parks `proposal` of `who` as the confirm stage would, on a gate of `d`. */
function park(who: Principal, proposal: unknown, d: Deployment = deployment) {
  const store = createMemoryObjectStore(SEED_OBJECTS);
  const g = { ...createGate(d), objects: store };
  const v = validateProposal(proposal, who, {
    registry: g.registry,
    limits: { maxBytes: 16_384, maxDepth: 32 },
    repairBudget: 2,
  });
  if (!v.ok) throw new Error('expected the proposal to validate');
  const tool = toolOf(v.value, g.registry);
  if (!tool.ok) throw new Error('expected the tool');
  const load = (tenant: string) =>
    Promise.all(referencesOf(v.value, tool.value).map((r) => store.load(tenant, r)));
  const facts = { registry: g.registry, policies: g.policies, ceilings: g.ceilings };
  return { g, store, tool: tool.value, v: v.value, load, facts };
}

async function parked(who: Principal, proposal: unknown, d?: Deployment) {
  const p = park(who, proposal, d);
  const a = authorizeProposal(p.v, p.tool, await p.load(who.tenant), p.facts);
  if (!a.ok) throw new Error('expected authorization');
  const plan = planConfirmation(a.value, p.tool);
  if (!plan.needed) throw new Error('expected confirmation');
  const pending = pendingConfirmationFor(authorizedEnvelope(a.value, NOW.toISOString()), plan, NOW);
  return { ...p, pending, call: requestedCallOf(pending) };
}

describe('reauthorizeForApproval', () => {
  it('rebuilds the same digest when nothing changed', async () => {
    const p = await parked(
      USERS.alice,
      mcp({ proposalId: 'p-1' }, 'send_email', { draft_id: 'draft_7' }),
    );
    const live = reauthorizeForApproval(p.call, p.tool, await p.load('acme'), p.facts);
    expect(live.ok && live.value.plan.needed && live.value.plan.digest).toBe(p.pending.digest);
  });

  it('rebuilds a different digest after the draft was edited', async () => {
    const p = await parked(
      USERS.alice,
      mcp({ proposalId: 'p-2' }, 'send_email', { draft_id: 'draft_7' }),
    );
    p.store.update('acme', { type: 'Draft', id: 'draft_7' }, { to: ['attacker@evil.example'] });
    const live = reauthorizeForApproval(p.call, p.tool, await p.load('acme'), p.facts);
    expect(live.ok && live.value.plan.needed && live.value.plan.digest).not.toBe(p.pending.digest);
  });

  it('authorizes the original requester, by the roles their session had', async () => {
    const p = await parked(
      USERS.alice,
      mcp({ proposalId: 'p-3' }, 'refund_payment', { payment_id: 'pay_11', amount_cents: 100 }),
    );
    expect(p.call.context).toMatchObject({ subject: 'alice', roles: ['approver'] });
    const asViewer = { ...p.call, context: { ...p.call.context, roles: ['viewer'] } };
    const live = reauthorizeForApproval(asViewer, p.tool, await p.load('acme'), p.facts);
    expect(live).toMatchObject({
      ok: false,
      rejected: { stage: 'authorization', code: 'not_authorized' },
    });
  });

  it('refuses when the world no longer allows the call', async () => {
    const p = await parked(
      USERS.alice,
      openaiChat({ proposalId: 'p-4' }, 'approve_invoice', {
        invoice_id: 'inv_482',
        status: 'approved',
      }),
    );
    p.store.update(
      'acme',
      { type: 'Invoice', id: 'inv_482' },
      { amount_cents: 2_500_000, currency: 'EUR', status: 'paid' },
    );
    const live = reauthorizeForApproval(p.call, p.tool, await p.load('acme'), p.facts);
    expect(live).toMatchObject({
      ok: false,
      rejected: { stage: 'precondition', code: 'not_open' },
    });
  });

  it('does not count the approval as another call of the run', async () => {
    const tight = { ...deployment, ceilings: { callsPerRun: 1, callsPerTenantPerSecond: 1 } };
    const p = await parked(
      USERS.alice,
      mcp({ proposalId: 'p-5' }, 'send_email', { draft_id: 'draft_7' }),
      tight,
    );
    const live = reauthorizeForApproval(p.call, p.tool, await p.load('acme'), p.facts);
    expect(live.ok).toBe(true);
  });
});

describe("the example's cards and rules", () => {
  it('show an invoice approval as a status change, under the threshold rule', async () => {
    const p = await parked(
      USERS.alice,
      mcp({ proposalId: 'p-6' }, 'approve_invoice', { invoice_id: 'inv_482', status: 'approved' }),
    );
    expect(p.pending.card.changes).toEqual([
      { field: 'status', before: 'open', after: 'approved' },
    ]);
    expect(confirmationRuleOf(p.tool.spec)).toBe(
      "Invoices of 10,000.00 or more need a person's approval to change status.",
    );
  });

  it('show a refund as the refunded amount before and after', async () => {
    const p = await parked(
      USERS.alice,
      mcp({ proposalId: 'p-7' }, 'refund_payment', { payment_id: 'pay_11', amount_cents: 1_000 }),
    );
    expect(p.pending.card.changes).toEqual([
      { field: 'refunded', before: '0.00 EUR', after: '10.00 EUR' },
    ]);
    expect(confirmationRuleOf(p.tool.spec)).toMatch(/a person approves every one/);
  });

  it('name no changes for an email, whose card is the email itself', async () => {
    const p = await parked(
      USERS.alice,
      mcp({ proposalId: 'p-8' }, 'send_email', { draft_id: 'draft_7' }),
    );
    expect(p.pending.card).not.toHaveProperty('changes');
    expect(confirmationRuleOf(p.tool.spec)).toMatch(/waits for a person/);
  });
});
