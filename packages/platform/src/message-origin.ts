/**
 * What an audit event says about the consumed message that led to it (DESIGN §8): where it was
 * read, and the schema it was written under.
 */
import type { AuditFacts, MessageSource } from '@toolgate/shared';
import type { Incoming } from './stage-loop.js';

/** Where `msg` was read: the same on every redelivery of it, different for any other message. */
export function sourceOf(msg: Incoming): MessageSource {
  return { topic: msg.topic, partition: msg.partition, offset: msg.offset };
}

/** The audit facts of the message itself: its source, and its schema id when it had one. */
export type MessageOrigin = Required<Pick<AuditFacts, 'source'>> & Pick<AuditFacts, 'schemaId'>;

/** `msg`'s {@link MessageOrigin}, for spreading into an audit event's facts. */
export function originOf(msg: Incoming): MessageOrigin {
  const source = sourceOf(msg);
  return msg.schemaId === undefined ? { source } : { source, schemaId: msg.schemaId };
}
