import { describe, expect, it } from 'vitest';
import type { Decision } from '../decision.js';
import type { JsonSchema } from '../tool-spec.js';
import type { Principal } from '../types.js';
import { authorizeCall } from './authorize-call.js';
import { decimalText } from './cedar-values.js';
import { mayCallTool } from './may-call-tool.js';
import { loadPolicySet } from './policy-set.js';

const alice: Principal = { subject: 'alice', tenant: 'acme', roles: ['approver'] };
const tool = { name: 'transfer', sideEffect: 'write' } as const;

const SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    amount_cents: { type: 'integer' },
    rate: { type: 'number' },
    currency: { type: 'string' },
    urgent: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    payee: { $ref: '#/$defs/payee' },
    'cost-centre': { type: 'string' },
    note: { type: ['string', 'null'] },
  },
  additionalProperties: false,
  $defs: {
    payee: {
      type: 'object',
      properties: { iban: { type: 'string' }, share: { type: 'number' } },
      additionalProperties: false,
    },
  },
};

/** Everything is allowed except what `rule` forbids. */
function forbidding(rule: string) {
  return loadPolicySet([
    {
      name: 'p.cedar',
      text: `@id("all") permit (principal, action, resource);
@id("rule") forbid (principal, action, resource) when { ${rule} };`,
    },
  ]);
}

function call(rule: string, values: Record<string, unknown>, schema = SCHEMA) {
  return authorizeCall(
    { principal: alice, tool, objects: [], args: { values, schema } },
    forbidding(rule),
  );
}

function expectCode(decision: Decision<unknown, 'authorization'>, code: string, detail?: RegExp) {
  expect(decision.ok).toBe(false);
  if (decision.ok) return;
  expect(decision.code).toBe(code);
  if (detail !== undefined) expect(decision.internalDetail).toMatch(detail);
}

describe('a call’s arguments in the Cedar context', () => {
  it.each([
    ['an integer as a Long', 'context.args.amount_cents > 50000', { amount_cents: 50_001 }],
    ['a string', 'context.args.currency == "EUR"', { currency: 'EUR' }],
    ['a boolean', 'context.args.urgent', { urgent: true }],
    ['an array as a set', 'context.args.tags.contains("vip")', { tags: ['a', 'vip'] }],
    ['an object as a record', 'context.args.payee.iban like "DE*"', { payee: { iban: 'DE1' } }],
    [
      'a key that is no identifier',
      'context.args["cost-centre"] == "ops"',
      { 'cost-centre': 'ops' },
    ],
    [
      'a schema number as a decimal, whole or not',
      'context.args.rate.greaterThan(decimal("0.5"))',
      { rate: 1 },
    ],
    [
      'a number behind a $ref as a decimal',
      'context.args.payee.share.lessThan(decimal("0.25"))',
      { payee: { share: 0.2 } },
    ],
  ])('lets a forbid read %s', (_what, rule, values) => {
    expectCode(call(rule, values), 'not_authorized', /denied by rule/);
  });

  it.each([
    ['an integer', 'context.args.amount_cents > 50000', { amount_cents: 50_000 }],
    ['a decimal', 'context.args.rate.greaterThan(decimal("0.5"))', { rate: 0.5 }],
    ['a set', 'context.args.tags.contains("vip")', { tags: ['a'] }],
  ])('allows what the forbid on %s does not match', (_what, rule, values) => {
    expect(call(rule, values).ok).toBe(true);
  });

  it('leaves a null argument out, as absent', () => {
    expect(call('context.args has note', { note: null }).ok).toBe(true);
    expectCode(call('context.args has note', { note: 'x' }), 'not_authorized');
  });

  it.each([
    ['a whole number past 2^53', { amount_cents: 2 ** 53 }, /amount_cents is not a whole number/],
    ['a whole number past 2^63', { amount_cents: 1e300 }, /amount_cents is not a whole number/],
    ['a decimal with five places', { rate: 0.00001 }, /rate is not a decimal/],
    ['a decimal past Cedar’s range', { rate: 1e15 }, /rate is not a decimal/],
    ['an unpaired surrogate', { currency: 'E\ud800' }, /currency is not well-formed text/],
    ['a key Cedar’s JSON reserves', { payee: { __extn: 'x' } }, /reserved Cedar JSON key/],
    ['a null inside a set', { tags: ['a', null] }, /tags\[1\] is null/],
  ])(
    'refuses as policy_error an argument Cedar cannot hold exactly: %s',
    (_what, values, detail) => {
      // A rule that names every argument, so each one is sent.
      const rule = ['amount_cents', 'rate', 'currency', 'payee', 'tags']
        .map((name) => `context.args has ${name}`)
        .join(' || ');
      expectCode(call(rule, values), 'policy_error', detail);
    },
  );

  it('refuses as policy_error when a policy reads an argument the call lacks, even a forbid', () => {
    expectCode(
      call('context.args.amount_cents > 50000', { currency: 'EUR' }),
      'policy_error',
      /rule: .*amount_cents/,
    );
  });

  it('sends no arguments when no policy reads args, so none can fail a call', () => {
    const policies = loadPolicySet([
      { name: 'p.cedar', text: '@id("all") permit (principal, action, resource);' },
    ]);
    const request = {
      principal: alice,
      tool,
      objects: [],
      args: { values: { rate: 1e-9 }, schema: SCHEMA },
    };
    expect(authorizeCall(request, policies).ok).toBe(true);
  });

  it('sends only the arguments policies name, unless one observes them whole', () => {
    const unnamed = { currency: 'EUR', rate: 1e-9 };
    expect(call('context.args.currency == "USD"', unnamed).ok).toBe(true);
    expectCode(call('context.args == {currency: "EUR"}', unnamed), 'policy_error', /rate/);
    expectCode(call('context.args == {currency: "EUR"}', { currency: 'EUR' }), 'not_authorized');
    expect(call('context.args == {}', { currency: 'EUR' }).ok).toBe(true);
  });

  it('asks a tool list without arguments, so a guarded rule on them does not hide the tool', () => {
    const policies = forbidding('context has args && context.args.amount_cents > 50000');
    expect(mayCallTool(alice, tool, policies)).toBe(true);
  });
});

describe('decimalText', () => {
  it.each([
    [5, '5.0'],
    [-0, '0.0'],
    [0.5, '0.5'],
    [-12.3456, '-12.3456'],
    [922337203685477.5, '922337203685477.5'],
  ])('writes %d as decimal("%s")', (value, text) => {
    expect(decimalText(value)).toBe(text);
  });

  it.each([0.00001, 0.1 + 0.2, 1e-7, 1e21, 922337203685478])(
    'has no exact decimal for %d',
    (value) => {
      expect(decimalText(value)).toBeUndefined();
    },
  );
});
