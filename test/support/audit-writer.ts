/**
 * Writes audit events to an audit topic as the stages do: in the registry's wire format, keyed by
 * tenant, in transactions (so a read_committed reader sees each chunk whole or not at all).
 */
import type { Codec } from '@toolgate/platform';
import type { AuditEvent } from '@toolgate/shared';
import type { Kafka } from 'kafkajs';

/** Where and how {@link writeAuditEvents} writes. */
export interface AuditWriter {
  readonly kafka: Kafka;
  /** A codec that has registered `<topic>-value`. */
  readonly codec: Codec;
  /** The full name of the audit topic. */
  readonly topic: string;
  /** The writer's transactional id; one writer at a time per id. */
  readonly transactionalId: string;
}

/** Writes `events` in transactions of `chunk`; `written` is told of each committed chunk. */
export async function writeAuditEvents(
  writer: AuditWriter,
  events: readonly AuditEvent[],
  options: {
    readonly chunk?: number;
    readonly written?: (part: readonly AuditEvent[]) => void;
  } = {},
): Promise<void> {
  const chunk = options.chunk ?? 20;
  const producer = writer.kafka.producer({
    transactionalId: writer.transactionalId,
    idempotent: true,
    maxInFlightRequests: 1,
  });
  await producer.connect();
  try {
    for (let i = 0; i < events.length; i += chunk) {
      const part = events.slice(i, i + chunk);
      const tx = await producer.transaction();
      await tx.send({
        topic: writer.topic,
        messages: await Promise.all(
          part.map(async (e) => ({
            key: e.tenant,
            value: await writer.codec.encode(`${writer.topic}-value`, e),
          })),
        ),
      });
      await tx.commit();
      options.written?.(part);
    }
  } finally {
    await producer.disconnect();
  }
}
