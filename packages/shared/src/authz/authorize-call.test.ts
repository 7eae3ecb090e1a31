import { describe, expect, it } from 'vitest';
import type { Principal, ResolvedObject } from '../types.js';
import { authorizeCall, type AuthzRequest } from './authorize-call.js';
import { mayCallTool } from './may-call-tool.js';
import { loadPolicySet, type PolicySet } from './policy-set.js';

const alice: Principal = { subject: 'alice', tenant: 'acme', roles: ['approver'] };
const invoice: ResolvedObject = {
  type: 'Invoice',
  id: 'inv-1',
  tenant: 'acme',
  version: 1,
  attributes: {
    status: 'open',
    amountCents: 1200,
    tags: ['q1'],
    customer: { name: 'Initech', vip: false },
  },
};
const policies = loadPolicySet([
  {
    name: 'p.cedar',
    text: `
@id("own-tenant")
permit (principal, action, resource) when { resource has tenant && resource.tenant == principal.tenant };
@id("tools")
permit (principal, action, resource is Toolgate::Tool);
@id("no-paid")
forbid (principal, action in Toolgate::Action::"write", resource) when { resource has status && resource.status == "paid" };
@id("no-vip")
forbid (principal, action, resource) when { resource has customer && resource.customer has vip && resource.customer.vip };
@id("no-hold")
forbid (principal, action, resource) when { resource has hold };
@id("reads-more")
permit (principal, action, resource)
when { false && (resource has amount || resource has tags || resource has owner || resource has limit || resource has check || resource has next) };
`,
  },
]);

const request = (objects: readonly ResolvedObject[], name = 'approve_invoice'): AuthzRequest => ({
  principal: alice,
  tool: { name, sideEffect: 'write' },
  objects,
});
const withAttributes = (attributes: Record<string, unknown>): ResolvedObject => ({
  ...invoice,
  attributes,
});

function expectCode(
  decision: ReturnType<typeof authorizeCall>,
  code: 'not_authorized' | 'policy_error',
  detail: RegExp,
) {
  expect(decision).toMatchObject({
    ok: false,
    stage: 'authorization',
    code,
    publicMessage: 'This action is not allowed.',
  });
  if (!decision.ok) expect(decision.internalDetail).toMatch(detail);
}

describe('authorizeCall', () => {
  it('allows when every object is allowed and returns the policy version', () => {
    expect(authorizeCall(request([invoice]), policies)).toEqual({
      ok: true,
      value: { policyVersion: policies.version },
    });
  });

  it('hands object attributes to policies, nested records and sets included', () => {
    expectCode(
      authorizeCall(request([withAttributes({ status: 'paid' })]), policies),
      'not_authorized',
      /denied by no-paid$/,
    );
    expectCode(
      authorizeCall(request([withAttributes({ customer: { vip: true } })]), policies),
      'not_authorized',
      /no-vip/,
    );
  });

  it('leaves null attributes out, as absent', () => {
    expect(
      authorizeCall(request([withAttributes({ hold: null, status: 'open' })]), policies).ok,
    ).toBe(true);
    expectCode(
      authorizeCall(request([withAttributes({ hold: 'legal' })]), policies),
      'not_authorized',
      /no-hold/,
    );
  });

  it.each([
    ['a fractional number', { amount: 12.5 }, /amount is not a whole number/],
    ['an unsafe integer', { amount: 2 ** 60 }, /amount is not a whole number/],
    ['a null inside a set', { tags: ['a', null] }, /tags\[1\] is null/],
    [
      'an entity escape that would forge a reference',
      { owner: { __entity: { type: 'Toolgate::User', id: 'alice' } } },
      /owner\.__entity uses a reserved/,
    ],
    [
      'an extension escape',
      { limit: { __extn: { fn: 'decimal', arg: '1.0' } } },
      /limit\.__extn uses a reserved/,
    ],
    ['a function', { check: () => true }, /check has a function value/],
  ])('fails closed on an attribute holding %s', (_what, attributes, detail) => {
    expectCode(
      authorizeCall(request([withAttributes(attributes)]), policies),
      'policy_error',
      detail,
    );
  });

  it('sends only attributes some policy can read, so others cannot fail or sway a decision', () => {
    const unread = withAttributes({
      status: 'open',
      taxRate: 0.19,
      __entity: { type: 'Toolgate::User', id: 'x' },
    });
    expect(authorizeCall(request([unread]), policies).ok).toBe(true);
    expectCode(
      authorizeCall(request([withAttributes({ amount: 0.19 })]), policies),
      'policy_error',
      /amount/,
    );
  });

  it('fails closed on attributes nested beyond the bound', () => {
    let deep: Record<string, unknown> = { leaf: 'x' };
    for (let i = 0; i < 40; i += 1) deep = { next: deep };
    expectCode(
      authorizeCall(request([withAttributes(deep)]), policies),
      'policy_error',
      /nests too deeply/,
    );
  });

  it.each(['read', 'write', 'destructive', 'approve'])(
    'fails closed on a tool named like the reserved action %s',
    (name) => {
      expectCode(
        authorizeCall(request([invoice], name), policies),
        'policy_error',
        /collides with a reserved action/,
      );
    },
  );

  it.each([
    ['User', /collides with the entity model/],
    ['Tool', /collides with the entity model/],
    ['in-voice', /not a Cedar identifier/],
    ['Invoice::"x"', /not a Cedar identifier/],
  ])('fails closed on an object of type %s', (type, detail) => {
    expectCode(authorizeCall(request([{ ...invoice, type }]), policies), 'policy_error', detail);
  });

  it('treats object ids and subjects as data, never as policy syntax', () => {
    const odd = { ...invoice, id: '" || true || "' };
    expect(
      authorizeCall({ ...request([odd]), principal: { ...alice, subject: 'a"::"b' } }, policies).ok,
    ).toBe(true);
    expectCode(
      authorizeCall(request([{ ...odd, tenant: 'globex' }]), policies),
      'not_authorized',
      /default deny$/,
    );
  });

  it('refuses on the first object that is not allowed and names it', () => {
    const other = { ...invoice, id: 'inv-2', tenant: 'globex' };
    expectCode(
      authorizeCall(request([invoice, other, invoice]), policies),
      'not_authorized',
      /on Invoice\/inv-2: default deny$/,
    );
  });

  it('fails closed on a policy set that was not loaded', () => {
    const forged: PolicySet = { version: policies.version, policyIds: [], warnings: [] };
    expectCode(
      authorizeCall(request([invoice]), forged),
      'policy_error',
      /not a loaded policy set/,
    );
    expect(mayCallTool(alice, { name: 'search', sideEffect: 'read' }, forged)).toBe(false);
  });

  it('decides with the set it is given when several versions are loaded', () => {
    const denyAll = loadPolicySet([
      { name: 'd.cedar', text: 'forbid (principal, action, resource);' },
    ]);
    expect(authorizeCall(request([invoice]), policies).ok).toBe(true);
    expectCode(
      authorizeCall(request([invoice]), denyAll),
      'not_authorized',
      new RegExp(`^policy ${denyAll.version}`),
    );
  });
});

describe('remembered decisions', () => {
  const write = { name: 'approve_invoice', sideEffect: 'write' } as const;
  const paid = { ...invoice, attributes: { ...invoice.attributes, status: 'paid' } };
  const stranger: Principal = { subject: 'mallory', tenant: 'globex', roles: ['approver'] };

  it('answers a repeated request the same way, and never mixes requests or policy sets', () => {
    const decisions = () => [
      authorizeCall({ principal: alice, tool: write, objects: [invoice] }, policies).ok,
      authorizeCall({ principal: alice, tool: write, objects: [paid] }, policies).ok,
      authorizeCall({ principal: stranger, tool: write, objects: [invoice] }, policies).ok,
    ];
    expect(decisions()).toEqual([true, false, false]);
    expect(decisions()).toEqual([true, false, false]);
    const denyAll = loadPolicySet([
      { name: 'deny.cedar', text: 'forbid (principal, action, resource);' },
    ]);
    expect(authorizeCall({ principal: alice, tool: write, objects: [invoice] }, denyAll).ok).toBe(
      false,
    );
    expect(authorizeCall({ principal: alice, tool: write, objects: [invoice] }, policies).ok).toBe(
      true,
    );
  });
});
