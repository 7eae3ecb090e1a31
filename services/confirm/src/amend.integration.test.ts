import * as authorize from '@toolgate/authorize';
import * as validate from '@toolgate/validate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  confirmationIdFor,
  type AmendAnswer,
  type DecidedView,
  type Principal,
  type Proposal,
} from '@toolgate/shared';
import { USERS } from '../../../test/support/deployment/index.js';
import {
  sessionHeaders,
  startGateHarness,
  type GateHarness,
} from '../../../test/support/gate-harness.js';
import {
  approvalApi,
  bearerOf,
  DAVE,
  refund,
  rejectionOf,
} from './confirm-fixtures.test-support.js';
import * as confirm from './service.js';

describe('POST /confirmations/:id/amend through validate, authorize and confirm', () => {
  let h: GateHarness;

  beforeAll(async () => {
    h = await startGateHarness({
      label: 'confirm-amend',
      modules: [validate, authorize, confirm],
      tap: ['observations', 'confirmations', 'cleared', 'approvals'],
    });
  }, 180_000);
  afterAll(() => h?.close());

  /** Alice proposes `proposal`; the test waits for its confirmation request. */
  async function parked(proposal: Proposal) {
    await h.send(
      'proposals',
      proposal.runId,
      proposal,
      sessionHeaders(await h.session(USERS.alice)),
    );
    const [request] = await h.waitFor(
      'confirmations',
      `the confirmation request of ${proposal.proposalId}`,
      (r) => r.value['proposalId'] === proposal.proposalId,
    );
    return {
      id: confirmationIdFor(proposal.proposalId),
      digest: request!.value['digest'] as string,
    };
  }

  /** `POST path` on the approval API as `who` (no session when undefined). */
  async function post(path: string, body: unknown, who?: Principal) {
    return fetch(approvalApi(h, path), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(await bearerOf(h, who)) },
      body: JSON.stringify(body),
    });
  }

  it('rejects the original and parks the changed call as its own confirmation, proposed by the changer', async () => {
    const { id, digest } = await parked(refund('p-am-1', 500));
    const answer = await post(
      `/confirmations/${id}/amend`,
      { digest, args: { payment_id: 'pay_1', amount: 300 }, reason: 'Half is enough.' },
      DAVE,
    );
    expect(answer.status).toBe(202);
    const body = (await answer.json()) as AmendAnswer;
    const { proposalId } = body.replacement;
    expect(body).toEqual({
      confirmationId: id,
      decision: 'reject',
      replacement: {
        proposalId: expect.stringMatching(/^amend_[0-9a-f]{32}$/) as string,
        runId: 'run-p-am-1',
      },
    });

    const ended = await rejectionOf(h, 'p-am-1');
    expect(ended.value).toMatchObject({ stage: 'confirmation', code: 'rejected_by_human' });
    expect(ended.value['message']).toBe(
      `Changed by dave: replaced by proposal ${proposalId}. Half is enough.`,
    );

    const [request] = await h.waitFor(
      'confirmations',
      'the confirmation request of the changed call',
      (r) => r.value['proposalId'] === proposalId,
    );
    expect(request!.value).toMatchObject({
      runId: 'run-p-am-1',
      tool: 'refund',
      requestedBy: 'dave',
    });
    const waiting = await h.gate.runtime.store.confirmations.readConfirmation(
      'acme',
      confirmationIdFor(proposalId),
    );
    expect(waiting).toMatchObject({
      state: 'waiting',
      pending: { args: { payment_id: 'pay_1', amount: 300 }, requestedBy: 'dave', attempt: 0 },
    });
    expect(h.seen('cleared').filter((r) => r.value['proposalId'] === 'p-am-1')).toEqual([]);

    const listed = await fetch(approvalApi(h, '/decided?outcome=amended'), {
      headers: await bearerOf(h, USERS.alice),
    });
    const { confirmations } = (await listed.json()) as { confirmations: DecidedView[] };
    expect(confirmations).toEqual([
      expect.objectContaining({
        confirmationId: id,
        outcome: 'amended',
        decidedBy: 'dave',
        requestedBy: 'alice',
        reason: `Changed by dave: replaced by proposal ${proposalId}. Half is enough.`,
        replacedBy: { proposalId, runId: 'run-p-am-1' },
      }),
    ]);

    // The original is decided: amending it again changes nothing.
    const again = await post(
      `/confirmations/${id}/amend`,
      { digest, args: { payment_id: 'pay_1', amount: 300 } },
      DAVE,
    );
    expect(again.status).toBe(409);
  });

  it('refuses an amend it cannot take, publishing nothing', async () => {
    const { id, digest } = await parked(refund('p-am-2', 500));
    const changed = { payment_id: 'pay_1', amount: 200 };
    const path = `/confirmations/${id}/amend`;
    const refusals: [string, unknown, Principal | undefined, number, string][] = [
      ['no session', { digest, args: changed }, undefined, 401, 'unauthorized'],
      ['a viewer', { digest, args: changed }, USERS.bob, 404, 'not_found'],
      ['another tenant', { digest, args: changed }, USERS.carol, 404, 'not_found'],
      ['a stale digest', { digest: '0'.repeat(64), args: changed }, DAVE, 409, 'content_changed'],
      [
        'the same arguments',
        { digest, args: { payment_id: 'pay_1', amount: 500 } },
        DAVE,
        400,
        'unchanged',
      ],
      [
        'arguments the tool refuses',
        { digest, args: { payment_id: 'pay_1' } },
        DAVE,
        400,
        'invalid_args',
      ],
      ['arguments that are not an object', { digest, args: [changed] }, DAVE, 400, 'invalid_amend'],
      [
        'a reason of two lines',
        { digest, args: changed, reason: 'a\nb' },
        DAVE,
        400,
        'invalid_reason',
      ],
    ];
    for (const [what, body, who, status, code] of refusals) {
      const answer = await post(path, body, who);
      expect(answer.status, what).toBe(status);
      expect(await answer.json(), what).toMatchObject({ error: { code } });
    }
    const unknown = await post('/confirmations/conf_nope/amend', { digest, args: changed }, DAVE);
    expect(unknown.status).toBe(404);

    // Still waiting, and neither a rejection nor a proposal went out for it.
    const waiting = await h.gate.runtime.store.confirmations.readConfirmation('acme', id);
    expect(waiting?.state).toBe('waiting');
    expect(h.seen('approvals').filter((r) => r.value['confirmationId'] === id)).toEqual([]);
  });
});
