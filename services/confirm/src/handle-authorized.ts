/**
 * One authorized envelope: integrity → tool → confirmation plan. No person needed → the cleared
 * envelope. Needed → check the confirmation request the card makes (a card the confirmations
 * topic cannot carry refuses the call with `invalid_card`), park the pending confirmation (with
 * the tool's rule, why it waits) in
 * Redis (once per message, by its token), then publish the confirmation request (keyed by
 * tenant), the non-terminal `pending_confirmation` observation and its audit event. Another call
 * under a proposalId whose confirmation is parked is refused (`proposal_reused`). The stage
 * never waits for the person: approvals arrive later as events.
 */
import {
  auditEvent,
  auditFactsOf,
  checkConfirmationRequest,
  checkParkedCall,
  clearedEnvelope,
  confirmationRequest,
  confirmationRuleOf,
  DEFAULT_CONFIRMATION_TTL_SECONDS,
  observationForPending,
  observationForRefusal,
  pendingConfirmationFor,
  planConfirmation,
  refusal,
  toolOf,
  type AuthorizedEnvelope,
  type MessageChecker,
  type Refusal,
} from '@toolgate/shared';
import {
  ENVELOPE_LIMITS,
  type Incoming,
  originOf,
  type Outgoing,
  refuseForged,
  sourceOf,
  type StageDepsWith,
} from '@toolgate/platform';
import { messageToken } from './message-token.js';

/**
 * Handles one message of the authorized topic; `check` validates messages against their topic's
 * schema (one `createMessageChecker()` per process).
 */
export function createAuthorizedHandler(
  deps: StageDepsWith<'confirmations'>,
  check: MessageChecker,
): (msg: Incoming) => Promise<readonly Outgoing[]> {
  const { gate, outputs, metrics, confirmations, logger } = deps;
  const ttlSeconds = deps.deployment.confirmationTtlSeconds ?? DEFAULT_CONFIRMATION_TTL_SECONDS;
  return async (msg) => {
    const now = deps.now();
    const forged = refuseForged(msg, deps, now);
    if (forged !== undefined) return forged;
    // The tag verifies, so the gate wrote this value, checked against the topic's closed schema.
    const a = msg.value as AuthorizedEnvelope;
    const tool = toolOf(a, gate.registry);
    if (!tool.ok) return refused(a, tool);
    const plan = planConfirmation(a, tool.value);
    if (!plan.needed) {
      metrics.decision({ disposition: 'execute', stage: 'confirmation' });
      return [outputs.envelope('cleared', a.runId, clearedEnvelope(a, a.receivedAt), now)];
    }
    const rule = confirmationRuleOf(tool.value.spec);
    const pending = pendingConfirmationFor(a, { ...plan, rule }, now, ttlSeconds);
    // Before parking: a parked confirmation is listed and can be approved and run, so a request
    // the codec would refuse when the outputs are encoded must refuse the call here instead. The
    // codec reads back within ENVELOPE_LIMITS, its default, which the gate runtime keeps.
    const request = checkConfirmationRequest(confirmationRequest(pending), check, ENVELOPE_LIMITS);
    if (!request.ok) return refused(a, refusal(request));
    const outcome = await confirmations.parkConfirmation(
      pending,
      ttlSeconds * 1000,
      messageToken(msg),
    );
    if ('standing' in outcome) {
      // Another message parked one under this proposal's id (the same call sent twice), or it
      // was already decided: the request and the observation went out with that message. Unless
      // that message was another call under a reused proposalId, which must not go unanswered.
      const same = checkParkedCall(outcome.standing, pending);
      if (!same.ok) return refused(a, refusal(same));
      logger.info(
        { confirmationId: pending.confirmationId, proposalId: a.proposalId, ...sourceOf(msg) },
        'confirmation already parked by another message; nothing to publish',
      );
      return [];
    }
    const parked = outcome.publish;
    metrics.decision({ disposition: 'confirm', stage: 'confirmation', code: 'pending' });
    const facts = { ...auditFactsOf(a), confirmationId: parked.confirmationId };
    return [
      outputs.confirmationRequest(parked.tenant, confirmationRequest(parked)),
      ...outputs.observation(observationForPending(idsOf(a), parked, now), parked.tenant),
      outputs.audit(auditEvent({ kind: 'pending_confirmation', ...facts, ...originOf(msg) }, now)),
    ];

    function refused(at: AuthorizedEnvelope, r: Refusal): Outgoing[] {
      metrics.decision(r.rejected);
      const about = { ...auditFactsOf(at), ...originOf(msg) };
      return [
        ...outputs.observation(observationForRefusal(idsOf(at), r, now), at.context.tenant),
        outputs.audit(auditEvent({ kind: 'rejected', rejected: r.rejected, ...about }, now)),
      ];
    }
  };
}

function idsOf(a: AuthorizedEnvelope) {
  return {
    proposalId: a.proposalId,
    runId: a.runId,
    requestId: a.requestId,
    callId: a.context.callId,
  };
}
