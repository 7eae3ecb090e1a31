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

/** Arguments `spec`'s schema, as the gate compiled it, accepts. */
function accepted(spec: (typeof TOOLS)[number]) {
  const tool = gate.registry.get(spec.name)!;
  return fc
    .array(valuesFor(spec.input), { minLength: 1, maxLength: 4 })
    .map((all) => all.filter((v) => tool.inputErrors(v).length === 0) as Record<string, unknown>[]);
}

/** Authorization of `principal`'s call of `spec` with `values`, as `allow` or the code. */
function outcomeOf(
  spec: (typeof TOOLS)[number],
  principal: Principal,
  values: Record<string, unknown>,
) {
  const objects = spec.name === 'refund_payment' ? [payment] : [];
  const tool = { name: spec.name, sideEffect: spec.sideEffect };
  const args = { values, schema: spec.input };
  const decision = authorizeCall({ principal, tool, objects, args }, gate.policies);
  return decision.ok ? 'allow' : decision.code;
}

describe('the billing policies on arguments the tools’ schemas allow', () => {
  it.each(TOOLS.map((spec) => [spec.name, spec] as const))(
    'decide %s or refuse it as policy_error, and never allow a refund over 500.00 without finance',
    (name, spec) => {
      const seen = new Set<string>();
      fc.assert(
        fc.property(accepted(spec), fc.constantFrom(...people), (all, principal) => {
          for (const values of all) {
            const outcome = outcomeOf(spec, principal, values);
            expect(['allow', 'not_authorized', 'policy_error']).toContain(outcome);
            seen.add(outcome);
            const large = name === 'refund_payment' && (values['amount_cents'] as number) > 50_000;
            if (large && !principal.roles.includes('finance')) expect(outcome).not.toBe('allow');
          }
        }),
        { numRuns: 100 },
      );
      // The run met the outcomes that give the property meaning.
      expect(seen).toContain('allow');
      if (name === 'refund_payment') {
        expect(seen).toContain('not_authorized');
        expect(seen).toContain('policy_error');
      }
    },
    30_000,
  );
});
