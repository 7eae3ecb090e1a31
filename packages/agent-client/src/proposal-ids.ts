/**
 * The envelope every adapter wraps a provider's call in (DESIGN §9). Adapters never reshape the
 * call: the provider's own payload goes to the gate as it came, and the gate decides what it is.
 */
import { randomUUID } from 'node:crypto';
import type { Proposal, ProposalFormat } from '@toolgate/shared';
import { UnrecognizedResponseError } from './agent-client-error.js';

/** The ids a proposal is filed under. */
export interface ProposalIds {
  /** The agent run; the proposal's record key, so one run's proposals stay in order. */
  readonly runId: string;
  /** The request the call belongs to; with the call id, it makes the idempotency key. */
  readonly requestId: string;
  /**
   * Unique per submission. Absent: a random UUID per call. Given: the first call of the response
   * gets it as is and call `i` (from 1) gets `<proposalId>-<i>`, so ids stay unique when a
   * response holds several calls.
   */
  readonly proposalId?: string;
}

/**
 * Reads a provider's raw response (or text) into one proposal per tool call it holds, in order;
 * none when it holds no call. Throws {@link UnrecognizedResponseError} when `raw` is not a
 * response of that provider.
 */
export type ProposalAdapter<R> = (raw: R, ids: ProposalIds) => readonly Proposal[];

/** The proposalId of the `index`-th call (see {@link ProposalIds.proposalId}). */
export function proposalIdAt(ids: ProposalIds, index: number): string {
  if (ids.proposalId === undefined) return randomUUID();
  return index === 0 ? ids.proposalId : `${ids.proposalId}-${index}`;
}

/** One first-attempt proposal per call, each carrying the call exactly as the provider gave it. */
export function proposalsOf(
  format: ProposalFormat,
  finishReason: string | null,
  calls: readonly unknown[],
  ids: ProposalIds,
): Proposal[] {
  return calls.map((call, index) => ({
    proposalId: proposalIdAt(ids, index),
    runId: ids.runId,
    requestId: ids.requestId,
    format,
    finishReason,
    attempt: 0,
    repairOf: null,
    call,
  }));
}

/** A plain JSON object (what a parsed provider response is), as a record. */
export function recordOf(
  format: string,
  value: unknown,
  what: string,
): Readonly<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UnrecognizedResponseError(format, `${what} must be an object`);
  }
  return value as Readonly<Record<string, unknown>>;
}

/** `value` as a list; `null` and absent are empty (no calls), anything else is unrecognized. */
export function listOf(format: string, value: unknown, what: string): readonly unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new UnrecognizedResponseError(format, `${what} must be a list`);
  return value;
}

/** A finish word if the provider gave one, else null (the gate then reads the structure). */
export function finishWordOf(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** The items of `list` whose `type` is `type`: the calls among a response's blocks. */
export function itemsOfType(list: readonly unknown[], type: string): unknown[] {
  return list.filter(
    (item) =>
      typeof item === 'object' && item !== null && (item as { type?: unknown }).type === type,
  );
}
