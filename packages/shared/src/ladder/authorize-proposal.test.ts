import { describe, expect, it, vi } from 'vitest';
import { loadPolicySet } from '../authz/index.js';
import { DEFAULT_CEILINGS } from '../limits/index.js';
import { proposalOf, ALICE } from '../messages/messages.test-support.js';
import { DEFAULT_PARSE_LIMITS } from '../representation/index.js';
import type { ObjectsById } from '../tool-spec.js';
import { createToolRegistry, defineTool } from '../tools/index.js';
import type { ResolvedObject } from '../types.js';
import { authorizeProposal, referencesOf } from './authorize-proposal.js';
import { validateProposal } from './validate-proposal.js';

type Args = { invoice_id: string; payment_id: string };

/** What the precondition hook was shown, by the role it reads each object in. */
const seen = vi.fn((_: { invoice?: ResolvedObject; payment?: ResolvedObject }) => undefined);

// A tool that references two types, and whose hook reads each by the id the model gave.
const apply = defineTool<Args>({
  name: 'apply_payment',
  description: 'Apply a payment to an invoice.',
  version: '1',
  sideEffect: 'write',
  input: {
    type: 'object',
    properties: { invoice_id: { type: 'string' }, payment_id: { type: 'string' } },
    required: ['invoice_id', 'payment_id'],
    additionalProperties: false,
  },
  references: (args) => [
    { type: 'Invoice', id: args.invoice_id },
    { type: 'Payment', id: args.payment_id },
  ],
  preconditions: (args, objects: ObjectsById) => {
    const invoice = objects.get(args.invoice_id);
    const payment = objects.get(args.payment_id);
    return seen({ ...(invoice && { invoice }), ...(payment && { payment }) });
  },
});

const registry = createToolRegistry([apply]);
const tool = registry.get('apply_payment')!;
const facts = {
  registry,
  policies: loadPolicySet([{ name: 'all.cedar', text: 'permit (principal, action, resource);' }]),
  ceilings: DEFAULT_CEILINGS,
  counts: { callsInRun: 1, tenantCallsThisSecond: 1 },
};

const object = (type: string, id: string): ResolvedObject => ({
  type,
  id,
  tenant: ALICE.tenant,
  version: 1,
  attributes: {},
});

/** Validates a call of apply_payment for these ids, then authorizes it with its objects loaded. */
function authorize(args: Args) {
  const proposal = proposalOf(args, 'p-apply', 'apply_payment');
  const v = validateProposal(proposal, ALICE, {
    registry,
    limits: DEFAULT_PARSE_LIMITS,
    repairBudget: 2,
  });
  if (!v.ok) throw new Error(`fixture did not validate: ${v.rejected.internalDetail}`);
  const loaded = referencesOf(v.value, tool).map((ref) => object(ref.type, ref.id));
  return authorizeProposal(v.value, tool, loaded, facts);
}

describe('authorizeProposal', () => {
  it('shows the hooks each object under its own id', () => {
    seen.mockClear();
    expect(authorize({ invoice_id: 'inv-1', payment_id: 'pay-1' }).ok).toBe(true);
    expect(seen).toHaveBeenCalledWith({
      invoice: object('Invoice', 'inv-1'),
      payment: object('Payment', 'pay-1'),
    });
  });

  it('refuses a call that gives two types one id, before any hook could read one for the other', () => {
    seen.mockClear();
    const decision = authorize({ invoice_id: 'x-7', payment_id: 'x-7' });
    expect(decision).toMatchObject({
      ok: false,
      rejected: { stage: 'resolution', code: 'ambiguous_reference', disposition: 'deny' },
    });
    if (decision.ok) return;
    expect(decision.rejected.internalDetail).toBe(
      'apply_payment references Invoice x-7 and Payment x-7; its hooks see objects by id alone',
    );
    expect(decision.rejected.publicMessage).not.toMatch(/x-7|Invoice|Payment/);
    expect(seen).not.toHaveBeenCalled();
  });
});
