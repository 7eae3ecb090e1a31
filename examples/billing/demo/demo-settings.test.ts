import { describe, expect, it } from 'vitest';
import { ConfigError } from '@toolgate/shared';
import { DEMO_INTEGRITY_KEY, demoSettings } from './demo-settings.js';

describe('demoSettings', () => {
  it('gives the stages a demo integrity key and their default ports when nothing is set', () => {
    const s = demoSettings([], {});
    expect(s.once).toBe(false);
    expect(s.env['TOOLGATE_INTEGRITY_KEY']).toBe(DEMO_INTEGRITY_KEY);
    expect(s.ports).toEqual({ validate: 9101, authorize: 9102, confirm: 9103, execute: 9104 });
    expect(s.approvalUrl).toBe('http://127.0.0.1:9103');
    expect(s.runTag).toMatch(/^[a-z0-9]{1,24}$/);
  });

  it('follows a base port, a separate approval port and a namespace', () => {
    const s = demoSettings(['--once'], {
      TOOLGATE_HTTP_PORT: '20000',
      TOOLGATE_CONFIRMATION_HTTP_PORT: '20100',
      TOOLGATE_TOPIC_PREFIX: 'ns-1.',
      TOOLGATE_INTEGRITY_KEY: 'an-integrity-key-of-the-callers-own-000000',
    });
    expect(s.once).toBe(true);
    expect(s.ports).toEqual({ validate: 20000, authorize: 20001, confirm: 20002, execute: 20003 });
    expect(s.approvalUrl).toBe('http://127.0.0.1:20100');
    expect(s.logDir).toMatch(/\.demo\/logs\/ns-1$/);
    expect(s.env['TOOLGATE_INTEGRITY_KEY']).toBe('an-integrity-key-of-the-callers-own-000000');
  });

  it('refuses an unknown argument and ports it cannot know, naming each', () => {
    expect(() => demoSettings(['--twice'], {})).toThrow(ConfigError);
    expect(() => demoSettings([], { TOOLGATE_HTTP_PORT: '0' })).toThrow(/TOOLGATE_HTTP_PORT=0/);
    expect(() => demoSettings([], { TOOLGATE_HTTP_PORT: 'x' })).toThrow(ConfigError);
  });

  it('talks to the stack where stack:up put it when its ports are moved', () => {
    const s = demoSettings([], {
      TOOLGATE_STACK_KAFKA_PORT: '19092',
      TOOLGATE_STACK_REGISTRY_PORT: '18081',
      TOOLGATE_STACK_REDIS_PORT: '16379',
    });
    expect(s.config.kafkaBrokers).toEqual(['127.0.0.1:19092']);
    expect(s.config.schemaRegistryUrl).toBe('http://127.0.0.1:18081/apis/ccompat/v7');
    expect(s.config.redisUrl).toBe('redis://127.0.0.1:16379');
    expect(s.env['TOOLGATE_KAFKA_BROKERS']).toBe('127.0.0.1:19092');
    expect(s.addressExports).toEqual([
      'export TOOLGATE_KAFKA_BROKERS=127.0.0.1:19092',
      'export TOOLGATE_SCHEMA_REGISTRY_URL=http://127.0.0.1:18081/apis/ccompat/v7',
      'export TOOLGATE_REDIS_URL=redis://127.0.0.1:16379',
    ]);
    expect(demoSettings([], {}).addressExports).toEqual([]);
  });

  it('keeps addresses the caller gives, and refuses a stack port that is no port', () => {
    const s = demoSettings([], {
      TOOLGATE_STACK_KAFKA_PORT: '19092',
      TOOLGATE_KAFKA_BROKERS: 'kafka-1:9092',
    });
    expect(s.config.kafkaBrokers).toEqual(['kafka-1:9092']);
    expect(() => demoSettings([], { TOOLGATE_STACK_REDIS_PORT: 'ninety' })).toThrow(ConfigError);
  });
});
