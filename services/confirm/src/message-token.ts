/** The stable name of a consumed message, for the store's token-based operations. */
import { createHash } from 'node:crypto';
import type { Incoming } from '@toolgate/platform';
import { SESSION_HEADER } from '@toolgate/shared';

/**
 * `<topic>@<partition>:<offset>#<digest>`: parks and takes by this token repeat safely on
 * redelivery. The digest (SHA-256 of the record's value and session header, 128 bits kept) ties
 * the token to what was verified, not only to where it was read: offsets restart when a topic is
 * recreated or a cluster fails over to a mirror, and a record that then lands at the coordinates
 * of one that took a confirmation must not pass for it (an approval delivered again finishes its
 * call without verifying its token again).
 */
export function messageToken(msg: Incoming): string {
  const hash = createHash('sha256');
  // Lengths first, so that no two (value, header) pairs hash the same bytes.
  const value = msg.raw ?? Buffer.alloc(0);
  const session = Buffer.from(msg.headers[SESSION_HEADER] ?? '', 'utf8');
  hash.update(`${msg.raw === null ? -1 : value.length}:${session.length}:`);
  hash.update(value);
  hash.update(session);
  const digest = hash.digest('hex').slice(0, 32);
  return `${msg.topic}@${msg.partition}:${msg.offset}#${digest}`;
}
