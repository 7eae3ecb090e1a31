/**
 * For any tool schema of the kinds tools declare and any arguments it accepts, authorization on
 * those arguments decides or refuses `policy_error`: it never throws, and a forbid that matches an
 * argument is never switched off by the conversion.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VALIDATOR_OPTIONS } from '../tools/create-validator.js';
import type { Principal } from '../types.js';
import { authorizeCall } from './authorize-call.js';
import { loadPolicySet, type PolicySet } from './policy-set.js';
import { PROPERTY_NAMES, toolSchemas, valuesFor } from './schema-values.test-support.js';

const alice: Principal = { subject: 'alice', tenant: 'acme', roles: ['approver'] };
const tool = { name: 'anything', sideEffect: 'write' } as const;

/** A Cedar string literal of `text` (its escapes are JSON's, for the names used here). */
const literal = (text: string) => JSON.stringify(text);

/** Everything is allowed unless `condition` holds. */
const forbidWhen = (condition: string) =>
  loadPolicySet([
    {
      name: 'p.cedar',
      text: `@id("all") permit (principal, action, resource);
@id("present") forbid (principal, action, resource) when { context has args && ${condition} };`,
    },
  ]);

/**
 * Per key, a set that forbids a call with that argument; and, under the key `undefined`, one that
 * forbids a call with any argument by comparing the whole record (so every argument is sent).
 */
const forbidIfPresent = new Map<string | undefined, PolicySet>([
  ...PROPERTY_NAMES.map((key) => [key, forbidWhen(`context.args has ${literal(key)}`)] as const),
  [undefined, forbidWhen('context.args != {}')],
]);

/** Whether `values` has `key` (any member when undefined) with a value other than null. */
function present(values: Record<string, unknown>, key: string | undefined): boolean {
  const keys = key === undefined ? Object.keys(values) : [key];
  return keys.some((k) => values[k] !== undefined && values[k] !== null);
}

const ajv = new Ajv2020({ ...VALIDATOR_OPTIONS, strict: false });

/** A schema with arguments it accepts (each tried against the gate's validator configuration). */
const schemaAndArguments = toolSchemas.chain((schema) => {
  const validate = ajv.compile(schema);
  return fc
    .array(valuesFor(schema), { minLength: 1, maxLength: 4 })
    .map((values) => ({ schema, accepted: values.filter((v) => validate(v)) }));
});

describe('arguments any schema allows, under a forbid on each one', () => {
  it('are decided or refused as policy_error, never thrown, never allowed when present', () => {
    let decided = 0;
    let refused = 0;
    fc.assert(
      fc.property(schemaAndArguments, ({ schema, accepted }) => {
        for (const values of accepted as Record<string, unknown>[]) {
          for (const [key, policies] of forbidIfPresent) {
            const request = { principal: alice, tool, objects: [], args: { values, schema } };
            const decision = authorizeCall(request, policies);
            const has = present(values, key);
            if (decision.ok) {
              expect(has).toBe(false);
              decided += 1;
            } else {
              // Absent, only a conversion failure elsewhere may refuse; present, the forbid may.
              expect(has ? ['not_authorized', 'policy_error'] : ['policy_error']).toContain(
                decision.code,
              );
              if (decision.code === 'policy_error') refused += 1;
              else decided += 1;
            }
          }
        }
      }),
      { numRuns: 150 },
    );
    // The property must have met both outcomes to say anything.
    expect(decided).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  }, 30_000);
});
