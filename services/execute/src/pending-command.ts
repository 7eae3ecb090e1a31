/**
 * The execute stage's bookkeeping of a published command: what it stores in Redis while the tool
 * works (a {@link PendingCommand}), and the ids and audit facts it reads back from it when the
 * result or the deadline ends the command.
 */
import type { Incoming, PendingCommand } from '@toolgate/platform';
import type { AuditFacts, Command, ObservationIds } from '@toolgate/shared';

/**
 * The pending command of `command`, claimed under `token` with the command digest `digest` by the
 * message at `claimedBy` (its {@link messageToken}).
 */
export function pendingCommandOf(
  command: Command,
  token: string,
  digest: string,
  claimedBy: string,
): PendingCommand {
  const { subject, tenant, proposalId, runId, requestId, callId } = command.context;
  return {
    commandId: command.commandId,
    idempotencyKey: command.idempotencyKey,
    tenant,
    subject,
    tool: command.tool,
    proposalId,
    runId,
    requestId,
    callId,
    token,
    digest,
    deadline: command.deadline,
    issuedAt: command.issuedAt,
    claimedBy,
  };
}

/** The ids of the proposal whose command this is: where its terminal observation is filed. */
export function observationIdsOfPending(p: PendingCommand): ObservationIds {
  return { proposalId: p.proposalId, runId: p.runId, requestId: p.requestId, callId: p.callId };
}

/** Audit facts of a pending command: the proposal, its requester, the tool, key and command. */
export function auditFactsOfPendingCommand(p: PendingCommand): AuditFacts {
  return {
    ...observationIdsOfPending(p),
    subject: p.subject,
    tenant: p.tenant,
    tool: p.tool,
    idempotencyKey: p.idempotencyKey,
    commandId: p.commandId,
  };
}

/**
 * A token naming a message stably across redeliveries (`<topic>@<partition>:<offset>`), for the
 * store's token-based operations (taking a pending command, settling a record).
 */
export function messageToken(msg: Incoming): string {
  return `${msg.topic}@${msg.partition}:${msg.offset}`;
}

/**
 * The deadline sweeper's settler token for `commandId`: stable across its retries, so a sweep
 * that settled a record and failed before publishing is told "settled" again and publishes.
 */
export function sweepSettler(commandId: string): string {
  return `sweep:${commandId}`;
}
