/**
 * The schemas of a confirmation: the request the gate sends to a person (with the card they see)
 * and the approval that answers it.
 */
import { APPROVAL_DECISIONS } from './approval.js';
import { MAX_REJECTION_REASON_CHARS } from './approval-views.js';
import { closed, instant, open, sha256, text } from './schema-parts.js';

/** One field the call would change: its value now (null when there is none yet) and after. */
const change = {
  type: 'object',
  additionalProperties: false,
  required: ['field', 'before', 'after'],
  properties: { field: text, before: { type: ['string', 'null'] }, after: { type: 'string' } },
} as const;

const card = {
  type: 'object',
  additionalProperties: false,
  required: ['action', 'target', 'effect', 'preview'],
  properties: {
    action: text,
    target: text,
    effect: text,
    preview: {},
    changes: { type: 'array', items: change },
  },
} as const;

/** What the gate asks a person to confirm, on `confirmations`. */
export const confirmationRequestSchema = closed(
  'ConfirmationRequest',
  {
    confirmationId: text,
    proposalId: text,
    runId: text,
    tenant: text,
    requestedBy: text,
    tool: text,
    card,
    digest: sha256,
    expiresAt: instant,
  },
  [
    'confirmationId',
    'proposalId',
    'runId',
    'tenant',
    'requestedBy',
    'tool',
    'card',
    'digest',
    'expiresAt',
  ],
);

/** A person's answer to a confirmation request, on `approvals`. */
export const approvalSchema = open(
  'Approval',
  "A person's answer to a confirmation request; the approver's session token travels in the toolgate-session header.",
  {
    confirmationId: text,
    decision: { enum: APPROVAL_DECISIONS },
    digest: { ...sha256, description: 'The digest of the card the approver saw.' },
    reason: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_REJECTION_REASON_CHARS,
      description:
        "Why, in the approver's words (trimmed, no control characters); a rejection's observation carries it to the agent.",
    },
  },
  ['confirmationId', 'decision', 'digest'],
);
