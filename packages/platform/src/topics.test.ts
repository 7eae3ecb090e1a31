import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  COMMAND_TOPIC_PREFIX,
  DECLARED_TOPICS,
  EXAMPLE_TENANTS,
  EXAMPLE_TOOLS,
  TOPIC_NAMES,
  commandTopicName,
  namespacedTopicName,
  replayHorizonMs,
  topicConfigEntries,
  topicsFor,
  withNamespace,
} from './topics.js';

const HOUR_MS = 3_600_000;

describe('DECLARED_TOPICS', () => {
  it('declares every fixed topic of DESIGN §2, a command topic per tool and an observations topic per tenant', () => {
    const names = DECLARED_TOPICS.map((t) => t.name);
    const fixed = Object.values(TOPIC_NAMES).filter((n) => n !== TOPIC_NAMES.observations);
    expect(names).toEqual(expect.arrayContaining(fixed));
    for (const tool of EXAMPLE_TOOLS) expect(names).toContain(`toolgate.commands.${tool}`);
    for (const tenant of EXAMPLE_TENANTS)
      expect(names).toContain(`toolgate.observations.${tenant}`);
    expect(names).not.toContain(TOPIC_NAMES.observations);
    expect(names).toHaveLength(fixed.length + EXAMPLE_TOOLS.length + EXAMPLE_TENANTS.length);
    expect(new Set(names).size).toBe(names.length);
  });

  it('keeps the topics that carry session tokens an hour, in ten-minute segments', () => {
    for (const name of [TOPIC_NAMES.proposals, TOPIC_NAMES.approvals]) {
      expect(DECLARED_TOPICS.find((t) => t.name === name)).toMatchObject({
        retentionMs: HOUR_MS,
        segmentMs: 600_000,
      });
    }
  });

  it('keeps the audit trail longer than a year and never compacts it', () => {
    const audit = DECLARED_TOPICS.find((t) => t.name === TOPIC_NAMES.audit);
    expect(audit?.cleanupPolicy).toBe('delete');
    expect(audit?.retentionMs).toBeGreaterThan(365 * 24 * HOUR_MS);
  });

  it('keeps quarantined bytes by age because keyless records cannot be compacted', () => {
    const quarantine = DECLARED_TOPICS.find((t) => t.name === TOPIC_NAMES.quarantine);
    expect(quarantine).toMatchObject({ key: 'none', cleanupPolicy: 'delete' });
    expect(quarantine?.retentionMs).toBeGreaterThanOrEqual(30 * 24 * HOUR_MS);
  });

  it('marks every topic a stage or tool worker consumes as pipeline', () => {
    const pipeline = DECLARED_TOPICS.filter((t) => t.role === 'pipeline').map((t) => t.name);
    const consumedByTheGate = [
      'proposals',
      'validated',
      'authorized',
      'cleared',
      'approvals',
      'results',
    ] as const;
    for (const short of consumedByTheGate) expect(pipeline).toContain(TOPIC_NAMES[short]);
    expect(pipeline.filter((n) => n.startsWith(COMMAND_TOPIC_PREFIX))).toHaveLength(
      EXAMPLE_TOOLS.length,
    );
  });
});

describe('commandTopicName', () => {
  it('names the command topic after the tool', () => {
    expect(commandTopicName('refund_payment')).toBe('toolgate.commands.refund_payment');
  });

  it.each(['', 'a.b', 'with space', 'x'.repeat(65), 'naïve'])(
    'refuses the tool name %j',
    (tool) => {
      expect(() => commandTopicName(tool)).toThrow(TypeError);
    },
  );
});

describe('withNamespace', () => {
  it('prefixes every name and keeps everything else', () => {
    const [first] = withNamespace('t1-abc', DECLARED_TOPICS);
    const [original] = DECLARED_TOPICS;
    expect(first).toEqual({ ...original, name: `t1-abc.${original?.name ?? ''}` });
  });

  it('refuses a namespace that is not a plain token', () => {
    expect(() => namespacedTopicName('.hidden', 'x')).toThrow(TypeError);
    expect(() => namespacedTopicName('a.b', 'x')).toThrow(TypeError);
  });

  it('refuses a name longer than Kafka allows', () => {
    expect(() => namespacedTopicName('ns', 'x'.repeat(247))).toThrow(/longer than 249/);
  });
});

describe('topicConfigEntries', () => {
  it('gives Kafka the cleanup policy, retention, segment roll and timestamp type in its own names', () => {
    const validated = topicsFor([])[1];
    expect(validated && topicConfigEntries(validated)).toEqual([
      { name: 'cleanup.policy', value: 'delete' },
      { name: 'retention.ms', value: String(24 * HOUR_MS) },
      { name: 'segment.ms', value: String(HOUR_MS) },
      { name: 'message.timestamp.type', value: 'CreateTime' },
    ]);
  });

  it('has the broker stamp proposals with their append time, which the writer cannot set', () => {
    const stamped = DECLARED_TOPICS.filter((t) => t.timestampType === 'LogAppendTime');
    expect(stamped.map((t) => t.name)).toEqual([TOPIC_NAMES.proposals]);
  });
});

describe('replayHorizonMs', () => {
  it('counts one segment beyond retention because only closed segments are deleted', () => {
    expect(replayHorizonMs(DECLARED_TOPICS)).toBe(25 * HOUR_MS);
  });

  it('ignores record topics that no stage replays', () => {
    const recordOnly = DECLARED_TOPICS.filter((t) => t.role === 'record');
    expect(replayHorizonMs(recordOnly)).toBe(0);
  });
});

describe('docs/topics.md', () => {
  const doc = readFileSync(new URL('../../../docs/topics.md', import.meta.url), 'utf8');
  const rows = [
    ...doc.matchAll(/^\|\s*`(toolgate\.[^`]+)`\s*\|\s*([^|]+?)\s*\|[^|]*\|[^|]*\|\s*(\d+)\s*\|/gm),
  ].map(([, name = '', key = '', partitions = '']) => ({
    name,
    key: key.trim(),
    partitions: Number(partitions),
  }));
  const documented = (name: string) =>
    rows.find(
      (r) =>
        r.name ===
        (name.startsWith(COMMAND_TOPIC_PREFIX)
          ? `${COMMAND_TOPIC_PREFIX}<tool>`
          : name.startsWith(`${TOPIC_NAMES.observations}.`)
            ? `${TOPIC_NAMES.observations}.<tenant>`
            : name),
    );

  it('has a row for every declared topic, with its key and partitions', () => {
    for (const topic of DECLARED_TOPICS) {
      expect(documented(topic.name), topic.name).toMatchObject({
        key: topic.key,
        partitions: topic.partitions,
      });
    }
  });

  it('documents no topic that is not declared', () => {
    const declared = new Set(DECLARED_TOPICS.map((t) => documented(t.name)?.name));
    expect(rows.map((r) => r.name).filter((n) => !declared.has(n))).toEqual([]);
  });
});
