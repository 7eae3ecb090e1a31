import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  COMMAND_TOPIC_PREFIX,
  DECLARED_TOPICS,
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
  it('declares every fixed topic of DESIGN §2 and one command topic per example tool', () => {
    const names = DECLARED_TOPICS.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(Object.values(TOPIC_NAMES)));
    for (const tool of EXAMPLE_TOOLS) expect(names).toContain(`toolgate.commands.${tool}`);
    expect(names).toHaveLength(Object.keys(TOPIC_NAMES).length + EXAMPLE_TOOLS.length);
    expect(new Set(names).size).toBe(names.length);
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
  it('gives Kafka the cleanup policy, retention and segment roll in its own names', () => {
    const proposals = topicsFor([])[0];
    expect(proposals && topicConfigEntries(proposals)).toEqual([
      { name: 'cleanup.policy', value: 'delete' },
      { name: 'retention.ms', value: String(24 * HOUR_MS) },
      { name: 'segment.ms', value: String(HOUR_MS) },
    ]);
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
        r.name === (name.startsWith(COMMAND_TOPIC_PREFIX) ? `${COMMAND_TOPIC_PREFIX}<tool>` : name),
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
