/**
 * The validate group of rungs: authentication, representation, schema and semantics, with the
 * repair policy applied to whatever they refuse.
 */
import type { Principal } from '../types.js';
import { accept, rejecterFor, type Decision, type Rejected } from '../decision.js';
import {
  hasLoneSurrogate,
  normalizeProposal,
  parseCall,
  parseJsonBounded,
  type ParseLimits,
} from '../representation/index.js';
import { checkEnvelope, ENVELOPE_ID_FIELDS } from '../representation/check-envelope.js';
import { checkSchema, checkSemantics, type ToolRegistry } from '../tools/index.js';
import { checkRepairBudget, type AnyRejected } from '../repair/index.js';
import {
  repairStep,
  UNKNOWN_TOOL_CHAIN,
  type CheckedProposal,
  type RefusedProposal,
} from './admit-proposal.js';
import type { EnvelopeIds, Step, ValidatedProposal } from './validated.js';

const rejectRepresentation = rejecterFor('representation');

/** The facts the validate group needs. */
export interface ValidateFacts {
  readonly registry: ToolRegistry;
  readonly limits: ParseLimits;
  readonly repairBudget: number;
}

/**
 * Longest id the gate answers under, in UTF-16 code units. A proposal may carry ids of at most
 * MAX_PROPOSAL_ID_CHARS and is refused with a longer one, but that refusal, like every message
 * about the call, repeats the ids: a record whose id is longer still is only quarantined and
 * audited, since an answer carrying it could outgrow a Kafka record (a half-megabyte `runId`, as
 * the observation's key and in its value, does).
 */
export const MAX_ANSWERED_ID_CHARS = 4096;

/**
 * Reads only the ids of a proposal envelope, so that even a proposal refused before it is
 * decoded gets its terminal answer under the right id: non-empty strings of at most
 * {@link MAX_ANSWERED_ID_CHARS}.
 */
export function envelopeIds(input: unknown): Decision<EnvelopeIds, 'representation'> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return rejectRepresentation('invalid_proposal', undefined, 'proposal is not a JSON object');
  }
  const o = input as Record<string, unknown>;
  const missing = ENVELOPE_ID_FIELDS.filter((k) => typeof o[k] !== 'string' || o[k] === '');
  if (missing.length > 0) {
    return rejectRepresentation(
      'invalid_proposal',
      undefined,
      `missing or empty: ${missing.join(', ')}`,
    );
  }
  const long = ENVELOPE_ID_FIELDS.filter((k) => (o[k] as string).length > MAX_ANSWERED_ID_CHARS);
  if (long.length > 0) {
    const sizes = long.map((k) => `${k} (${(o[k] as string).length})`).join(', ');
    return rejectRepresentation(
      'invalid_proposal',
      undefined,
      `longer than the ${MAX_ANSWERED_ID_CHARS} characters an answer may repeat: ${sizes}`,
    );
  }
  return accept({
    proposalId: o['proposalId'] as string,
    runId: o['runId'] as string,
    requestId: o['requestId'] as string,
  });
}

/** The answer owed to a proposal record the bounded parser refused as a whole. */
export interface UnparsedProposalRefusal {
  /** The record's ids, read by a lenient parse. */
  readonly ids: EnvelopeIds;
  /**
   * The bounded parser's refusal, before the repair policy: {@link admitProposal} applies it with
   * the gate's count of the run's repairs (the tool cannot be read: the unknown-tool chain).
   */
  readonly checked: RefusedProposal;
}

/**
 * The answer to a proposal record (`text`, the whole envelope) that the bounded parser refuses
 * within `facts.limits` (the envelope's ceilings) although it is JSON whose ids can be read: a
 * duplicate or reserved key, an escaped lone surrogate, an unrepresentable number or nesting too
 * deep, typically inside the call's `input` or `arguments` object. Without it the sender, whose
 * ids are plain to see, would never get its terminal observation. The refusal is the reader's code
 * at the representation rung; `attempt` is read as for any envelope, so the repair budget holds.
 *
 * Undefined (nothing to answer: the bytes are only quarantined) when the bounded parser accepts
 * the text, when it is over the byte ceiling (never read further), when a lenient `JSON.parse`
 * refuses it too (not JSON, or cut short), or when an id is missing, empty, longer than
 * {@link MAX_ANSWERED_ID_CHARS} or holds a lone surrogate (it could not be written back). Where
 * the text names an id twice, the last is read, as the sender's own JSON library would.
 */
export function refuseUnparsedProposal(
  text: string,
  facts: { readonly limits: ParseLimits; readonly repairBudget: number },
): UnparsedProposalRefusal | undefined {
  const strict = parseJsonBounded(text, facts.limits);
  if (strict.ok || strict.code === 'too_large') return undefined;
  const lenient = parseLeniently(text);
  if (lenient === undefined) return undefined;
  const ids = envelopeIds(lenient.value);
  if (!ids.ok || Object.values(ids.value).some(hasLoneSurrogate)) return undefined;
  return {
    ids: ids.value,
    checked: refuseUnread(lenient.value, recordRefusal(strict), facts.repairBudget),
  };
}

/** `JSON.parse`, which keeps `__proto__` as an own property and reads nesting without recursion. */
function parseLeniently(text: string): { readonly value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/**
 * The reader's refusal of the whole record. Its positions count characters of the record, not of
 * the arguments the model wrote, so the model is shown the catalogue's text instead, except for a
 * repeated key, whose message names only the field.
 */
function recordRefusal(strict: Rejected<'representation'>): Rejected<'representation'> {
  const publicMessage = strict.code === 'duplicate_key' ? strict.publicMessage : undefined;
  const detail = `the proposal record was refused as a whole: ${strict.internalDetail}`;
  return rejectRepresentation(strict.code, publicMessage, detail);
}

/**
 * Validates one proposal of an authenticated principal, with the repair policy applied as if no
 * repair of its call had been counted before (only its claimed `attempt`): the in-process ladder's
 * form. The stages check with {@link checkProposal} and admit with {@link admitProposal}, which
 * holds the repair budget by the gate's own count.
 */
export function validateProposal(
  input: unknown,
  principal: Principal,
  facts: ValidateFacts,
): Step<ValidatedProposal> {
  return repairStep(checkProposal(input, principal, facts), 0, facts.repairBudget);
}

/**
 * Climbs the validate group of rungs for one proposal of an authenticated principal, and says
 * which repair chain it belongs to; the refusal is the rung's own, before the repair policy. The
 * session has already been verified: nothing is said about the proposal to a caller who is not
 * signed in. A claimed `attempt` beyond the budget is refused `limits/repair_budget_exhausted`
 * before anything else is read.
 */
export function checkProposal(
  input: unknown,
  principal: Principal,
  facts: ValidateFacts,
): CheckedProposal {
  const normalized = normalizeProposal(input, facts.limits);
  if (!normalized.ok) return refuseUnread(input, normalized, facts.repairBudget);
  const { proposal, call } = normalized.value;
  const claimed = proposal.attempt ?? 0;
  const chain = facts.registry.get(call.tool) === undefined ? UNKNOWN_TOOL_CHAIN : call.tool;
  const refused = (rejected: AnyRejected): RefusedProposal => ({
    ok: false,
    rejected,
    claimed,
    chain,
  });
  const budget = checkRepairBudget(claimed, facts.repairBudget);
  if (!budget.ok) return refused(budget);
  const parsed = parseCall(call, facts.limits);
  if (!parsed.ok) return refused(parsed);
  const checked = checkSchema(parsed.value, facts.registry);
  if (!checked.ok) return refused(checked);
  const meaningful = checkSemantics(checked.value);
  if (!meaningful.ok) return refused(meaningful);
  const { tool, args, callId, repaired } = meaningful.value;
  const value: ValidatedProposal = {
    proposalId: proposal.proposalId,
    runId: proposal.runId,
    requestId: proposal.requestId,
    attempt: claimed,
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
  };
  return { ok: true, value, chain: tool.name };
}

/**
 * A refusal before the call was read (the envelope, or the format's normalizer, which parses the
 * bare action text): its tool is not known, so it is in the unknown-tool chain. A claimed attempt
 * beyond the budget is refused as such when the envelope could be read.
 */
function refuseUnread(input: unknown, rejected: AnyRejected, budget: number): RefusedProposal {
  const envelope = checkEnvelope(input);
  const claimed = envelope.ok ? (envelope.value.attempt ?? 0) : 0;
  const spent = checkRepairBudget(claimed, budget);
  return { ok: false, rejected: spent.ok ? rejected : spent, claimed, chain: UNKNOWN_TOOL_CHAIN };
}
