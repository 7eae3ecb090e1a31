import { describe, expect, it } from 'vitest';
import { newClusterId, serverProperties } from './kafka.js';
import { loadStackConfig } from './stack-config.js';

const properties = (env: Record<string, string> = {}) =>
  Object.fromEntries(
    serverProperties(loadStackConfig(env, '/repo'))
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('=', 2) as [string, string]),
  );

describe('serverProperties', () => {
  it('runs broker and controller in one node on loopback', () => {
    expect(properties()).toMatchObject({
      'process.roles': 'broker,controller',
      'controller.quorum.voters': '1@127.0.0.1:9093',
      listeners: 'PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093',
      'advertised.listeners': 'PLAINTEXT://127.0.0.1:9092',
      'log.dirs': '/repo/.stack/kafka/data',
    });
  });

  it('lets transactions and consumer groups work on a single broker', () => {
    expect(properties()).toMatchObject({
      'offsets.topic.replication.factor': '1',
      'transaction.state.log.replication.factor': '1',
      'transaction.state.log.min.isr': '1',
    });
  });

  it('refuses to create topics nobody declared', () => {
    expect(properties()['auto.create.topics.enable']).toBe('false');
  });

  it('follows the ports it is given', () => {
    const moved = properties({
      TOOLGATE_STACK_KAFKA_PORT: '19092',
      TOOLGATE_STACK_KAFKA_CONTROLLER_PORT: '19093',
    });
    expect(moved['listeners']).toBe('PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093');
  });
});

describe('newClusterId', () => {
  it('makes 22-character URL-safe ids that no argument parser mistakes for an option', () => {
    for (let i = 0; i < 2_000; i++) {
      const id = newClusterId();
      expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    }
  });
});
