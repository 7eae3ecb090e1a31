/**
 * A waiting confirmation as the store keeps it, for store tests: a delete of invoice inv-1 asked
 * for by alice, received at `now` and expiring `expiresInMs` later.
 */
import type { PendingConfirmation } from '@toolgate/shared';

/** The confirmation `id` of `tenant`. */
export function storedPending(
  id: string,
  tenant: string,
  now: number,
  expiresInMs: number,
): PendingConfirmation {
  return {
    confirmationId: id,
    proposalId: `p-${id}`,
    runId: 'run-1',
    requestId: 'req-1',
    callId: 'call-1',
    tenant,
    requestedBy: 'alice',
    requesterRoles: ['approver'],
    tool: 'delete_invoice',
    toolVersion: '1',
    attempt: 0,
    receivedAt: new Date(now).toISOString(),
    args: { invoice_id: 'inv-1' },
    objects: [{ type: 'invoice', id: 'inv-1', version: 3 }],
    card: { action: 'Delete invoice', target: 'inv-1', effect: 'gone', preview: { total: 12 } },
    digest: 'digest-1',
    policyVersion: 'pv-1',
    expiresAt: new Date(now + expiresInMs).toISOString(),
  };
}
