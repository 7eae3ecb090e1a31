import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SILENT_LOGGER } from '../adapter-logger.js';
import { Fault } from '../fault.js';
import { PartitionRetry } from './partition-retry.js';

const fault = new Fault('redis_unavailable', 'redis down');

describe('PartitionRetry', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('tries a resume again when the consumer throws at once (restarting after a crash)', async () => {
    const calls: string[] = [];
    const warnings: string[] = [];
    let restarting = true;
    const retry = new PartitionRetry({
      consumer: {
        pause: (topic, partition) => void calls.push(`pause ${topic}/${partition}`),
        seek: (topic, partition, offset) => void calls.push(`seek ${topic}/${partition}@${offset}`),
        resume: (topic, partition) => {
          // kafkajs throws synchronously while its consumer group is being rebuilt.
          if (restarting) throw new Error('Consumer group was not initialized');
          calls.push(`resume ${topic}/${partition}`);
        },
      },
      committedOffset: () => Promise.resolve(undefined),
      retry: { initialMs: 100, maxMs: 100 },
      logger: { ...SILENT_LOGGER, warn: (_fields, message) => void warnings.push(message) },
      metrics: {},
      isRunning: () => true,
    });
    retry.retryLater('t', 0, '7', fault);
    await vi.advanceTimersByTimeAsync(100);
    expect(warnings).toContain('could not resume a paused partition yet');
    expect(calls).toEqual(['pause t/0', 'seek t/0@7']);
    restarting = false;
    await vi.advanceTimersByTimeAsync(100);
    expect(calls).toEqual(['pause t/0', 'seek t/0@7', 'resume t/0']);
  });
});
