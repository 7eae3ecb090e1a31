/** The stable name of a consumed message, for the store's token-based operations. */
import type { Incoming } from '@toolgate/platform';
import type { MessageSource } from '@toolgate/shared';

/** Where `msg` was read: the same on every redelivery of it, different for any other message. */
export function sourceOf(msg: Incoming): MessageSource {
  return { topic: msg.topic, partition: msg.partition, offset: msg.offset };
}

/** `<topic>@<partition>:<offset>`: parks and takes by this token repeat safely on redelivery. */
export function messageToken(msg: Incoming): string {
  return `${msg.topic}@${msg.partition}:${msg.offset}`;
}
