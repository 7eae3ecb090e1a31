/**
 * The schemas of a proposal and of the envelopes the stages pass along (`validated`, `authorized`,
 * `cleared`): each envelope is the one before it with the fields its rung adds.
 */
import { PROPOSAL_FORMATS } from '../types.js';
import { closed, count, instant, jsonObject, nullableText, open, text } from './schema-parts.js';

/** A proposed tool call, as an agent's runtime publishes it on `proposals`. */
export const proposalSchema = open(
  'Proposal',
  'A proposed tool call (DESIGN §9); the caller session token travels in the toolgate-session header.',
  {
    proposalId: { ...text, description: 'Unique per submission.' },
    runId: text,
    requestId: text,
    format: { enum: PROPOSAL_FORMATS },
    finishReason: { type: ['string', 'null'], description: "The provider's own finish word." },
    attempt: { ...count, description: '0 for a first proposal, n for the n-th correction.' },
    repairOf: { ...nullableText, description: 'The proposalId this one corrects.' },
    call: { description: "The provider's own call payload, in the named format." },
  },
  ['proposalId', 'runId', 'requestId', 'format', 'call'],
);

const context = {
  type: 'object',
  additionalProperties: false,
  required: ['subject', 'tenant', 'roles', 'requestId', 'runId', 'proposalId', 'callId'],
  properties: {
    subject: text,
    tenant: text,
    roles: { type: 'array', items: { type: 'string' } },
    requestId: text,
    runId: text,
    proposalId: text,
    callId: text,
  },
} as const;

const resolvedObject = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'id', 'tenant', 'version', 'attributes'],
  properties: { type: text, id: text, tenant: text, version: count, attributes: jsonObject },
} as const;

const validatedFields = {
  proposalId: text,
  runId: text,
  requestId: text,
  attempt: count,
  context: { $ref: '#/$defs/context' },
  tool: text,
  toolVersion: text,
  args: jsonObject,
  repaired: { const: 'fence' },
  receivedAt: instant,
  issuedAt: instant,
};
const validatedRequired = Object.keys(validatedFields).filter((k) => k !== 'repaired');
const authorizedFields = {
  ...validatedFields,
  objects: { type: 'array', items: { $ref: '#/$defs/resolvedObject' } },
  policyVersion: text,
  replay: { const: true },
};
const defs = { $defs: { context, resolvedObject } };

/** A proposal that passed the representation and schema rungs, on `validated`. */
export const validatedSchema = closed(
  'ValidatedEnvelope',
  validatedFields,
  validatedRequired,
  defs,
);

/** A validated call that policy allows, with the objects it touches, on `authorized`. */
export const authorizedSchema = closed(
  'AuthorizedEnvelope',
  authorizedFields,
  [...validatedRequired, 'objects', 'policyVersion'],
  defs,
);

/** An authorized call cleared to run (confirmed by a person when its tool asks), on `cleared`. */
export const clearedSchema = closed(
  'ClearedEnvelope',
  { ...authorizedFields, confirmedBy: text, confirmedAt: instant },
  [...validatedRequired, 'objects', 'policyVersion'],
  { ...defs, dependentRequired: { confirmedBy: ['confirmedAt'], confirmedAt: ['confirmedBy'] } },
);
