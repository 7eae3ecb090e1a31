/**
 * The execute rung's pure half: the idempotency key and digest of an accepted call, and the
 * Command a tool receives. Commands carry no bearer token: only the trusted context.
 */
import { accept, rejecterFor, type Decision } from '../decision.js';
import { commandDigest, idempotencyKey, type IdempotencyRecord } from '../idempotency/index.js';
import { sideEffectDefaults } from '../tools/side-effect-defaults.js';
import type { Command, ObjectRef, SideEffect } from '../types.js';
import type { AuthorizedProposal, ValidatedProposal } from './validated.js';

const rejectIdempotency = rejecterFor('idempotency');

/**
 * The idempotency key and command digest of an authorized call of a tool of class `sideEffect`:
 * the key is (tenant, subject, requestId, callId), and for a class whose key is scoped to one
 * proposal (`SIDE_EFFECT_DEFAULTS`, reads) the proposalId too. Without a class, the call-scoped
 * key (as for any class this table does not know).
 */
export function identityOf(
  a: AuthorizedProposal,
  sideEffect?: SideEffect,
): { readonly key: string; readonly digest: string } {
  return identityFor(a, a.objects, sideEffect);
}

/**
 * The same identity before resolution, from the objects the call names: the digest reads object
 * types and ids only, so it is known as soon as the call is validated.
 */
export function identityFor(
  v: ValidatedProposal,
  refs: readonly ObjectRef[],
  sideEffect: SideEffect | undefined,
): { readonly key: string; readonly digest: string } {
  const { tenant, subject, callId } = v.context;
  const perProposal = sideEffectDefaults(sideEffect).idempotencyScope === 'proposal';
  const key = idempotencyKey({
    tenant,
    subject,
    requestId: v.requestId,
    callId,
    ...(perProposal ? { proposalId: v.proposalId } : {}),
  });
  const digest = commandDigest({
    tool: v.tool,
    toolVersion: v.toolVersion,
    args: v.args,
    objects: refs.map(({ type, id }) => ({ type, id })),
    tenant: v.context.tenant,
  });
  return { key, digest };
}

/**
 * What an earlier call under the same idempotency key means for this one, before it is resolved:
 * another command under the key is `idempotency/conflict` (whatever the world now says of it), and
 * a settled outcome of this very command makes it a replay (`settled`), which changes nothing.
 */
export function priorCall(
  record: IdempotencyRecord | undefined,
  digest: string,
): Decision<{ readonly settled: boolean }, 'idempotency'> {
  if (record !== undefined && record.digest !== digest) {
    return rejectIdempotency('conflict', undefined, 'the key holds a different command');
  }
  return accept({ settled: record !== undefined && record.state !== 'claimed' });
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
