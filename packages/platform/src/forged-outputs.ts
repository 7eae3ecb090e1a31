/**
 * What a stage publishes for a message on an internal topic whose integrity tag does not verify:
 * an audit event, and nothing else. Never forwarded, and never answered with an observation —
 * the ids in it are its writer's claim, and an observation filed under them would let whoever can
 * write to an internal topic end (or doubly end) someone else's proposal. The audit event names no
 * tenant or subject; the claims go, quoted and cut, into its internal detail.
 */
import {
  auditEvent,
  checkFreshness,
  checkIntegrity,
  envelopeIds,
  INTEGRITY_HEADER,
  type AnyRejected,
} from '@toolgate/shared';
import type { GateOutputs } from './gate-outputs.js';
import { originOf } from './message-origin.js';
import type { Metrics } from './metrics.js';
import type { Incoming, Outgoing } from './stage-loop.js';

/** Longest claimed identifier quoted in the internal detail, in characters. */
const MAX_CLAIM_CHARS = 200;

/** What {@link refuseForged} needs of a stage. */
type ForgedDeps = Parameters<typeof forgedEnvelopeOutputs>[2] & {
  readonly config: {
    readonly integrityKey: string;
    readonly integrityKeysAccepted: readonly string[];
    readonly envelopeMaxAgeMs: number;
  };
};

/**
 * The first check of every stage that reads an internal topic: undefined when `msg` carries the
 * gate's integrity tag over exactly its bytes on exactly its topic (under the integrity key, or
 * one still accepted during a rotation), decoded, and issued at most `envelopeMaxAgeMs` ago;
 * otherwise the outputs that refuse it. A record that did not decode is refused the same way,
 * whatever its tag: nothing in it can be used. A stale envelope is genuine but old (a recorded
 * one published again, or a stage that lagged past the bound): refused the same way, audited,
 * never forwarded or answered, so that replaying it later issues nothing.
 */
export function refuseForged(
  msg: Incoming,
  deps: ForgedDeps,
  now: Date,
): readonly Outgoing[] | undefined {
  const bytes = msg.decodeError === undefined ? msg.raw : null;
  const tag = msg.headers[INTEGRITY_HEADER];
  const keys = [deps.config.integrityKey, ...deps.config.integrityKeysAccepted];
  const genuine = checkIntegrity(keys, msg.topic, bytes, tag);
  if (!genuine.ok) return forgedEnvelopeOutputs(msg, genuine, deps, now);
  const fresh = checkFreshness(msg.value, now, deps.config.envelopeMaxAgeMs);
  return fresh.ok ? undefined : forgedEnvelopeOutputs(msg, fresh, deps, now);
}

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
  const origin = originOf(msg);
  deps.logger.warn(
    { ...origin.source, proposalId: ids.ok ? ids.value.proposalId : null },
    rejected.code === 'stale_envelope'
      ? 'refused an envelope issued too long ago'
      : 'refused an envelope the gate did not write',
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
      ...origin,
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
