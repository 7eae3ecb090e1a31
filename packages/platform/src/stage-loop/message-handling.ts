/**
 * One message, from bytes to records: decode it (plain JSON only where the topic allows it), hand
 * it to the stage's handler, and encode what the handler returns. A message whose handling fails
 * for a reason a retry cannot fix gets the `onFatal` outputs in its place; a retriable fault is
 * passed up, for the loop to pause and deliver the message again.
 */
import { Fault, faultCode, isRetriable } from '../fault.js';
import {
  BUS_FAULTS,
  MAX_REQUEST_RECORD_BYTES,
  recordBytes,
  type BusMessage,
  type OutRecord,
} from './bus-port.js';
import { errorFields, secondsSince } from './loop-support.js';
import type { ResolvedStageLoopOptions } from './options.js';
import type { Incoming, Outgoing } from './types.js';

type HandlingOptions = Pick<
  ResolvedStageLoopOptions,
  'codec' | 'handle' | 'onFatal' | 'topics' | 'logger' | 'metrics'
>;

/** Decodes, handles and encodes the messages of one loop. */
export class MessageHandling {
  private readonly plainJson: ReadonlyMap<string, boolean>;

  constructor(private readonly o: HandlingOptions) {
    this.plainJson = new Map(o.topics.map((t) => [t.name, t.plainJsonAllowed]));
  }

  /** Decodes, handles and encodes one message; throws only a retriable Fault. */
  async handle(
    topic: string,
    partition: number,
    message: BusMessage,
    release: () => void,
  ): Promise<OutRecord[]> {
    const started = performance.now();
    this.o.metrics.messageIn?.(topic);
    const incoming = await this.decode(topic, partition, message);
    try {
      return await this.encodeAll(await this.o.handle(incoming, release));
    } catch (error) {
      if (isRetriable(error)) throw error;
      return await this.fatal(incoming, error);
    } finally {
      this.o.metrics.handled?.(secondsSince(started));
    }
  }

  /** The records of `outgoing`, encoded in the wire format; throws if one cannot be sent. */
  encodeAll(outgoing: readonly Outgoing[]): Promise<OutRecord[]> {
    return Promise.all(outgoing.map((out) => this.encodeOne(out)));
  }

  private async decode(topic: string, partition: number, message: BusMessage): Promise<Incoming> {
    const plainJsonAllowed = this.plainJson.get(topic) ?? false;
    const decoded = await this.o.codec.decode(message.value, { plainJsonAllowed });
    const base = {
      topic,
      partition,
      offset: message.offset,
      key: message.key?.toString('utf8') ?? null,
      headers: message.headers,
      raw: message.value,
      receivedAt: new Date(),
      ...timestampOf(message.timestamp),
    };
    if ('error' in decoded) return { ...base, value: undefined, decodeError: decoded.error };
    const { value, schemaId } = decoded;
    return schemaId === null ? { ...base, value } : { ...base, value, schemaId };
  }

  /** The onFatal outputs for a message whose handling failed; [] when even those fail. */
  private async fatal(incoming: Incoming, error: unknown): Promise<OutRecord[]> {
    const where = {
      topic: incoming.topic,
      partition: incoming.partition,
      offset: incoming.offset,
    };
    const code = faultCode(error);
    this.o.metrics.fault?.(code);
    this.o.logger.error(
      { ...where, ...errorFields(error) },
      'handling failed; producing the internal_error outputs and moving on',
    );
    try {
      return await this.encodeAll(this.o.onFatal?.(incoming, error) ?? []);
    } catch (fatalError) {
      if (isRetriable(fatalError)) throw fatalError;
      this.o.metrics.fault?.('internal_error');
      // Logged loudly rather than blocking the partition for good: nothing was executed for it.
      this.o.logger.error(
        { ...where, ...errorFields(fatalError) },
        'the internal_error outputs failed too; message skipped without outputs',
      );
      return [];
    }
  }

  private async encodeOne(out: Outgoing): Promise<OutRecord> {
    if ('raw' in out) return fitting(record(out, out.raw, out.headers));
    const value = await this.o.codec.encode(out.subject ?? `${out.topic}-value`, out.value);
    const headers = out.sign === undefined ? out.headers : { ...out.headers, ...out.sign(value) };
    return fitting(record(out, value, headers));
  }
}

/** The record's timestamp as a number, when it is a non-negative integer of ms. */
function timestampOf(timestamp: string | undefined): { readonly timestampMs?: number } {
  const ms = Number(timestamp);
  return Number.isSafeInteger(ms) && ms >= 0 ? { timestampMs: ms } : {};
}

function record(
  out: Outgoing,
  value: Buffer,
  headers: Readonly<Record<string, string>> | undefined,
): OutRecord {
  return headers === undefined
    ? { topic: out.topic, key: out.key, value }
    : { topic: out.topic, key: out.key, value, headers };
}

/**
 * `r`, if the broker can take it; else a fault that is not retriable, so that its message gets the
 * onFatal outputs: sent, it would fail its transaction, and every transaction after it, for good.
 */
function fitting(r: OutRecord): OutRecord {
  const bytes = recordBytes(r);
  if (bytes <= MAX_REQUEST_RECORD_BYTES) return r;
  throw new Fault(
    BUS_FAULTS.recordTooLarge,
    `a record of ${String(bytes)} bytes for ${r.topic} is larger than Kafka takes (${String(MAX_REQUEST_RECORD_BYTES)})`,
  );
}
