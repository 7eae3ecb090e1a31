/**
 * The schemas of a tool's traffic: the command the gate sends to a tool worker and the result the
 * worker sends back.
 */
import { closed, count, instant, jsonObject, open, requires, text, when } from './schema-parts.js';

const objectVersion = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'id', 'version'],
  properties: { type: text, id: text, version: count },
} as const;

/** What the gate tells a tool worker to do, on `commands.<tool>`. */
export const commandSchema = closed(
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

/** A tool worker's report on one command, on `results`. */
export const toolResultSchema = open(
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
