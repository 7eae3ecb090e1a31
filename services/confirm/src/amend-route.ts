/**
 * `POST /confirmations/:id/amend` with `{digest, args, reason?}`: approve with changes. The caller
 * must be signed in, allowed by policy to decide the confirmation (as `GET /pending` asks) and
 * name the digest of the card that waits. Then one Kafka transaction carries both halves: a new
 * proposal of the same tool with `args`, on the same run, proposed under the caller's own session
 * (so it is authorized as them and waits for its own approval: a four-eyes policy keeps them from
 * approving their own change), and the rejection of the original, whose agent is told who changed
 * the call and which proposal carries it. The change is never applied to a digest someone
 * approved: it is always a new proposal, answered once however often it is sent (its id derives
 * from the confirmation and the arguments).
 *
 * The run is the original's: the gate binds no run to the subject who first proposed in it (the
 * run's counters are kept per tenant and run), so the changed call is one more call of the run,
 * within its limits, and its agent reads its answers where it reads the original's.
 */
import {
  errorResponse,
  route,
  type HttpResponse,
  type Outgoing,
  type Route,
  type StageDepsWith,
} from '@toolgate/platform';
import {
  amendedProposal,
  amendedProposalId,
  amendReason,
  approval,
  changesArguments,
  checkSchema,
  MAX_REJECTION_REASON_CHARS,
  readAmendBody,
  SESSION_HEADER,
  type AmendAnswer,
  type AmendBody,
  type PendingConfirmation,
} from '@toolgate/shared';
import { approverFacts } from './approver-facts.js';
import { signedIn, type SignedIn } from './signed-in.js';

/** The approval API's amend route; `produce` writes in one Kafka transaction. */
export function amendRoute(
  deps: StageDepsWith<'confirmations'>,
  produce: (outgoing: readonly Outgoing[]) => Promise<void>,
): Route {
  return route('POST', '/confirmations/:id/amend', async (request) => {
    const caller = await signedIn(deps, request.headers);
    if ('status' in caller) return caller;
    const body = readAmendBody(request.body);
    if (!body.ok) return errorResponse(400, body.code, body.message);
    const pending = await decidable(deps, caller, request.params['id'] ?? '');
    if ('status' in pending) return pending;
    const refusal = argsRefusal(deps, pending, body.value);
    if (refusal !== undefined) return refusal;
    return amend(deps, produce, caller, pending, body.value);
  });
}

/**
 * The waiting confirmation the caller may decide, or the answer why not. One the caller may not
 * decide answers as one that does not exist, so that it tells them nothing.
 */
async function decidable(
  deps: StageDepsWith<'confirmations'>,
  caller: SignedIn,
  id: string,
): Promise<PendingConfirmation | HttpResponse> {
  const found = await deps.confirmations.readConfirmation(caller.principal.tenant, id);
  const facts =
    found === undefined ? undefined : await approverFacts(deps, found.pending, caller.principal);
  if (found === undefined || facts?.ok !== true || !facts.approverAuthorized.ok) {
    return errorResponse(
      404,
      'not_found',
      'There is no confirmation with this id that you may decide.',
    );
  }
  const expired = Date.parse(found.pending.expiresAt) <= deps.now().getTime();
  if (found.state !== 'waiting' || expired) {
    return errorResponse(
      409,
      'already_decided',
      'This confirmation was already decided or has expired.',
    );
  }
  return found.pending;
}

/** Why `body` cannot replace the waiting call, or undefined when it can. */
function argsRefusal(
  deps: StageDepsWith<'confirmations'>,
  pending: PendingConfirmation,
  body: AmendBody,
): HttpResponse | undefined {
  if (body.digest !== pending.digest) {
    return errorResponse(409, 'content_changed', 'The card changed since you saw it; look again.');
  }
  if (!changesArguments(pending, body.args)) {
    return errorResponse(
      400,
      'unchanged',
      'args are the arguments that wait; approve the card instead.',
    );
  }
  // The changed call climbs every rung; a schema refusal here saves rejecting the original for a
  // call that cannot even be read.
  const call = { callId: pending.callId, tool: pending.tool, args: body.args };
  const schema = checkSchema(call, deps.gate.registry);
  return schema.ok ? undefined : errorResponse(400, 'invalid_args', schema.publicMessage);
}

/** Publishes the changed call and the original's rejection, in one transaction, and answers 202. */
async function amend(
  deps: StageDepsWith<'confirmations'>,
  produce: (outgoing: readonly Outgoing[]) => Promise<void>,
  caller: SignedIn,
  pending: PendingConfirmation,
  body: AmendBody,
): Promise<HttpResponse> {
  const { subject } = caller.principal;
  const { confirmationId, tenant } = pending;
  const proposalId = amendedProposalId(confirmationId, body.args);
  const reason = amendReason(subject, proposalId, body.reason);
  if (reason === undefined) {
    const message = `reason is too long: with the note naming the new proposal, a rejection may say at most ${MAX_REJECTION_REASON_CHARS} characters.`;
    return errorResponse(400, 'invalid_reason', message);
  }
  const replacement = { proposalId, runId: pending.runId };
  // Kept before publishing: the rejection's consumer reads it to tell the agent and the history.
  await deps.confirmations.noteAmend(tenant, confirmationId, {
    by: subject,
    digest: body.digest,
    reason,
    replacedBy: replacement,
  });
  const headers = { [SESSION_HEADER]: caller.token };
  await produce([
    {
      topic: deps.outputs.topics.proposals,
      key: pending.runId,
      value: amendedProposal(pending, body.args, proposalId),
      headers,
    },
    {
      topic: deps.outputs.topics.approvals,
      key: confirmationId,
      value: { ...approval(confirmationId, 'reject', body.digest), reason },
      headers,
    },
  ]);
  const answer: AmendAnswer = { confirmationId, decision: 'reject', replacement };
  return { status: 202, body: answer };
}
