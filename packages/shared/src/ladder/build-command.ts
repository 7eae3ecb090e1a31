/**
 * The execute rung's pure half: the idempotency key and digest of an accepted call, and the
 * Command a tool receives. Commands carry no bearer token: only the trusted context.
 */
import { commandDigest, idempotencyKey, type IdempotencyRecord } from '../idempotency/index.js';
import type { Command, ObjectRef } from '../types.js';
import type { AuthorizedProposal, ValidatedProposal } from './validated.js';

/** The idempotency key (tenant, requestId, callId) and command digest of an authorized call. */
export function identityOf(a: AuthorizedProposal): {
  readonly key: string;
  readonly digest: string;
} {
  return identityFor(a, a.objects);
}

/**
 * The same identity before resolution, from the objects the call names: the digest reads object
 * types and ids only, so it is known as soon as the call is validated.
 */
export function identityFor(
  v: ValidatedProposal,
  refs: readonly ObjectRef[],
): { readonly key: string; readonly digest: string } {
  const key = idempotencyKey(v.context.tenant, v.requestId, v.context.callId);
  const digest = commandDigest({
    tool: v.tool,
    toolVersion: v.toolVersion,
    args: v.args,
    objects: refs.map(({ type, id }) => ({ type, id })),
    tenant: v.context.tenant,
  });
  return { key, digest };
}

/** True when `record` holds a settled outcome of the command with `digest`: a retry replays it. */
export function isSettledReplay(record: IdempotencyRecord | undefined, digest: string): boolean {
  return record !== undefined && record.digest === digest && record.state !== 'claimed';
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
