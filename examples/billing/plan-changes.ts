/**
 * What the example's write tools do to an object, as pure plans: from the live object and the
 * command's arguments to the next attributes, or a refusal with the gate's own code names.
 * Every write records the command that made it (`appliedCommands`, the most recent few), so a
 * redelivered command that finds its own write in place reports success instead of a conflict.
 */
import type { ResolvedObject } from '@toolgate/shared';

/** How many of an object's latest writers it remembers. */
export const APPLIED_COMMANDS_KEPT = 16;

/** The next attributes of an object, or why the change is refused. */
export type Planned =
  | { readonly ok: true; readonly attributes: Readonly<Record<string, unknown>> }
  | { readonly ok: false; readonly code: string; readonly message: string };

/** Refusals of the plans, with the public text the agent sees. */
export const PLAN_REFUSALS = {
  not_open: 'The invoice is not open, so its status cannot change.',
  already_sent: 'The draft was already sent.',
  refund_exceeds_remaining: 'The refund is larger than what is left to refund on this payment.',
  invalid_arguments: 'The command arguments are not what this tool takes.',
} as const;

function refuse(code: keyof typeof PLAN_REFUSALS): Planned {
  return { ok: false, code, message: PLAN_REFUSALS[code] };
}

/** True when `commandId` is among the object's latest writers. */
export function wasAppliedBy(object: ResolvedObject, commandId: string): boolean {
  const applied = object.attributes['appliedCommands'];
  return Array.isArray(applied) && applied.includes(commandId);
}

/** `attributes` with `commandId` recorded as the latest writer. */
export function markApplied(
  attributes: Readonly<Record<string, unknown>>,
  commandId: string,
): Record<string, unknown> {
  const before = Array.isArray(attributes['appliedCommands'])
    ? (attributes['appliedCommands'] as unknown[]).filter((x) => typeof x === 'string')
    : [];
  return { ...attributes, appliedCommands: [...before, commandId].slice(-APPLIED_COMMANDS_KEPT) };
}

/** approve_invoice: an open invoice becomes approved or rejected, with the reason if given. */
export function planDecision(
  invoice: ResolvedObject,
  args: Readonly<Record<string, unknown>>,
  decidedBy: string,
): Planned {
  const { status, reason } = args;
  if ((status !== 'approved' && status !== 'rejected') || !optionalText(reason)) {
    return refuse('invalid_arguments');
  }
  if (invoice.attributes['status'] !== 'open') return refuse('not_open');
  const attributes = { ...invoice.attributes, status, decided_by: decidedBy };
  return { ok: true, attributes: reason === undefined ? attributes : { ...attributes, reason } };
}

/** send_email: a draft not sent yet becomes sent, at `now`. */
export function planSend(draft: ResolvedObject, now: Date): Planned {
  if (draft.attributes['sent'] === true) return refuse('already_sent');
  return {
    ok: true,
    attributes: { ...draft.attributes, sent: true, sent_at: now.toISOString() },
  };
}

/** refund_payment: `refunded_cents` grows by the amount, never past `amount_cents`. */
export function planRefund(
  payment: ResolvedObject,
  args: Readonly<Record<string, unknown>>,
): Planned {
  const amount = args['amount_cents'];
  if (!Number.isSafeInteger(amount) || (amount as number) <= 0) return refuse('invalid_arguments');
  const paid = cents(payment, 'amount_cents');
  const refunded = cents(payment, 'refunded_cents') + (amount as number);
  if (refunded > paid) return refuse('refund_exceeds_remaining');
  return { ok: true, attributes: { ...payment.attributes, refunded_cents: refunded } };
}

function cents(object: ResolvedObject, name: string): number {
  const value = object.attributes[name];
  return Number.isSafeInteger(value) ? (value as number) : 0;
}

function optionalText(value: unknown): boolean {
  return value === undefined || typeof value === 'string';
}
