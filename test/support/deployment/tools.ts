/**
 * The test deployment's five tools: one of each kind the gate treats differently, so that the
 * product's tests do not depend on the billing example. Schemas, semantics, preconditions and
 * confirmation rules are small on purpose; each exists because some test exercises it.
 */
import {
  defineTool,
  idSchema,
  numberAttribute,
  resolvedObject,
  stringAttribute,
} from '@toolgate/shared';

/** lookup: read; a non-blank query and 1..20 results (semantics refusals). */
export const lookup = defineTool<{ query: string; limit?: number }>({
  name: 'lookup',
  description: 'Look something up. Returns up to `limit` lines.',
  version: '1',
  sideEffect: 'read',
  input: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'What to look up.', maxLength: 500 },
      limit: { type: 'integer', description: 'How many lines, 1 to 20 (default 5).' },
    },
    required: ['query'],
    additionalProperties: false,
  },
  semantics: (args) => {
    if (args.query.trim() === '')
      return {
        code: 'empty_query',
        message: 'The argument `query` is blank. Say what to look up.',
      };
    if (args.limit !== undefined && (args.limit < 1 || args.limit > 20))
      return { code: 'out_of_range', message: 'The argument `limit` must be between 1 and 20.' };
    return undefined;
  },
  result: { maxBytes: 16_384 },
});

/** echo: read; any text, no semantics (the plainest call there is). */
export const echo = defineTool<{ text: string }>({
  name: 'echo',
  description: 'Answer with the text given.',
  version: '1',
  sideEffect: 'read',
  input: {
    type: 'object',
    properties: { text: { type: 'string', maxLength: 4000 } },
    required: ['text'],
    additionalProperties: false,
  },
});

/** close_ticket: write; only open tickets; a person confirms closing an urgent one. */
export const closeTicket = defineTool<{ ticket_id: string; resolution: 'done' | 'dropped' }>({
  name: 'close_ticket',
  description: 'Close an open ticket as done or dropped.',
  version: '1',
  sideEffect: 'write',
  input: {
    type: 'object',
    properties: {
      ticket_id: { ...idSchema('tkt'), description: 'The ticket id, e.g. tkt_1.' },
      resolution: { type: 'string', enum: ['done', 'dropped'] },
    },
    required: ['ticket_id', 'resolution'],
    additionalProperties: false,
  },
  references: (args) => [{ type: 'Ticket', id: args.ticket_id }],
  preconditions: (args, objects) =>
    stringAttribute(resolvedObject(objects, args.ticket_id), 'status') === 'open'
      ? undefined
      : { code: 'not_open', message: 'The ticket is not open, so it cannot be closed.' },
  requiresConfirmation: (args, objects) =>
    stringAttribute(resolvedObject(objects, args.ticket_id), 'priority') === 'urgent',
  card: (args, objects) => {
    const ticket = resolvedObject(objects, args.ticket_id);
    return {
      action: 'Close ticket',
      target: `${ticket.id} (${stringAttribute(ticket, 'title')})`,
      effect: `status ${stringAttribute(ticket, 'status')} → closed (${args.resolution})`,
      preview: {
        ticket: ticket.id,
        title: stringAttribute(ticket, 'title'),
        resolution: args.resolution,
      },
    };
  },
});

/** publish_note: write; always confirmed; the card shows the note's text. */
export const publishNote = defineTool<{ note_id: string }>({
  name: 'publish_note',
  description: 'Publish a prepared note.',
  version: '1',
  sideEffect: 'write',
  input: {
    type: 'object',
    properties: { note_id: { ...idSchema('note'), description: 'The note id, e.g. note_1.' } },
    required: ['note_id'],
    additionalProperties: false,
  },
  references: (args) => [{ type: 'Note', id: args.note_id }],
  requiresConfirmation: () => true,
  card: (args, objects) => {
    const note = resolvedObject(objects, args.note_id);
    return {
      action: 'Publish note',
      target: note.id,
      effect: 'the note becomes public',
      preview: { text: stringAttribute(note, 'text') },
    };
  },
});

/** refund: destructive (always confirmed); a positive amount no larger than what is left. */
export const refund = defineTool<{ payment_id: string; amount: number }>({
  name: 'refund',
  description: 'Refund part or all of a payment (in whole units).',
  version: '1',
  sideEffect: 'destructive',
  input: {
    type: 'object',
    properties: {
      payment_id: { ...idSchema('pay'), description: 'The payment id, e.g. pay_1.' },
      amount: { type: 'integer', description: 'How much to refund.' },
    },
    required: ['payment_id', 'amount'],
    additionalProperties: false,
  },
  semantics: (args) =>
    args.amount > 0
      ? undefined
      : {
          code: 'invalid_amount',
          message: 'The argument `amount` must be a positive whole number.',
        },
  references: (args) => [{ type: 'Payment', id: args.payment_id }],
  preconditions: (args, objects) => {
    const payment = resolvedObject(objects, args.payment_id);
    return args.amount <= numberAttribute(payment, 'amount') - numberAttribute(payment, 'refunded')
      ? undefined
      : {
          code: 'refund_exceeds_remaining',
          message: 'The refund is larger than what is left to refund on this payment.',
        };
  },
  card: (args, objects) => {
    const payment = resolvedObject(objects, args.payment_id);
    const left = numberAttribute(payment, 'amount') - numberAttribute(payment, 'refunded');
    return {
      action: 'Refund payment',
      target: `${payment.id} (${numberAttribute(payment, 'amount')})`,
      effect: `refund ${args.amount}; ${left - args.amount} left refundable`,
      preview: { payment: payment.id, refund: args.amount },
    };
  },
});

/** Every tool of the test deployment. */
export const TOOLS = [lookup, echo, closeTicket, publishNote, refund] as const;
