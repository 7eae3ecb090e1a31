/**
 * Walk-around attempts the broker itself stops: components writing and reading topics their ACLs
 * do not give them. Each is stopped only when Kafka's own answer says so (the protocol error
 * `TOPIC_AUTHORIZATION_FAILED`); a record that went through, a record read, or any other error is
 * reported as not stopped.
 */
import { randomUUID } from 'node:crypto';
import {
  agentGroupPrefix,
  agentPrincipal,
  EXAMPLE_WORKER,
  type Bus,
  type Fault,
} from '@toolgate/platform';
import { busAs } from './demo-connections.js';
import { waitUntil } from './wait-until.js';
import {
  attempt,
  messageOf,
  notStopped,
  stoppedBy,
  type Seen,
  type WalkContext,
} from './walk-around-context.js';
import type { AttemptLine } from './walk-around-table.js';

/** The protocol error of a request an ACL does not allow on a topic. */
export const TOPIC_REFUSAL = 'TOPIC_AUTHORIZATION_FAILED';

/** How long a read waits for the broker's answer, in ms. */
const READ_TIMEOUT_MS = 20_000;

/**
 * As `agent-acme`: produce a command, read another tenant's observations, read the proposals
 * (other users' session tokens); as `worker-billing`: write `cleared` and an observations topic.
 */
export async function brokerAttempts(ctx: WalkContext): Promise<AttemptLine[]> {
  const t = ctx.topics;
  const agent = agentPrincipal('acme');
  const worker = EXAMPLE_WORKER.principal;
  const asAgent = busAs(ctx.settings, agent, 'walk-around-agent');
  const asWorker = busAs(ctx.settings, worker, 'walk-around-worker');
  const group = () => `${agentGroupPrefix(ctx.settings.config.groupPrefix, 'acme')}${randomUUID()}`;
  try {
    const refund = t.command('refund_payment');
    const globex = t.observationsOf('globex');
    return [
      await attempt('1', `produce a command to ${refund}`, agent, () => write(asAgent, refund)),
      await attempt('2a', `read ${globex}`, agent, () => read(asAgent, globex, group())),
      await attempt('2b', `read ${t.proposals} (others' session tokens)`, agent, () =>
        read(asAgent, t.proposals, group()),
      ),
      await attempt('3a', `write ${t.cleared}`, worker, () => write(asWorker, t.cleared)),
      await attempt('3b', `write ${t.observationsOf('acme')}`, worker, () =>
        write(asWorker, t.observationsOf('acme')),
      ),
    ];
  } finally {
    await Promise.allSettled([asAgent.close(), asWorker.close()]);
  }
}

/** Produces one record to `topic`. */
async function write(bus: Bus, topic: string): Promise<Seen> {
  const producer = bus.producer();
  try {
    await producer.connect();
    const value = Buffer.from(JSON.stringify({ walkAround: true }), 'utf8');
    await producer.send([{ topic, key: 'walk-around', value }]);
    return notStopped('the broker took the record');
  } catch (error) {
    return refusalSeen(error);
  } finally {
    await producer.disconnect().catch(() => undefined);
  }
}

/**
 * Reads `topic` from its beginning in group `groupId` (one the principal's ACLs allow, so that
 * only the topic's can refuse), until the broker refuses or a record arrives.
 */
async function read(bus: Bus, topic: string, groupId: string): Promise<Seen> {
  const consumer = bus.consumer({ groupId, maxWaitTimeMs: 200 });
  let crash: Fault | undefined;
  let records = 0;
  consumer.onCrash((fault) => (crash ??= fault));
  try {
    await consumer.connect();
    await consumer.subscribe([topic], { fromBeginning: true });
    await consumer.run((batch) => {
      records += batch.messages.length;
      return Promise.resolve();
    });
    await waitUntil(
      () => (crash !== undefined || records > 0 ? true : undefined),
      `answer from the broker to reading ${topic}`,
      READ_TIMEOUT_MS,
    );
    return records > 0 ? notStopped(`read ${records} record(s)`) : refusalSeen(crash);
  } catch (error) {
    return refusalSeen(error);
  } finally {
    await consumer.disconnect().catch(() => undefined);
  }
}

/** Stopped when `error` carries the broker's topic refusal; not stopped otherwise. */
function refusalSeen(error: unknown): Seen {
  const refusal = kafkaProtocolErrors(error).find((type) => type === TOPIC_REFUSAL);
  return refusal === undefined
    ? notStopped(`no refusal from the broker: ${messageOf(error)}`)
    : stoppedBy(`broker: ${refusal}`);
}

/**
 * The protocol error types (`type` of kafkajs's errors) in `error`, its causes (kafkajs keeps
 * some under `originalError`) and the errors they aggregate (one per topic of a request).
 */
export function kafkaProtocolErrors(error: unknown): string[] {
  const types: string[] = [];
  const visit = (e: unknown, depth: number): void => {
    if (typeof e !== 'object' || e === null || depth > 8) return;
    const link = e as {
      type?: unknown;
      cause?: unknown;
      originalError?: unknown;
      errors?: unknown;
    };
    if (typeof link.type === 'string') types.push(link.type);
    if (Array.isArray(link.errors)) for (const inner of link.errors) visit(inner, depth + 1);
    visit(link.cause ?? link.originalError, depth + 1);
  };
  visit(error, 0);
  return types;
}
