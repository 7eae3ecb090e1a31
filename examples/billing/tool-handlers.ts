/**
 * The example's six tools as tool-worker handlers, against the shared Redis object store (the one
 * the gate resolves objects from). Reads answer from built-in data; writes change the store with
 * compare-and-set on the object version the command carries, never a blind write:
 *
 * - the live object must still be at the command's version, else `stale_object`;
 * - a command that finds its own earlier write in place (a redelivery after a crash that came
 *   before the ledger recorded the result) reports success again and changes nothing;
 * - every check before the write (status open, not sent, refund within what is left) is made
 *   on the very version the write replaces;
 * - every write is recorded, in the same script, in the tenant's effect log (idempotency key,
 *   command, proposal, tool, object, version before and after, time): the tools' own account of
 *   what they did, read with `objects.effects(tenant)`. A redelivery that finds its own write, or
 *   a write that fails, records nothing, so two entries under one idempotency key are two effects.
 */
import { REJECTION_CODES, type Command, type ResolvedObject } from '@toolgate/shared';
import type { RedisObjectStore } from '@toolgate/platform';
import {
  toolError,
  toolOk,
  type ToolContext,
  type ToolHandlers,
  type ToolOutcome,
} from '@toolgate/tool-worker';
import { evaluateArithmetic } from './evaluate-arithmetic.js';
import {
  markApplied,
  planDecision,
  planRefund,
  planSend,
  wasAppliedBy,
  type Planned,
} from './plan-changes.js';
import { DEFAULT_MAX_RESULTS, searchBilling } from './search-billing.js';

/** What the handlers need of the object store. */
export type BillingObjects = Pick<RedisObjectStore, 'load' | 'compareAndSet' | 'seed'>;

/** The outcome of a write: the object as it now is, or the error to report. */
type Written =
  | { readonly ok: true; readonly object: ResolvedObject }
  | { readonly ok: false; readonly outcome: ToolOutcome };

const failed = (code: string, message: string): Written => ({
  ok: false,
  outcome: toolError(code, message),
});
const notFound = () => failed('not_found', REJECTION_CODES.resolution.not_found.publicMessage);
const stale = () => failed('stale_object', REJECTION_CODES.precondition.stale_object.publicMessage);

/**
 * Applies `plan` to the command's first object with compare-and-set at the command's version.
 * Checks the deadline signal last, right before the write: past it, nothing is written.
 */
async function write(
  objects: BillingObjects,
  command: Command,
  context: ToolContext,
  plan: (live: ResolvedObject) => Planned,
): Promise<Written> {
  const ref = command.objects[0];
  if (ref === undefined) return failed('invalid_arguments', 'The command names no object.');
  const tenant = command.context.tenant;
  const live = await objects.load(tenant, ref);
  if (live === undefined) return notFound();
  if (wasAppliedBy(live, command.commandId)) return { ok: true, object: live };
  if (live.version !== ref.version) return stale();
  const planned = plan(live);
  if (!planned.ok) return failed(planned.code, planned.message);
  context.signal.throwIfAborted();
  const next = markApplied(planned.attributes, command.commandId);
  const written = await objects.compareAndSet(ref, tenant, ref.version, next, {
    idempotencyKey: command.idempotencyKey,
    commandId: command.commandId,
    proposalId: command.context.proposalId,
    tool: command.tool,
    at: context.now().toISOString(),
  });
  if (written === 'not_found') return notFound();
  if (written !== 'conflict') return { ok: true, object: written };
  // Lost the race: it may have been this very command, delivered twice at once.
  const now = await objects.load(tenant, ref);
  return now !== undefined && wasAppliedBy(now, command.commandId)
    ? { ok: true, object: now }
    : stale();
}

/** The outbox entry of a sent draft: one `Email` object per sending command. */
function emailFor(draft: ResolvedObject, command: Command): ResolvedObject {
  const { to, subject, body, sent_at: sentAt } = draft.attributes;
  return {
    type: 'Email',
    id: `email_${command.commandId}`,
    tenant: draft.tenant,
    version: 1,
    attributes: {
      draft: draft.id,
      to,
      subject,
      body,
      sent_at: sentAt,
      commandId: command.commandId,
    },
  };
}

function text(args: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = args[name];
  return typeof value === 'string' ? value : undefined;
}

/** The six handlers, changing `objects`. */
export function createBillingHandlers(objects: BillingObjects): ToolHandlers {
  return {
    search: (command) => {
      const query = text(command.args, 'query') ?? '';
      const max = command.args['max_results'];
      const limit = typeof max === 'number' ? max : DEFAULT_MAX_RESULTS;
      const results = searchBilling(query, command.context.tenant, limit);
      return Promise.resolve(toolOk({ query, results }));
    },

    calculate: (command) => {
      const expression = text(command.args, 'expression') ?? '';
      const evaluated = evaluateArithmetic(expression);
      return Promise.resolve(
        evaluated.ok
          ? toolOk({ expression, value: evaluated.value })
          : toolError(evaluated.code, evaluated.message),
      );
    },

    final: (command) =>
      Promise.resolve(toolOk({ acknowledged: true, answer: text(command.args, 'answer') ?? '' })),

    approve_invoice: async (command, context) => {
      const decided = await write(objects, command, context, (invoice) =>
        planDecision(invoice, command.args, command.context.subject),
      );
      if (!decided.ok) return decided.outcome;
      const { id, version, attributes } = decided.object;
      return toolOk({ invoice: id, status: attributes['status'], version });
    },

    send_email: async (command, context) => {
      const sent = await write(objects, command, context, (draft) =>
        planSend(draft, context.now()),
      );
      if (!sent.ok) return sent.outcome;
      // After the draft's write, so an email exists only for a draft that was sent; seeding
      // writes it only if absent, so a redelivery that finds the draft sent adds no second one.
      const email = emailFor(sent.object, command);
      await objects.seed([email]);
      return toolOk({
        draft: sent.object.id,
        sent: true,
        email: email.id,
        version: sent.object.version,
      });
    },

    refund_payment: async (command, context) => {
      const refunded = await write(objects, command, context, (payment) =>
        planRefund(payment, command.args),
      );
      if (!refunded.ok) return refunded.outcome;
      const { id, version, attributes } = refunded.object;
      const paid = Number(attributes['amount_cents']);
      const total = Number(attributes['refunded_cents']);
      return toolOk({ payment: id, refunded_cents: total, remaining_cents: paid - total, version });
    },
  };
}
