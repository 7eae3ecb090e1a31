/** The confirmation request approvers see, on `confirmations` (DESIGN §2, §4). */
import { createHash } from 'node:crypto';
import {
  DEFAULT_CONFIRMATION_TTL_SECONDS,
  type PendingConfirmation,
} from '../confirmation/index.js';
import type { AuthorizedProposal } from '../ladder/index.js';
import type { Card } from '../types.js';

/** A request for a person to approve one effect, keyed by tenant. */
export interface ConfirmationRequest {
  readonly confirmationId: string;
  readonly proposalId: string;
  readonly runId: string;
  readonly tenant: string;
  /** The subject of the principal who proposed the call. */
  readonly requestedBy: string;
  readonly tool: string;
  /** Built from the resolved, live objects; `preview` is null when the tool gave none. */
  readonly card: Card;
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
  const { action, target, effect, preview } = pending.card;
  return {
    confirmationId: pending.confirmationId,
    proposalId: pending.proposalId,
    runId: pending.runId,
    tenant: pending.tenant,
    requestedBy: pending.requestedBy,
    tool: pending.tool,
    card: { action, target, effect, preview: preview ?? null },
    digest: pending.digest,
    expiresAt: pending.expiresAt,
  };
}

/**
 * The pending confirmation the confirm stage parks for `a`, whose plan needed a person: card and
 * digest from `planConfirmation`, id from {@link confirmationIdFor}, expiring `ttlSeconds`
 * (default 1800, DESIGN §4) after `now`. Objects keep only type, id and version.
 */
export function pendingConfirmationFor(
  a: AuthorizedProposal,
  plan: { readonly card: Card; readonly digest: string },
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
    tool: a.tool,
    args: a.args,
    objects: a.objects.map(({ type, id, version }) => ({ type, id, version })),
    card: plan.card,
    digest: plan.digest,
    policyVersion: a.policyVersion,
    expiresAt: new Date(now.getTime() + ttlSeconds * 1000).toISOString(),
  };
}
