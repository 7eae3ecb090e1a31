/**
 * The audit facts of the values stages hold, so a stage writes
 * `auditEvent({ kind, ...auditFactsOf(envelope), ... }, now)` instead of copying fields by hand.
 */
import type { PendingConfirmation } from '../confirmation/index.js';
import type { ValidatedProposal } from '../ladder/index.js';
import type { Command } from '../types.js';
import type { AuditFacts } from './audit-event.js';
import type { ClearedEnvelope } from './stage-envelope.js';

/** What later stages add to a validated proposal. */
type Later = Partial<
  Pick<ClearedEnvelope, 'objects' | 'policyVersion' | 'confirmedBy' | 'confirmedAt'>
>;

/**
 * Facts of a validated, authorized or cleared proposal (envelope or core value): ids, the
 * requesting principal, tool and version, arguments, and, when present, objects, policy version
 * and who confirmed it.
 */
export function auditFactsOf(v: ValidatedProposal & Later): AuditFacts {
  return {
    proposalId: v.proposalId,
    runId: v.runId,
    requestId: v.requestId,
    callId: v.context.callId,
    subject: v.context.subject,
    tenant: v.context.tenant,
    tool: v.tool,
    toolVersion: v.toolVersion,
    args: v.args,
    objects: v.objects,
    policyVersion: v.policyVersion,
    confirmedBy: v.confirmedBy,
    confirmedAt: v.confirmedAt,
  };
}

/** Facts of a pending confirmation: the requester is the subject, the approver comes separately. */
export function auditFactsOfPending(p: PendingConfirmation): AuditFacts {
  return {
    proposalId: p.proposalId,
    runId: p.runId,
    requestId: p.requestId,
    callId: p.callId,
    subject: p.requestedBy,
    tenant: p.tenant,
    tool: p.tool,
    args: p.args,
    objects: p.objects,
    policyVersion: p.policyVersion,
    confirmationId: p.confirmationId,
  };
}

/** Facts of a command the execute stage issued (or finds pending when its result arrives). */
export function auditFactsOfCommand(c: Command): AuditFacts {
  return {
    proposalId: c.context.proposalId,
    runId: c.context.runId,
    requestId: c.context.requestId,
    callId: c.context.callId,
    subject: c.context.subject,
    tenant: c.context.tenant,
    tool: c.tool,
    toolVersion: c.toolVersion,
    args: c.args,
    objects: c.objects,
    confirmedBy: c.confirmedBy,
    idempotencyKey: c.idempotencyKey,
    commandId: c.commandId,
  };
}
