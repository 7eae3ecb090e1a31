/**
 * The scripted approver's side: what a person's approval UI does with the confirm stage's HTTP
 * API. It lists the tenant's waiting confirmations (`GET /pending`) to read the card and digest,
 * then approves or rejects (`POST /confirmations/:id/approve|reject` with `{digest}`), signed in
 * with the approver's own session.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { SESSION_HEADER, type PendingView } from '@toolgate/shared';

/** The approval API of one gate. */
export interface ApprovalApi {
  /**
   * The confirmation `confirmationId` as `token`'s tenant sees it on `GET /pending`, polling
   * until it is listed.
   *
   * @throws Error when it is not listed within `timeoutMs` (default 10 s) or the API refuses.
   */
  waiting(token: string, confirmationId: string, timeoutMs?: number): Promise<PendingView>;
  /**
   * Sends a decision; resolves with the HTTP status (202 when the API took it). The decision
   * itself is made by the confirm stage and shows in the audit stream and the observation.
   */
  decide(
    token: string,
    confirmationId: string,
    decision: 'approve' | 'reject',
    digest: string,
  ): Promise<number>;
}

/** A client of the approval API at `baseUrl` (e.g. `http://127.0.0.1:9110`). */
export function approvalApi(baseUrl: string): ApprovalApi {
  return {
    async waiting(token, confirmationId, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = (await pending(baseUrl, token)).find(
          (c) => c.confirmationId === confirmationId,
        );
        if (found !== undefined) return found;
        if (Date.now() > deadline) {
          throw new Error(`confirmation ${confirmationId} not listed on GET /pending`);
        }
        await sleep(200);
      }
    },
    async decide(token, confirmationId, decision, digest) {
      const url = `${baseUrl}/confirmations/${encodeURIComponent(confirmationId)}/${decision}`;
      const response = await fetch(url, {
        method: 'POST',
        headers: { [SESSION_HEADER]: token, 'content-type': 'application/json' },
        body: JSON.stringify({ digest }),
        signal: AbortSignal.timeout(10_000),
      });
      await response.body?.cancel();
      return response.status;
    },
  };
}

async function pending(baseUrl: string, token: string): Promise<PendingView[]> {
  const response = await fetch(`${baseUrl}/pending`, {
    headers: { [SESSION_HEADER]: token },
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`GET /pending answered ${response.status}`);
  }
  const body = (await response.json()) as { confirmations?: PendingView[] };
  return body.confirmations ?? [];
}
