/**
 * Rates of the trust rungs on realistic inputs: the billing example policies, an approver acting
 * on one invoice with a handful of attributes, a minted HS256 session, a confirmation digest.
 * Run from the repository root: `npx tsx packages/shared/bench/authorize.bench.ts`. Each figure is
 * the best and the median of several rounds; on a loaded machine trust the best.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createSessionVerifier, mintSession } from '../src/auth/index.js';
import {
  authorizeApproval,
  authorizeCall,
  loadPolicySet,
  type AuthzRequest,
} from '../src/authz/index.js';
import { confirmationDigest } from '../src/confirmation/index.js';

const ROUNDS = 7;

const folder = fileURLToPath(new URL('../../../examples/billing/policies/', import.meta.url));
const policies = loadPolicySet(
  readdirSync(folder).map((name) => ({ name, text: readFileSync(folder + name, 'utf8') })),
);

const invoice = {
  type: 'Invoice',
  id: 'inv-1001',
  tenant: 'acme',
  version: 3,
  attributes: {
    status: 'open',
    amountCents: 125_000,
    currency: 'EUR',
    customer: { name: 'Initech', country: 'DE' },
    dueDate: '2025-04-01',
    tags: ['q1', 'enterprise'],
    paidAt: null,
  },
};
const request: AuthzRequest = {
  principal: { subject: 'alice', tenant: 'acme', roles: ['approver'] },
  tool: { name: 'approve_invoice', sideEffect: 'write' },
  objects: [invoice],
};

function report(name: string, rates: number[]): void {
  rates.sort((a, b) => b - a);
  const format = (rate: number | undefined) => Math.round(rate ?? 0).toLocaleString('en');
  console.log(`${name}: best ${format(rates[0])} /s, median ${format(rates[ROUNDS >> 1])} /s`);
}

function measure(name: string, run: () => unknown, iterations: number): void {
  for (let i = 0; i < iterations / 5; i += 1) run();
  const rates: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i += 1) run();
    rates.push(iterations / (Number(process.hrtime.bigint() - start) / 1e9));
  }
  report(name, rates);
}

async function measureAsync(name: string, run: () => Promise<unknown>, iterations: number) {
  for (let i = 0; i < iterations / 5; i += 1) await run();
  const rates: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i += 1) await run();
    rates.push(iterations / (Number(process.hrtime.bigint() - start) / 1e9));
  }
  report(name, rates);
}

if (!authorizeCall(request, policies).ok) throw new Error('the benchmark request must be allowed');
const load = loadavg()[0]?.toFixed(1) ?? '?';
console.log(`node ${process.version}, ${policies.policyIds.length} policies, load ${load}`);

const threeObjects = {
  ...request,
  objects: [invoice, { ...invoice, id: 'inv-2' }, { ...invoice, id: 'inv-3' }],
};
measure('authorizeCall, 1 object', () => authorizeCall(request, policies), 5_000);
measure('authorizeCall, 3 objects', () => authorizeCall(threeObjects, policies), 2_000);
measure(
  'authorizeCall, no object',
  () => authorizeCall({ ...request, objects: [] }, policies),
  5_000,
);
measure(
  'authorizeApproval, 1 object',
  () =>
    authorizeApproval(
      request.principal,
      { ...request.principal, subject: 'rita' },
      request,
      policies,
    ),
  5_000,
);

const secret = 'a-development-secret-of-32-bytes!';
const now = new Date('2025-03-01T12:00:00Z');
const issuer = 'https://id.example.test';
const token = await mintSession(request.principal, secret, { now, ttlSeconds: 3600, issuer });
const cached = createSessionVerifier({ secret, issuer });
const uncached = createSessionVerifier({ secret, issuer }, { cacheSize: 0 });
await measureAsync('session verify, cached', () => cached.verify(token, now), 20_000);
await measureAsync('session verify, uncached HS256', () => uncached.verify(token, now), 5_000);

const digestInput = {
  tool: 'approve_invoice',
  args: { invoice_id: 'inv-1001', note: 'approved per contract' },
  objects: [{ type: 'Invoice', id: 'inv-1001', version: 3 }],
  preview: { amountCents: 125_000, currency: 'EUR', customer: 'Initech' },
  tenant: 'acme',
  policyVersion: policies.version,
};
measure('confirmationDigest', () => confirmationDigest(digestInput), 20_000);
