/**
 * What the confirm stage's tests on the real stack share: who asks and who decides, the refund
 * they ask for, parking it as the authorize stage would, the approval API as a caller reaches it,
 * the refusal that ends a call, and a waiting confirmation to put straight into the store.
 */
import { APPROVAL_PORT_NAME } from '@toolgate/platform';
import {
  confirmationIdFor,
  type PendingConfirmation,
  type Principal,
  type Proposal,
} from '@toolgate/shared';
import { authorizedFor, sendAuthorized } from '../../../test/support/authorized-envelopes.js';
import { USERS } from '../../../test/support/deployment/index.js';
import type { GateHarness, Tapped } from '../../../test/support/gate-harness.js';
import { mcp } from '../../../test/support/proposals.js';

/** A second approver of acme, who may decide alice's calls: so who asks and who decides differ. */
export const DAVE: Principal = { subject: 'dave', tenant: 'acme', roles: ['approver'] };

/** A refund of `amount` on `pay_1`, on the run `run-<proposalId>`: a call that needs a person. */
export const refund = (proposalId: string, amount = 500): Proposal =>
  mcp({ proposalId, runId: `run-${proposalId}` }, 'refund', { payment_id: 'pay_1', amount });

/**
 * Sends `proposal` as `who` to the confirm stage, authorized as the authorize stage would, and
 * waits for its confirmation request: the envelope sent, the request, its confirmation id and the
 * digest an approval names.
 */
export async function parked(h: GateHarness, proposal: Proposal, who: Principal = USERS.alice) {
  const env = await authorizedFor(h, who, proposal);
  await sendAuthorized(h, env);
  const [request] = await h.waitFor(
    'confirmations',
    `the confirmation request of ${proposal.proposalId}`,
    (r) => r.value['proposalId'] === proposal.proposalId,
  );
  return {
    env,
    request: request!,
    id: confirmationIdFor(proposal.proposalId),
    digest: request!.value['digest'] as string,
  };
}

/** Waits for the observation that ended `proposalId` with a refusal (outcome `rejected`). */
export async function rejectionOf(h: GateHarness, proposalId: string): Promise<Tapped> {
  const [ended] = await h.waitFor(
    'observations',
    `the rejection of ${proposalId}`,
    (r) => r.value['proposalId'] === proposalId && r.value['outcome'] === 'rejected',
  );
  return ended!;
}

/** `path` on `h`'s approval API, served apart from the confirm stage's health and metrics. */
export const approvalApi = (h: GateHarness, path: string) =>
  `http://127.0.0.1:${h.gate.ports[APPROVAL_PORT_NAME]}${path}`;

/** `who`'s session as the approval API takes it; no header at all for nobody. */
export async function bearerOf(h: GateHarness, who: Principal): Promise<{ authorization: string }>;
export async function bearerOf(
  h: GateHarness,
  who?: Principal,
): Promise<{ authorization?: string }>;
export async function bearerOf(h: GateHarness, who?: Principal) {
  return who === undefined ? {} : { authorization: `Bearer ${await h.session(who)}` };
}

/**
 * A confirmation of alice's refund on acme, parked a minute before it expires at `expiresAtMs`,
 * as the store keeps it: for tests that write the store directly.
 */
export function waitingConfirmation(id: string, expiresAtMs: number): PendingConfirmation {
  return {
    confirmationId: id,
    proposalId: `p-${id}`,
    runId: 'run-1',
    requestId: 'req-1',
    callId: 'call-1',
    tenant: 'acme',
    requestedBy: 'alice',
    requesterRoles: ['approver'],
    tool: 'refund',
    toolVersion: '1',
    attempt: 0,
    receivedAt: new Date(expiresAtMs - 60_000).toISOString(),
    args: { payment_id: 'pay_1', amount: 5 },
    objects: [{ type: 'Payment', id: 'pay_1', version: 1 }],
    card: { action: 'Refund payment', target: 'pay_1', effect: 'refund 5', preview: null },
    digest: 'd'.repeat(64),
    policyVersion: 'p'.repeat(64),
    expiresAt: new Date(expiresAtMs).toISOString(),
  };
}
