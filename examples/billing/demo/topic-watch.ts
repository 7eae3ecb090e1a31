/**
 * A topic followed from a point in time, its records kept, so that the walk-around can wait for
 * the record that shows what happened (an audit event, the command execute issued) rather than
 * assume it.
 */
import { followTopic, type Bus, type Codec, type ReadRecord } from '@toolgate/platform';
import { waitUntil } from './wait-until.js';

/** A followed topic. */
export interface TopicWatch {
  /** Every record read so far, in the order read. */
  readonly records: readonly ReadRecord[];
  /**
   * The first record, read so far or later, that `match` accepts.
   *
   * @throws WaitTimeoutError naming `what` after `timeoutMs`; the reader's fault when it failed.
   */
  waitFor(
    match: (record: ReadRecord) => boolean,
    what: string,
    timeoutMs: number,
  ): Promise<ReadRecord>;
  /** Stops reading. */
  stop(): Promise<void>;
}

/**
 * Follows `topic` from `sinceMs` (default now) on `bus`, in a throwaway group under `groupPrefix`
 * (which the principal's ACLs must allow).
 */
export async function watchTopic(
  bus: Bus,
  codec: Codec,
  options: { readonly topic: string; readonly groupPrefix: string; readonly sinceMs?: number },
): Promise<TopicWatch> {
  const records: ReadRecord[] = [];
  let failure: Error | undefined;
  const following = await followTopic(bus, codec, {
    ...options,
    onRecord: (record) => records.push(record),
    onFailure: (fault) => (failure = fault),
  });
  return {
    records,
    waitFor: (match, what, timeoutMs) =>
      waitUntil(
        () => {
          if (failure !== undefined) throw failure;
          return records.find(match);
        },
        what,
        timeoutMs,
      ),
    stop: () => following.stop(),
  };
}
