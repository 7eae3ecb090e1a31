/** The confirmation request approvers see, on `confirmations` (DESIGN §2, §4). */
import { createHash } from 'node:crypto';
import {
  DEFAULT_CONFIRMATION_TTL_SECONDS,
  type PendingConfirmation,
} from '../confirmation/index.js';
import type { CardWithChanges } from '../types.js';
import type { AuthorizedEnvelope, ValidatedEnvelope } from './stage-envelope.js';

/** A request for a person to approve one effect, keyed by tenant. */
export interface ConfirmationRequest {
  readonly confirmationId: string;
  readonly proposalId: string;
  readonly runId: string;
  readonly tenant: string;
  /** The subject of the principal who proposed the call. */
  readonly requestedBy: string;
  readonly tool: string;
  /**
   * Built from the resolved, live objects; `preview` is null when the tool gave none, and
   * `changes` is there when the tool names what the call would change.
   */
  readonly card: CardWithChanges;
  /** The confirmation digest an approval must name. */
  readonly digest: string;
  /** ISO-8601 instant; at or after it the confirmation is expired. */
  readonly expiresAt: string;
}

/** Hex characters of SHA-256 kept in a confirmation id: 96 bits. */
const CONFIRMATION_ID_HEX = 24;

/**
 * The confirmation id of a proposal: `conf_` + the first 24 hex characters of SHA-256(proposalId).
 * Deterministic, so a redelivered `authorized` envelope parks (`SET NX`) and re-publishes the
 * same confirmation instead of a second one. It looks like an object id, so redaction keeps it.
 * It is unique only as far as proposalIds are (DESIGN §9: unique per submission), which is why
 * the pending confirmation is stored under a tenant-scoped key and looked up with the approver's
 * verified tenant.
 */
export function confirmationIdFor(proposalId: string): string {
  const digest = createHash('sha256').update(proposalId, 'utf8').digest('hex');
  return `conf_${digest.slice(0, CONFIRMATION_ID_HEX)}`;
}

/**
 * The request for `pending`: its ids, tenant, requester, tool, card, digest and expiry. Never the
 * arguments, objects or policy version, which stay in the pending record and the audit stream.
 */
export function confirmationRequest(pending: PendingConfirmation): ConfirmationRequest {
  const { action, target, effect, preview, changes } = pending.card;
  return {
    confirmationId: pending.confirmationId,
    proposalId: pending.proposalId,
    runId: pending.runId,
    tenant: pending.tenant,
    requestedBy: pending.requestedBy,
    tool: pending.tool,
    card: {
      action,
      target,
      effect,
      preview: preview ?? null,
      ...(changes === undefined ? {} : { changes }),
    },
    digest: pending.digest,
    expiresAt: pending.expiresAt,
  };
}

/**
 * The pending confirmation the confirm stage parks for `a`, whose plan needed a person: card and
 * digest from `planConfirmation`, the tool's `rule` (`confirmationRuleOf`) when given, id from
 * {@link confirmationIdFor}, expiring `ttlSeconds`
 * (default 1800, DESIGN §4) after `now`. Objects keep only type, id and version; the requester's
 * roles, the tool version, attempt and `receivedAt` are kept so that an approval can authorize
 * the call again for the requester ({@link requestedCallOf}) and clear it.
 */
export function pendingConfirmationFor(
  a: AuthorizedEnvelope,
  plan: { readonly card: CardWithChanges; readonly digest: string; readonly rule?: string },
  now: Date,
  ttlSeconds: number = DEFAULT_CONFIRMATION_TTL_SECONDS,
): PendingConfirmation {
  return {
    confirmationId: confirmationIdFor(a.proposalId),
    proposalId: a.proposalId,
    runId: a.runId,
    requestId: a.requestId,
    callId: a.context.callId,
    tenant: a.context.tenant,
    requestedBy: a.context.subject,
    requesterRoles: [...a.context.roles],
    tool: a.tool,
    toolVersion: a.toolVersion,
    attempt: a.attempt,
    ...(a.repaired === undefined ? {} : { repaired: a.repaired }),
    receivedAt: a.receivedAt,
    args: a.args,
    objects: a.objects.map(({ type, id, version }) => ({ type, id, version })),
    card: plan.card,
    digest: plan.digest,
    policyVersion: a.policyVersion,
    ...(plan.rule === undefined ? {} : { rule: plan.rule }),
    expiresAt: new Date(now.getTime() + ttlSeconds * 1000).toISOString(),
  };
}

/**
 * The call `pending` waits for, as validate accepted it: the requester's context (roles
 * included), tool, version and arguments, and when it was received. The confirm stage resolves
 * its objects again and re-runs `authorizeProposal` on it when an approval arrives.
 */
export function requestedCallOf(pending: PendingConfirmation): ValidatedEnvelope {
  const { proposalId, runId, requestId, callId, tenant } = pending;
  return {
    proposalId,
    runId,
    requestId,
    attempt: pending.attempt,
    context: {
      subject: pending.requestedBy,
      tenant,
      roles: [...pending.requesterRoles],
      requestId,
      runId,
      proposalId,
      callId,
    },
    tool: pending.tool,
    toolVersion: pending.toolVersion,
    args: pending.args,
    ...(pending.repaired === undefined ? {} : { repaired: pending.repaired }),
    receivedAt: pending.receivedAt,
  };
}
