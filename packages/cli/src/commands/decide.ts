/**
 * `toolgate approve <id>` and `toolgate reject <id>`: send a person's decision on a pending
 * confirmation to the approval API. The confirm stage then checks the approver (session, policy,
 * tenant), the digest and the live objects, and publishes the observation.
 */
import {
  APPROVAL_OPTIONS,
  approvalApiOf,
  digestOf,
  sendDecision,
  type Decision,
} from '../approval-api.js';
import { CliError, EXIT } from '../cli-error.js';
import { optionalString, type Command } from '../command.js';

function decisionCommand(decision: Decision, summary: string): Command {
  return {
    name: decision,
    summary,
    usage: `toolgate ${decision} <confirmation id> [--digest <sha256>] [--as <token>] [--url <approval API>]`,
    details: [
      'The decision names the digest of the card it is about; without --digest it is read from',
      'GET /pending, so you decide on what that list shows. Exit 0 means the API accepted the',
      'decision (HTTP 202): the confirm stage decides on it and publishes the observation (watch',
      'it with toolgate tail observations.<tenant>). Exit codes: 5 when no such confirmation is',
      'pending for your tenant, 4 when your session is refused, 3 when the API cannot be reached.',
    ],
    options: {
      ...APPROVAL_OPTIONS,
      digest: {
        type: 'string',
        description: 'the confirmation digest you reviewed (default: from the pending list)',
      },
    },
    async run({ values, positionals, io }) {
      const [id, ...rest] = positionals;
      if (id === undefined || id === '' || rest.length > 0)
        throw new CliError('name one confirmation id (see toolgate pending)', EXIT.usage);
      const api = approvalApiOf(values, io.env);
      const digest = optionalString(values, 'digest') ?? (await digestOf(api, id));
      await sendDecision(api, id, decision, digest);
      io.stdout.write(
        `${decision === 'approve' ? 'approval' : 'rejection'} of ${id} sent; the confirm stage decides and publishes the observation\n`,
      );
      return 0;
    },
  };
}

/** `toolgate approve <id>`. */
export const approveCommand = decisionCommand('approve', 'Approve a pending confirmation.');

/** `toolgate reject <id>`. */
export const rejectCommand = decisionCommand('reject', 'Reject a pending confirmation.');
