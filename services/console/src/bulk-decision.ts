/**
 * Which bulk decisions the console relays: items of one run and one tool, every one waiting for
 * the caller now. Pure: it takes the request's body and the caller's current pending list.
 */
import { MAX_REJECTION_REASON_CHARS } from '@toolgate/shared';
import type { PendingCard } from './pending-list.js';

/** Most items one bulk decision may hold. */
export const MAX_BULK_ITEMS = 50;

/** One decision of a bulk request. */
export interface BulkItem {
  readonly confirmationId: string;
  readonly digest: string;
}

/** A bulk decision that may be relayed. */
export interface BulkDecision {
  readonly decision: 'approve' | 'reject';
  readonly reason?: string;
  readonly items: readonly BulkItem[];
}

/** The bulk decision `body` asks for, or why it is refused (one sentence). */
export function checkBulkDecision(
  body: unknown,
  pending: readonly PendingCard[],
):
  | { readonly ok: true; readonly value: BulkDecision }
  | { readonly ok: false; readonly message: string } {
  const shape = shapeOf(body);
  if (typeof shape === 'string') return { ok: false, message: shape };
  const byId = new Map(pending.map((p) => [p.confirmationId, p]));
  const cards = shape.items.map((i) => byId.get(i.confirmationId));
  if (cards.some((c) => c === undefined)) {
    return { ok: false, message: 'Every item must be waiting for you now; refresh and try again.' };
  }
  const runs = new Set(cards.map((c) => c?.runId));
  const tools = new Set(cards.map((c) => c?.tool));
  if (runs.size > 1 || tools.size > 1) {
    return { ok: false, message: 'A bulk decision takes items of one run and one tool only.' };
  }
  return { ok: true, value: shape };
}

function shapeOf(body: unknown): BulkDecision | string {
  const { decision, reason, items } = (body ?? {}) as Record<string, unknown>;
  if (decision !== 'approve' && decision !== 'reject') return 'decision must be approve or reject.';
  if (
    reason !== undefined &&
    (typeof reason !== 'string' || reason.length > MAX_REJECTION_REASON_CHARS)
  ) {
    return `reason must be text of at most ${MAX_REJECTION_REASON_CHARS} characters.`;
  }
  if (!Array.isArray(items) || items.length === 0 || items.length > MAX_BULK_ITEMS) {
    return `items must list 1 to ${MAX_BULK_ITEMS} confirmations.`;
  }
  const valid = items.every(
    (i: Partial<BulkItem> | null) =>
      typeof i?.confirmationId === 'string' && typeof i.digest === 'string',
  );
  if (!valid) return 'Each item is {confirmationId, digest}.';
  const list = (items as BulkItem[]).map(({ confirmationId, digest }) => ({
    confirmationId,
    digest,
  }));
  if (new Set(list.map((i) => i.confirmationId)).size !== list.length) {
    return 'An item is listed twice.';
  }
  return { decision, ...(reason === undefined ? {} : { reason: reason }), items: list };
}
