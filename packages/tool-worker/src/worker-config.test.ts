import { ConfigError } from '@toolgate/shared';
import { describe, expect, it } from 'vitest';
import { loadWorkerConfig, workerGroup, workerName } from './worker-config.js';

describe('loadWorkerConfig', () => {
  it('loads with defaults and without the gate integrity key, which it never reads', () => {
    const config = loadWorkerConfig({ TOOLGATE_INTEGRITY_KEY: 'k'.repeat(32) });
    expect(config).toMatchObject({
      kafkaBrokers: ['127.0.0.1:9092'],
      redisPrefix: 'toolgate:',
      groupPrefix: '',
      topicPrefix: '',
    });
    expect('integrityKey' in config).toBe(false);
    expect(config.workerName).toBeUndefined();
  });

  it('refuses a worker name that could not name a consumer group', () => {
    expect(() => loadWorkerConfig({ TOOLGATE_WORKER_NAME: 'billing tools' })).toThrow(ConfigError);
    expect(loadWorkerConfig({ TOOLGATE_WORKER_NAME: 'billing' }).workerName).toBe('billing');
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
