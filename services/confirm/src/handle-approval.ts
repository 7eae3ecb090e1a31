/**
 * One approval event: verify the approver's session → read the confirmation under the
 * approver's tenant (another tenant's is not found) → authorize the approver, re-authorize the
 * requester's call against live objects and current policy, rebuild the card → `decideApproval`.
 * Only a final decision takes the confirmation (single use, atomically, by this message's
 * coordinates): approve → the cleared envelope; a human reject, a changed world or a call that no
 * longer authorizes → the call's terminal observation. Everything else (a bad token, a malformed
 * approval, an approver who may not, a stale digest, a second approval) is audited and changes
 * nothing: the confirmation keeps waiting for someone who may decide it.
 */
import {
  auditEvent,
  auditFactsOf,
  auditFactsOfPending,
  clearedEnvelope,
  decideApproval,
  namedConfirmationId,
  observationForRefusal,
  parseApproval,
  reauthorizeForApproval,
  refusal,
  refuseUnavailableConfirmation,
  rejecterFor,
  SESSION_HEADER,
  type Approval,
  type ApprovalAction,
  type AuditFacts,
  type PendingConfirmation,
  type Principal,
  type Refusal,
} from '@toolgate/shared';
import type { Incoming, Outgoing, StageDeps } from '@toolgate/platform';
import { approverFacts } from './approver-facts.js';
import { messageToken, sourceOf } from './message-token.js';

const rejectConfirmation = rejecterFor('confirmation');

/** Handles one message of the approvals topic. */
export function createApprovalHandler(
  deps: StageDeps,
): (msg: Incoming) => Promise<readonly Outgoing[]> {
  const { gate, outputs, metrics, store } = deps;

  /** Audit only: the refusal ends nothing, so no observation goes out with it. */
  const audited = (r: Refusal, facts: AuditFacts, now: Date): Outgoing[] => {
    metrics.decision(r.rejected);
    const event = { kind: 'rejected', rejected: r.rejected, answered: false, ...facts } as const;
    return [outputs.audit(auditEvent(event, now))];
  };

  /** The approver's session and a well-formed approval, or the audit of why not. */
  const read = async (msg: Incoming, now: Date) => {
    const source = sourceOf(msg);
    const named = msg.decodeError === undefined ? namedConfirmationId(msg.value) : undefined;
    const principal = await gate.verifier.verify(msg.headers[SESSION_HEADER], now);
    if (!principal.ok) {
      return audited(refusal(principal), { confirmationId: named, source }, now);
    }
    const approver = principal.value;
    const parsed =
      msg.decodeError === undefined
        ? parseApproval(msg.value)
        : rejectConfirmation('invalid_approval', undefined, msg.decodeError);
    if (parsed.ok) return { approver, approval: parsed.value };
    const found =
      named === undefined ? undefined : await store.readConfirmation(approver.tenant, named);
    return audited(refusal(parsed), factsOf(approver, named, found?.pending, source), now);
  };

  /** The waiting confirmation an approval names (`taken` when this message took it before). */
  const find = async (msg: Incoming, approver: Principal, approval: Approval, now: Date) => {
    const id = approval.confirmationId;
    const found = await store.readConfirmation(approver.tenant, id);
    if (found?.state === 'waiting') return { pending: found.pending, taken: false };
    // A redelivery of the approval that took it gets it again, by the same token; no one else.
    const mine =
      found?.state === 'taken'
        ? await store.takeConfirmation(approver.tenant, id, messageToken(msg))
        : undefined;
    if (mine !== undefined) return { pending: mine, taken: true };
    const r = refuseUnavailableConfirmation(id, approver.tenant, found?.state);
    return audited(r, factsOf(approver, id, found?.pending, sourceOf(msg)), now);
  };

  /** The live call and the approver's permission, for `decideApproval`. */
  const liveFacts = async (pending: PendingConfirmation, approver: Principal) => {
    const facts = await approverFacts(deps, pending, approver);
    if (!facts.ok) return facts;
    const { call, tool, loaded, approverAuthorized } = facts;
    const ladder = { registry: gate.registry, policies: gate.policies, ceilings: gate.ceilings };
    return {
      ok: true as const,
      live: reauthorizeForApproval(call, tool, loaded, ladder),
      approverAuthorized,
    };
  };

  /** Takes the confirmation for a final decision and publishes what it says. */
  const settle = async (msg: Incoming, action: Final, pending: PendingConfirmation, ctx: Ctx) => {
    const { approver, about, now } = ctx;
    const mine = await store.takeConfirmation(
      pending.tenant,
      pending.confirmationId,
      messageToken(msg),
    );
    // Lost the take: another approval or the expiry sweeper decided first.
    if (mine === undefined) {
      const late = refuseUnavailableConfirmation(pending.confirmationId, pending.tenant, 'gone');
      return audited(late, about, now);
    }
    if (action.act === 'end') {
      const { rejected } = action.refusal;
      metrics.decision(rejected);
      return [
        outputs.observation(observationForRefusal(idsOf(pending), action.refusal, now)),
        outputs.audit(auditEvent({ kind: 'rejected', rejected, ...about }, now)),
      ];
    }
    metrics.decision({ disposition: 'execute', stage: 'confirmation' });
    const cleared = clearedEnvelope(action.call, pending.receivedAt, action.confirmed);
    const facts = { ...auditFactsOf(cleared), confirmationId: pending.confirmationId };
    const decided = { decidedBy: approver.subject, source: about.source };
    return [
      outputs.envelope('cleared', cleared.runId, cleared),
      outputs.audit(auditEvent({ kind: 'cleared', ...facts, ...decided }, now)),
    ];
  };

  return async (msg) => {
    const now = deps.now();
    const given = await read(msg, now);
    if (Array.isArray(given)) return given;
    const { approver, approval } = given;
    const found = await find(msg, approver, approval, now);
    if (Array.isArray(found)) return found;
    const { pending, taken } = found;
    const about = factsOf(approver, pending.confirmationId, pending, sourceOf(msg));
    const facts = await liveFacts(pending, approver);
    if (!facts.ok) {
      // A tool this instance does not have (a deploy under way) decides nothing: audit and wait,
      // unless this approval already took the confirmation and nothing else can end the call.
      const ctx = { approver, about, now };
      return taken
        ? settle(msg, { act: 'end', refusal: facts }, pending, ctx)
        : audited(facts, about, now);
    }
    const { live, approverAuthorized } = facts;
    const { decision, digest: approvalDigest } = approval;
    const check = { pending, decision, approvalDigest, approver, approverAuthorized, live, now };
    const action = decideApproval({ ...check, taken });
    if (action.act === 'keep') return audited(action.refusal, about, now);
    return settle(msg, action, pending, { approver, about, now });
  };
}

type Final = Exclude<ApprovalAction, { act: 'keep' }>;

interface Ctx {
  readonly approver: Principal;
  readonly about: AuditFacts;
  readonly now: Date;
}

/** Audit facts of an approval: the pending call's when it is known, with who decided. */
function factsOf(
  approver: Principal,
  confirmationId: string | undefined,
  pending: PendingConfirmation | undefined,
  source: AuditFacts['source'],
): AuditFacts {
  const base =
    pending === undefined
      ? { tenant: approver.tenant, confirmationId }
      : auditFactsOfPending(pending);
  return { ...base, decidedBy: approver.subject, source };
}

function idsOf(p: PendingConfirmation) {
  return { proposalId: p.proposalId, runId: p.runId, requestId: p.requestId, callId: p.callId };
}
