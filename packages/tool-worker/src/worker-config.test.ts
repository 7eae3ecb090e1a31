import { ConfigError } from '@toolgate/shared';
import { describe, expect, it } from 'vitest';
import { loadWorkerConfig, workerGroup, workerName } from './worker-config.js';

/** A worker's Kafka identity: its own principal. */
const IDENTITY = {
  TOOLGATE_KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
  TOOLGATE_KAFKA_USERNAME: 'worker-billing',
  TOOLGATE_KAFKA_PASSWORD: 'worker-password',
} as const;

describe('loadWorkerConfig', () => {
  it('loads with defaults and without the gate integrity key, which it never reads', () => {
    const config = loadWorkerConfig({ ...IDENTITY, TOOLGATE_INTEGRITY_KEY: 'k'.repeat(32) });
    expect(config).toMatchObject({
      kafkaBrokers: ['127.0.0.1:9092'],
      redisPrefix: 'toolgate:',
      groupPrefix: '',
      topicPrefix: '',
    });
    expect('integrityKey' in config).toBe(false);
    expect('commandKey' in config).toBe(false);
    expect('observationKey' in config).toBe(false);
    expect(config.workerName).toBeUndefined();
  });

  it('needs a Kafka identity, as every Toolgate process does', () => {
    expect(() => loadWorkerConfig({})).toThrow(/TOOLGATE_KAFKA_SASL_MECHANISM is required/);
  });

  it("reads its tools' keys as a secret list", () => {
    const key = 'a'.repeat(64);
    const config = loadWorkerConfig({ ...IDENTITY, TOOLGATE_TOOL_KEYS: `search:${key}` });
    expect(config.toolKeys).toEqual([`search:${key}`]);
  });

  it('refuses a worker name that could not name a consumer group', () => {
    expect(() => loadWorkerConfig({ ...IDENTITY, TOOLGATE_WORKER_NAME: 'billing tools' })).toThrow(
      ConfigError,
    );
    expect(loadWorkerConfig({ ...IDENTITY, TOOLGATE_WORKER_NAME: 'billing' }).workerName).toBe(
      'billing',
    );
  });
});

describe('workerName', () => {
  it('defaults to the sorted tool names, so workers of different tools never share a group', () => {
    expect(workerName(['search', 'calculate'])).toBe('calculate.search');
    expect(workerName(['calculate', 'search'])).toBe(workerName(['search', 'calculate']));
    expect(workerName(['search'], 'billing')).toBe('billing');
  });
});

describe('workerGroup', () => {
  it('puts the group under the prefix, as toolgate.worker.<name>', () => {
    expect(workerGroup('t1.', 'billing')).toBe('t1.toolgate.worker.billing');
  });
});
