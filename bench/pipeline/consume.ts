/** The drivers' consumers: the load driver's observations, the approver's requests. */
import type { Bus, BusBatch, BusConsumer } from '@toolgate/platform';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A consumer of `topics` in group `groupId` reading committed records from the latest, handing
 * each batch to `onBatch` and committing it after; resolves once it has joined its group.
 */
export async function consume(
  bus: Bus,
  groupId: string,
  topics: readonly string[],
  onBatch: (batch: BusBatch) => void | Promise<void>,
): Promise<BusConsumer> {
  const consumer = bus.consumer({ groupId, readCommitted: true, maxWaitTimeMs: 100 });
  let joined = false;
  consumer.onGroupJoin(() => (joined = true));
  await consumer.connect();
  await consumer.subscribe(topics, { fromBeginning: false });
  await consumer.run(async (batch) => {
    await onBatch(batch);
    const last = batch.messages.at(-1);
    if (last !== undefined) batch.resolveOffset(last.offset);
  });
  const deadline = Date.now() + 60_000;
  while (!joined) {
    if (Date.now() > deadline)
      throw new Error(`the driver's consumer ${groupId} did not join its group in 60 s`);
    await sleep(50);
  }
  return consumer;
}
