import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Principal, ResolvedObject, SideEffect } from '../types.js';
import { authorizeApproval } from './authorize-approval.js';
import { authorizeCall } from './authorize-call.js';
import { mayCallTool } from './may-call-tool.js';
import { loadPolicySet, type PolicySource } from './policy-set.js';

const folder = fileURLToPath(new URL('../../../../examples/billing/policies/', import.meta.url));
const sources: PolicySource[] = readdirSync(folder)
  .filter((name) => name.endsWith('.cedar') || name.endsWith('.cedarschema'))
  .map((name) => ({ name, text: readFileSync(folder + name, 'utf8') }));
const policies = loadPolicySet(sources);

const alice: Principal = { subject: 'alice', tenant: 'acme', roles: ['approver'] };
const bob: Principal = { subject: 'bob', tenant: 'acme', roles: ['viewer'] };
const carol: Principal = { subject: 'carol', tenant: 'globex', roles: ['approver'] };
const nobody: Principal = { subject: 'dave', tenant: 'acme', roles: [] };
/** Whose call waits for approval, unless a test says otherwise. */
const rita: Principal = { subject: 'rita', tenant: 'acme', roles: ['approver'] };

const tool = (name: string, sideEffect: SideEffect) => ({ name, sideEffect });
const approveInvoice = tool('approve_invoice', 'write');
const refundPayment = tool('refund_payment', 'destructive');
const search = tool('search', 'read');
/** refund_payment's input schema, as examples/billing/tools.ts declares it. */
const refundSchema = {
  type: 'object',
  properties: {
    payment_id: { type: 'string' },
    amount_cents: { type: 'integer' },
  },
  required: ['payment_id', 'amount_cents'],
  additionalProperties: false,
};
const refundOf = (principal: Principal, amountCents: number) =>
  authorizeCall(
    {
      principal,
      tool: refundPayment,
      objects: [acmePayment],
      args: {
        values: { payment_id: acmePayment.id, amount_cents: amountCents },
        schema: refundSchema,
      },
    },
    policies,
  );

const acmeInvoice: ResolvedObject = {
  type: 'Invoice',
  id: 'inv-1001',
  tenant: 'acme',
  version: 3,
  attributes: { status: 'open', amountCents: 125_000, customer: 'Initech', owner: 'erin' },
};
const acmePayment: ResolvedObject = {
  type: 'Payment',
  id: 'pay-7',
  tenant: 'acme',
  version: 1,
  attributes: { amountCents: 5_000, refundedCents: 0 },
};

/** Nothing that identifies a tenant, an object, its owner or a policy may reach the model. */
const secrets = [
  'acme',
  'globex',
  'inv-1001',
  'erin',
  'Initech',
  'viewers-never-write',
  'permit',
  'forbid',
  policies.version,
];
function expectNothingLeaks(publicMessage: string): void {
  for (const secret of secrets) expect(publicMessage).not.toContain(secret);
}

describe('the billing example policies', () => {
  it('load with their schema, without validator warnings', () => {
    expect(sources.map((s) => s.name).sort()).toEqual([
      'approvals.cedar',
      'toolgate.cedarschema',
      'tools.cedar',
    ]);
    expect(policies.warnings).toEqual([]);
    expect(policies.policyIds).toContain('viewers-never-write');
  });

  it.each([approveInvoice, refundPayment])(
    'let alice (acme approver) call %o on an acme invoice',
    (t) => {
      const decision = authorizeCall(
        { principal: alice, tool: t, objects: [acmeInvoice] },
        policies,
      );
      expect(decision).toEqual({ ok: true, value: { policyVersion: policies.version } });
    },
  );

  it('refuse bob (acme viewer) approve_invoice, naming the forbid in the audit detail only', () => {
    const decision = authorizeCall(
      { principal: bob, tool: approveInvoice, objects: [acmeInvoice] },
      policies,
    );
    expect(decision).toMatchObject({
      ok: false,
      stage: 'authorization',
      code: 'not_authorized',
      disposition: 'deny',
    });
    if (decision.ok) return;
    expect(decision.publicMessage).toBe('This action is not allowed.');
    expect(decision.internalDetail).toContain(policies.version);
    expect(decision.internalDetail).toContain('denied by viewers-never-write');
    expectNothingLeaks(decision.publicMessage);
  });

  it('refuse carol (globex approver) on an acme invoice by default deny', () => {
    const decision = authorizeCall(
      { principal: carol, tool: approveInvoice, objects: [acmeInvoice] },
      policies,
    );
    expect(decision).toMatchObject({ ok: false, code: 'not_authorized' });
    if (decision.ok) return;
    expect(decision.internalDetail).toMatch(/default deny$/);
    expectNothingLeaks(decision.publicMessage);
  });

  it('refuse a call when any one of its objects is of another tenant', () => {
    const globexInvoice = { ...acmeInvoice, id: 'inv-9', tenant: 'globex' };
    const both = authorizeCall(
      { principal: alice, tool: approveInvoice, objects: [acmeInvoice, globexInvoice] },
      policies,
    );
    expect(both).toMatchObject({ ok: false, code: 'not_authorized' });
    if (!both.ok) expect(both.internalDetail).toContain('Invoice/inv-9');
    const own = authorizeCall(
      { principal: alice, tool: refundPayment, objects: [acmeInvoice, acmePayment] },
      policies,
    );
    expect(own.ok).toBe(true);
  });

  it('take the tenant from resolution, not from an attribute of the same name', () => {
    const spoofed = {
      ...acmeInvoice,
      tenant: 'globex',
      attributes: { ...acmeInvoice.attributes, tenant: 'acme' },
    };
    const decision = authorizeCall(
      { principal: alice, tool: approveInvoice, objects: [spoofed] },
      policies,
    );
    expect(decision).toMatchObject({ ok: false, code: 'not_authorized' });
  });

  it.each([alice, bob, carol, nobody])('allow search for everyone (%o)', (principal) => {
    expect(authorizeCall({ principal, tool: search, objects: [] }, policies).ok).toBe(true);
    expect(mayCallTool(principal, search, policies)).toBe(true);
  });

  it('decide write tools that name no object on the tool itself', () => {
    const sendEmail = tool('send_email', 'write');
    expect(authorizeCall({ principal: alice, tool: sendEmail, objects: [] }, policies).ok).toBe(
      true,
    );
    expect(authorizeCall({ principal: bob, tool: sendEmail, objects: [] }, policies)).toMatchObject(
      { ok: false, code: 'not_authorized' },
    );
    expect(
      authorizeCall({ principal: nobody, tool: sendEmail, objects: [] }, policies),
    ).toMatchObject({ ok: false, code: 'not_authorized' });
  });

  it('list write tools for approvers only', () => {
    expect(mayCallTool(alice, approveInvoice, policies)).toBe(true);
    expect(mayCallTool(carol, refundPayment, policies)).toBe(true);
    expect(mayCallTool(bob, approveInvoice, policies)).toBe(false);
    expect(mayCallTool({ ...alice, roles: ['approver', 'viewer'] }, approveInvoice, policies)).toBe(
      false,
    );
    expect(mayCallTool(nobody, refundPayment, policies)).toBe(false);
  });

  it('let alice approve a confirmation on an acme invoice', () => {
    const decision = authorizeApproval(
      alice,
      rita,
      { tool: approveInvoice, objects: [acmeInvoice] },
      policies,
    );
    expect(decision).toEqual({ ok: true, value: { policyVersion: policies.version } });
  });

  it.each([
    ['bob, a viewer of the same tenant', bob],
    ['carol, an approver of another tenant', carol],
    ['dave, who holds no role', nobody],
  ])('refuse an approval from %s', (_who, approver) => {
    const decision = authorizeApproval(
      approver,
      rita,
      { tool: approveInvoice, objects: [acmeInvoice] },
      policies,
    );
    expect(decision).toMatchObject({
      ok: false,
      stage: 'confirmation',
      code: 'approver_not_authorized',
      disposition: 'deny',
    });
    if (!decision.ok) {
      expect(decision.internalDetail).toMatch(
        /^deny: policy [0-9a-f]{64}, approve approve_invoice on Invoice\/inv-1001/,
      );
      expectNothingLeaks(decision.publicMessage);
    }
  });

  it('let a user approve their own call, as the example allows', () => {
    const own = authorizeApproval(alice, alice, { tool: refundPayment, objects: [] }, policies);
    expect(own).toEqual({ ok: true, value: { policyVersion: policies.version } });
  });

  describe('with a four-eyes policy on the requester', () => {
    const fourEyes = loadPolicySet([
      ...sources,
      {
        name: 'four-eyes.cedar',
        text: [
          '@id("four-eyes")',
          'forbid (principal, action == Toolgate::Action::"approve", resource)',
          'when { context.requester == principal };',
          '@id("no-approving-for-viewers")',
          'forbid (principal, action == Toolgate::Action::"approve", resource)',
          'when { context.requester in Toolgate::Role::"viewer" };',
          '@id("requester-of-the-approvers-tenant")',
          'forbid (principal, action == Toolgate::Action::"approve", resource)',
          'unless { context.requester.tenant == principal.tenant };',
        ].join('\n'),
      },
    ]);
    const approve = (approver: Principal, requester: Principal) =>
      authorizeApproval(
        approver,
        requester,
        { tool: approveInvoice, objects: [acmeInvoice] },
        fourEyes,
      );

    it('load against the schema, which types the requester as a user', () => {
      expect(fourEyes.warnings).toEqual([]);
    });

    it("refuse the requester's own approval, naming the policy for the audit topic", () => {
      const own = approve(alice, alice);
      expect(own).toMatchObject({ ok: false, code: 'approver_not_authorized' });
      if (!own.ok) {
        expect(own.internalDetail).toMatch(/^deny: .*denied by four-eyes$/);
        expectNothingLeaks(own.publicMessage);
      }
      expect(approve(alice, rita)).toEqual({
        ok: true,
        value: { policyVersion: fourEyes.version },
      });
    });

    it("read the requester's roles and tenant from the request's own entity", () => {
      const forViewer = approve(alice, bob);
      expect(forViewer).toMatchObject({ ok: false, code: 'approver_not_authorized' });
      if (!forViewer.ok)
        expect(forViewer.internalDetail).toMatch(/denied by no-approving-for-viewers$/);
      const otherTenant = { ...rita, tenant: 'globex' };
      const across = approve(alice, otherTenant);
      expect(across).toMatchObject({ ok: false, code: 'approver_not_authorized' });
      if (!across.ok) {
        expect(across.internalDetail).toMatch(/denied by requester-of-the-approvers-tenant$/);
      }
    });
  });

  it('fail closed on a policy that reads an attribute the object lacks', () => {
    const withBadPolicy = loadPolicySet([
      ...sources.filter((s) => s.name.endsWith('.cedar')),
      {
        name: 'owner.cedar',
        text: '@id("owner-only")\nforbid (principal, action, resource)\nwhen { resource.ownerId != "alice" };',
      },
    ]);
    const call = authorizeCall(
      { principal: alice, tool: approveInvoice, objects: [acmeInvoice] },
      withBadPolicy,
    );
    expect(call).toMatchObject({
      ok: false,
      stage: 'authorization',
      code: 'policy_error',
      disposition: 'deny',
    });
    if (call.ok) return;
    expect(call.publicMessage).toBe('This action is not allowed.');
    expect(call.internalDetail).toMatch(/owner-only: .*ownerId/);
    expect(call.internalDetail).toContain(withBadPolicy.version);
    expectNothingLeaks(call.publicMessage);
    const approval = authorizeApproval(
      alice,
      rita,
      { tool: approveInvoice, objects: [acmeInvoice] },
      withBadPolicy,
    );
    expect(approval).toMatchObject({ ok: false, code: 'approver_not_authorized' });
    if (!approval.ok) expect(approval.internalDetail).toMatch(/^error: /);
    expect(mayCallTool(alice, approveInvoice, withBadPolicy)).toBe(false);
  });

  it('let alice refund up to 500.00, and only finance more (a rule on the arguments)', () => {
    expect(refundOf(alice, 50_000).ok).toBe(true);
    const large = refundOf(alice, 50_001);
    expect(large).toMatchObject({ ok: false, code: 'not_authorized' });
    if (!large.ok) {
      expect(large.internalDetail).toContain('denied by large-refunds-need-finance');
      expectNothingLeaks(large.publicMessage);
    }
    const finance: Principal = { ...alice, roles: ['approver', 'finance'] };
    expect(refundOf(finance, 50_001).ok).toBe(true);
    // Finance alone does not let a viewer refund anything.
    expect(refundOf({ ...bob, roles: ['viewer', 'finance'] }, 100).ok).toBe(false);
  });

  it('still list refund_payment to alice: a tool list asks without arguments', () => {
    expect(mayCallTool(alice, refundPayment, policies)).toBe(true);
  });

  it('refuse as policy_error a refund amount Cedar cannot hold exactly', () => {
    expect(refundOf(alice, 2 ** 53)).toMatchObject({ ok: false, code: 'policy_error' });
  });

  it('refuse at load a rule on arguments that does not test they are there', () => {
    const unguarded = {
      name: 'refunds.cedar',
      text: 'forbid (principal, action == Toolgate::Action::"refund_payment", resource)\nwhen { context.args.amount_cents > 100 };',
    };
    expect(() => loadPolicySet([...sources, unguarded])).toThrow(/refunds\.cedar:2:\d+: .*args/);
  });

  it('refuse at load a policy that reads an attribute the schema does not declare', () => {
    const bad = {
      name: 'owner.cedar',
      text: 'forbid (principal, action, resource is Toolgate::Invoice)\nwhen { resource.ownerId != "alice" };',
    };
    expect(() => loadPolicySet([...sources, bad])).toThrow(/owner\.cedar:2:\d+: .*ownerId/);
  });

  it('change version when a policy text changes, and only then', () => {
    const edited = sources.map((s) =>
      s.name === 'tools.cedar' ? { ...s, text: `${s.text}\n` } : s,
    );
    expect(loadPolicySet(edited).version).not.toBe(policies.version);
    expect(loadPolicySet([...sources].reverse()).version).toBe(policies.version);
  });
});
