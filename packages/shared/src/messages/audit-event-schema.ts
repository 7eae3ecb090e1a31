/**
 * The schema of an audit event: one record per decision of the gate. Kinds with a rung and code of
 * their own are pinned to them; refusals carry the code of the rung that refused.
 */
import { DISPOSITIONS } from '../catalogue.js';
import { OUTCOMES } from '../types.js';
import { AUDIT_KINDS, type AuditKind } from './audit-kinds.js';
import { MAX_INTERNAL_DETAIL_CHARS } from './audit-event.js';
import {
  ALL_CODES,
  closed,
  codesByRung,
  count,
  instant,
  nullableText,
  requires,
  rungField,
  sha256,
  text,
  when,
} from './schema-parts.js';

const AUDIT_KIND_NAMES = Object.keys(AUDIT_KINDS) as AuditKind[];

/** Kinds whose rung and code are their own, not a refusal's. */
function fixedKinds() {
  return AUDIT_KIND_NAMES.filter((k) => k !== 'rejected' && k !== 'result').map((k) => {
    const spec = AUDIT_KINDS[k];
    return when(
      { kind: { const: k } },
      {
        properties: {
          stage: { const: spec.stage },
          code: { const: spec.code },
          disposition: { const: spec.disposition },
          ...(k === 'replay' ? {} : { outcome: { const: spec.outcome } }),
        },
      },
    );
  });
}

/** One audit event, on `audit`. */
export const auditEventSchema = closed(
  'AuditEvent',
  {
    eventId: sha256,
    kind: { enum: AUDIT_KIND_NAMES },
    at: instant,
    requestId: nullableText,
    runId: nullableText,
    proposalId: nullableText,
    callId: nullableText,
    subject: nullableText,
    tenant: nullableText,
    tool: nullableText,
    toolVersion: nullableText,
    schemaId: count,
    schemaVersion: count,
    policyVersion: nullableText,
    stage: rungField,
    disposition: { enum: [...DISPOSITIONS, null] },
    code: { enum: [...ALL_CODES, null] },
    objectIds: { type: 'array', items: text },
    confirmationId: nullableText,
    decidedBy: nullableText,
    confirmedBy: nullableText,
    confirmedAt: { type: ['string', 'null'], format: 'date-time' },
    idempotencyKey: nullableText,
    commandId: nullableText,
    outcome: { enum: [...OUTCOMES, null] },
    argsDigest: { type: ['string', 'null'], pattern: '^[0-9a-f]{64}$' },
    args: { type: ['object', 'null'] },
    raw: {
      type: 'object',
      additionalProperties: false,
      required: ['sha256', 'bytes'],
      properties: { sha256, bytes: count },
    },
    internalDetail: { type: 'string', maxLength: MAX_INTERNAL_DETAIL_CHARS + 40 },
    source: {
      type: 'object',
      additionalProperties: false,
      required: ['topic', 'partition', 'offset'],
      properties: {
        topic: text,
        partition: count,
        offset: { type: 'string', pattern: '^[0-9]+$' },
      },
    },
  },
  [
    'eventId',
    'kind',
    'at',
    'requestId',
    'runId',
    'proposalId',
    'callId',
    'subject',
    'tenant',
    'tool',
    'toolVersion',
    'policyVersion',
    'stage',
    'disposition',
    'code',
    'objectIds',
    'confirmationId',
    'decidedBy',
    'confirmedBy',
    'confirmedAt',
    'idempotencyKey',
    'commandId',
    'outcome',
    'argsDigest',
    'args',
  ],
  {
    allOf: [
      ...codesByRung(true),
      ...fixedKinds(),
      when(
        { kind: { const: 'rejected' } },
        {
          properties: { code: { type: 'string' }, disposition: { type: 'string' } },
        },
      ),
      when(
        { kind: { const: 'result' } },
        {
          properties: { stage: { enum: ['result', 'execution'] } },
        },
      ),
      when({ kind: { const: 'quarantined' } }, requires('raw')),
    ],
  },
);
