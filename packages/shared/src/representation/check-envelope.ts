/**
 * The proposal envelope of DESIGN §9, checked before any format is read. The envelope is the
 * gate's own contract, so unknown fields are refused rather than dropped (an agent that adds a
 * `tenant` learns at once that it is not read).
 */
import { accept, rejecterFor, type Decision } from '../decision.js';
import { PROPOSAL_FORMATS, type Proposal, type ProposalFormat } from '../types.js';
import { isNonEmptyString, isRecord, own } from './call-shape.js';
import { quoteKey } from './refusals.js';

const reject = rejecterFor('representation');

/**
 * Longest `proposalId`, `runId`, `requestId`, `repairOf` or call id a proposal may carry, in
 * UTF-16 code units. Ids travel in every message about the call (keys, envelopes, observations,
 * audit events, Redis keys), so they are bounded like arguments; agents' ids are far shorter.
 */
export const MAX_PROPOSAL_ID_CHARS = 256;

/** The envelope's ids, which every answer about the proposal repeats. */
export const ENVELOPE_ID_FIELDS = ['proposalId', 'runId', 'requestId'] as const;

const FIELDS: ReadonlySet<string> = new Set([
  'proposalId',
  'runId',
  'requestId',
  'format',
  'finishReason',
  'attempt',
  'repairOf',
  'call',
]);

/**
 * The envelope as a `Proposal` with defaults filled in (`attempt` 0, `repairOf` and `finishReason`
 * null), or `invalid_proposal` naming every problem at once, or `unsupported_format` for a format
 * string the gate does not know.
 */
export function checkEnvelope(input: unknown): Decision<Proposal, 'representation'> {
  if (!isRecord(input)) return invalidProposal(['the proposal must be a JSON object']);
  const problems = envelopeProblems(input);
  if (problems.length > 0) return invalidProposal(problems);
  const format = own(input, 'format') as string;
  if (!isProposalFormat(format)) {
    return reject(
      'unsupported_format',
      `The proposal format is not supported. Use one of: ${PROPOSAL_FORMATS.join(', ')}.`,
      `format ${quoteKey(format)}`,
    );
  }
  return accept({
    proposalId: own(input, 'proposalId') as string,
    runId: own(input, 'runId') as string,
    requestId: own(input, 'requestId') as string,
    format,
    finishReason: (own(input, 'finishReason') ?? null) as string | null,
    attempt: (own(input, 'attempt') ?? 0) as number,
    repairOf: (own(input, 'repairOf') ?? null) as string | null,
    call: own(input, 'call'),
  });
}

function envelopeProblems(input: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  for (const field of ENVELOPE_ID_FIELDS) {
    const id = own(input, field);
    if (!isNonEmptyString(id)) problems.push(`${field} must be a non-empty string`);
    else if (id.length > MAX_PROPOSAL_ID_CHARS) problems.push(idTooLong(field));
  }
  if (typeof own(input, 'format') !== 'string') problems.push('format must be a string');
  const finishReason = own(input, 'finishReason');
  if (finishReason != null && typeof finishReason !== 'string') {
    problems.push('finishReason must be a string or null');
  }
  const attempt = own(input, 'attempt');
  if (attempt !== undefined && !(Number.isSafeInteger(attempt) && (attempt as number) >= 0)) {
    problems.push('attempt must be a non-negative integer');
  }
  const repairOf = own(input, 'repairOf');
  if (repairOf != null && !isNonEmptyString(repairOf)) {
    problems.push('repairOf must be a non-empty string or null');
  } else if (typeof repairOf === 'string' && repairOf.length > MAX_PROPOSAL_ID_CHARS) {
    problems.push(idTooLong('repairOf'));
  }
  if (own(input, 'call') === undefined) problems.push('call is required');
  const unknown = Object.keys(input).filter((key) => !FIELDS.has(key));
  if (unknown.length > 0)
    problems.push(`unknown field ${unknown.map((k) => quoteKey(k)).join(', ')}`);
  return problems;
}

/** The problem of an id longer than {@link MAX_PROPOSAL_ID_CHARS}. */
export function idTooLong(field: string): string {
  return `${field} must be at most ${MAX_PROPOSAL_ID_CHARS} characters`;
}

function isProposalFormat(format: string): format is ProposalFormat {
  return (PROPOSAL_FORMATS as readonly string[]).includes(format);
}

/** `invalid_proposal`, naming every problem of the envelope. */
export function invalidProposal(problems: readonly string[]) {
  const list = problems.join('; ');
  return reject('invalid_proposal', `The proposal envelope is malformed: ${list}.`, list);
}
