/**
 * Properties of the whole ladder on the example: whatever the model sends, nothing executes unless
 * its arguments satisfy the tool's schema (checked by an independent validator), evaluation never
 * throws, and no public message names another tenant's identifiers the caller did not write.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createEvaluationState,
  createGate,
  evaluate,
  mintSession,
  type Gate,
  type Proposal,
} from '@toolgate/shared';
import deployment, { EXAMPLE_SESSION_ISSUER, EXAMPLE_SESSION_SECRET } from './toolgate.config.js';
import { USERS } from './data.js';
import { TOOLS } from './tools.js';
import { actionJson, anthropic, mcp, openaiChat, openaiResponses } from './fixtures/proposals.js';

const NOW = new Date('2026-11-29T12:00:00Z');
const independent = new Ajv2020({ strict: false, allErrors: false });
const schemaOf = new Map(TOOLS.map((t) => [t.name, independent.compile(t.input)]));

/** What each tenant must never read about the other. */
const FOREIGN: Readonly<Record<string, readonly string[]>> = {
  acme: ['globex', 'carol', 'inv_900'],
  globex: [
    'acme',
    'alice',
    'bob',
    'inv_481',
    'inv_482',
    'inv_483',
    'draft_7',
    'pay_11',
    'ops@acme.example',
  ],
};

let gate: Gate;
const sessions: Record<string, string> = {};

beforeAll(async () => {
  gate = createGate(deployment);
  for (const [name, user] of Object.entries(USERS))
    sessions[name] = await mintSession(user, EXAMPLE_SESSION_SECRET, {
      now: NOW,
      ttlSeconds: 3600,
      issuer: EXAMPLE_SESSION_ISSUER,
    });
});

const VALID: readonly [string, Readonly<Record<string, unknown>>][] = [
  ['search', { query: 'open invoices', max_results: 3 }],
  ['calculate', { expression: '(1200 + 300) * 2' }],
  ['final', { answer: 'done' }],
  ['approve_invoice', { invoice_id: 'inv_481', status: 'approved', reason: 'ok' }],
  ['approve_invoice', { invoice_id: 'inv_900', status: 'rejected' }],
  ['send_email', { draft_id: 'draft_7' }],
  ['refund_payment', { payment_id: 'pay_11', amount_cents: 500 }],
];

const key = fc.oneof(
  fc.constantFrom(
    'query',
    'max_results',
    'invoice_id',
    'status',
    'tenant_id',
    'amount_cents',
    '__proto__',
    'constructor',
    'role',
  ),
  fc.string(),
);
const toolName = fc.oneof(
  fc.constantFrom(...TOOLS.map((t) => t.name)),
  fc.constantFrom('constructor', 'toString', '__proto__', 'delete_all'),
  fc.string(),
);

type Mutation = (args: Record<string, unknown>) => Record<string, unknown>;
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constant<Mutation>((a) => a),
  key.map<Mutation>((k) => (a) => Object.fromEntries(Object.entries(a).filter(([n]) => n !== k))),
  fc.tuple(key, fc.jsonValue()).map<Mutation>(([k, v]) => (a) => ({ ...a, [k]: v })),
  fc.jsonValue().map<Mutation>((v) => (a) => {
    const [first] = Object.keys(a);
    return first === undefined ? a : { ...a, [first]: v };
  }),
);

const FORMATS = [openaiChat, openaiResponses, actionJson, anthropic, mcp] as const;

const proposalArb: fc.Arbitrary<{ proposal: unknown; who: string }> = fc
  .record({
    base: fc.constantFrom(...VALID),
    tool: fc.option(toolName, { freq: 3 }),
    mutations: fc.array(mutation, { maxLength: 3 }),
    format: fc.nat({ max: FORMATS.length - 1 }),
    who: fc.constantFrom('alice', 'bob', 'carol'),
    cut: fc.option(fc.nat({ max: 200 }), { freq: 4 }),
    id: fc.uuid(),
  })
  .map(({ base, tool, mutations, format, who, cut, id }) => {
    const args = mutations.reduce((a, m) => m(a), { ...base[1] });
    const name = tool ?? base[0];
    const ids = { proposalId: `p-${id}`, requestId: `req-${id}` };
    let proposal: Proposal = FORMATS[format]!(ids, name, args);
    if (cut !== null && format <= 1)
      proposal = openaiChat(ids, name, JSON.stringify(args).slice(0, cut));
    return { proposal, who };
  });

function leaks(message: string, tenant: string, input: string): string | undefined {
  return FOREIGN[tenant]?.find(
    (w) => message.toLowerCase().includes(w) && !input.toLowerCase().includes(w),
  );
}

describe('the ladder, for any proposal', () => {
  it('never executes arguments the schema does not accept, and never leaks another tenant', async () => {
    const seen = { execute: 0, confirm: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(proposalArb, async ({ proposal, who }) => {
        const e = await evaluate(
          { session: sessions[who], proposal },
          gate,
          createEvaluationState(),
          NOW,
        );
        const tenant = USERS[who as keyof typeof USERS].tenant;
        seen[e.kind] += 1;
        if (e.kind === 'execute') {
          expect(schemaOf.get(e.command.tool)?.(e.command.args)).toBe(true);
          expect(e.command.context.tenant).toBe(tenant);
        }
        if (e.kind === 'refused')
          expect(leaks(e.rejected.publicMessage, tenant, JSON.stringify(proposal))).toBeUndefined();
      }),
      { numRuns: 400 },
    );
    // The generator must exercise both sides of the property, or it proves nothing.
    expect(seen.execute).toBeGreaterThan(20);
    expect(seen.refused).toBeGreaterThan(100);
  });

  it('answers arbitrary JSON without throwing and without executing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const e = await evaluate(
          { session: sessions['alice'], proposal: value },
          gate,
          createEvaluationState(),
          NOW,
        );
        expect(e.kind).toBe('refused');
      }),
      { numRuns: 300 },
    );
  });
});
