/**
 * The analytics service on the real stack, in child processes: a known audit workload written as
 * the stages write it (wire format, in transactions, keyed by tenant), the service SIGKILLed
 * mid-stream and started again, then a second instance joining (a rebalance) while the stream
 * goes on. Every window's final counts must equal what `toolgate stats`' core (`tallyAudit`)
 * counts over the same events and span; no window key is written twice with different values;
 * events sent after their windows closed are counted as late, nowhere else.
 */
import type { ChildProcess } from 'node:child_process';
import {
  ANALYTICS_PRINCIPAL,
  createBus,
  createCodec,
  readTopicWindow,
  SILENT_LOGGER,
  type Bus,
  type Codec,
} from '@toolgate/platform';
import { auditEvent, MESSAGE_SCHEMAS, rejecterFor, type AuditEvent } from '@toolgate/shared';
import type { Kafka } from 'kafkajs';
import { spawnTestChild, type TestChild } from '../../../test/support/spawn-child.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tallyAudit } from '../../../packages/cli/src/tally-audit.js';
import { eventually, within } from '../../../test/support/deadline.js';
import { writeAuditEvents } from '../../../test/support/audit-writer.js';
import { identityEnv } from '../../../test/support/gate-harness.js';
import {
  dropNamespace,
  provisionNamespace,
  testNamespace,
} from '../../../test/support/namespace.js';
import { dropSubjects } from '../../../test/support/registry-cleanup.js';
import { identity, kafkaClient, stackAddresses } from '../../../test/support/stack.js';

const ns = testNamespace('analytics');
const topic = (name: string) => ns.topic(name);
const audit = topic('toolgate.audit');
const stats = topic('toolgate.refusal-stats');
const TENANTS = ['t1', 't2', 't3', 't4', 't5', 't6', 't7', 't8'];
const IDLE_MS = 8_000;
const HOUR = 3_600_000;
/** Event times start two hours back, on the hour: every window closes within the test. */
const T0 = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
const refuse = rejecterFor('authorization');

let kafka: Kafka;
let bus: Bus;
let codec: Codec;
const children: ChildProcess[] = [];
const written: AuditEvent[] = [];
let seq = 0;

beforeAll(async () => {
  await provisionNamespace(ns);
  kafka = kafkaClient(ns.id);
  bus = createBus({
    brokers: stackAddresses().kafkaBrokers,
    clientId: ns.id,
    logger: SILENT_LOGGER,
    security: identity(),
  });
  codec = createCodec({ registryUrl: stackAddresses().schemaRegistryUrl, logger: SILENT_LOGGER });
  await codec.register(`${audit}-value`, MESSAGE_SCHEMAS.audit);
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await bus?.close();
  await dropNamespace(ns, { kafka });
  await dropSubjects(stackAddresses().schemaRegistryUrl, ns.id);
});

/** Runs the service in a child process as `toolgate-analytics`; `ready` once it holds its partitions. */
function analyticsChild(name: string): TestChild {
  const stack = stackAddresses();
  const child = spawnTestChild('test/support/analytics-child.ts', {
    TOOLGATE_KAFKA_BROKERS: stack.kafkaBrokers.join(','),
    ...identityEnv(ANALYTICS_PRINCIPAL),
    TOOLGATE_SCHEMA_REGISTRY_URL: stack.schemaRegistryUrl,
    TOOLGATE_TOPIC_PREFIX: `${ns.id}.`,
    TOOLGATE_GROUP_PREFIX: `${ns.id}.`,
    TOOLGATE_INSTANCE_ID: `${ns.id}-${name}`,
    TOOLGATE_LOG_LEVEL: 'warn',
    TOOLGATE_ANALYTICS_IDLE_MS: String(IDLE_MS),
    TOOLGATE_ANALYTICS_TICK_MS: '200',
  });
  children.push(child.proc);
  return child;
}

/** One audit event as a stage writes it, stamped `atMs`: refusals and acceptances, several tenants. */
function eventAt(atMs: number): AuditEvent {
  const n = seq++;
  const tenant = TENANTS[n % TENANTS.length]!;
  const facts = {
    tenant,
    tool: n % 3 === 0 ? 'search' : 'refund_payment',
    subject: `user-${n % 5}`,
    runId: `run-${n % 7}`,
    proposalId: `p-${n}`,
    source: { topic: 'proposals', partition: 0, offset: String(n) },
  };
  return n % 4 === 0
    ? auditEvent({ ...facts, kind: 'validated' }, new Date(atMs))
    : auditEvent(
        { ...facts, kind: 'rejected', rejected: refuse('not_authorized', undefined, 'test') },
        new Date(atMs),
      );
}

/** Writes events in transactions of `chunk`, as a stage does; records what was written. */
function writeAudit(events: readonly AuditEvent[], chunk = 20): Promise<void> {
  const writer = { kafka, codec, topic: audit, transactionalId: `${ns.id}.writer.${seq}` };
  return writeAuditEvents(writer, events, { chunk, written: (part) => written.push(...part) });
}

/** `count` events from `fromMs`, `stepMs` apart in event time, a few out of order. */
function stream(fromMs: number, count: number, stepMs: number): AuditEvent[] {
  return Array.from({ length: count }, (_, i) => {
    const jitter = i % 10 === 9 ? -5_000 : 0;
    return eventAt(fromMs + i * stepMs + jitter);
  });
}

interface StatsRecord {
  readonly key: string;
  readonly value: Record<string, unknown>;
}

async function readStats(): Promise<StatsRecord[]> {
  const out: StatsRecord[] = [];
  await readTopicWindow(bus, codec, {
    topic: stats,
    groupPrefix: `${ns.id}.`,
    onRecord: (r) => out.push({ key: r.key ?? '', value: r.value as Record<string, unknown> }),
  });
  return out;
}

const DIMS = ['tenant', 'tool', 'stage', 'code', 'disposition'] as const;

/** Per window start (ms) of `size`: `tallyAudit` rows of the events in it, as `dims → count`. */
function expectedCounts(events: readonly AuditEvent[], sizeMs: number): Map<string, number> {
  const byWindow = new Map<number, AuditEvent[]>();
  for (const e of events) {
    const start = Math.floor(Date.parse(e.at) / sizeMs) * sizeMs;
    byWindow.set(start, [...(byWindow.get(start) ?? []), e]);
  }
  const out = new Map<string, number>();
  for (const [start, inWindow] of byWindow) {
    for (const row of tallyAudit(inWindow, DIMS, 'all').rows) {
      const v = row.values;
      const dims = [v.tenant, v.tool, v.stage, v.code, v.disposition].map((x) =>
        x === '-' ? null : x,
      );
      out.set(JSON.stringify([start, ...dims]), row.count);
    }
  }
  return out;
}

/** The final decision counts of `size`, summed over partitions, as `dims → count`. */
function emittedCounts(records: readonly StatsRecord[], size: string): Map<string, number> {
  const latest = new Map(records.map((r) => [r.key, r.value]));
  const out = new Map<string, number>();
  for (const v of latest.values()) {
    if (v['kind'] !== 'decision' || v['size'] !== size) continue;
    const key = JSON.stringify([
      Date.parse(v['windowStart'] as string),
      v['tenant'],
      v['tool'],
      v['rung'],
      v['code'],
      v['disposition'],
    ]);
    out.set(key, (out.get(key) ?? 0) + (v['count'] as number));
  }
  return out;
}

function sumOf(records: readonly StatsRecord[], field: 'events' | 'late'): number {
  const latest = new Map(records.map((r) => [r.key, r.value]));
  return [...latest.values()]
    .filter((v) => v['kind'] === 'window' && v['size'] === 'minute')
    .reduce((n, v) => n + (v[field] as number), 0);
}

describe('the analytics service', () => {
  it('counts every window exactly once across a SIGKILL and a rebalance, as tallyAudit does, and counts late events as late', async () => {
    const first = analyticsChild('a1');
    await within(60_000, 'the first analytics instance to join its group', first.ready);

    // 15 minutes of event time, 600 events, written in three parts.
    const events = stream(T0 + 60_000, 600, 1_500);
    await writeAudit(events.slice(0, 100));
    const killedMidStream = writeAudit(events.slice(100, 200), 5);
    await eventually(30_000, 'the writer to be mid-stream', () =>
      Promise.resolve(written.length >= 130),
    );
    first.proc.kill('SIGKILL');
    await killedMidStream;

    const second = analyticsChild('a2');
    await within(60_000, 'the restarted instance to hold the partitions', second.ready);
    await writeAudit(events.slice(200, 400), 5);
    const third = analyticsChild('a3');
    const rebalanceWrite = writeAudit(events.slice(400, 600), 5);
    await within(60_000, 'the second instance to join (a rebalance)', third.ready);
    await rebalanceWrite;

    // Every window closes: by the watermark, then the last ones by the idle clock. (At least:
    // a count twice over is told by the equalities below, not by a timeout.)
    await eventually(
      120_000,
      'every on-time event in a final minute window',
      async () => sumOf(await readStats(), 'events') >= events.length,
      500,
    );
    // Late: written after their windows closed (minute and hour both, past their grace).
    const late = [eventAt(T0 + 60_000), eventAt(T0 + 61_000), eventAt(T0 + 62_000)];
    await writeAudit(late);
    await eventually(
      120_000,
      'the late events counted as late',
      async () => sumOf(await readStats(), 'late') === late.length,
      500,
    );

    const records = await readStats();
    const byKey = new Map<string, unknown>();
    for (const r of records) {
      if (byKey.has(r.key))
        expect(r.value, `window key ${r.key} written again`).toEqual(byKey.get(r.key));
      byKey.set(r.key, r.value);
    }
    expect(emittedCounts(records, 'minute')).toEqual(expectedCounts(events, 60_000));
    expect(emittedCounts(records, 'hour')).toEqual(expectedCounts(events, HOUR));
    expect(sumOf(records, 'events')).toBe(events.length);
  }, 420_000);
});
