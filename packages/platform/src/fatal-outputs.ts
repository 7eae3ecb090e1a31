/**
 * What every stage publishes when handling a message failed for a reason that delivering it again
 * will not cure (a bug, data the gate cannot use): an `internal_error` audit event and, when the
 * message names its proposal, the proposal's terminal observation. Then the loop moves on.
 */
import {
  auditEvent,
  envelopeIds,
  observationForRefusal,
  refusal,
  rejecterFor,
  REPLY_TENANT_HEADER,
} from '@toolgate/shared';
import { errorText } from './fault.js';
import type { GateOutputs } from './gate-outputs.js';
import { originOf } from './message-origin.js';
import type { Incoming, Outgoing } from './stage-loop.js';

const rejectExecution = rejecterFor('execution');

/**
 * The outputs for `msg`, whose handling in `stage` failed with `error`. Only a message that is
 * about its own proposal names whom to answer: a proposal (its writer's own ids; its tenant is
 * not verified yet, so the answer goes where its reply-tenant header asks, and says nothing but
 * the refusal) or an envelope the gate wrote on an internal topic (ids and tenant alike). A tool result or an approval names a proposal only as its writer claims
 * (any tool worker or approval UI writes there, and an open schema lets it add ids), and its call
 * ends on its own (the deadline or expiry sweeper): it gets the audit event alone, or it could
 * end another proposal, or end one twice.
 */
export function fatalOutputs(
  stage: string,
  msg: Incoming,
  error: unknown,
  outputs: GateOutputs,
  now: Date,
): readonly Outgoing[] {
  const detail = `${stage}: ${errorText(error)}`;
  const { topics } = outputs;
  const internal = [topics.validated, topics.authorized, topics.cleared].includes(msg.topic);
  const ids = internal || msg.topic === topics.proposals ? envelopeIds(msg.value) : undefined;
  const tenant = internal ? tenantOf(msg.value) : undefined;
  const base = ids?.ok ? { ...ids.value, ...(tenant === undefined ? {} : { tenant }) } : {};
  const audit = outputs.audit(
    auditEvent({ kind: 'internal_error', ...base, internalDetail: detail, ...originOf(msg) }, now),
  );
  if (!ids?.ok) return [audit];
  const rejected = rejectExecution('internal_error', undefined, detail);
  const answerTo = internal ? tenant : msg.headers[REPLY_TENANT_HEADER];
  const observation = observationForRefusal(ids.value, refusal(rejected), now);
  return [...outputs.observation(observation, answerTo), audit];
}

function tenantOf(value: unknown): string | undefined {
  const context = (value as { context?: { tenant?: unknown } } | undefined)?.context;
  return typeof context?.tenant === 'string' ? context.tenant : undefined;
}
