/**
 * Renders the side-effect defaults as the Markdown page `docs/side-effect-classes.md`, so the page
 * and the code cannot drift: `npm run docs:side-effects` writes it, and a test fails when it is
 * stale.
 */
import {
  SIDE_EFFECT_CLASSES,
  SIDE_EFFECT_DEFAULTS,
  type ConfirmationDefault,
  type IdempotencyScope,
  type TimeoutDisposition,
} from './side-effect-defaults.js';

const ON_TIMEOUT: Readonly<Record<TimeoutDisposition, string>> = {
  retry:
    '`rejected`, `execution/timeout_retryable`, disposition `retry`: the tool changes nothing, so the agent may propose the call again, and the new proposal runs again',
  unknown_outcome:
    '`unknown_outcome`, `execution/timeout_outcome_unknown`, disposition `deny`: the change may have been made; a retry looks the key up and is replayed what is recorded (the late result, once it came), never run again',
};

const SCOPE: Readonly<Record<IdempotencyScope, string>> = {
  call: 'claimed per call, (tenant, subject, requestId, callId): a retry by the same user is replayed the stored outcome; another user has a key of their own',
  proposal:
    'claimed per proposal, (tenant, subject, requestId, callId, proposalId): redeliveries of one proposal publish one command; a new proposal of the call runs again and is never replayed an older answer',
};

const CONFIRMATION: Readonly<Record<ConfirmationDefault, string>> = {
  always: 'always; the tool cannot opt out',
  'when the tool asks':
    "only when the tool's `requiresConfirmation(args, objects)` says so (default: never)",
};

const HEADER = [
  '# Side-effect classes',
  '',
  'Every tool declares its side-effect class (`sideEffect` in its definition: `read`, `write` or',
  '`destructive`). The class is trusted server configuration, never something the model says, and',
  'it sets three defaults: how a call that outlived its deadline is reported, what its idempotency',
  'key deduplicates, and whether a person confirms it. A tool changes only the confirmation, through',
  '`requiresConfirmation`, and a destructive tool cannot opt out of it.',
  '',
  'A read changes nothing: when it times out it may simply be tried again, and a retry fetches',
  'fresh data rather than an older answer. A write or a destructive call that times out may have',
  'acted, so it is never reported as safe to repeat; its key makes a retry a look-up of what the',
  'first call did. How idempotency works, per user: [guarantees.md](guarantees.md#at-most-one-execution-per-call).',
  '',
  'Generated from `packages/shared/src/tools/side-effect-defaults.ts` by `npm run docs:side-effects`;',
  'a test fails when this page and the table differ.',
  '',
  '| class | when it times out | idempotency key | confirmation |',
  '|---|---|---|---|',
];

/** The whole Markdown page, ending in one newline. */
export function renderSideEffectDefaults(): string {
  const rows = SIDE_EFFECT_CLASSES.map((sideEffect) => {
    const d = SIDE_EFFECT_DEFAULTS[sideEffect];
    const cells = [
      ON_TIMEOUT[d.onTimeout],
      SCOPE[d.idempotencyScope],
      CONFIRMATION[d.confirmation],
    ];
    return `| \`${sideEffect}\` | ${cells.join(' | ')} |`;
  });
  return `${[...HEADER, ...rows].join('\n')}\n`;
}
