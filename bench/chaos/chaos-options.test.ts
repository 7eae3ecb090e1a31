import { describe, expect, it } from 'vitest';
import { chaosStackEnv, parseChaosOptions } from './chaos-options.js';

describe('parseChaosOptions', () => {
  it('reads the mode, seed, rate and fault count, with each mode its defaults', () => {
    expect(parseChaosOptions([])).toMatchObject({ mode: 'full', seed: 1, rate: 20, faults: 210 });
    expect(
      parseChaosOptions(['--quick', '--seed', '9', '--rate', '5', '--faults', '3']),
    ).toMatchObject({ mode: 'quick', seed: 9, rate: 5, faults: 3 });
  });

  it('refuses what it does not know', () => {
    expect(() => parseChaosOptions(['--rate', '0'])).toThrow(/--rate/);
    expect(() => parseChaosOptions(['--seed', 'x'])).toThrow(/--seed/);
    expect(() => parseChaosOptions(['--fast'])).toThrow(/unknown argument --fast/);
  });
});

describe('chaosStackEnv', () => {
  it('gives each mode its own stack directory and ports, away from the developer stack', () => {
    const full = chaosStackEnv('full', {});
    expect(full).toMatchObject({
      TOOLGATE_STACK_DIR: '.stack/chaos-full',
      TOOLGATE_STACK_KAFKA_NODES: '3',
      TOOLGATE_STACK_REDIS: 'cluster',
      TOOLGATE_STACK_REDIS_PORT: '7300',
      TOOLGATE_STACK_REDIS_CLUSTER_BUS_PORT: '17300',
      TOOLGATE_STACK_KAFKA_PORT: '30092',
      TOOLGATE_STACK_KAFKA_CONTROLLER_PORT: '30093',
      TOOLGATE_STACK_REGISTRY_PORT: '30081',
      TOOLGATE_STACK_REGISTRY_MANAGEMENT_PORT: '30091',
    });
    expect(chaosStackEnv('quick', {})).toMatchObject({
      TOOLGATE_STACK_DIR: '.stack/chaos-quick',
      TOOLGATE_STACK_KAFKA_NODES: '1',
      TOOLGATE_STACK_REDIS: 'server',
      TOOLGATE_STACK_REDIS_PORT: '7200',
      TOOLGATE_STACK_KAFKA_PORT: '29092',
      TOOLGATE_STACK_REGISTRY_PORT: '28081',
    });
  });

  it('lets a stack variable set in the shell win, and drops pointers at outside infrastructure', () => {
    const env = chaosStackEnv('quick', {
      TOOLGATE_STACK_REDIS_PORT: '7400',
      TOOLGATE_KAFKA_BROKERS: '127.0.0.1:9092',
      TOOLGATE_REDIS_URL: 'redis://127.0.0.1:6380',
      TOOLGATE_SCHEMA_REGISTRY_URL: 'http://127.0.0.1:8081',
      PATH: '/usr/bin',
    });
    expect(env['TOOLGATE_STACK_REDIS_PORT']).toBe('7400');
    expect(env['PATH']).toBe('/usr/bin');
    expect(env).not.toHaveProperty('TOOLGATE_KAFKA_BROKERS');
    expect(env).not.toHaveProperty('TOOLGATE_REDIS_URL');
    expect(env).not.toHaveProperty('TOOLGATE_SCHEMA_REGISTRY_URL');
  });
});
