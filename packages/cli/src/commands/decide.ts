/**
 * `toolgate approve <id>` and `toolgate reject <id>`: send a person's decision on a pending
 * confirmation to the approval API. The confirm stage then checks the approver (session, policy,
 * tenant), the digest and the live objects, and publishes the observation.
 */
import { MAX_REJECTION_REASON_CHARS, REASON_RULE, reasonOf } from '@toolgate/shared';
import {
  APPROVAL_OPTIONS,
  approvalApiOf,
  digestOf,
  sendDecision,
  type Decision,
} from '../approval-api.js';
import { CliError, EXIT } from '../cli-error.js';
import { optionalString, type Command, type OptionValues } from '../command.js';

/**
 * `--reason`, checked here as the approval API checks it, so a bad one is refused before the
 * pending list is read.
 */
function reasonOption(values: OptionValues): string | undefined {
  const given = optionalString(values, 'reason');
  if (given === undefined) return undefined;
  const reason = reasonOf(given);
  if (reason === false) throw new CliError(`--reason: ${REASON_RULE}`, EXIT.usage);
  return reason;
}

const DIGEST_OPTION = {
  digest: {
    type: 'string',
    description: 'the confirmation digest you reviewed (default: from the pending list)',
  },
} as const;

/** A rejection's reason: the agent's observation carries it, so the model can change the call. */
const REASON_OPTION = {
  reason: {
    type: 'string',
    description: `why you reject it, for the agent (1 to ${MAX_REJECTION_REASON_CHARS} characters, one line)`,
  },
} as const;

function decisionCommand(decision: Decision, summary: string): Command {
  const rejecting = decision === 'reject';
  return {
    name: decision,
    summary,
    usage: `toolgate ${decision} <confirmation id> [--digest <sha256>]${rejecting ? ' [--reason <text>]' : ''} [--as <token>] [--url <approval API>]`,
    details: [
      'The decision names the digest of the card it is about; without --digest it is read from',
      'GET /pending, so you decide on what that list shows. Exit 0 means the API accepted the',
      'decision (HTTP 202): the confirm stage decides on it and publishes the observation (watch',
      'it with toolgate tail observations.<tenant>). Exit codes: 5 when no such confirmation is',
      'pending for your tenant, 4 when your session is refused, 3 when the API cannot be reached.',
      ...(rejecting
        ? ["--reason tells the agent why, in the rejection's observation (a bad one exits 2)."]
        : []),
    ],
    options: { ...APPROVAL_OPTIONS, ...DIGEST_OPTION, ...(rejecting ? REASON_OPTION : {}) },
    async run({ values, positionals, io }) {
      const [id, ...rest] = positionals;
      if (id === undefined || id === '' || rest.length > 0)
        throw new CliError('name one confirmation id (see toolgate pending)', EXIT.usage);
      const api = approvalApiOf(values, io.env);
      const reason = reasonOption(values);
      const digest = optionalString(values, 'digest') ?? (await digestOf(api, id));
      await sendDecision(api, id, decision, digest, reason);
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
