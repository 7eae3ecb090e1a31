/**
 * JSON Schemas (draft 2020-12) of every message on the gate's topics, keyed by logical topic name.
 * The platform codec registers each under `<full topic name>-value` and refuses to encode a value
 * its schema rejects; compile them with the gate's validator (`createValidator()`: Ajv2020, strict,
 * union types, asserted formats), as {@link createMessageChecker} does.
 *
 * What the gate writes has closed schemas (`additionalProperties: false`) with the conditions that
 * tie fields together, so a bug that writes a wrong message fails loudly at the writer. What others
 * write (`proposals`, `approvals`, `results`) is described with its full shape but open to more
 * fields; the gate's own checks are what refuse those messages, with an answer where one is
 * possible. The codec should therefore not let the registry client validate them on decode (it
 * would turn a malformed proposal into undecodable bytes instead of a refusal the agent reads).
 * Field names are the contract of DESIGN §2: more may be added, none renamed.
 */
import { DISPOSITIONS, REJECTION_CODES, RUNGS, type Rung } from '../catalogue.js';
import { OUTCOMES, PROPOSAL_FORMATS } from '../types.js';
import { APPROVAL_DECISIONS } from './approval.js';
import { AUDIT_KINDS, type AuditKind } from './audit-kinds.js';
import { MAX_INTERNAL_DETAIL_CHARS } from './audit-event.js';

/** The logical topics that carry a registered message type (`commands` covers `commands.<tool>`). */
export const MESSAGE_TOPICS = [
  'proposals',
  'validated',
  'authorized',
  'cleared',
  'confirmations',
  'approvals',
  'commands',
  'results',
  'observations',
  'audit',
] as const;

/** One logical topic with a message schema. */
export type MessageTopic = (typeof MESSAGE_TOPICS)[number];

/** The topics written from outside the gate: open schemas, checked by the gate itself. */
export const EXTERNAL_TOPICS: readonly MessageTopic[] = ['proposals', 'approvals', 'results'];

/** A JSON Schema, as plain data. */
export type MessageSchema = Readonly<Record<string, unknown>>;

const DRAFT = 'https://json-schema.org/draft/2020-12/schema';

const text = { type: 'string', minLength: 1 } as const;
const instant = { type: 'string', format: 'date-time' } as const;
const count = { type: 'integer', minimum: 0 } as const;
const sha256 = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;
const nullableText = { type: ['string', 'null'], minLength: 1 } as const;
const jsonObject = { type: 'object' } as const;

const ALL_CODES = [...new Set(RUNGS.flatMap((r) => Object.keys(REJECTION_CODES[r])))];

const codesOf = (rung: Rung) => Object.keys(REJECTION_CODES[rung]);

/**
 * The field `stage` of observations and audit events names a rung of the ladder, not one of the
 * services (validate, authorize, confirm, execute): a published name, kept as it is.
 */
const rungField = {
  enum: RUNGS,
  description:
    'The rung of the ladder that decided (for a refusal, the one that refused), e.g. schema or authorization. The field name is kept as published; it does not name a service.',
} as const;

/** `{properties: {a: true, …}, required: [a, …]}`: declared, so strict mode accepts `required`. */
function requires(...names: readonly string[]) {
  return { properties: Object.fromEntries(names.map((n) => [n, true])), required: names };
}

/** When every property in `props` is present and matches, `then` applies. */
function when(props: Readonly<Record<string, unknown>>, then: Readonly<Record<string, unknown>>) {
  return { if: { properties: props, required: Object.keys(props) }, then };
}

function closed(
  title: string,
  properties: Readonly<Record<string, unknown>>,
  required: readonly string[],
  extra: Readonly<Record<string, unknown>> = {},
): MessageSchema {
  return {
    $schema: DRAFT,
    title,
    type: 'object',
    additionalProperties: false,
    required,
    properties,
    ...extra,
  };
}

function open(
  title: string,
  description: string,
  properties: Readonly<Record<string, unknown>>,
  required: readonly string[],
  extra: Readonly<Record<string, unknown>> = {},
): MessageSchema {
  return { $schema: DRAFT, title, description, type: 'object', required, properties, ...extra };
}

/** Ties a rung to its own codes: `{stage: R}` allows only the catalogue's codes of rung R. */
function codesByRung(nullable: boolean) {
  return RUNGS.map((rung) =>
    when(
      { stage: { const: rung } },
      {
        properties: { code: { enum: nullable ? [...codesOf(rung), null] : codesOf(rung) } },
      },
    ),
  );
}

const proposal = open(
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

const validated = closed('ValidatedEnvelope', validatedFields, validatedRequired, defs);

const authorized = closed(
  'AuthorizedEnvelope',
  authorizedFields,
  [...validatedRequired, 'objects', 'policyVersion'],
  defs,
);

const cleared = closed(
  'ClearedEnvelope',
  { ...authorizedFields, confirmedBy: text, confirmedAt: instant },
  [...validatedRequired, 'objects', 'policyVersion'],
  { ...defs, dependentRequired: { confirmedBy: ['confirmedAt'], confirmedAt: ['confirmedBy'] } },
);

const card = {
  type: 'object',
  additionalProperties: false,
  required: ['action', 'target', 'effect', 'preview'],
  properties: { action: text, target: text, effect: text, preview: {} },
} as const;

const confirmationRequest = closed(
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

const approval = open(
  'Approval',
  "A person's answer to a confirmation request; the approver's session token travels in the toolgate-session header.",
  {
    confirmationId: text,
    decision: { enum: APPROVAL_DECISIONS },
    digest: { ...sha256, description: 'The digest of the card the approver saw.' },
  },
  ['confirmationId', 'decision', 'digest'],
);

const objectVersion = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'id', 'version'],
  properties: { type: text, id: text, version: count },
} as const;

const command = closed(
  'Command',
  {
    commandId: text,
    idempotencyKey: text,
    tool: text,
    toolVersion: text,
    args: jsonObject,
    context: {
      type: 'object',
      additionalProperties: false,
      required: ['subject', 'tenant', 'requestId', 'runId', 'proposalId', 'callId'],
      properties: {
        subject: text,
        tenant: text,
        requestId: text,
        runId: text,
        proposalId: text,
        callId: text,
      },
    },
    objects: { type: 'array', items: objectVersion },
    confirmedBy: text,
    deadline: instant,
    issuedAt: instant,
  },
  [
    'commandId',
    'idempotencyKey',
    'tool',
    'toolVersion',
    'args',
    'context',
    'objects',
    'deadline',
    'issuedAt',
  ],
);

const toolResult = open(
  'ToolResult',
  "A tool worker's report on one command; `error` is required when status is error.",
  {
    commandId: text,
    idempotencyKey: text,
    runId: text,
    status: { enum: ['ok', 'error'] },
    output: {
      description: 'What the tool returned; checked by the result rung before any model sees it.',
    },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: text, message: { type: 'string' } },
    },
    completedAt: instant,
  },
  ['commandId', 'idempotencyKey', 'runId', 'status', 'completedAt'],
  { allOf: [when({ status: { const: 'error' } }, requires('error'))] },
);

const observation = closed(
  'Observation',
  {
    proposalId: text,
    runId: text,
    requestId: text,
    callId: text,
    outcome: { enum: OUTCOMES },
    disposition: { enum: DISPOSITIONS },
    stage: rungField,
    code: { enum: ALL_CODES },
    message: text,
    repair: {
      type: 'object',
      additionalProperties: false,
      required: ['attempt', 'remaining', 'prompt'],
      properties: { attempt: { type: 'integer', minimum: 1 }, remaining: count, prompt: text },
    },
    confirmation: {
      type: 'object',
      additionalProperties: false,
      required: ['confirmationId', 'expiresAt'],
      properties: { confirmationId: text, expiresAt: instant },
    },
    result: {
      type: 'object',
      additionalProperties: false,
      required: ['content', 'withheld'],
      properties: { content: { type: 'string' }, withheld: { type: 'boolean' } },
    },
    replay: { type: 'boolean' },
    at: instant,
  },
  ['proposalId', 'runId', 'requestId', 'outcome', 'disposition', 'message', 'at'],
  {
    dependentRequired: { stage: ['code'], code: ['stage'] },
    allOf: [
      ...codesByRung(false),
      when({ outcome: { const: 'rejected' } }, requires('stage', 'code')),
      when(
        { outcome: { const: 'pending_confirmation' } },
        {
          ...requires('stage', 'code', 'confirmation'),
          properties: {
            disposition: { const: 'confirm' },
            stage: { const: 'confirmation' },
            code: { const: 'pending' },
            confirmation: true,
          },
        },
      ),
      when(
        { outcome: { const: 'expired' } },
        {
          properties: {
            disposition: { const: 'deny' },
            stage: { const: 'confirmation' },
            code: { const: 'expired' },
          },
          required: ['stage', 'code'],
        },
      ),
      when(
        { outcome: { const: 'unknown_outcome' } },
        {
          properties: {
            disposition: { const: 'deny' },
            stage: { const: 'execution' },
            code: { const: 'timeout_outcome_unknown' },
          },
          required: ['stage', 'code'],
        },
      ),
      when({ outcome: { const: 'result' } }, { properties: { disposition: { const: 'execute' } } }),
      {
        if: { properties: { outcome: { const: 'result' }, stage: false }, required: ['outcome'] },
        then: requires('result'),
      },
      when({ confirmation: true }, { properties: { outcome: { const: 'pending_confirmation' } } }),
      when({ result: true }, { properties: { outcome: { const: 'result' } } }),
      when(
        { repair: true },
        {
          properties: { outcome: { const: 'rejected' }, disposition: { const: 'repair' } },
        },
      ),
      when(
        { replay: true },
        {
          properties: { outcome: { enum: ['result', 'rejected', 'unknown_outcome'] } },
        },
      ),
    ],
  },
);

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

const audit = closed(
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

/**
 * The schema of every message type, keyed by logical topic. Register `MESSAGE_SCHEMAS[t]` under
 * `<full name of t>-value`; for `commands.<tool>` use `MESSAGE_SCHEMAS.commands`
 * ({@link messageTopicOf} maps a logical name to its key).
 */
export const MESSAGE_SCHEMAS: Readonly<Record<MessageTopic, MessageSchema>> = Object.freeze({
  proposals: proposal,
  validated,
  authorized,
  cleared,
  confirmations: confirmationRequest,
  approvals: approval,
  commands: command,
  results: toolResult,
  observations: observation,
  audit,
});

/**
 * The message topic of a logical topic name (without the deployment's prefix): itself for the
 * ten names of {@link MESSAGE_TOPICS}, `commands` for `commands.<tool>`, undefined otherwise
 * (e.g. `quarantine`, which carries raw bytes).
 */
export function messageTopicOf(logicalName: string): MessageTopic | undefined {
  if (logicalName.startsWith('commands.') && logicalName.length > 'commands.'.length) {
    return 'commands';
  }
  return (MESSAGE_TOPICS as readonly string[]).includes(logicalName)
    ? (logicalName as MessageTopic)
    : undefined;
}
