/**
 * Fixtures for the message tests: real core values (a proposal validated by the real ladder, a
 * refusal with a repair offer) rather than hand-written look-alikes, so the schemas are tested
 * against what the stages will actually hand the builders.
 */
import { DEFAULT_PARSE_LIMITS } from '../representation/index.js';
import { createToolRegistry, defineTool, type Tool } from '../tools/index.js';
import {
  validateProposal,
  type AuthorizedProposal,
  type Refusal,
  type ValidatedProposal,
} from '../ladder/index.js';
import type { PendingConfirmation } from '../confirmation/index.js';
import type { Principal, ResolvedObject } from '../types.js';
import { authorizedEnvelope, type AuthorizedEnvelope } from './stage-envelope.js';

/** A fixed clock: the core never reads one. */
export const NOW = new Date('2025-03-01T12:00:00.000Z');

/** An integrity key of exactly the minimum length. */
export const KEY = 'k'.repeat(32);

/** The tenant-a principal who proposes. */
export const ALICE: Principal = { subject: 'alice', tenant: 'tenant-a', roles: ['clerk'] };

const refund = defineTool<{ payment_id: string; amount_cents: number; note?: string }>({
  name: 'refund_payment',
  description: 'Refund part or all of a payment, in cents.',
  version: '3',
  sideEffect: 'destructive',
  input: {
    type: 'object',
    properties: {
      payment_id: { type: 'string', pattern: '^pay_[a-z0-9]{1,32}$' },
      amount_cents: { type: 'integer' },
      note: { type: 'string', maxLength: 200 },
    },
    required: ['payment_id', 'amount_cents'],
    additionalProperties: false,
  },
  references: (args) => [{ type: 'Payment', id: args.payment_id }],
  card: (args) => ({
    action: 'Refund payment',
    target: args.payment_id,
    effect: `refund ${args.amount_cents} cents`,
    preview: { amount_cents: args.amount_cents },
  }),
});

const registry = createToolRegistry([refund]);
const facts = { registry, limits: DEFAULT_PARSE_LIMITS, repairBudget: 2 };

/** The fixture's one tool, as the registry compiled it. */
export function refundTool(): Tool {
  const tool = registry.get('refund_payment');
  if (tool === undefined) throw new Error('fixture tool did not load');
  return tool;
}

/** A proposal of `args` for refund_payment in the OpenAI chat format. */
export function proposalOf(args: unknown, proposalId = 'p-81f2', tool = 'refund_payment') {
  return {
    proposalId,
    runId: 'run-7',
    requestId: 'req-42',
    format: 'openai-chat',
    finishReason: 'tool_calls',
    attempt: 0,
    repairOf: null,
    call: {
      id: 'call_abc',
      type: 'function',
      function: { name: tool, arguments: JSON.stringify(args) },
    },
  };
}

/** The arguments of the fixture proposal; `note` is free text that must never reach the audit. */
export const ARGS = { payment_id: 'pay_11', amount_cents: 1200, note: 'SECRET customer note' };

/** The fixture proposal after the real validate group. */
export function validated(): ValidatedProposal {
  const step = validateProposal(proposalOf(ARGS), ALICE, facts);
  if (!step.ok) throw new Error(`fixture did not validate: ${step.rejected.internalDetail}`);
  return step.value;
}

/** The payment the fixture names, as the store would load it. */
export const PAYMENT: ResolvedObject = {
  type: 'Payment',
  id: 'pay_11',
  tenant: 'tenant-a',
  version: 4,
  attributes: { amount_cents: 5000, refunded_cents: 0 },
};

/** The fixture proposal as the authorize group would accept it. */
export function authorized(): AuthorizedProposal {
  return { ...validated(), objects: [PAYMENT], policyVersion: 'a'.repeat(64) };
}

/** When the validate stage received the fixture proposal. */
export const RECEIVED_AT = '2025-03-01T11:59:59.500Z';

/** The fixture proposal's `authorized` envelope. */
export function authorizedEnv(): AuthorizedEnvelope {
  return authorizedEnvelope(authorized(), RECEIVED_AT);
}

/** A real refusal with a repair offer: the model named a tool that does not exist. */
export function repairableRefusal(): Refusal {
  const step = validateProposal(proposalOf(ARGS, 'p-2', 'refund_everything'), ALICE, facts);
  if (step.ok || step.repair === undefined) throw new Error('fixture was not a repairable refusal');
  return step;
}

/** The pending confirmation of the fixture proposal. */
export function pending(): PendingConfirmation {
  const a = authorized();
  return {
    confirmationId: 'conf_0123456789abcdef01234567',
    proposalId: a.proposalId,
    runId: a.runId,
    requestId: a.requestId,
    callId: a.context.callId,
    tenant: a.context.tenant,
    requestedBy: a.context.subject,
    requesterRoles: [...a.context.roles],
    tool: a.tool,
    toolVersion: a.toolVersion,
    attempt: a.attempt,
    receivedAt: RECEIVED_AT,
    args: a.args,
    objects: [{ type: 'Payment', id: 'pay_11', version: 4 }],
    card: {
      action: 'Refund payment',
      target: 'pay_11',
      effect: 'refund 1200 cents',
      preview: { amount_cents: 1200 },
    },
    digest: 'd'.repeat(64),
    policyVersion: a.policyVersion,
    expiresAt: '2025-03-01T12:30:00.000Z',
  };
}

/** The observation ids of the fixture proposal. */
export const IDS = {
  proposalId: 'p-81f2',
  runId: 'run-7',
  requestId: 'req-42',
  callId: 'call_abc',
};
