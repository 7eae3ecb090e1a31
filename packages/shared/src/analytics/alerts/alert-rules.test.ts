import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../auth/config-error.js';
import {
  alertRuleProblems,
  ALERT_RULE_NAMES,
  DEFAULT_ALERT_RULES,
  resolveAlertRules,
} from './alert-rules.js';
import { renderAlertRules } from './alerts-doc.js';

const docPath = new URL('../../../../../docs/alerts.md', import.meta.url);

describe('resolveAlertRules', () => {
  it('gives every rule its documented default when the section is absent', () => {
    expect(resolveAlertRules(undefined)).toEqual(DEFAULT_ALERT_RULES);
    expect(DEFAULT_ALERT_RULES.rules.authorization_probing).toEqual({
      enabled: true,
      mode: 'alert',
      threshold: 5,
      windowMs: 600_000,
      cooldownMs: 600_000,
    });
    expect(Object.keys(DEFAULT_ALERT_RULES.rules)).toEqual([...ALERT_RULE_NAMES]);
  });

  it('lays overrides over the defaults, setting by setting, and freezes the result', () => {
    const rules = resolveAlertRules({
      evidenceLimit: 5,
      rules: { quarantine_burst: { mode: 'log', threshold: 50 } },
    });
    expect(rules.evidenceLimit).toBe(5);
    expect(rules.rules.quarantine_burst).toEqual({
      ...DEFAULT_ALERT_RULES.rules.quarantine_burst,
      mode: 'log',
      threshold: 50,
    });
    expect(Object.isFrozen(rules.rules.quarantine_burst)).toBe(true);
  });

  it('reports every problem at once, each naming the rule and the setting', () => {
    const problems = alertRuleProblems({
      evidenceLimit: 0,
      rules: {
        forgery: { enabled: false },
        invalid_sessions_burst: { enabled: false },
        authorization_probing: { threshold: -1, windowMs: '10m', mode: 'page' },
        refusal_rate_jump: { factor: 1, recentMs: 90_000 },
        object_enumeration: { treshold: 3 },
        no_such_rule: {},
      },
    });
    expect(problems).toEqual([
      'evidenceLimit: must be at least 1',
      'rules: "no_such_rule" is not a setting here',
      'rules.authorization_probing.mode: must be "alert" or "log"',
      'rules.authorization_probing.threshold: must be at least 0',
      'rules.authorization_probing.windowMs: must be of type integer',
      'rules.object_enumeration: "treshold" is not a setting here',
      'rules.refusal_rate_jump.factor: must be more than 1',
      'rules.refusal_rate_jump.recentMs: must be a multiple of 60000',
      'rules.forgery.enabled: must be true, the rule is always on',
      'rules.invalid_sessions_burst.enabled: must be true, the rule is always on',
    ]);
    expect(() => resolveAlertRules({ evidenceLimit: 0 })).toThrow(ConfigError);
  });

  it('refuses a cool-down shorter than its window, and a section that is not an object', () => {
    expect(alertRuleProblems({ rules: { approval_health: { cooldownMs: 60_000 } } })).toEqual([
      "rules.approval_health.cooldownMs: must be at least the rule's window (3600000 ms)",
    ]);
    expect(alertRuleProblems(['x'])).toEqual(['(section): must be of type object']);
  });
});

describe('docs/alerts.md', () => {
  it('matches the rules and their defaults (run `npm run docs:alerts` after changing them)', () => {
    expect(readFileSync(docPath, 'utf8')).toBe(renderAlertRules());
  });
});
