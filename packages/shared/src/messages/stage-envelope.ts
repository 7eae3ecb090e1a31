/**
 * The envelopes on the internal topics (`validated`, `authorized`, `cleared`): the core's own
 * values plus the instant the proposal was received, for end-to-end latency. The builders copy
 * exactly the contract's fields, so a value that carries more (a decoded envelope, a richer
 * object) is written without them and still matches its topic's closed schema.
 */
import type { AuthorizedProposal, ValidatedProposal } from '../ladder/index.js';
import type { CallContext, ResolvedObject } from '../types.js';

/** On `validated`: a proposal that passed authentication, representation, schema and semantics. */
export interface ValidatedEnvelope extends ValidatedProposal {
  /** ISO-8601 instant the validate stage received the original proposal. */
  readonly receivedAt: string;
  /**
   * ISO-8601 instant the stage that wrote this envelope issued it; set when it is written (see
   * `GateOutputs.envelope`), inside the tagged bytes, so a reader refuses a stale one.
   */
  readonly issuedAt?: string;
}

/** On `authorized`: resolved under the tenant, allowed by policy, within preconditions and limits. */
export interface AuthorizedEnvelope extends AuthorizedProposal {
  /** ISO-8601 instant the validate stage received the original proposal. */
  readonly receivedAt: string;
  /** ISO-8601 instant this envelope was issued (see {@link ValidatedEnvelope.issuedAt}). */
  readonly issuedAt?: string;
}

/**
 * On `cleared`: ready to execute. `confirmedBy` and `confirmedAt` are present together when a
 * person approved the call, absent when it needed no confirmation.
 */
export interface ClearedEnvelope extends AuthorizedEnvelope {
  /** The approver's subject. */
  readonly confirmedBy?: string;
  /** ISO-8601 instant of the approval. */
  readonly confirmedAt?: string;
}

/** Who approved, and when (from `checkApproval`). */
export interface Confirmed {
  readonly confirmedBy: string;
  readonly confirmedAt: string;
}

/** The `validated` envelope of `v`, received at `receivedAt` (ISO-8601). */
export function validatedEnvelope(v: ValidatedProposal, receivedAt: string): ValidatedEnvelope {
  return {
    proposalId: v.proposalId,
    runId: v.runId,
    requestId: v.requestId,
    attempt: v.attempt,
    context: contextOf(v.context),
    tool: v.tool,
    toolVersion: v.toolVersion,
    args: v.args,
    ...(v.repaired === undefined ? {} : { repaired: v.repaired }),
    receivedAt,
  };
}

/** The `authorized` envelope of `a`, received at `receivedAt` (ISO-8601). */
export function authorizedEnvelope(a: AuthorizedProposal, receivedAt: string): AuthorizedEnvelope {
  return {
    ...validatedEnvelope(a, receivedAt),
    objects: a.objects.map(objectOf),
    policyVersion: a.policyVersion,
    ...(a.replay === true ? { replay: true as const } : {}),
  };
}

/**
 * The `cleared` envelope of `a`: with `confirmed` after an approval, without it when the call
 * needed no confirmation.
 */
export function clearedEnvelope(
  a: AuthorizedProposal,
  receivedAt: string,
  confirmed?: Confirmed,
): ClearedEnvelope {
  const envelope = authorizedEnvelope(a, receivedAt);
  return confirmed === undefined
    ? envelope
    : { ...envelope, confirmedBy: confirmed.confirmedBy, confirmedAt: confirmed.confirmedAt };
}

function contextOf(c: CallContext): CallContext {
  const { subject, tenant, roles, requestId, runId, proposalId, callId } = c;
  return { subject, tenant, roles: [...roles], requestId, runId, proposalId, callId };
}

function objectOf(o: ResolvedObject): ResolvedObject {
  const { type, id, tenant, version, attributes } = o;
  return { type, id, tenant, version, attributes };
}
