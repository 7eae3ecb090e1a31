/**
 * Keeps a delivery's lease on its running ledger entry alive while its handler runs: renews it
 * every third of its length, so that a live holder never lets it lapse. A renewal that finds the
 * entry taken over (this process was paused past its lease, and another delivery of the command
 * resumed it) aborts the signal at once: the handler must stop before its next side effect.
 */
import type { LedgerRenew } from '@toolgate/platform/redis';

/** The reason the signal carries when the lease is lost. */
export class LeaseLost extends Error {
  constructor(readonly holder: string) {
    super('another delivery of the command took its ledger entry over');
    this.name = 'LeaseLost';
  }
}

/** Options of {@link keepLease}. */
export interface LeaseKeeperOptions {
  /** One renewal in the ledger. */
  renew(): Promise<LedgerRenew>;
  /** The lease length, in ms; renewals come every third of it. */
  readonly leaseMs: number;
  /** A renewal failed (Redis down): the lease may lapse; the handler goes on. */
  onError(error: unknown): void;
  /** Another delivery holds the entry now; the signal is already aborted. */
  onLost(holder: string): void;
}

/** A running keeper. */
export interface LeaseKeeper {
  /** Aborted when the lease was lost. */
  readonly signal: AbortSignal;
  /** Stops renewing; idempotent. */
  stop(): void;
}

/** Starts renewing; the first renewal comes a third of the lease after the claim. */
export function keepLease(options: LeaseKeeperOptions): LeaseKeeper {
  const controller = new AbortController();
  let renewing = false;
  let stopped = false;
  const timer = setInterval(
    () => {
      // One renewal at a time: a slow Redis must not pile them up.
      if (renewing) return;
      renewing = true;
      options.renew().then(
        (renewed) => {
          renewing = false;
          if (renewed.outcome === 'renewed' || stopped) return;
          stopped = true;
          clearInterval(timer);
          controller.abort(new LeaseLost(renewed.holder));
          options.onLost(renewed.holder);
        },
        (error: unknown) => {
          renewing = false;
          options.onError(error);
        },
      );
    },
    Math.max(1, Math.floor(options.leaseMs / 3)),
  );
  return {
    signal: controller.signal,
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}
