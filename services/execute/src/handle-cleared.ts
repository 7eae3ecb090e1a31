/**
 * One cleared envelope: integrity → tool → idempotency key and digest → claim the key together
 * with the pending command, or read the record that holds it → `decideIdempotency` → publish the
 * command, re-issue it after a crash, replay the stored outcome, or refuse (conflict, in flight).
 *
 * Redis is written before the transaction that publishes, so every write is safe to repeat: the
 * claim token is the proposalId (a redelivery finds its own claim and proceeds), and a re-issued
 * command is rebuilt from the pending command stored the first time, byte for byte. The Kafka
 * transaction makes exactly one copy visible to read-committed readers.
 */
import {
  type Incoming,
  originOf,
  type Outgoing,
  type PendingCommand,
  refuseForged,
  type StageDepsWith,
} from '@toolgate/platform';
import {
  auditEvent,
  auditFactsOf,
  buildCommand,
  decideIdempotency,
  identityOf,
  IDEMPOTENCY_RETENTION_SECONDS,
  observationForRefusal,
  refusal,
  replayObservation,
  toolOf,
  type AuditFacts,
  type ClearedEnvelope,
  type Command,
  type Decision,
  type IdempotencyAction,
  type IdempotencyRecord,
  type ObservationIds,
  type Refusal,
  type StoredOutcome,
  type Tool,
} from '@toolgate/shared';
import type { CommandsInFlight } from './commands-in-flight.js';
import { messageToken, pendingCommandOf } from './pending-command.js';

/** What the handler uses: of the store, the idempotency records and the pending commands. */
export type ClearedDeps = StageDepsWith<'idempotency' | 'pendingCommands'>;

/** One cleared envelope being handled: what it is, where its answers go, and when. */
interface Case {
  readonly c: ClearedEnvelope;
  readonly ids: ObservationIds;
  readonly facts: AuditFacts;
  readonly now: Date;
}

/**
 * Handles one message of the cleared topic; a fresh claim's pending command goes to `inFlight`.
 * A run's next envelope may start once this one's claim is sent (`release`): Redis runs the claims
 * in the order they were sent, so of a call and its retry the first still claims the key.
 */
export function createClearedHandler(
  deps: ClearedDeps,
  inFlight: CommandsInFlight,
): (msg: Incoming, release: () => void) => Promise<readonly Outgoing[]> {
  return async (msg, release) => {
    const now = deps.now();
    const forged = refuseForged(msg, deps, now);
    if (forged !== undefined) return forged;
    const c = msg.value as ClearedEnvelope;
    const ids = { ...envelopeIdsOf(c), callId: c.context.callId };
    const at: Case = { c, ids, facts: { ...auditFactsOf(c), ...originOf(msg) }, now };
    const tool = toolOf(c, deps.gate.registry);
    if (!tool.ok) return refused(deps, at, tool);
    const { key, digest } = identityOf(c, tool.value.spec.sideEffect);
    const fresh = buildCommand(c, key, commandTiming(c, tool.value, now));
    const claimedBy = messageToken(msg);
    const claiming = { c, command: fresh, digest, claimedBy };
    const { decided, record } = await decideKey(deps, inFlight, claiming, release);
    const keyed = { ...at, facts: { ...at.facts, idempotencyKey: key } };
    if (!decided.ok) return refused(deps, keyed, refusal(decided));
    const action = decided.value;
    switch (action.action) {
      case 'claim':
        // decideKey stored the pending command with the claim.
        return issued(deps, keyed, fresh);
      case 'proceed': {
        const again = await restorePending(deps, claiming, tool.value);
        if (again !== undefined) return issued(deps, keyed, again);
        // Another record with this proposal's ids (an agent sent it twice) while its command
        // runs: the command is out, and the proposal's terminal observation will come with it.
        deps.logger.warn(
          { proposalId: c.proposalId, commandId: fresh.commandId, source: claimedBy },
          'a proposal read again from another record while its call runs; nothing to publish',
        );
        return [];
      }
      case 'replay':
        return replayed(deps, keyed, action.outcome, record?.commandId);
      case 'settled':
        // This very message claimed the key and its call has ended: whoever settled the record
        // published the terminal observation. Read again (an offset reset, a restart after the
        // deadline sweeper), it must publish neither the command nor a second observation.
        deps.logger.info(
          { proposalId: c.proposalId, commandId: record?.commandId },
          'cleared envelope read again after its call ended; nothing to publish',
        );
        return [];
    }
  };
}

/** A refusal: its observation (terminal) and audit event. */
function refused(deps: ClearedDeps, at: Case, r: Refusal): Outgoing[] {
  deps.metrics.decision(r.rejected);
  return [
    ...deps.outputs.observation(observationForRefusal(at.ids, r, at.now), at.c.context.tenant),
    deps.outputs.audit(auditEvent({ kind: 'rejected', rejected: r.rejected, ...at.facts }, at.now)),
  ];
}

/** The command for the tool and its `command_issued` audit event. */
function issued(deps: ClearedDeps, at: Case, command: Command): Outgoing[] {
  deps.metrics.decision({ disposition: 'execute', stage: 'idempotency' });
  const facts = { ...at.facts, commandId: command.commandId };
  return [
    deps.outputs.command(command),
    deps.outputs.audit(auditEvent({ kind: 'command_issued', ...facts }, at.now)),
  ];
}

/** The stored outcome again under this proposal's ids (terminal, `replay: true`), and its audit. */
function replayed(
  deps: ClearedDeps,
  at: Case,
  outcome: StoredOutcome,
  commandId: string | undefined,
): Outgoing[] {
  deps.metrics.decision({ disposition: 'execute', stage: 'idempotency' });
  const facts = { ...at.facts, commandId };
  return [
    ...deps.outputs.observation(replayObservation(outcome, at.ids, at.now), at.c.context.tenant),
    deps.outputs.audit(auditEvent({ kind: 'replay', outcome: outcome.outcome, ...facts }, at.now)),
  ];
}

function envelopeIdsOf(c: ClearedEnvelope): ObservationIds {
  return { proposalId: c.proposalId, runId: c.runId, requestId: c.requestId };
}

function commandTiming(c: ClearedEnvelope, tool: Tool, now: Date) {
  return {
    now,
    timeoutMs: tool.timeoutMs,
    ...(c.confirmedBy === undefined ? {} : { confirmedBy: c.confirmedBy }),
  };
}

/** A claim of an envelope's key: the command, its digest, and the message that claims it. */
interface Claiming {
  readonly c: ClearedEnvelope;
  readonly command: Command;
  readonly digest: string;
  /** The message's coordinates ({@link messageToken}). */
  readonly claimedBy: string;
}

/**
 * Claims the key and stores the pending command in one round trip when the key is free (the
 * usual case: a fresh call; the pending command is kept in `inFlight` too); else decides on the
 * record that holds it, so a claim whose reply was lost (my own token) proceeds, and another
 * proposal's is replayed or refused. Releases the run's next envelope once the claim is sent.
 */
async function decideKey(
  deps: ClearedDeps,
  inFlight: CommandsInFlight,
  { c, command, digest, claimedBy }: Claiming,
  release: () => void,
): Promise<{
  decided: Decision<IdempotencyAction, 'idempotency'>;
  record: IdempotencyRecord | undefined;
}> {
  const { tenant } = c.context;
  const token = c.proposalId;
  if (c.replay === true) {
    // Authorized as a retry of a settled call, so its preconditions and confirmation were
    // skipped: it may only replay the stored outcome, never claim the key.
    const found = await deps.idempotency.getRecord(tenant, command.idempotencyKey);
    release();
    return {
      decided: decideIdempotency(found, digest, token, { replayOnly: true }),
      record: found,
    };
  }
  const claim = { digest, state: 'claimed', token, commandId: command.commandId } as const;
  const pending = pendingCommandOf(command, token, digest, claimedBy);
  const claiming = deps.pendingCommands.claimWithPending({
    tenant,
    key: command.idempotencyKey,
    record: claim,
    ttlSeconds: IDEMPOTENCY_RETENTION_SECONDS,
    pending,
    deadlineMs: Date.parse(command.deadline),
  });
  release();
  const outcome = await claiming;
  if (outcome.claimed) {
    inFlight.remember(pending);
    return { decided: decideIdempotency(undefined, digest, token), record: claim };
  }
  return { decided: decideIdempotency(outcome.record, digest, token), record: outcome.record };
}

/** Stores the pending command of a fresh claim, its deadline indexed for the sweeper. */
async function storePending(deps: ClearedDeps, claiming: Claiming): Promise<Command> {
  const { c, command, digest, claimedBy } = claiming;
  const pending = pendingCommandOf(command, c.proposalId, digest, claimedBy);
  await deps.pendingCommands.putPendingCommand(pending, Date.parse(command.deadline));
  return command;
}

/**
 * My own open claim (a redelivery after a crash): if the pending command was stored before the
 * crash, the command is rebuilt from it, so it is the same command; else it is stored now.
 * Undefined when another message claimed it: the same proposal sent twice, whose command is out.
 */
async function restorePending(
  deps: ClearedDeps,
  claiming: Claiming,
  tool: Tool,
): Promise<Command | undefined> {
  const { c, command: fresh, claimedBy } = claiming;
  const stored = await deps.pendingCommands.peekPendingCommand(fresh.commandId);
  if (stored === undefined) return storePending(deps, claiming);
  if (stored.claimedBy !== undefined && stored.claimedBy !== claimedBy) return undefined;
  return buildCommand(c, fresh.idempotencyKey, timingOf(c, tool, stored));
}

/** The issue time and timeout of a stored pending command, for rebuilding the same command. */
function timingOf(c: ClearedEnvelope, tool: Tool, stored: PendingCommand) {
  const deadlineMs = Date.parse(stored.deadline);
  const issuedMs =
    stored.issuedAt === undefined ? deadlineMs - tool.timeoutMs : Date.parse(stored.issuedAt);
  return commandTiming(c, { ...tool, timeoutMs: deadlineMs - issuedMs }, new Date(issuedMs));
}
