/**
 * The example's six tools. Schemas say what the model may send; semantics, preconditions and
 * confirmation rules say what the values mean in this billing world.
 */
import {
  defineTool,
  idSchema,
  numberAttribute,
  resolvedObject,
  stringAttribute,
} from '@toolgate/shared';

// One formatter for the process: `toLocaleString` with options builds a new one on every call,
// which made this 4 % of the confirm stage's CPU in the pipeline benchmark.
const UNITS = new Intl.NumberFormat('en-US', {
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});

/** Formats integer cents as "1,200.00 EUR". */
export function money(cents: number, currency: string): string {
  return `${UNITS.format(cents / 100)} ${currency}`;
}

/** Invoices at or above this amount (in cents) need a person to approve the status change. */
export const APPROVAL_THRESHOLD_CENTS = 1_000_000;

/** search: read; a non-blank query and 1..20 results. */
export const search = defineTool<{ query: string; max_results?: number }>({
  name: 'search',
  description: 'Search the billing knowledge base. Returns up to max_results short snippets.',
  version: '1',
  sideEffect: 'read',
  input: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'What to search for.', maxLength: 500 },
      max_results: { type: 'integer', description: 'How many results, 1 to 20 (default 5).' },
    },
    required: ['query'],
    additionalProperties: false,
  },
  semantics: (args) => {
    if (args.query.trim() === '')
      return {
        code: 'empty_query',
        message: 'The argument `query` is blank. Say what to search for.',
      };
    if (args.max_results !== undefined && (args.max_results < 1 || args.max_results > 20)) {
      return {
        code: 'out_of_range',
        message: 'The argument `max_results` must be between 1 and 20.',
      };
    }
    return undefined;
  },
  result: { maxBytes: 16_384 },
});

/** calculate: read; arithmetic over numbers only. */
export const calculate = defineTool<{ expression: string }>({
  name: 'calculate',
  description: 'Evaluate an arithmetic expression with + - * / and parentheses.',
  version: '1',
  sideEffect: 'read',
  input: {
    type: 'object',
    properties: { expression: { type: 'string', maxLength: 200 } },
    required: ['expression'],
    additionalProperties: false,
  },
  semantics: (args) =>
    /^[\d\s+\-*/().]+$/.test(args.expression) && /\d/.test(args.expression)
      ? undefined
      : {
          code: 'not_arithmetic',
          message: 'The argument `expression` must contain only numbers, + - * / and parentheses.',
        },
});

/** final: read; the agent's answer to the user, non-blank. */
export const final = defineTool<{ answer: string }>({
  name: 'final',
  description: 'Give the final answer to the user.',
  version: '1',
  sideEffect: 'read',
  input: {
    type: 'object',
    properties: { answer: { type: 'string', maxLength: 4000 } },
    required: ['answer'],
    additionalProperties: false,
  },
  semantics: (args) =>
    args.answer.trim() === ''
      ? { code: 'empty_value', message: 'The argument `answer` is blank.' }
      : undefined,
});

/** approve_invoice: write; only open invoices; a person confirms at 10,000.00 or more. */
export const approveInvoice = defineTool<{
  invoice_id: string;
  status: 'approved' | 'rejected';
  reason?: string;
}>({
  name: 'approve_invoice',
  description: 'Approve or reject an open invoice.',
  version: '1',
  sideEffect: 'write',
  input: {
    type: 'object',
    properties: {
      invoice_id: { ...idSchema('inv'), description: 'The invoice id, e.g. inv_481.' },
      status: { type: 'string', enum: ['approved', 'rejected'] },
      reason: { type: 'string', maxLength: 500 },
    },
    required: ['invoice_id', 'status'],
    additionalProperties: false,
  },
  references: (args) => [{ type: 'Invoice', id: args.invoice_id }],
  preconditions: (args, objects) =>
    stringAttribute(resolvedObject(objects, args.invoice_id), 'status') === 'open'
      ? undefined
      : { code: 'not_open', message: 'The invoice is not open, so its status cannot change.' },
  requiresConfirmation: (args, objects) =>
    numberAttribute(resolvedObject(objects, args.invoice_id), 'amount_cents') >=
    APPROVAL_THRESHOLD_CENTS,
  confirmationRule: `Invoices of ${UNITS.format(APPROVAL_THRESHOLD_CENTS / 100)} or more need a person's approval to change status.`,
  card: (args, objects) => {
    const inv = resolvedObject(objects, args.invoice_id);
    const amount = money(numberAttribute(inv, 'amount_cents'), stringAttribute(inv, 'currency'));
    const status = stringAttribute(inv, 'status');
    return {
      action: args.status === 'approved' ? 'Approve invoice' : 'Reject invoice',
      target: `${inv.id} (${amount})`,
      effect: `status ${status} → ${args.status}`,
      preview: {
        invoice: inv.id,
        amount,
        from: status,
        to: args.status,
        reason: args.reason ?? null,
      },
      changes: [{ field: 'status', before: status, after: args.status }],
    };
  },
});

/** send_email: write; always confirmed; the card shows recipients, subject and body. */
export const sendEmail = defineTool<{ draft_id: string }>({
  name: 'send_email',
  description: 'Send a prepared email draft.',
  version: '1',
  sideEffect: 'write',
  input: {
    type: 'object',
    properties: { draft_id: { ...idSchema('draft'), description: 'The draft id, e.g. draft_7.' } },
    required: ['draft_id'],
    additionalProperties: false,
  },
  references: (args) => [{ type: 'Draft', id: args.draft_id }],
  requiresConfirmation: () => true,
  confirmationRule: 'Every email waits for a person to read it before it is sent.',
  card: (args, objects) => {
    const draft = resolvedObject(objects, args.draft_id);
    const to = Array.isArray(draft.attributes['to'])
      ? (draft.attributes['to'] as unknown[]).map(String)
      : [];
    return {
      action: 'Send email',
      target: draft.id,
      effect: `email to ${to.join(', ')}`,
      preview: {
        to,
        subject: stringAttribute(draft, 'subject'),
        body: stringAttribute(draft, 'body'),
      },
    };
  },
});

/** refund_payment: destructive (always confirmed); a positive amount no larger than what is left. */
export const refundPayment = defineTool<{ payment_id: string; amount_cents: number }>({
  name: 'refund_payment',
  description: 'Refund part or all of a payment, in cents.',
  version: '1',
  sideEffect: 'destructive',
  input: {
    type: 'object',
    properties: {
      payment_id: { ...idSchema('pay'), description: 'The payment id, e.g. pay_11.' },
      amount_cents: { type: 'integer', description: 'Amount to refund, in cents.' },
    },
    required: ['payment_id', 'amount_cents'],
    additionalProperties: false,
  },
  semantics: (args) =>
    args.amount_cents > 0
      ? undefined
      : {
          code: 'invalid_amount',
          message: 'The argument `amount_cents` must be a positive whole number of cents.',
        },
  references: (args) => [{ type: 'Payment', id: args.payment_id }],
  preconditions: (args, objects) => {
    const pay = resolvedObject(objects, args.payment_id);
    const left = numberAttribute(pay, 'amount_cents') - numberAttribute(pay, 'refunded_cents');
    return args.amount_cents <= left
      ? undefined
      : {
          code: 'refund_exceeds_remaining',
          message: 'The refund is larger than what is left to refund on this payment.',
        };
  },
  confirmationRule: 'Refunds move money back to the customer, so a person approves every one.',
  card: (args, objects) => {
    const pay = resolvedObject(objects, args.payment_id);
    const currency = stringAttribute(pay, 'currency');
    const refunded = numberAttribute(pay, 'refunded_cents');
    const left = numberAttribute(pay, 'amount_cents') - refunded;
    return {
      action: 'Refund payment',
      target: `${pay.id} (${money(numberAttribute(pay, 'amount_cents'), currency)})`,
      effect: `refund ${money(args.amount_cents, currency)}; ${money(left - args.amount_cents, currency)} left refundable`,
      preview: { payment: pay.id, refund: money(args.amount_cents, currency) },
      changes: [
        {
          field: 'refunded',
          before: money(refunded, currency),
          after: money(refunded + args.amount_cents, currency),
        },
      ],
    };
  },
});

/** Every tool of the example, in the order tool lists show them. */
export const TOOLS = [search, calculate, final, approveInvoice, sendEmail, refundPayment] as const;
