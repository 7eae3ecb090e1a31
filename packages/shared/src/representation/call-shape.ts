/**
 * What every normalizer shares: its input, and how it reads and refuses the provider's payload.
 * Shape errors inside `call` are `unsupported_format` (deny): the payload was written by the
 * provider or the agent's integration, not chosen by the model, so the model cannot repair it.
 * Only the bare action format, whose `call` is the model's own text, refuses its shape as
 * `malformed_call` (repair).
 */
import { rejecterFor, type Rejected } from '../decision.js';
import type { Completion, ProposalFormat } from '../types.js';
import type { ParseLimits } from './parse-limits.js';

const reject = rejecterFor('representation');

/** What a normalizer is given: the provider's payload and the facts of the envelope. */
export interface NormalizerInput {
  /** The proposal's `call`, exactly as submitted. */
  readonly call: unknown;
  /** The envelope's finish word, already mapped. */
  readonly completion: Completion;
  /** The envelope's proposalId (the call id of the bare format). */
  readonly proposalId: string;
  /** Ceilings for a format whose call is raw text. */
  readonly limits: ParseLimits;
}

/** A JSON object (not null, not an array). */
export function isRecord(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A string with at least one character. */
export function isNonEmptyString(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0;
}

/** The JSON name of a value's type: object, array, string, number, boolean or null. */
export function jsonTypeOf(v: unknown): string {
  if (v === null) return 'null';
  return Array.isArray(v) ? 'array' : typeof v;
}

/** An own property of a record; never an inherited one. */
export function own(record: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** The refusal for a payload that is not a valid call of `format`; `problem` names fields only. */
export function unsupportedCall(
  format: ProposalFormat,
  problem: string,
): Rejected<'representation'> {
  return reject(
    'unsupported_format',
    `The proposal's call is not a valid ${format} tool call: ${problem}.`,
    `${format} call: ${problem}`,
  );
}
