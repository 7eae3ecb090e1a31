/** `toolgate pending`: the confirmations waiting for a person that you may approve, or asked for. */
import type { PendingView } from '@toolgate/shared';
import { APPROVAL_OPTIONS, approvalApiOf, listPending } from '../approval-api.js';
import type { Command } from '../command.js';

/** `toolgate pending [--url <url>] [--as <token>] [--json]`. */
export const pendingCommand: Command = {
  name: 'pending',
  summary: 'List the confirmations waiting for a person that you may approve, or asked for.',
  usage: 'toolgate pending [--as <token>] [--url <approval API>] [--json]',
  details: [
    "Asks the confirm stage's approval API (GET /pending, every page) as the holder of the session",
    "token: it lists your tenant's waiting calls that policy lets you approve, and your own.",
    'An https API whose certificate comes from a private CA is trusted with --ca <PEM file>.',
    'One line per confirmation: id, tool, requester, expiry, then the card (action, target, effect).',
    'Exit codes: 4 when the session is refused, 3 when the API cannot be reached.',
  ],
  options: {
    ...APPROVAL_OPTIONS,
    json: {
      type: 'boolean',
      description: 'print {tenant, confirmations}, every page of the API together',
    },
  },
  async run({ values, io }) {
    const pending = await listPending(approvalApiOf(values, io.env));
    if (values['json'] === true) {
      io.stdout.write(`${JSON.stringify(pending)}\n`);
      return 0;
    }
    const n = pending.confirmations.length;
    io.stdout.write(
      `${n} pending confirmation${n === 1 ? '' : 's'} for tenant ${pending.tenant}\n`,
    );
    for (const c of pending.confirmations) io.stdout.write(`${pendingLine(c)}\n`);
    return 0;
  },
};

/** One confirmation as a line a person can read and copy the id from. */
export function pendingLine(c: PendingView): string {
  const card = [c.card.action, c.card.target, c.card.effect].filter((s) => s !== '').join(' · ');
  return `${c.confirmationId}  ${c.tool}  by ${c.requestedBy}  expires ${c.expiresAt}  ${card}`;
}
