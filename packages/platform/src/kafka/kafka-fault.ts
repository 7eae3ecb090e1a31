/**
 * How a kafkajs error becomes a {@link Fault}: "Kafka cannot be reached right now" is retriable,
 * "another instance owns this transactional id" is fatal for the producer, anything else is a
 * non-retriable `kafka_error`. Reads only `name`, `type`, `code` and `retriable` of the error and
 * its causes, so it needs no kafkajs import and is tested without a broker.
 */
import { Fault, type FaultCode } from '../fault.js';

/** Fault codes the bus throws. */
export const BUS_FAULTS = {
  /** A broker, coordinator or leader could not be reached or answered "try later" (retriable). */
  unavailable: 'kafka_unavailable',
  /** A newer producer with the same transactional id exists: this one must stop (not retriable). */
  fenced: 'kafka_fenced',
  /** Kafka refused a request for a reason a retry cannot fix (not retriable). */
  error: 'kafka_error',
  /** A record larger than one produce request may carry: the broker would refuse it (not retriable). */
  recordTooLarge: 'kafka_record_too_large',
} as const satisfies Record<string, FaultCode>;

// Error classes kafkajs throws when it cannot reach or hear back from the cluster.
const UNAVAILABLE_NAMES: ReadonlySet<string> = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
  'KafkaJSNoBrokerAvailableError',
  'KafkaJSLockTimeout',
  'KafkaJSTimeout',
  'KafkaJSMetadataNotLoaded',
  'KafkaJSTopicMetadataNotLoaded',
  'KafkaJSGroupCoordinatorNotFound',
  'KafkaJSStaleTopicMetadataAssignment',
]);

// Protocol errors that say a newer epoch of this transactional id exists. Kafka 4 answers
// PRODUCER_FENCED (90), which kafkajs 2.2.4 does not know and reports as an unknown code.
const FENCED_TYPES: ReadonlySet<string> = new Set([
  'INVALID_PRODUCER_EPOCH',
  'PRODUCER_FENCED',
  'TRANSACTION_COORDINATOR_FENCED',
]);
const UNKNOWN_FENCED_MESSAGE = /\bUnknown error code 90\b/;

const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
]);

/** What {@link causeChain} reads of each link. */
export interface ErrorLike {
  readonly name?: unknown;
  readonly type?: unknown;
  readonly code?: unknown;
  readonly message?: unknown;
  readonly retriable?: unknown;
  readonly cause?: unknown;
}

/** The error and its causes, outermost first (at most 8 deep, in case of a cycle). */
export function causeChain(error: unknown): ErrorLike[] {
  const chain: ErrorLike[] = [];
  let e: unknown = error;
  while (typeof e === 'object' && e !== null && chain.length < 8) {
    const link: ErrorLike = e;
    chain.push(link);
    e = link.cause;
  }
  return chain;
}

function isFenced(e: ErrorLike): boolean {
  if (typeof e.type === 'string' && FENCED_TYPES.has(e.type)) return true;
  return typeof e.message === 'string' && UNKNOWN_FENCED_MESSAGE.test(e.message);
}

function isUnavailable(e: ErrorLike): boolean {
  if (typeof e.name === 'string' && UNAVAILABLE_NAMES.has(e.name)) return true;
  if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return true;
  return e.name === 'KafkaJSProtocolError' && e.retriable === true;
}

function describe(e: ErrorLike | undefined): string {
  if (e === undefined) return 'unknown error';
  const type = typeof e.type === 'string' ? ` ${e.type}` : '';
  const message = typeof e.message === 'string' ? e.message : 'no message';
  return `${typeof e.name === 'string' ? e.name : 'Error'}${type}: ${message}`;
}

/**
 * The fault for an error kafkajs threw while doing `action` (e.g. `commit a transaction`):
 * `kafka_fenced` when any cause says the producer was fenced, `kafka_unavailable` (retriable)
 * when any cause is a connection, timeout or retriable protocol error, `kafka_error` otherwise.
 * A {@link Fault} is returned as it is. The original error is kept as the cause.
 */
export function kafkaFault(error: unknown, action: string): Fault {
  if (error instanceof Fault) return error;
  const chain = causeChain(error);
  const detail = `${action}: ${describe(chain[0])}`;
  if (chain.some(isFenced)) {
    return new Fault(BUS_FAULTS.fenced, `fenced while trying to ${detail}`, { cause: error });
  }
  if (chain.some(isUnavailable)) {
    return new Fault(BUS_FAULTS.unavailable, `Kafka unavailable; could not ${detail}`, {
      cause: error,
    });
  }
  return new Fault(BUS_FAULTS.error, `Kafka refused to ${detail}`, { cause: error });
}

// Heartbeat answers that mean the group has already moved on without this member.
const MEMBERSHIP_LOST: ReadonlySet<string> = new Set([
  'UNKNOWN_MEMBER_ID',
  'ILLEGAL_GENERATION',
  'FENCED_INSTANCE_ID',
]);

/**
 * True when a heartbeat error says this member is no longer in the group's current generation:
 * its partitions may already belong to another member, so it must not commit what it handled.
 * REBALANCE_IN_PROGRESS is not such an error: until the member rejoins, nobody else owns its
 * partitions, and committing first is what a member does when its partitions are revoked.
 */
export function membershipLost(error: unknown): boolean {
  return causeChain(error).some((e) => typeof e.type === 'string' && MEMBERSHIP_LOST.has(e.type));
}
