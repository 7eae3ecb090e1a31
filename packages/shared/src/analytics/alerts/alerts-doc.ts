/**
 * Renders the alert rules as the Markdown page `docs/alerts.md`, so the page and the code cannot
 * drift: `npm run docs:alerts` writes it, and a test fails when it is stale.
 */
import {
  ALERT_RULE_NAMES,
  ALWAYS_ON_RULES,
  DEFAULT_ALERT_RULES,
  MAX_ALERT_WINDOW_MS,
  MAX_EVIDENCE_LIMIT,
  type AlertRuleName,
} from './alert-rules.js';
import { ALERT_IDLE_MS } from './create-alert-engine.js';
import { MAX_ENTRIES_PER_SUBJECT } from './sliding-window.js';
import { INVALID_SESSION_CODES, RUNAWAY_CODES } from './window-rules.js';

/** What each rule counts, for whom, and why it matters. */
export const ALERT_RULE_MEANINGS: Readonly<Record<AlertRuleName, string>> = {
  authorization_probing:
    'Refusals at the `authorization` rung (`not_authorized`; a `policy_error` refuses every caller alike and says nothing of one), per run and per principal (each its own subject), more than `threshold` in `windowMs`. More than 5 denied tool calls in 10 minutes is the threshold security products document for denied tool calls: an agent that keeps asking for what it may not do is probing, typically after a prompt injection.',
  object_enumeration:
    "`resolution/not_found` refusals per run and per principal: more than `threshold` *distinct* object ids (the event's `objectIds`) in `windowMs`. Another tenant's object is refused exactly like a missing one, so many distinct misses are the signature of guessing ids.",
  runaway_run: `Refusals of a run at the \`limits\` rung for what the run itself did (${RUNAWAY_CODES.map((c) => `\`${c}\``).join(', ')}): more than \`threshold\` in \`windowMs\` (by default the first one alerts, once per run and \`cooldownMs\`). An agent that calls past its run's ceiling, or keeps sending calls the gate cannot repair, is looping: its tokens and its tools' quota burn until someone stops it.`,
  refusal_rate_jump:
    "A tenant's refusals per minute over the last `recentMs` more than `factor` times its rate over the `baselineMs` before, with at least `minRefusals` in the recent window (so one refusal does not page). Counted in one-minute buckets of event time; a tenant is judged only once the engine has seen it since the baseline's start, so a fresh engine does not page on every tenant.",
  forgery: `Always on. Any audit event of a forgery: \`authentication/forged_envelope\` (an internal envelope whose integrity tag does not verify), \`authentication/stale_envelope\` (a genuine envelope published again after its lifetime) and kind \`forged_result\` (a tool result whose proof does not verify), per tenant, or for the gate when the event names no tenant (forged envelopes never do). Forged commands (dropped by tool workers) and unsigned observations (dropped by agent clients) write no audit event: alert on the metric \`toolgate_refused_forgeries_total\` for those.`,
  invalid_sessions_burst: `Always on. Authentication-rung refusals of the session (${INVALID_SESSION_CODES.map((c) => `\`${c}\``).join(', ')}), per tenant or, before a tenant is known, for the gate: more than \`threshold\` in \`windowMs\`. A burst is token guessing, a leaked expired token being replayed, or a broken issuer.`,
  quarantine_burst:
    'Quarantined input (kind `quarantined`: undecodable bytes on the proposals topic): more than `threshold` in `windowMs`, per tenant or for the gate.',
  approval_health:
    'Per tenant in `windowMs`: more than `expired` confirmations expired unanswered, or more than `contentChanged` approvals refused as `confirmation/content_changed`, or more than `approverRefused` refused as `confirmation/approver_not_authorized`.',
};

const HEADER = [
  '# Alerts',
  '',
  'The analytics service runs every audit event through the alert rules below and writes what they',
  'raise to `toolgate.alerts` (compacted, keyed by rule and subject; schema',
  '`<prefix>toolgate.alerts-value`). `npx toolgate alerts [--since 1h] [--json]` reads them back.',
  '',
  'Rules are tuned in the deployment file, under `analytics.alerts`: `evidenceLimit` (how many audit',
  `events one alert names, default ${DEFAULT_ALERT_RULES.evidenceLimit}, at most ${MAX_EVIDENCE_LIMIT}) and \`rules.<rule>.<setting>\` for`,
  'any setting in the table. Anything else, or a value out of bounds, stops every process at start',
  'with a message naming the rule and the setting. Windows and cool-downs are in ms, from 1 s to',
  `${MAX_ALERT_WINDOW_MS / 3_600_000} h, and a cool-down is at least its rule's window.`,
  '',
  '```ts',
  'analytics: {',
  '  alerts: {',
  '    evidenceLimit: 50,',
  "    rules: { authorization_probing: { threshold: 10 }, quarantine_burst: { mode: 'log' } },",
  '  },',
  '},',
  '```',
  '',
  '- **Log-only mode** (`mode: "log"`): the rule still raises its alerts and they are written to',
  '  the topic and the log, with `mode: "log"`, but nothing pages anyone: a way to try a rule or a',
  '  threshold before trusting it. `enabled: false` turns a rule off; `forgery` and',
  '  `invalid_sessions_burst` are always on and refuse it.',
  '- **Event time.** Windows slide over the audit events\u2019 `at`, ending at the newest one seen;',
  '  a rule fires on the event that takes its count above the threshold. When no event arrives for',
  `  ${ALERT_IDLE_MS / 1000} s of the clock, the clock moves the windows on, so a quiet installation forgets old events.`,
  '- **De-duplication.** After an alert of a rule and subject, that rule raises none for that',
  '  subject until its `cooldownMs` of event time has passed. An alert\u2019s window starts at the',
  '  oldest event it counted (for `refusal_rate_jump`, at the first minute of the recent window),',
  '  and its `alertId` is derived from rule, subject and window start: replaying the same audit',
  '  events after a crash raises the same ids, and `toolgate alerts` shows each id once.',
  '- **Evidence.** Each alert names the audit events behind it (event id, partition and offset),',
  '  oldest first, at most `evidenceLimit`.',
  `- **Memory.** Each subject keeps only the matching events inside its rule's window (at most ${MAX_ENTRIES_PER_SUBJECT}`,
  '  per subject and rule); `refusal_rate_jump` keeps one counter per minute of its two windows per',
  '  tenant.',
  '',
  'Generated from `packages/shared/src/analytics/alerts/` by `npm run docs:alerts`; a test fails',
  'when this page and the code differ.',
  '',
  '| rule | what it counts | defaults |',
  '|---|---|---|',
];

/** The whole Markdown page, ending in one newline. */
export function renderAlertRules(): string {
  const rows = ALERT_RULE_NAMES.map((name) => {
    const settings: object = DEFAULT_ALERT_RULES.rules[name];
    const defaults = Object.entries(settings)
      .filter(([key]) => !(key === 'enabled' && ALWAYS_ON_RULES.includes(name)))
      .map(([key, value]) => `\`${key}: ${JSON.stringify(value)}\``)
      .join(', ');
    return `| \`${name}\` | ${ALERT_RULE_MEANINGS[name]} | ${defaults} |`;
  });
  return `${[...HEADER, ...rows].join('\n')}\n`;
}
