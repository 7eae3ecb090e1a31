/**
 * The example's policies on arguments any of its tools' schemas allow: authorization decides or
 * refuses `policy_error`, never throws, and never lets a refund over 500.00 through for someone
 * without the finance role.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { authorizeCall, createGate, type Principal } from '@toolgate/shared';
import { valuesFor } from '../../packages/shared/src/authz/schema-values.test-support.js';
import deployment from './toolgate.config.js';
import { SEED_OBJECTS, USERS } from './data.js';
import { TOOLS } from './tools.js';

const gate = createGate(deployment);
const finance: Principal = { subject: 'fay', tenant: 'acme', roles: ['approver', 'finance'] };
const people: readonly Principal[] = [USERS.alice, USERS.bob, USERS.carol, finance];
const payment = SEED_OBJECTS.find((o) => o.type === 'Payment' && o.tenant === 'acme')!;

/** A tool's name with arguments its schema, as the gate compiled it, accepts. */
const calls = fc.constantFrom(...TOOLS).chain((spec) => {
  const tool = gate.registry.get(spec.name)!;
  return fc
    .array(valuesFor(spec.input), { minLength: 1, maxLength: 4 })
    .map((all) => ({ spec, accepted: all.filter((v) => tool.inputErrors(v).length === 0) }));
});

describe('the billing policies on arguments the tools’ schemas allow', () => {
  it('decide or refuse as policy_error, and never allow a large refund without finance', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(calls, fc.constantFrom(...people), ({ spec, accepted }, principal) => {
        for (const values of accepted as Record<string, unknown>[]) {
          const objects = spec.name === 'refund_payment' ? [payment] : [];
          const tool = { name: spec.name, sideEffect: spec.sideEffect };
          const args = { values, schema: spec.input };
          const decision = authorizeCall({ principal, tool, objects, args }, gate.policies);
          const outcome = decision.ok ? 'allow' : decision.code;
          expect(['allow', 'not_authorized', 'policy_error']).toContain(outcome);
          seen.add(`${spec.name} ${outcome}`);
          const amount = values['amount_cents'];
          const large = spec.name === 'refund_payment' && (amount as number) > 50_000;
          if (large && !principal.roles.includes('finance')) expect(decision.ok).toBe(false);
        }
      }),
      { numRuns: 150 },
    );
    // The run met the outcomes that give the property meaning.
    expect(seen).toContain('refund_payment allow');
    expect(seen).toContain('refund_payment not_authorized');
    expect(seen).toContain('refund_payment policy_error');
    expect(seen).toContain('search allow');
  }, 30_000);
});
