/**
 * `toolgate alerts` against the live stack, in a namespace of its own: alerts written to the
 * namespace's alerts topic in the registry's wire format (one of them twice, as a restarted
 * analytics service writes it again) are read back as the analytics principal, each once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodec, SILENT_LOGGER, TOPIC_NAMES } from '@toolgate/platform';
import {
  alertKey,
  auditEvent,
  createAlertEngine,
  DEFAULT_ALERT_RULES,
  MESSAGE_SCHEMAS,
  rejecterFor,
  type Alert,
} from '@toolgate/shared';
import type { Kafka } from 'kafkajs';
import { runCaptured } from '../../packages/cli/src/run-cli.test-support.js';
import { within } from '../support/deadline.js';
import { dropNamespace, provisionNamespace, testNamespace } from '../support/namespace.js';
import { dropSubjects } from '../support/registry-cleanup.js';
import { kafkaClient, principalEnv, stackAddresses } from '../support/stack.js';

const ns = testNamespace('cli-alerts');
const topic = `${ns.id}.${TOPIC_NAMES.alerts}`;
const registryUrl = stackAddresses().schemaRegistryUrl;
let kafka: Kafka;

/** The run and the principal alerts of six authorization refusals, as the engine raises them. */
function probingAlerts(): Alert[] {
  const engine = createAlertEngine(DEFAULT_ALERT_RULES);
  const denied = rejecterFor('authorization')('not_authorized', undefined, 'policy');
  const at = Date.parse('2026-03-01T09:00:00Z');
  return Array.from({ length: 6 }, (_, i) =>
    auditEvent(
      {
        kind: 'rejected',
        rejected: denied,
        proposalId: `p-${i}`,
        runId: 'run-9',
        subject: 'mallory',
        tenant: 'acme',
      },
      new Date(at + i * 1000),
    ),
  ).flatMap((event, i) => engine.observe(event, { partition: 0, offset: String(i) }));
}

beforeAll(async () => {
  await provisionNamespace(ns);
  kafka = kafkaClient(ns.id);
}, 120_000);

afterAll(async () => {
  await dropNamespace(ns, { kafka });
  await dropSubjects(registryUrl, ns.id);
});

const cli = (args: string[]) =>
  runCaptured(args, {
    env: {
      ...principalEnv('toolgate-analytics'),
      TOOLGATE_KAFKA_BROKERS: stackAddresses().kafkaBrokers.join(','),
      TOOLGATE_SCHEMA_REGISTRY_URL: registryUrl,
      TOOLGATE_TOPIC_PREFIX: `${ns.id}.`,
      TOOLGATE_GROUP_PREFIX: `${ns.id}.`,
    },
  });

describe('toolgate alerts', () => {
  it('reads back the alerts written in wire format, each alertId once, as analytics', async () => {
    const [run, principal] = probingAlerts();
    expect([run?.subject.kind, principal?.subject.kind]).toEqual(['run', 'principal']);
    const codec = createCodec({ registryUrl, logger: SILENT_LOGGER });
    await codec.register(`${topic}-value`, MESSAGE_SCHEMAS.alerts);
    const records = await Promise.all(
      [run, run, principal].map(async (alert) => ({
        key: alertKey(alert!),
        value: await codec.encode(`${topic}-value`, alert),
      })),
    );
    expect(records.every((r) => r.value[0] === 0)).toBe(true);
    const producer = kafka.producer();
    await producer.connect();
    try {
      await producer.send({ topic, messages: records });
    } finally {
      await producer.disconnect();
    }

    const json = await within(
      60_000,
      'alerts --json as toolgate-analytics',
      cli(['alerts', '--since', '1h', '--json']),
    );
    expect({ code: json.code, err: json.err }).toEqual({ code: 0, err: '' });
    const read = JSON.parse(json.out) as {
      topic: string;
      alerts: Alert[];
      read: number;
      skipped: number;
    };
    expect(read).toMatchObject({ topic, read: 3, skipped: 0 });
    expect(read.alerts.map((a) => a.alertId).sort()).toEqual(
      [run!.alertId, principal!.alertId].sort(),
    );
    expect(read.alerts).toContainEqual(run);

    const text = await within(
      60_000,
      'alerts as toolgate-analytics',
      cli(['alerts', '--since', '1h']),
    );
    expect(text.code).toBe(0);
    const lines = text.out.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^2 alerts on ${topic.replaceAll('.', '\\.')} since `));
    expect(lines.slice(1).map((l) => l.split('  ').slice(1, 3))).toEqual(
      expect.arrayContaining([
        ['authorization_probing', 'run acme/run-9'],
        ['authorization_probing', 'principal acme/mallory'],
      ]),
    );
    expect(lines).toHaveLength(3);
  });

  it("exits 4 when the identity may not read another installation's alerts", async () => {
    const none = await within(
      60_000,
      'alerts of another installation',
      runCaptured(['alerts'], {
        env: {
          ...principalEnv('toolgate-analytics'),
          TOOLGATE_KAFKA_BROKERS: stackAddresses().kafkaBrokers.join(','),
          TOOLGATE_SCHEMA_REGISTRY_URL: registryUrl,
          TOOLGATE_TOPIC_PREFIX: `${ns.id}-absent.`,
          TOOLGATE_GROUP_PREFIX: `${ns.id}.`,
        },
      }),
    );
    expect(none).toMatchObject({ code: 4, out: '' });
    expect(none.err).toMatch(/Kafka refused this identity/);
  });
});
