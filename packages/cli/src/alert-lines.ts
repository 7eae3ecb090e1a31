/**
 * Alerts read back from the alerts topic, as `toolgate alerts` shows them: each alert once (a
 * replay after a crash writes the same `alertId` again), newest last, one line each. Pure: the
 * caller reads the topic.
 */
import { createValidator, MESSAGE_SCHEMAS, type Alert } from '@toolgate/shared';

/** What {@link collectAlerts} kept. */
export interface AlertList {
  /** Each `alertId` once (the first read), ordered by `raisedAt`, then `alertId`. */
  readonly alerts: readonly Alert[];
  /** Records that were not alerts (undecodable, or not of the alert schema); never shown. */
  readonly skipped: number;
}

let isAlert: ((value: unknown) => boolean) | undefined;

/** The alerts among `values` (decoded record values, `undefined` for one that did not decode). */
export function collectAlerts(values: Iterable<unknown>): AlertList {
  isAlert ??= createValidator().compile(MESSAGE_SCHEMAS.alerts);
  const byId = new Map<string, Alert>();
  let skipped = 0;
  for (const value of values) {
    if (!isAlert(value)) skipped += 1;
    else if (!byId.has((value as Alert).alertId))
      byId.set((value as Alert).alertId, value as Alert);
  }
  const alerts = [...byId.values()].sort(
    (a, b) => a.raisedAt.localeCompare(b.raisedAt) || a.alertId.localeCompare(b.alertId),
  );
  return { alerts, skipped };
}

/**
 * One line: when it was raised, the rule, the subject, the window, the counts against the
 * threshold, `(log only)` for a rule in log mode, and the alert id's first 12 characters. Ids a
 * caller chose (a run id) are quoted and escaped when they hold anything but plain characters, so
 * an alert cannot write control sequences to the operator's terminal.
 */
export function formatAlertLine(alert: Alert): string {
  const { subject, window } = alert;
  const who = `${subject.kind} ${subject.tenant === null ? '' : `${printable(subject.tenant)}/`}${printable(subject.id)}`;
  const counts = Object.entries(alert.counts)
    .map(([name, n]) => {
      const limit = alert.threshold[name];
      return `${printable(name)}=${n}${limit === undefined ? '' : ` (>${limit})`}`;
    })
    .join(' ');
  const extra = Object.entries(alert.threshold)
    .filter(([name]) => !Object.hasOwn(alert.counts, name))
    .map(([name, n]) => `${printable(name)}: ${n}`);
  const parts = [
    alert.raisedAt,
    alert.rule,
    who,
    `${window.start}..${window.end}`,
    counts,
    ...(extra.length === 0 ? [] : [`threshold ${extra.join(', ')}`]),
    ...(alert.mode === 'log' ? ['(log only)'] : []),
    alert.alertId.slice(0, 12),
  ];
  return parts.join('  ');
}

/** `text` as it is when plain, else as a JSON string with everything outside printable ASCII escaped. */
function printable(text: string): string {
  if (/^[A-Za-z0-9_.@:+-]+$/.test(text)) return text;
  return JSON.stringify(text).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
