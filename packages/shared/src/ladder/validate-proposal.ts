/**
 * The validate group of rungs: authentication, representation, schema and semantics, with the
 * repair policy applied to whatever they refuse.
 */
import type { Principal } from '../types.js';
import { accept, rejecterFor, type Decision, type Rejected } from '../decision.js';
import { normalizeProposal, parseCall, type ParseLimits } from '../representation/index.js';
import { checkEnvelope } from '../representation/check-envelope.js';
import { checkSchema, checkSemantics, type ToolRegistry } from '../tools/index.js';
import { checkRepairBudget, planRepair } from '../repair/index.js';
import {
  refusal,
  type EnvelopeIds,
  type Refusal,
  type Step,
  type ValidatedProposal,
} from './validated.js';

const rejectRepresentation = rejecterFor('representation');

/** The facts the validate group needs. */
export interface ValidateFacts {
  readonly registry: ToolRegistry;
  readonly limits: ParseLimits;
  readonly repairBudget: number;
}

/**
 * Reads only the ids of a proposal envelope, so that even a proposal refused before it is
 * decoded gets its terminal answer under the right id.
 */
export function envelopeIds(input: unknown): Decision<EnvelopeIds, 'representation'> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return rejectRepresentation('invalid_proposal', undefined, 'proposal is not a JSON object');
  }
  const o = input as Record<string, unknown>;
  const missing = ['proposalId', 'runId', 'requestId'].filter(
    (k) => typeof o[k] !== 'string' || o[k] === '',
  );
  if (missing.length > 0) {
    return rejectRepresentation(
      'invalid_proposal',
      undefined,
      `missing or empty: ${missing.join(', ')}`,
    );
  }
  return accept({
    proposalId: o['proposalId'] as string,
    runId: o['runId'] as string,
    requestId: o['requestId'] as string,
  });
}

/**
 * Validates one proposal of an authenticated principal. The session has already been verified:
 * nothing is said about the proposal to a caller who is not signed in.
 */
export function validateProposal(
  input: unknown,
  principal: Principal,
  facts: ValidateFacts,
): Step<ValidatedProposal> {
  const normalized = normalizeProposal(input, facts.limits);
  if (!normalized.ok) return refuseUnread(input, normalized, facts.repairBudget);
  const { proposal, call } = normalized.value;
  const attempt = proposal.attempt ?? 0;
  const budget = checkRepairBudget(attempt, facts.repairBudget);
  if (!budget.ok) return refusal(budget);
  const parsed = parseCall(call, facts.limits);
  if (!parsed.ok) return refuse(parsed, attempt, facts.repairBudget);
  const checked = checkSchema(parsed.value, facts.registry);
  if (!checked.ok) return refuse(checked, attempt, facts.repairBudget);
  const meaningful = checkSemantics(checked.value);
  if (!meaningful.ok) return refuse(meaningful, attempt, facts.repairBudget);
  const { tool, args, callId, repaired } = meaningful.value;
  return accept({
    proposalId: proposal.proposalId,
    runId: proposal.runId,
    requestId: proposal.requestId,
    attempt,
    context: {
      ...principal,
      requestId: proposal.requestId,
      runId: proposal.runId,
      proposalId: proposal.proposalId,
      callId,
    },
    tool: tool.name,
    toolVersion: tool.spec.version,
    args,
    ...(repaired === undefined ? {} : { repaired }),
  });
}

/**
 * A refusal before the call was read (the envelope, or the format's normalizer, which parses the
 * bare action text). The budget still holds when the envelope could be read: otherwise a model
 * that keeps answering malformed action text would be offered a repair forever.
 */
function refuseUnread(input: unknown, rejected: Rejected, budget: number): Refusal {
  const envelope = checkEnvelope(input);
  const attempt = envelope.ok ? (envelope.value.attempt ?? 0) : 0;
  const spent = checkRepairBudget(attempt, budget);
  return spent.ok ? refuse(rejected, attempt, budget) : refusal(spent);
}

function refuse(rejected: Rejected, attempt: number, budget: number): Refusal {
  const plan = planRepair(rejected, attempt, budget);
  return plan.kind === 'repair'
    ? { ok: false, rejected: plan.rejected, repair: plan.repair }
    : refusal(plan.rejected);
}
