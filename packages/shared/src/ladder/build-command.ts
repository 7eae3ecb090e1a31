/**
 * The execute rung's pure half: the idempotency key and digest of an accepted call, and the
 * Command a tool receives. Commands carry no bearer token: only the trusted context.
 */
import { commandDigest, idempotencyKey } from '../idempotency/index.js';
import type { Command } from '../types.js';
import type { AuthorizedProposal } from './validated.js';

/** The idempotency key (tenant, requestId, callId) and command digest of an authorized call. */
export function identityOf(a: AuthorizedProposal): {
  readonly key: string;
  readonly digest: string;
} {
  const key = idempotencyKey(a.context.tenant, a.requestId, a.context.callId);
  const digest = commandDigest({
    tool: a.tool,
    toolVersion: a.toolVersion,
    args: a.args,
    objects: a.objects.map(({ type, id }) => ({ type, id })),
    tenant: a.context.tenant,
  });
  return { key, digest };
}

/**
 * Builds the command for an authorized (and, where needed, confirmed) call. The command id is
 * derived from the idempotency key, so a redelivered command is recognisably the same one.
 */
export function buildCommand(
  a: AuthorizedProposal,
  key: string,
  options: { readonly now: Date; readonly timeoutMs: number; readonly confirmedBy?: string },
): Command {
  const { subject, tenant, requestId, runId, proposalId, callId } = a.context;
  return {
    commandId: `cmd_${key.slice(0, 32)}`,
    idempotencyKey: key,
    tool: a.tool,
    toolVersion: a.toolVersion,
    args: a.args,
    context: { subject, tenant, requestId, runId, proposalId, callId },
    objects: a.objects.map(({ type, id, version }) => ({ type, id, version })),
    ...(options.confirmedBy === undefined ? {} : { confirmedBy: options.confirmedBy }),
    deadline: new Date(options.now.getTime() + options.timeoutMs).toISOString(),
    issuedAt: options.now.toISOString(),
  };
}
