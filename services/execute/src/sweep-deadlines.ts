/**
 * The deadline sweeper: commands whose tool did not answer by their deadline end as their tool's
 * side-effect class says (`SIDE_EFFECT_DEFAULTS`): a write's or a destructive call's outcome is
 * unknown (DESIGN §5), a read may be retried. Each tick claims expired commands under a lease,
 * settles each record as `unknown` (unless a result settled it first), publishes the terminal
 * observations and audit events in one transaction, then finishes the commands, keeping them
 * matchable for a late result.
 * A crash or fault anywhere before finishing leaves the lease to run out: the command is claimed
 * again, even if a result took it meanwhile, and settled by the same settler token, so its outcome
 * is published once it commits. A late result that finds the record settled by a sweep only
 * records its outcome (keeping the sweep's mark) and leaves the terminal observation to the sweep.
 */
import {
  errorText,
  faultCode,
  isRetriable,
  STORE_FAULTS,
  type Outgoing,
  type PendingCommand,
  type StageDeps,
} from '@toolgate/platform';
import {
  auditEvent,
  IDEMPOTENCY_RETENTION_SECONDS,
  storedOutcomeOf,
  timeoutEnding,
  type IdempotencyRecord,
  type TimeoutEnding,
} from '@toolgate/shared';
import type { CommandsInFlight } from './commands-in-flight.js';
import {
  auditFactsOfPendingCommand,
  observationIdsOfPending,
  sweepSettler,
} from './pending-command.js';

/** What a sweep uses of a stage's dependencies. */
export type SweepDeps = Pick<
  StageDeps,
  'idempotency' | 'pendingCommands' | 'outputs' | 'metrics' | 'logger' | 'now' | 'gate'
>;

/** Options of {@link startDeadlineSweeper}; times in milliseconds. */
export interface DeadlineSweeperOptions {
  readonly deps: SweepDeps;
  /** Produces the sweep's outputs in one transaction (the stage loop's `produceTransactional`). */
  produce(outgoing: readonly Outgoing[]): Promise<void>;
  /** The commands this instance issued: a swept one is dropped from it. */
  readonly inFlight: CommandsInFlight;
  /** Pause between sweeps. Default {@link SWEEP_INTERVAL_MS}. */
  readonly intervalMs?: number;
  /** How long a claimed command is hidden from other sweeps. Default {@link SWEEP_LEASE_MS}. */
  readonly leaseMs?: number;
  /** Most commands per sweep. Default {@link SWEEP_BATCH}. */
  readonly batch?: number;
}

/** A running sweeper. */
export interface DeadlineSweeper {
  /** Stops sweeping, after the sweep in hand ends; idempotent. */
  stop(): Promise<void>;
}

/** Pause between sweeps: 1 s, so an unknown outcome is told at most about a second late. */
export const SWEEP_INTERVAL_MS = 1000;

/** Lease of a claimed command: 30 s to settle, publish and finish it before it is claimed again. */
export const SWEEP_LEASE_MS = 30_000;

/** Most commands one sweep ends. */
export const SWEEP_BATCH = 100;

/**
 * How long a swept command stays matchable, so that a late result is still recorded under its
 * key (24 h): the record then replays the real outcome to a retry instead of "unknown".
 */
export const LATE_RESULT_RETAIN_MS = 24 * 60 * 60 * 1000;

/** Starts sweeping at once and then every `intervalMs`. */
export function startDeadlineSweeper(options: DeadlineSweeperOptions): DeadlineSweeper {
  const { deps } = options;
  const intervalMs = options.intervalMs ?? SWEEP_INTERVAL_MS;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const tick = () => {
    running = sweepOnce(options).then(
      (claimed) => schedule(claimed >= (options.batch ?? SWEEP_BATCH) ? 0 : intervalMs),
      (error: unknown) => {
        reportFault(deps, error);
        schedule(intervalMs);
      },
    );
  };
  const schedule = (ms: number) => {
    if (!stopped) timer = setTimeout(tick, ms);
  };
  tick();
  let stopping: Promise<void> | undefined;
  return {
    stop: () =>
      (stopping ??= (async () => {
        stopped = true;
        clearTimeout(timer);
        await running;
      })()),
  };
}

/** One sweep; resolves with how many commands it claimed, readable or not (exported for tests). */
export async function sweepOnce(options: DeadlineSweeperOptions): Promise<number> {
  const { deps } = options;
  const now = deps.now();
  const lease = options.leaseMs ?? SWEEP_LEASE_MS;
  const claim = await deps.pendingCommands.claimExpiredCommands(
    now.getTime(),
    lease,
    options.batch ?? SWEEP_BATCH,
  );
  for (const { member, problem } of claim.unreadable) {
    deps.metrics.fault(STORE_FAULTS.corrupt);
    deps.logger.error(
      { commandId: member, problem },
      'an expired command cannot be read; it left the deadline index and gets no unknown_outcome',
    );
  }
  const { claimed } = claim;
  const count = claimed.length + claim.unreadable.length;
  if (claimed.length === 0) return count;
  const outgoing: Outgoing[] = [];
  for (const pending of claimed) outgoing.push(...(await settleOrEnd(deps, pending, now)));
  if (outgoing.length > 0) await options.produce(outgoing);
  for (const pending of claimed) {
    await deps.pendingCommands.finishExpiredCommand(pending.commandId, {
      retainMs: LATE_RESULT_RETAIN_MS,
    });
    options.inFlight.forget(pending.commandId);
  }
  return count;
}

/**
 * {@link settleUnknown}; when the record cannot be settled for a reason a retry cannot fix (a
 * record the gate did not write), the command still ends as unknown, unsettled: its observation
 * and audit event go out with the rest of the batch, rather than the command failing every sweep
 * it is in and holding back the others' terminal observations. No result can have ended it: the
 * result's own settlement reads the same record. A retriable fault (Redis down) still fails the
 * sweep, to be tried again.
 */
async function settleOrEnd(
  deps: SweepDeps,
  p: PendingCommand,
  now: Date,
): Promise<readonly Outgoing[]> {
  try {
    return await settleUnknown(deps, p, now);
  } catch (error) {
    if (isRetriable(error)) throw error;
    deps.metrics.fault(faultCode(error));
    const detail = `its idempotency record could not be settled: ${errorText(error)}`;
    deps.logger.error(
      { commandId: p.commandId, proposalId: p.proposalId, err: errorText(error) },
      'an expired command ends as its class says, and its idempotency record is left as it is',
    );
    return timedOutOutputs(deps, p, timedOut(deps, p, now, detail), now);
  }
}

/**
 * Settles one expired command (state `unknown`: the tool did not say what it did) with the ending
 * its class gives a timeout; its outputs when this sweep settled it.
 */
async function settleUnknown(
  deps: SweepDeps,
  p: PendingCommand,
  now: Date,
): Promise<readonly Outgoing[]> {
  const ending = timedOut(deps, p, now, 'the tool did not answer by the deadline');
  const record: IdempotencyRecord = {
    digest: p.digest,
    state: 'unknown',
    token: p.token,
    commandId: p.commandId,
    outcome: storedOutcomeOf(ending.observation),
  };
  const { settled } = await deps.idempotency.settleRecord(
    p.tenant,
    p.idempotencyKey,
    record,
    IDEMPOTENCY_RETENTION_SECONDS,
    sweepSettler(p.commandId),
  );
  // Not settled: a result ended the command first and published its terminal observation.
  if (!settled) return [];
  return timedOutOutputs(deps, p, ending, now);
}

/** How `p` ends past its deadline, by its tool's class (unknown when the tool is not loaded). */
function timedOut(deps: SweepDeps, p: PendingCommand, now: Date, detail: string): TimeoutEnding {
  const sideEffect = deps.gate.registry.get(p.tool)?.spec.sideEffect;
  return timeoutEnding(sideEffect, observationIdsOfPending(p), now, detail);
}

/**
 * The terminal observation and audit event of a command that did not end by its deadline: an
 * `unknown_outcome` event, or, for a call its class lets retry, the `rejected` event of
 * `execution/timeout_retryable`.
 */
function timedOutOutputs(
  deps: SweepDeps,
  p: PendingCommand,
  ending: TimeoutEnding,
  now: Date,
): readonly Outgoing[] {
  const { rejected } = ending;
  deps.metrics.decision(rejected);
  const facts = auditFactsOfPendingCommand(p);
  const event =
    rejected.code === 'timeout_outcome_unknown'
      ? auditEvent(
          { kind: 'unknown_outcome', ...facts, internalDetail: rejected.internalDetail },
          now,
        )
      : auditEvent({ kind: 'rejected', rejected, ...facts }, now);
  return [...deps.outputs.observation(ending.observation, p.tenant), deps.outputs.audit(event)];
}

function reportFault(deps: SweepDeps, error: unknown): void {
  const code = faultCode(error);
  const retriable = isRetriable(error);
  deps.metrics.fault(code);
  deps.logger.warn(
    { code, retriable, err: errorText(error) },
    'deadline sweep failed; trying again next tick',
  );
}
