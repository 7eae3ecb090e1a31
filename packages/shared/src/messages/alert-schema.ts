/**
 * The schema of an alert on `toolgate.alerts`: what rule fired, about whom, over which span of
 * event time, what it counted against what threshold, and the audit events behind it.
 */
import { ALERT_RULE_NAMES, MAX_EVIDENCE_LIMIT } from '../analytics/alerts/alert-rules.js';
import { closed, count, instant, nullableText, sha256, text, when } from './schema-parts.js';

/** Counts or thresholds by name: non-negative numbers (a rate factor may be fractional). */
const figures = {
  type: 'object',
  minProperties: 1,
  propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$' },
  additionalProperties: { type: 'number', minimum: 0 },
} as const;

/** One alert, written by the analytics service (key: rule and subject). */
export const alertSchema = closed(
  'Alert',
  {
    alertId: sha256,
    rule: { enum: ALERT_RULE_NAMES },
    subject: {
      type: 'object',
      additionalProperties: false,
      required: ['kind', 'tenant', 'id'],
      properties: {
        kind: { enum: ['run', 'principal', 'tenant', 'gate'] },
        tenant: nullableText,
        id: text,
      },
      // What concerns the installation as a whole belongs to no tenant.
      allOf: [when({ kind: { const: 'gate' } }, { properties: { tenant: { type: 'null' } } })],
    },
    window: {
      type: 'object',
      additionalProperties: false,
      required: ['start', 'end'],
      properties: { start: instant, end: instant },
    },
    counts: figures,
    threshold: figures,
    mode: { enum: ['alert', 'log'] },
    evidence: {
      type: 'array',
      maxItems: MAX_EVIDENCE_LIMIT,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['eventId', 'position'],
        properties: {
          eventId: sha256,
          position: {
            type: 'object',
            additionalProperties: false,
            required: ['partition', 'offset'],
            properties: { partition: count, offset: { type: 'string', pattern: '^[0-9]+$' } },
          },
        },
      },
    },
    raisedAt: instant,
  },
  ['alertId', 'rule', 'subject', 'window', 'counts', 'threshold', 'mode', 'evidence', 'raisedAt'],
);
