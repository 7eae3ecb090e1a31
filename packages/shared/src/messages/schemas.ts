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
import { alertSchema } from './alert-schema.js';
import { auditEventSchema } from './audit-event-schema.js';
import { commandSchema, toolResultSchema } from './command-schemas.js';
import { approvalSchema, confirmationRequestSchema } from './confirmation-schemas.js';
import {
  authorizedSchema,
  clearedSchema,
  proposalSchema,
  validatedSchema,
} from './envelope-schemas.js';
import { observationSchema } from './observation-schema.js';
import type { MessageSchema } from './schema-parts.js';

export type { MessageSchema } from './schema-parts.js';

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
  'alerts',
] as const;

/** One logical topic with a message schema. */
export type MessageTopic = (typeof MESSAGE_TOPICS)[number];

/** The topics written from outside the gate: open schemas, checked by the gate itself. */
export const EXTERNAL_TOPICS: readonly MessageTopic[] = ['proposals', 'approvals', 'results'];

/**
 * The schema of every message type, keyed by logical topic. Register `MESSAGE_SCHEMAS[t]` under
 * `<full name of t>-value`; for `commands.<tool>` use `MESSAGE_SCHEMAS.commands`
 * ({@link messageTopicOf} maps a logical name to its key).
 */
export const MESSAGE_SCHEMAS: Readonly<Record<MessageTopic, MessageSchema>> = Object.freeze({
  proposals: proposalSchema,
  validated: validatedSchema,
  authorized: authorizedSchema,
  cleared: clearedSchema,
  confirmations: confirmationRequestSchema,
  approvals: approvalSchema,
  commands: commandSchema,
  results: toolResultSchema,
  observations: observationSchema,
  audit: auditEventSchema,
  alerts: alertSchema,
});

/**
 * The message topic of a logical topic name (without the deployment's prefix): itself for the
 * names of {@link MESSAGE_TOPICS}, `commands` for `commands.<tool>`, undefined otherwise
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
