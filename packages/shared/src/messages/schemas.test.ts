import { describe, expect, it } from 'vitest';
import { createAlertEngine, DEFAULT_ALERT_RULES } from '../analytics/alerts/index.js';
import { rejecterFor } from '../decision.js';
import { buildCommand, identityOf, refusal } from '../ladder/index.js';
import { approval } from './approval.js';
import { auditEvent } from './audit-event.js';
import { auditFactsOf } from './audit-facts.js';
import { confirmationRequest } from './confirmation-request.js';
import { createMessageChecker } from './create-message-checker.js';
import { authorized, NOW, pending, proposalOf, ARGS, validated } from './messages.test-support.js';
import { observationForPending, observationForRefusal } from './observations.js';
import {
  EXTERNAL_TOPICS,
  MESSAGE_SCHEMAS,
  MESSAGE_TOPICS,
  messageTopicOf,
  type MessageTopic,
} from './schemas.js';
import { authorizedEnvelope, clearedEnvelope, validatedEnvelope } from './stage-envelope.js';

const check = createMessageChecker();

/** The alert the engine raises on one forged envelope. */
function forgeryAlert() {
  const forged = rejecterFor('authentication')('forged_envelope', undefined, 'bad tag');
  const event = auditEvent({ kind: 'rejected', rejected: forged }, NOW);
  const [alert] = createAlertEngine(DEFAULT_ALERT_RULES).observe(event, {
    partition: 0,
    offset: '7',
  });
  return alert;
}
const IDS = { proposalId: 'p-81f2', runId: 'run-7', requestId: 'req-42', callId: 'call_abc' };
const AT = NOW.toISOString();

type Json = Record<string, unknown>;

/** One valid message per topic, each from the builder (or core function) that writes it. */
function samples(): Record<MessageTopic, Json> {
  const a = authorized();
  const command = buildCommand(a, identityOf(a).key, { now: NOW, timeoutMs: 10_000 });
  const denied = refusal(rejecterFor('authorization')('not_authorized', undefined, 'policy'));
  const json = (v: unknown) => JSON.parse(JSON.stringify(v)) as Json;
  return {
    proposals: json(proposalOf(ARGS)),
    // GateOutputs.envelope stamps issuedAt on every envelope as it is written.
    validated: json({ ...validatedEnvelope(validated(), AT), issuedAt: AT }),
    authorized: json({ ...authorizedEnvelope(a, AT), issuedAt: AT }),
    cleared: json({
      ...clearedEnvelope(a, AT, { confirmedBy: 'bob', confirmedAt: AT }),
      issuedAt: AT,
    }),
    confirmations: json(confirmationRequest(pending())),
    approvals: json(approval('conf_1', 'approve', 'e'.repeat(64))),
    commands: json(command),
    results: {
      commandId: command.commandId,
      idempotencyKey: command.idempotencyKey,
      runId: 'run-7',
      status: 'ok',
      output: { refunded_cents: 1200 },
      completedAt: AT,
    },
    observations: json(observationForRefusal(IDS, denied, NOW)),
    audit: json(
      auditEvent({ kind: 'rejected', rejected: denied.rejected, ...auditFactsOf(a) }, NOW),
    ),
    alerts: json(forgeryAlert()),
  };
}

const without = (o: Json, key: string) =>
  Object.fromEntries(Object.entries(o).filter(([k]) => k !== key));
const gateWritten = MESSAGE_TOPICS.filter((t) => !EXTERNAL_TOPICS.includes(t));

describe('MESSAGE_SCHEMAS', () => {
  it('has one draft 2020-12 schema per message topic, and plain JSON to register', () => {
    expect(Object.keys(MESSAGE_SCHEMAS).sort()).toEqual([...MESSAGE_TOPICS].sort());
    for (const topic of MESSAGE_TOPICS) {
      const schema = MESSAGE_SCHEMAS[topic];
      expect(schema['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
    }
  });

  it('compiles in the strict mode of the gate validator', () => {
    expect(() => createMessageChecker()).not.toThrow();
  });

  it('accepts what every builder writes', () => {
    for (const [topic, value] of Object.entries(samples())) {
      expect(check(topic as MessageTopic, value), topic).toEqual([]);
    }
  });

  it('refuses a message without any one of its required fields', () => {
    const all = samples();
    for (const topic of MESSAGE_TOPICS) {
      const required = MESSAGE_SCHEMAS[topic]['required'] as string[];
      expect(required.length).toBeGreaterThan(0);
      for (const field of required) {
        expect(check(topic, without(all[topic], field)), `${topic} without ${field}`).toContain(
          `/: required ${field}`,
        );
      }
    }
  });

  it('refuses an extra field on every message the gate writes', () => {
    const all = samples();
    for (const topic of gateWritten) {
      expect(check(topic, { ...all[topic], tenant_id: 'x' }), topic).toContain(
        '/: additionalProperties tenant_id',
      );
    }
  });

  it('lets the gate answer extra fields on external messages itself', () => {
    const all = samples();
    for (const topic of EXTERNAL_TOPICS) {
      expect(check(topic, { ...all[topic], extension: 1 }), topic).toEqual([]);
    }
  });

  it('refuses values outside every enumeration', () => {
    const all = samples();
    const wrong: [MessageTopic, Json][] = [
      ['observations', { ...all.observations, outcome: 'done' }],
      ['observations', { ...all.observations, disposition: 'maybe' }],
      ['observations', { ...all.observations, stage: 'nope' }],
      ['observations', { ...all.observations, code: 'not_a_code' }],
      ['audit', { ...all.audit, kind: 'bogus' }],
      ['audit', { ...all.audit, stage: 'nope' }],
      ['proposals', { ...all.proposals, format: 'xml' }],
      ['approvals', { ...all.approvals, decision: 'maybe' }],
      ['results', { ...all.results, status: 'meh' }],
      ['validated', { ...all.validated, repaired: 'quotes' }],
      ['alerts', { ...all.alerts, rule: 'made_up' }],
      ['alerts', { ...all.alerts, mode: 'page' }],
    ];
    for (const [topic, value] of wrong) {
      expect(check(topic, value), JSON.stringify(value)).not.toEqual([]);
    }
  });

  it('refuses a code of another stage', () => {
    const all = samples();
    expect(check('observations', { ...all.observations, stage: 'schema' })).toContain(
      '/code: enum',
    );
    expect(check('audit', { ...all.audit, stage: 'schema' })).toContain('/code: enum');
  });

  it('refuses malformed instants, digests and counts', () => {
    const all = samples();
    const wrong: [MessageTopic, Json][] = [
      ['observations', { ...all.observations, at: 'yesterday' }],
      ['commands', { ...all.commands, deadline: '2025-03-01' }],
      ['confirmations', { ...all.confirmations, digest: 'D'.repeat(64) }],
      ['validated', { ...all.validated, attempt: -1 }],
      ['validated', { ...all.validated, attempt: 1.5 }],
      ['proposals', { ...all.proposals, proposalId: '' }],
      ['audit', { ...all.audit, eventId: 'short' }],
    ];
    for (const [topic, value] of wrong) {
      expect(check(topic, value), JSON.stringify(value)).not.toEqual([]);
    }
  });
});

describe('the observation schema', () => {
  const base = () => samples().observations;
  const pendingObs = () =>
    JSON.parse(
      JSON.stringify(observationForPending(IDS, { confirmationId: 'conf_1', expiresAt: AT }, NOW)),
    ) as Json;

  it('refuses a refusal without stage and code', () => {
    expect(check('observations', without(without(base(), 'stage'), 'code'))).not.toEqual([]);
    expect(check('observations', without(base(), 'code'))).not.toEqual([]);
  });

  it('refuses a pending confirmation without where it waits, or with another code', () => {
    expect(check('observations', without(pendingObs(), 'confirmation'))).not.toEqual([]);
    expect(check('observations', { ...pendingObs(), disposition: 'deny' })).not.toEqual([]);
  });

  it('refuses confirmation details on anything but a pending confirmation', () => {
    const { confirmation } = pendingObs();
    expect(check('observations', { ...base(), confirmation })).not.toEqual([]);
  });

  it('refuses a shown result without content, and content on a refusal', () => {
    const shown = {
      ...without(without(base(), 'stage'), 'code'),
      outcome: 'result',
      disposition: 'execute',
    };
    expect(check('observations', shown)).not.toEqual([]);
    expect(check('observations', { ...shown, result: { content: 'x', withheld: false } })).toEqual(
      [],
    );
    expect(
      check('observations', { ...base(), result: { content: 'x', withheld: false } }),
    ).not.toEqual([]);
  });

  it('refuses a repair offer on a refusal that is not offered for repair', () => {
    const repair = { attempt: 1, remaining: 1, prompt: 'fix it' };
    expect(check('observations', { ...base(), repair })).not.toEqual([]);
  });

  it('refuses expired and unknown outcomes under another stage or code', () => {
    const expired = {
      ...base(),
      outcome: 'expired',
      stage: 'confirmation',
      code: 'rejected_by_human',
    };
    expect(check('observations', expired)).not.toEqual([]);
    const unknown = {
      ...base(),
      outcome: 'unknown_outcome',
      stage: 'execution',
      code: 'tool_error',
    };
    expect(check('observations', unknown)).not.toEqual([]);
  });
});

describe('the other conditional rules', () => {
  it('refuses a cleared envelope with confirmedBy but no confirmedAt', () => {
    expect(check('cleared', without(samples().cleared, 'confirmedAt'))).toContain(
      '/: dependentRequired confirmedAt',
    );
  });

  it('refuses a tool result with status error but no error', () => {
    expect(check('results', { ...samples().results, status: 'error' })).toContain(
      '/: required error',
    );
  });

  it('refuses a quarantine audit event without the raw hash and size', () => {
    const e = JSON.parse(
      JSON.stringify(auditEvent({ kind: 'quarantined', raw: new Uint8Array([1]) }, NOW)),
    ) as Json;
    expect(check('audit', e)).toEqual([]);
    expect(check('audit', without(e, 'raw'))).toContain('/: required raw');
  });

  it('refuses an accepted-end audit event filed under another stage or code', () => {
    const e = JSON.parse(JSON.stringify(auditEvent({ kind: 'validated' }, NOW))) as Json;
    expect(check('audit', e)).toEqual([]);
    expect(check('audit', { ...e, stage: 'schema', code: 'missing_field' })).not.toEqual([]);
  });
});

describe('messageTopicOf', () => {
  it('maps the ten names to themselves and commands.<tool> to commands', () => {
    for (const topic of MESSAGE_TOPICS) expect(messageTopicOf(topic)).toBe(topic);
    expect(messageTopicOf('commands.refund_payment')).toBe('commands');
  });

  it('has no schema for quarantine, a bare commands. or an unknown name', () => {
    expect(messageTopicOf('quarantine')).toBeUndefined();
    expect(messageTopicOf('commands.')).toBeUndefined();
    expect(messageTopicOf('toolgate.validated')).toBeUndefined();
  });
});

describe('createMessageChecker', () => {
  it('names the path and keyword of a problem, never the value', () => {
    const problems = check('observations', { ...samples().observations, outcome: 'SECRET' });
    expect(problems).toContain('/outcome: enum');
    expect(problems.join('\n')).not.toContain('SECRET');
  });
});
