/**
 * What a stage publishes for a message on an internal topic whose integrity tag does not verify:
 * an audit event, and nothing else. Never forwarded, and never answered with an observation —
 * the ids in it are its writer's claim, and an observation filed under them would let whoever can
 * write to an internal topic end (or doubly end) someone else's proposal. The audit event names no
 * tenant or subject; the claims go, quoted and cut, into its internal detail.
 */
import { auditEvent, envelopeIds, type AnyRejected } from '@toolgate/shared';
import type { GateOutputs } from './gate-outputs.js';
import type { Metrics } from './metrics.js';
import type { Incoming, Outgoing } from './stage-loop.js';

/** Longest claimed identifier quoted in the internal detail, in characters. */
const MAX_CLAIM_CHARS = 200;

/** The outputs for a forged or untagged envelope `msg`, refused with `rejected`. */
export function forgedEnvelopeOutputs(
  msg: Incoming,
  rejected: AnyRejected,
  deps: {
    readonly outputs: GateOutputs;
    readonly metrics: Metrics;
    readonly logger: { warn(fields: object, message: string): void };
  },
  now: Date,
): readonly Outgoing[] {
  deps.metrics.decision(rejected);
  const ids = envelopeIds(msg.value);
  const source = { topic: msg.topic, partition: msg.partition, offset: msg.offset };
  deps.logger.warn(
    { ...source, proposalId: ids.ok ? ids.value.proposalId : null },
    'refused an envelope the gate did not write',
  );
  const internalDetail = [rejected.internalDetail, msg.decodeError, claimsOf(msg.value)]
    .filter((part) => part !== undefined && part !== '')
    .join('; ');
  const event = auditEvent(
    {
      kind: 'rejected',
      rejected,
      answered: false,
      ...(ids.ok ? ids.value : {}),
      internalDetail,
      source,
    },
    now,
  );
  return [deps.outputs.audit(event)];
}

function claimsOf(value: unknown): string | undefined {
  const context = (value as { context?: { tenant?: unknown; subject?: unknown } } | undefined)
    ?.context;
  if (context === undefined || context === null) return undefined;
  const quote = (claim: unknown) =>
    typeof claim === 'string' ? JSON.stringify(claim.slice(0, MAX_CLAIM_CHARS)) : 'none';
  return `claims tenant ${quote(context.tenant)}, subject ${quote(context.subject)}`;
}
