import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  numberAttribute,
  REASON_RULE,
  resolvedObject,
  type PendingView,
  type Principal,
} from '@toolgate/shared';
import deployment, { NEVER_PUBLIC, USERS } from '../../../test/support/deployment/index.js';
import { refund as refundTool } from '../../../test/support/deployment/tools.js';
import { startGateHarness, type GateHarness } from '../../../test/support/gate-harness.js';
import { expectNoLeak } from '../../../test/support/no-leak.js';
import { mcp } from '../../../test/support/proposals.js';
import {
  approvalApi,
  bearerOf,
  parked,
  refund,
  rejectionOf,
} from './confirm-fixtures.test-support.js';
import * as confirm from './service.js';

/** Four eyes for destructive calls only, so one deployment shows a card with and one without. */
const fourEyesForDestructive = {
  name: 'four-eyes.cedar',
  text: [
    '@id("four-eyes-destructive")',
    'forbid (principal, action == Toolgate::Action::"approve", resource)',
    'when { context.requester == principal && context.sideEffect == "destructive" };',
  ].join('\n'),
};

const REFUND_RULE = 'Refunds go back to the customer, so a second person approves each one.';

/** The tests' refund tool, with its rule and the change it makes to the payment. */
const refundWithChanges = {
  ...refundTool,
  confirmationRule: REFUND_RULE,
  card: (...given: Parameters<NonNullable<typeof refundTool.card>>) => {
    const [args, objects] = given;
    const refunded = numberAttribute(resolvedObject(objects, args.payment_id), 'refunded');
    const change = {
      field: 'refunded',
      before: String(refunded),
      after: String(refunded + args.amount),
    };
    return { ...refundTool.card!(...given), changes: [change] };
  },
};

/** A second approver of acme's, who may approve alice's refunds. */
const ruth: Principal = { subject: 'ruth', tenant: 'acme', roles: ['approver'] };

const publishNote = (proposalId: string) =>
  mcp({ proposalId, runId: `run-${proposalId}` }, 'publish_note', { note_id: 'note_1' });

describe('the approval API’s views of waiting confirmations', () => {
  let h: GateHarness;
  beforeAll(async () => {
    h = await startGateHarness({
      label: 'confirm-views',
      modules: [confirm],
      tap: ['observations', 'audit', 'confirmations', 'approvals'],
      deployment: {
        ...deployment,
        tools: deployment.tools.map((t) => (t.name === 'refund' ? refundWithChanges : t)),
        policies: [...deployment.policies, fourEyesForDestructive],
      },
    });
  });
  afterAll(() => h?.close());

  /** `GET /pending` as `who`: the view of `id`, or undefined when it is not shown to them. */
  async function viewOf(who: Principal, id: string): Promise<PendingView | undefined> {
    const response = await fetch(approvalApi(h, '/pending'), { headers: await bearerOf(h, who) });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { tenant: string; confirmations: PendingView[] };
    expect(body.tenant).toBe(who.tenant);
    return body.confirmations.find((c) => c.confirmationId === id);
  }

  const reject = async (who: Principal, id: string, body: unknown) =>
    fetch(approvalApi(h, `/confirmations/${id}/reject`), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(await bearerOf(h, who)) },
      body: JSON.stringify(body),
    });

  it('shows an approver the arguments, the rule, the changes and the call as it would run', async () => {
    const { env, request, id } = await parked(h, refund('p-view'));
    const view = await viewOf(ruth, id);
    expect(view).toMatchObject({
      confirmationId: id,
      requestedBy: 'alice',
      tool: 'refund',
      card: request.value['card'] as object,
      digest: request.value['digest'] as string,
      args: { payment_id: 'pay_1', amount: 500 },
      rule: REFUND_RULE,
      policyVersion: env.policyVersion,
      fourEyes: true,
      caller: { mayDecide: true, isRequester: false },
      live: { state: 'same', digest: request.value['digest'] as string },
    });
    expect(view?.card.changes).toEqual([{ field: 'refunded', before: '0', after: '500' }]);
    expect(request.value['card']).toMatchObject({ changes: view?.card.changes });

    // Alice asked for it but may not approve her own refund here; a viewer sees no card at all.
    expect(await viewOf(USERS.alice, id)).toMatchObject({
      fourEyes: true,
      caller: { mayDecide: false, isRequester: true },
    });
    expect(await viewOf(USERS.bob, id)).toBeUndefined();
    expect(await viewOf(USERS.carol, id)).toBeUndefined();
  });

  it('says four eyes only where policy refuses the requester, and the default rule of a tool that gives none', async () => {
    const { id } = await parked(h, publishNote('p-note-view'));
    expect(await viewOf(USERS.alice, id)).toMatchObject({
      rule: 'This tool asks a person before it runs.',
      fourEyes: false,
      caller: { mayDecide: true, isRequester: true },
      live: { state: 'same' },
    });
  });

  it('tells a requester whose roles changed since that they may no longer decide', async () => {
    const { id } = await parked(h, publishNote('p-demoted'));
    const demoted: Principal = { ...USERS.alice, roles: ['viewer'] };
    expect(await viewOf(demoted, id)).toMatchObject({
      fourEyes: false,
      caller: { mayDecide: false, isRequester: true },
    });
  });

  it('shows the call as changed, with the digest an approval would need, once its object moved', async () => {
    const { request, id } = await parked(h, refund('p-moved', 700));
    const payment = { type: 'Payment', id: 'pay_1' };
    const before = await h.gate.runtime.objects.load('acme', payment);
    try {
      const edited = await h.gate.runtime.objects.compareAndSet(payment, 'acme', before!.version, {
        ...before!.attributes,
        refunded: 1_000,
      });
      expect(edited).not.toBe('conflict');
      const view = await viewOf(ruth, id);
      expect(view?.digest).toBe(request.value['digest']);
      expect(view?.card).toEqual(request.value['card']);
      const live = view?.live;
      if (live?.state !== 'changed') throw new Error(`expected a changed call, got ${live?.state}`);
      expect(live.digest).toMatch(/^[0-9a-f]{64}$/);
      expect(live.digest).not.toBe(request.value['digest']);
      expect(live.card.changes).toEqual([{ field: 'refunded', before: '1000', after: '1700' }]);
    } finally {
      await h.gate.runtime.objects.put(before!);
    }
    expect((await viewOf(ruth, id))?.live).toMatchObject({ state: 'same' });
  });

  it("gives the agent a rejecter's reason in the rejection's observation and the audit", async () => {
    const { digest, id } = await parked(h, refund('p-why'));
    const answer = await reject(ruth, id, {
      digest,
      reason: '  Refund only 200: the customer kept one item.  ',
    });
    expect(answer.status).toBe(202);
    const [approval] = await h.waitFor('approvals', 'the rejection', (r) => r.key === id);
    expect(approval!.value).toEqual({
      confirmationId: id,
      decision: 'reject',
      digest,
      reason: 'Refund only 200: the customer kept one item.',
    });
    const ended = await rejectionOf(h, 'p-why');
    expect(ended.value).toMatchObject({
      stage: 'confirmation',
      code: 'rejected_by_human',
      disposition: 'deny',
      message: 'A person rejected this call: Refund only 200: the customer kept one item.',
    });
    expectNoLeak(ended.value, NEVER_PUBLIC);
    const [audit] = await h.waitFor(
      'audit',
      'the audit of the rejection of p-why',
      (r) => r.value['confirmationId'] === id && r.value['decidedBy'] === 'ruth',
    );
    expect(audit!.value).toMatchObject({ kind: 'rejected', code: 'rejected_by_human' });
    expect(audit!.value['internalDetail']).toContain(
      '"Refund only 200: the customer kept one item."',
    );
    expect(await viewOf(ruth, id)).toBeUndefined();
  });

  it('refuses a reason it cannot pass on, naming it, and publishes nothing', async () => {
    const { digest, id } = await parked(h, refund('p-bad-why'));
    for (const reason of ['', 'line one\nline two', 'x'.repeat(281), 42]) {
      const answer = await reject(ruth, id, { digest, reason });
      expect(answer.status).toBe(400);
      expect(await answer.json()).toEqual({
        error: { code: 'invalid_approval', message: REASON_RULE },
      });
    }
    // Still waiting, and decided by the next well-formed rejection alone.
    expect((await viewOf(ruth, id))?.live).toMatchObject({ state: 'same' });
    expect((await reject(ruth, id, { digest })).status).toBe(202);
    await h.waitFor('approvals', 'the well-formed rejection', (r) => r.key === id);
    expect(h.seen('approvals').filter((r) => r.key === id)).toHaveLength(1);
  });
});
