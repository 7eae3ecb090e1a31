/**
 * One approval event. First: did this very message take its confirmation on an earlier delivery
 * (whose transaction then failed)? Then nothing else can end the call, and this message finishes
 * it without judging its approver again (`finish`). Otherwise: verify the approver's session →
 * read the confirmation under the approver's tenant (another tenant's is not found) → authorize
 * the approver, re-authorize the requester's call against live objects and current policy,
 * rebuild the card → `decideApproval`. Only a final decision takes the confirmation (single use,
 * atomically, by this message's token): approve → the cleared envelope; a human reject (its
 * reason in the observation and the audit detail), a changed world or a call that no longer
 * authorizes → the call's terminal observation; each is recorded in the tenant's history first
 * (record-decided.ts).
 * Everything else (a bad token, a malformed approval, an approver who may not, a stale digest, a
 * second approval) is audited and changes nothing: the confirmation keeps waiting for someone
 * who may decide it.
 */
import {
  auditEvent,
  auditFactsOf,
  auditFactsOfPending,
  claimedPrincipal,
  clearedEnvelope,
  decideApproval,
  decideTakenApproval,
  namedConfirmationId,
  observationForRefusal,
  parseApproval,
  reauthorizeForApproval,
  refusal,
  refuseUnavailableConfirmation,
  rejecterFor,
  SESSION_HEADER,
  type Approval,
  type AuditFacts,
  type FinalApprovalAction,
  type PendingConfirmation,
  type Principal,
  type Refusal,
} from '@toolgate/shared';
import {
  errorText,
  type Incoming,
  isRetriable,
  type MessageOrigin,
  originOf,
  type Outgoing,
  sourceOf,
  type StageDepsWith,
} from '@toolgate/platform';
import { approverFacts, liveCallFacts } from './approver-facts.js';
import { messageToken } from './message-token.js';
import { recordApprovalEnd } from './record-decided.js';

const rejectConfirmation = rejecterFor('confirmation');
const rejectExecution = rejecterFor('execution');

/** Handles one message of the approvals topic. */
export function createApprovalHandler(
  deps: StageDepsWith<'confirmations'>,
): (msg: Incoming) => Promise<readonly Outgoing[]> {
  const { gate, outputs, metrics, confirmations, logger } = deps;
  const ladder = { registry: gate.registry, policies: gate.policies, ceilings: gate.ceilings };

  /** Audit only: the refusal ends nothing, so no observation goes out with it. */
  const audited = (r: Refusal, facts: AuditFacts, now: Date): Outgoing[] => {
    metrics.decision(r.rejected);
    const event = { kind: 'rejected', rejected: r.rejected, answered: false, ...facts } as const;
    return [outputs.audit(auditEvent(event, now))];
  };

  /** The approver's session and a well-formed approval, or the audit of why not. */
  const read = async (msg: Incoming, now: Date) => {
    const origin = originOf(msg);
    const named = msg.decodeError === undefined ? namedConfirmationId(msg.value) : undefined;
    const principal = await gate.verifier.verify(msg.headers[SESSION_HEADER], now);
    if (!principal.ok) {
      return audited(refusal(principal), { confirmationId: named, ...origin }, now);
    }
    const approver = principal.value;
    const parsed =
      msg.decodeError === undefined
        ? parseApproval(msg.value)
        : rejectConfirmation('invalid_approval', undefined, msg.decodeError);
    if (parsed.ok) return { approver, approval: parsed.value };
    const found =
      named === undefined
        ? undefined
        : await confirmations.readConfirmation(approver.tenant, named);
    return audited(refusal(parsed), factsOf(approver, named, found?.pending, origin), now);
  };

  /** The waiting confirmation an approval names, or the audit of why there is none. */
  const find = async (msg: Incoming, approver: Principal, approval: Approval, now: Date) => {
    const id = approval.confirmationId;
    const found = await confirmations.readConfirmation(approver.tenant, id);
    if (found?.state === 'waiting') return found.pending;
    const r = refuseUnavailableConfirmation(id, approver.tenant, found?.state);
    return audited(r, factsOf(approver, id, found?.pending, originOf(msg)), now);
  };

  /**
   * The confirmation this very message took on an earlier delivery, with its approval and the
   * approver its token names; undefined for any other message, and for a first delivery.
   */
  const takenBefore = async (msg: Incoming): Promise<Taken | undefined> => {
    const parsed = msg.decodeError === undefined ? parseApproval(msg.value) : undefined;
    // Unverified on purpose: the token only says where to look. What shows that a delivery of
    // this message passed every check is the take by its token, which no other message has.
    const approver = claimedPrincipal(msg.headers[SESSION_HEADER]);
    if (parsed?.ok !== true || approver === undefined) return undefined;
    const approval = parsed.value;
    const found = await confirmations.readConfirmation(approver.tenant, approval.confirmationId);
    // Only a taken one is asked for by token: asking for a waiting one would take it.
    if (found?.state !== 'taken') return undefined;
    const token = messageToken(msg);
    const pending = await confirmations.takeConfirmation(
      approver.tenant,
      approval.confirmationId,
      token,
    );
    return pending === undefined ? undefined : { pending, approver, approval };
  };

  /** `decideTakenApproval` on the live call of a confirmation this message took. */
  const decideTaken = async ({ pending, approver, approval }: Taken, now: Date) => {
    const facts = await liveCallFacts(deps, pending);
    const live = facts.ok
      ? reauthorizeForApproval(facts.call, facts.tool, facts.loaded, ladder)
      : facts;
    const { decision, digest: approvalDigest, reason } = approval;
    return decideTakenApproval({ pending, decision, approvalDigest, reason, approver, live, now });
  };

  /**
   * Ends the call this message took, as `decideTakenApproval` says: the approver's session,
   * permission and timing were judged when it took, and judging them again with a later clock or
   * rotated keys would leave the call taken with nothing to end it. For the same reason a fault
   * that delivering again will not cure ends the call here, with `internal_error`: the stage
   * loop's fatal path cannot name the call of an approval.
   */
  const finish = async (msg: Incoming, taken: Taken, now: Date) => {
    const { pending, approver, approval } = taken;
    const about = factsOf(approver, pending.confirmationId, pending, originOf(msg));
    const action = await decideTaken(taken, now).catch((error: unknown) => {
      if (isRetriable(error)) throw error;
      logger.error(
        { err: error, confirmationId: pending.confirmationId, ...sourceOf(msg) },
        'finishing a taken confirmation failed; ending its call with internal_error',
      );
      return internalError(error);
    });
    return settle(msg, action, pending, { approver, approval, about, now });
  };

  /** Takes the confirmation for a final decision and publishes what it says. */
  const settle = async (
    msg: Incoming,
    decision: FinalApprovalAction,
    pending: PendingConfirmation,
    ctx: Ctx,
  ) => {
    const { approver, approval, about, now } = ctx;
    const mine = await confirmations.takeConfirmation(
      pending.tenant,
      pending.confirmationId,
      messageToken(msg),
    );
    // Lost the take: another approval or the expiry sweeper decided first.
    if (mine === undefined) {
      const late = refuseUnavailableConfirmation(pending.confirmationId, pending.tenant, 'gone');
      return audited(late, about, now);
    }
    const recorded = { approval, approver: approver.subject, now };
    const action = await recordApprovalEnd(confirmations, pending, decision, recorded);
    if (action.act === 'end') {
      const { rejected } = action.refusal;
      metrics.decision(rejected);
      return [
        ...outputs.observation(
          observationForRefusal(idsOf(pending), action.refusal, now),
          pending.tenant,
        ),
        outputs.audit(auditEvent({ kind: 'rejected', rejected, ...about }, now)),
      ];
    }
    metrics.decision({ disposition: 'execute', stage: 'confirmation' });
    const cleared = clearedEnvelope(action.call, pending.receivedAt, action.confirmed);
    const facts = { ...auditFactsOf(cleared), confirmationId: pending.confirmationId };
    const decided = { decidedBy: approver.subject, ...originOf(msg) };
    return [
      outputs.envelope('cleared', cleared.runId, cleared, now),
      outputs.audit(auditEvent({ kind: 'cleared', ...facts, ...decided }, now)),
    ];
  };

  return async (msg) => {
    const now = deps.now();
    const taken = await takenBefore(msg);
    if (taken !== undefined) return finish(msg, taken, now);
    const given = await read(msg, now);
    if (Array.isArray(given)) return given;
    const { approver, approval } = given;
    const pending = await find(msg, approver, approval, now);
    if (Array.isArray(pending)) return pending;
    const about = factsOf(approver, pending.confirmationId, pending, originOf(msg));
    const facts = await approverFacts(deps, pending, approver);
    // A tool this instance does not have (a deploy under way) decides nothing: audit and wait.
    if (!facts.ok) return audited(facts, about, now);
    const { call, tool, loaded, approverAuthorized } = facts;
    const live = reauthorizeForApproval(call, tool, loaded, ladder);
    const { decision, digest: approvalDigest, reason } = approval;
    const check = {
      pending,
      decision,
      approvalDigest,
      reason,
      approver,
      approverAuthorized,
      live,
      now,
    };
    const action = decideApproval(check);
    if (action.act === 'keep') return audited(action.refusal, about, now);
    return settle(msg, action, pending, { approver, approval, about, now });
  };
}

/** A confirmation this very message took before, with its approval and who gave it. */
interface Taken {
  readonly pending: PendingConfirmation;
  readonly approver: Principal;
  readonly approval: Approval;
}

interface Ctx {
  readonly approver: Principal;
  readonly approval: Approval;
  readonly about: AuditFacts;
  readonly now: Date;
}

/** Audit facts of an approval: the pending call's when it is known, with who decided. */
function factsOf(
  approver: Principal,
  confirmationId: string | undefined,
  pending: PendingConfirmation | undefined,
  origin: MessageOrigin,
): AuditFacts {
  const base =
    pending === undefined
      ? { tenant: approver.tenant, confirmationId }
      : auditFactsOfPending(pending);
  return { ...base, decidedBy: approver.subject, ...origin };
}

/** The end of a call whose finishing failed for good; the error goes to the audit detail. */
function internalError(error: unknown): FinalApprovalAction {
  const detail = errorText(error);
  const rejected = rejectExecution('internal_error', undefined, `confirm: ${detail}`);
  return { act: 'end', refusal: refusal(rejected) };
}

function idsOf(p: PendingConfirmation) {
  return { proposalId: p.proposalId, runId: p.runId, requestId: p.requestId, callId: p.callId };
}
