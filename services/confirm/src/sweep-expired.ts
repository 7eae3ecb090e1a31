/**
 * The expiry sweeper: confirmations nobody decided in time get their terminal `expired`
 * observation and audit event, and an `expired` record in their tenant's history. Claims are
 * leased (Redis, atomically): a claimed confirmation can no longer be taken by an approval, and one
 * whose outputs were never published (a crash, Kafka down) becomes claimable again when its lease
 * runs out, so it is answered late rather than never.
 */
import {
  STORE_FAULTS,
  type Confirmations,
  type GateOutputs,
  type Logger,
  type Metrics,
  type Outgoing,
} from '@toolgate/platform';
import {
  auditEvent,
  auditFactsOfPending,
  decidedView,
  EXPIRED_ENDING,
  observationForExpired,
  type PendingConfirmation,
} from '@toolgate/shared';

/** How long a claim hides a confirmation from other sweeps, in ms (30 s). */
export const DEFAULT_SWEEP_LEASE_MS = 30_000;

/** Most confirmations one sweep ends, in one transaction (100). */
export const DEFAULT_SWEEP_LIMIT = 100;

/** Options of {@link createExpirySweeper}. */
export interface ExpirySweeperOptions {
  readonly confirmations: Pick<
    Confirmations,
    'claimExpiredConfirmations' | 'finishExpiredConfirmation' | 'recordDecided'
  >;
  readonly outputs: GateOutputs;
  readonly metrics: Pick<Metrics, 'decision' | 'fault'>;
  /** Told of a claimed confirmation that cannot be read (it leaves the index unanswered). */
  readonly logger: Pick<Logger, 'error'>;
  readonly now: () => Date;
  /** Produces in one Kafka transaction (the stage loop's `produceTransactional`). */
  readonly produce: (outgoing: readonly Outgoing[]) => Promise<void>;
  /** Default {@link DEFAULT_SWEEP_LEASE_MS}; longer than a sweep's publish ever takes. */
  readonly leaseMs?: number;
  /** Default {@link DEFAULT_SWEEP_LIMIT}. */
  readonly limit?: number;
}

/** One sweep at a time; run it from a timer. */
export interface ExpirySweeper {
  /**
   * Claims the confirmations expired by now, publishes their terminal outputs in one transaction,
   * then marks them finished. Resolves with how many it ended; rejects (with a Fault from the store
   * or the producer) leaving whatever it claimed to come back after the lease.
   */
  sweepOnce(): Promise<number>;
}

/** The sweeper of one confirm stage instance. */
export function createExpirySweeper(options: ExpirySweeperOptions): ExpirySweeper {
  const { confirmations, outputs, metrics } = options;
  const leaseMs = options.leaseMs ?? DEFAULT_SWEEP_LEASE_MS;
  const limit = options.limit ?? DEFAULT_SWEEP_LIMIT;
  return {
    async sweepOnce() {
      const now = options.now();
      const claim = await confirmations.claimExpiredConfirmations(now.getTime(), leaseMs, limit);
      for (const { member, problem } of claim.unreadable) {
        metrics.fault(STORE_FAULTS.corrupt);
        options.logger.error(
          { member, problem },
          'an expired confirmation cannot be read; it left the expiry index and gets no expired observation',
        );
      }
      const { claimed } = claim;
      if (claimed.length === 0) return 0;
      // Before publishing, so a failed publish leaves nothing unrecorded; a re-sweep writes again.
      await Promise.all(
        claimed.map((p) => confirmations.recordDecided(decidedView(p, EXPIRED_ENDING, now))),
      );
      await options.produce(claimed.flatMap((p) => expiredOutputs(p, outputs, now)));
      for (const p of claimed) {
        metrics.decision({ disposition: 'deny', stage: 'confirmation', code: 'expired' });
        await confirmations.finishExpiredConfirmation(p.tenant, p.confirmationId);
      }
      return claimed.length;
    },
  };
}

/** The terminal observation and the audit event of one expired confirmation. */
function expiredOutputs(p: PendingConfirmation, outputs: GateOutputs, now: Date): Outgoing[] {
  const ids = {
    proposalId: p.proposalId,
    runId: p.runId,
    requestId: p.requestId,
    callId: p.callId,
  };
  return [
    ...outputs.observation(observationForExpired(ids, now), p.tenant),
    // No source: the event id then depends only on the proposal, so a re-sweep repeats it.
    outputs.audit(auditEvent({ kind: 'expired', ...auditFactsOfPending(p) }, now)),
  ];
}
