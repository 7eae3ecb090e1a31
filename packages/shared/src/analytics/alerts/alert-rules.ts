/**
 * The alert rules a deployment may tune (`analytics.alerts` of its configuration file): every
 * rule's settings, their defaults and bounds, and the validation that reports every problem at
 * once, each naming the rule and the field.
 */
import type { ErrorObject } from 'ajv';
import { ConfigError } from '../../auth/config-error.js';
import { createValidator } from '../../tools/create-validator.js';

/** The rules, in the order the docs list them. */
export const ALERT_RULE_NAMES = [
  'authorization_probing',
  'object_enumeration',
  'runaway_run',
  'refusal_rate_jump',
  'forgery',
  'invalid_sessions_burst',
  'quarantine_burst',
  'approval_health',
] as const;

/** One rule's name: the `rule` field of its alerts. */
export type AlertRuleName = (typeof ALERT_RULE_NAMES)[number];

/** `alert` pages; `log` writes the alert to the topic and the log, marked, and pages no one. */
export type AlertMode = 'alert' | 'log';

/** What every rule has. */
export interface RuleSwitch {
  /** False turns the rule off (it keeps no state). Always-on rules refuse false. */
  readonly enabled: boolean;
  readonly mode: AlertMode;
  /**
   * After an alert, no other alert of the same rule and subject until this much event time has
   * passed (ms). At least the rule's window, so no event is counted by two alerts of a subject.
   */
  readonly cooldownMs: number;
}

/** A rule that fires when more than `threshold` matching events fall in a sliding window. */
export interface CountRule extends RuleSwitch {
  /** The rule fires on the count above it: `threshold: 5` fires on the 6th. */
  readonly threshold: number;
  /** The sliding window over event time (the audit events' `at`), ms. */
  readonly windowMs: number;
}

/** `refusal_rate_jump`: a tenant's recent refusal rate against its trailing baseline. */
export interface RateJumpRule extends RuleSwitch {
  /** Fires when the recent rate is more than `factor` times the baseline rate. */
  readonly factor: number;
  /** ...and the recent window holds at least this many refusals. */
  readonly minRefusals: number;
  /** The recent window, ms, a whole number of minutes. */
  readonly recentMs: number;
  /** The baseline: the span just before the recent window, ms, a whole number of minutes. */
  readonly baselineMs: number;
}

/** `approval_health`: counts of unhealthy approval outcomes per tenant in a sliding window. */
export interface ApprovalHealthRule extends RuleSwitch {
  /** Fires when more confirmations than this expired unanswered in the window. */
  readonly expired: number;
  /** ...or more approvals than this were refused as `content_changed`. */
  readonly contentChanged: number;
  /** ...or more approvals than this came from approvers refused (`approver_not_authorized`). */
  readonly approverRefused: number;
  readonly windowMs: number;
}

/** Every rule's settings, by rule. */
export interface AlertRuleSettings {
  readonly authorization_probing: CountRule;
  readonly object_enumeration: CountRule;
  readonly runaway_run: CountRule;
  readonly refusal_rate_jump: RateJumpRule;
  readonly forgery: CountRule;
  readonly invalid_sessions_burst: CountRule;
  readonly quarantine_burst: CountRule;
  readonly approval_health: ApprovalHealthRule;
}

/** The resolved alert configuration: what `createAlertEngine` takes. */
export interface AlertRules {
  /** Most audit events named as evidence in one alert (the oldest of those counted). */
  readonly evidenceLimit: number;
  readonly rules: AlertRuleSettings;
}

/** The deployment file's `analytics.alerts` section: every field optional, over the defaults. */
export interface AlertRulesInput {
  readonly evidenceLimit?: number;
  readonly rules?: { readonly [R in AlertRuleName]?: Partial<AlertRuleSettings[R]> };
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** The longest window or cool-down any rule takes: one day. */
export const MAX_ALERT_WINDOW_MS = 24 * HOUR;
/** The most evidence one alert may name: it must fit a Kafka record with room to spare. */
export const MAX_EVIDENCE_LIMIT = 1000;

/** Rules that cannot be turned off: a forgery, or a burst of invalid sessions, always alerts. */
export const ALWAYS_ON_RULES: readonly AlertRuleName[] = ['forgery', 'invalid_sessions_burst'];

const count = (threshold: number, windowMs: number, cooldownMs = windowMs): CountRule => ({
  enabled: true,
  mode: 'alert',
  threshold,
  windowMs,
  cooldownMs,
});

/**
 * The rules a deployment gets when it sets none. Frozen. `authorization_probing` fires on more
 * than 5 authorization refusals of a run or a principal in 10 minutes: the threshold security
 * products document for denied tool calls, the signature of an agent probing what it may do.
 * `runaway_run` fires on the first refusal of a run for its call ceiling or its repair budget: an
 * agent that loops, once per run and hour.
 * Every default is listed, with its meaning, in docs/alerts.md.
 */
export const DEFAULT_ALERT_RULES: AlertRules = deepFreeze({
  evidenceLimit: 20,
  rules: {
    authorization_probing: count(5, 10 * MINUTE),
    object_enumeration: count(10, 10 * MINUTE),
    runaway_run: count(0, 10 * MINUTE, HOUR),
    refusal_rate_jump: {
      enabled: true,
      mode: 'alert',
      factor: 3,
      minRefusals: 20,
      recentMs: 10 * MINUTE,
      baselineMs: HOUR,
      cooldownMs: 30 * MINUTE,
    },
    forgery: count(0, 10 * MINUTE),
    invalid_sessions_burst: count(20, MINUTE, 10 * MINUTE),
    quarantine_burst: count(10, MINUTE, 10 * MINUTE),
    approval_health: {
      enabled: true,
      mode: 'alert',
      expired: 10,
      contentChanged: 3,
      approverRefused: 3,
      windowMs: HOUR,
      cooldownMs: HOUR,
    },
  },
});

const ms = { type: 'integer', minimum: 1000, maximum: MAX_ALERT_WINDOW_MS } as const;
const minutes = { ...ms, minimum: MINUTE, multipleOf: MINUTE } as const;
const atLeastZero = { type: 'integer', minimum: 0 } as const;
const switches = (name: AlertRuleName) => ({
  enabled: ALWAYS_ON_RULES.includes(name) ? { const: true } : { type: 'boolean' },
  mode: { enum: ['alert', 'log'] },
  cooldownMs: ms,
});
const countRule = (name: AlertRuleName) => ({
  type: 'object',
  additionalProperties: false,
  properties: { ...switches(name), threshold: atLeastZero, windowMs: ms },
});

const SECTION_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    evidenceLimit: { type: 'integer', minimum: 1, maximum: MAX_EVIDENCE_LIMIT },
    rules: {
      type: 'object',
      additionalProperties: false,
      properties: {
        authorization_probing: countRule('authorization_probing'),
        object_enumeration: countRule('object_enumeration'),
        runaway_run: countRule('runaway_run'),
        refusal_rate_jump: {
          type: 'object',
          additionalProperties: false,
          properties: {
            ...switches('refusal_rate_jump'),
            factor: { type: 'number', exclusiveMinimum: 1, maximum: 1000 },
            minRefusals: { type: 'integer', minimum: 1 },
            recentMs: minutes,
            baselineMs: minutes,
          },
        },
        forgery: countRule('forgery'),
        invalid_sessions_burst: countRule('invalid_sessions_burst'),
        quarantine_burst: countRule('quarantine_burst'),
        approval_health: {
          type: 'object',
          additionalProperties: false,
          properties: {
            ...switches('approval_health'),
            expired: atLeastZero,
            contentChanged: atLeastZero,
            approverRefused: atLeastZero,
            windowMs: ms,
          },
        },
      },
    },
  },
} as const;

let compiled: (((value: unknown) => boolean) & { errors?: ErrorObject[] | null }) | undefined;

/**
 * Every problem of a deployment's `analytics.alerts` section (undefined means "all defaults"):
 * one sentence each, naming the rule and the field (`rules.forgery.enabled: must be true, the rule
 * is always on`); empty when it is good. Also refuses a cool-down shorter than the rule's window.
 */
export function alertRuleProblems(input: unknown): string[] {
  if (input === undefined) return [];
  compiled ??= createValidator().compile(SECTION_SCHEMA);
  if (!compiled(input)) return (compiled.errors ?? []).map(describe);
  return cooldownProblems(merge(input as AlertRulesInput));
}

/**
 * The deployment's alert rules: `input` over {@link DEFAULT_ALERT_RULES}, frozen.
 *
 * @throws ConfigError naming every problem ({@link alertRuleProblems}).
 */
export function resolveAlertRules(input: AlertRulesInput | undefined): AlertRules {
  const problems = alertRuleProblems(input);
  if (problems.length > 0) throw new ConfigError('analytics.alerts', problems);
  return deepFreeze(merge(input ?? {}));
}

function merge(input: AlertRulesInput): AlertRules {
  const given = input.rules ?? {};
  const rules = Object.fromEntries(
    ALERT_RULE_NAMES.map((name) => [name, { ...DEFAULT_ALERT_RULES.rules[name], ...given[name] }]),
  ) as unknown as AlertRuleSettings;
  return { evidenceLimit: input.evidenceLimit ?? DEFAULT_ALERT_RULES.evidenceLimit, rules };
}

function cooldownProblems(rules: AlertRules): string[] {
  return ALERT_RULE_NAMES.flatMap((name) => {
    const rule: RuleSwitch & { windowMs?: number; recentMs?: number } = rules.rules[name];
    const window = rule.windowMs ?? rule.recentMs ?? 0;
    return rule.cooldownMs < window
      ? [`rules.${name}.cooldownMs: must be at least the rule's window (${window} ms)`]
      : [];
  });
}

function describe(e: ErrorObject): string {
  const where = e.instancePath.slice(1).replaceAll('/', '.') || '(section)';
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties':
      return `${where}: ${JSON.stringify(params['additionalProperty'])} is not a setting here`;
    case 'const':
      return `${where}: must be true, the rule is always on`;
    case 'enum':
      return `${where}: must be "alert" or "log"`;
    case 'type':
      return `${where}: must be of type ${String(params['type'])}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'multipleOf':
      return `${where}: must be ${BOUND_WORDS[e.keyword]} ${String(params['limit'] ?? params['multipleOf'])}`;
    default:
      return `${where}: fails ${e.keyword}`;
  }
}

const BOUND_WORDS = {
  minimum: 'at least',
  maximum: 'at most',
  exclusiveMinimum: 'more than',
  multipleOf: 'a multiple of',
} as const;

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
