/**
 * The values that travel between the rung groups (and, in the services, over the internal
 * topics): plain, serializable data. Tools are named, not embedded; each stage looks them up
 * in its own registry.
 */
import type { Accepted, Rejected } from '../decision.js';
import type { RepairOffer } from '../repair/index.js';
import type { CallContext, CardWithChanges, ResolvedObject } from '../types.js';

/** A proposal that passed authentication, representation, schema and semantics. */
export interface ValidatedProposal {
  readonly proposalId: string;
  readonly runId: string;
  readonly requestId: string;
  readonly attempt: number;
  readonly context: CallContext;
  readonly tool: string;
  readonly toolVersion: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly repaired?: 'fence';
}

/** A validated proposal whose objects resolved under the tenant and which policy allows. */
export interface AuthorizedProposal extends ValidatedProposal {
  readonly objects: readonly ResolvedObject[];
  readonly policyVersion: string;
  /**
   * Set when the call's idempotency key already holds a settled outcome of the same command: a
   * client retry. A replay changes nothing, so preconditions and confirmation do not apply to it
   * (an invoice approved by the first call is no longer open for its retry); execute replays.
   */
  readonly replay?: true;
}

/** What the confirm rung decided for an authorized proposal. */
export type ConfirmationPlan =
  | { readonly needed: false }
  | { readonly needed: true; readonly card: CardWithChanges; readonly digest: string };

/** Where a proposal stands when the envelope itself could not be read. */
export interface EnvelopeIds {
  readonly proposalId: string;
  readonly runId: string;
  readonly requestId: string;
}

/** A group's "no": the refusal, and the repair offered when there is one. */
export interface Refusal {
  readonly ok: false;
  readonly rejected: Rejected;
  readonly repair?: RepairOffer;
}

/** The result of a group of rungs. */
export type Step<T> = Accepted<T> | Refusal;

/** Lifts one rung's refusal into a group's refusal (no repair offered). */
export function refusal(rejected: Rejected): Refusal {
  return { ok: false, rejected };
}
