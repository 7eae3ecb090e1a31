import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '@toolgate/shared';
import { demoSettings } from './demo-settings.js';

// The stack's secrets are made on first use: here, in a folder of this file's own.
const stackDir = mkdtempSync(path.join(tmpdir(), 'demo-settings-'));
const stack = { TOOLGATE_STACK_DIR: stackDir };

afterAll(() => rmSync(stackDir, { recursive: true, force: true }));

describe('demoSettings', () => {
  it('gives each stage its own principal and the stage keys, and the default ports', () => {
    const s = demoSettings([], stack);
    expect(s.once).toBe(false);
    expect(s.namespaced).toBe(false);
    for (const stage of ['validate', 'authorize', 'confirm', 'execute']) {
      const env = s.envOf(`toolgate-${stage}`);
      expect(env['TOOLGATE_KAFKA_USERNAME']).toBe(`toolgate-${stage}`);
      expect(env['TOOLGATE_KAFKA_PASSWORD_FILE']).toContain(stackDir);
      expect(env['TOOLGATE_INTEGRITY_KEY']).toBeTruthy();
      expect(env['TOOLGATE_OBSERVATION_KEY']).toBeTruthy();
      expect(env['TOOLGATE_COMMAND_KEY'] !== undefined).toBe(stage === 'execute');
      expect(new URL(env['TOOLGATE_REDIS_URL'] ?? '').username).toBe('toolgate-gate');
    }
    expect(s.ports).toEqual({
      validate: 9101,
      authorize: 9102,
      confirm: 9103,
      execute: 9104,
      worker: 9105,
      analytics: 9106,
      console: 9120,
    });
    expect(s.approvalUrl).toBe('http://127.0.0.1:9110');
    expect(s.urlOf('worker')).toBe('http://127.0.0.1:9105');
    expect(s.runTag).toMatch(/^[a-z0-9]{1,24}$/);
  });

  it('gives the worker its tool keys and Redis user, and no gate key', () => {
    const worker = demoSettings([], stack).envOf('worker-billing');
    expect(worker['TOOLGATE_KAFKA_USERNAME']).toBe('worker-billing');
    expect(worker['TOOLGATE_TOOL_KEYS']).toMatch(/^search:[0-9a-f]{64},/);
    expect(new URL(worker['TOOLGATE_REDIS_URL'] ?? '').username).toBe('worker-billing');
    for (const key of ['INTEGRITY_KEY', 'COMMAND_KEY', 'OBSERVATION_KEY']) {
      expect(worker[`TOOLGATE_${key}`]).toBeUndefined();
    }
  });

  it("gives each tenant's agents their tenant and the gate's public key, nothing secret", () => {
    const agent = demoSettings([], stack).envOf('agent-globex');
    expect(agent['TOOLGATE_KAFKA_USERNAME']).toBe('agent-globex');
    expect(agent['TOOLGATE_TENANT']).toBe('globex');
    expect(agent['TOOLGATE_OBSERVATION_PUBLIC_KEYS']).toBeTruthy();
    expect(agent['TOOLGATE_INTEGRITY_KEY']).toBeUndefined();
    expect(agent['TOOLGATE_REDIS_URL']).toBeUndefined();
  });

  it("hands on no identity or key of the caller's, and knows no other principal", () => {
    const s = demoSettings([], {
      ...stack,
      TOOLGATE_KAFKA_USERNAME: 'someone-else',
      TOOLGATE_KAFKA_PASSWORD: 'their-password',
      TOOLGATE_INTEGRITY_KEY: 'an-integrity-key-of-the-callers-own-000000',
      TOOLGATE_COMMAND_KEY: 'a-command-key-of-the-callers-own-0000000000',
      TOOLGATE_FETCH_MAX_WAIT_MS: '40',
    });
    const worker = s.envOf('worker-billing');
    expect(worker['TOOLGATE_KAFKA_USERNAME']).toBe('worker-billing');
    expect(worker['TOOLGATE_KAFKA_PASSWORD']).toBeUndefined();
    expect(worker['TOOLGATE_INTEGRITY_KEY']).toBeUndefined();
    expect(worker['TOOLGATE_COMMAND_KEY']).toBeUndefined();
    expect(worker['TOOLGATE_FETCH_MAX_WAIT_MS']).toBe('40');
    const execute = s.envOf('toolgate-execute');
    expect(execute['TOOLGATE_COMMAND_KEY']).not.toBe('a-command-key-of-the-callers-own-0000000000');
    expect(() => s.envOf('nobody')).toThrow(/no principal nobody/);
  });

  it('moves the approval API past the worker and analytics with a base port, unless its own port is given', () => {
    expect(demoSettings([], { ...stack, TOOLGATE_HTTP_PORT: '20000' }).approvalUrl).toBe(
      'http://127.0.0.1:20006',
    );
    expect(() => demoSettings([], { ...stack, TOOLGATE_APPROVAL_PORT: '0' })).toThrow(
      /TOOLGATE_APPROVAL_PORT=0/,
    );
  });

  it('follows a base port, a separate approval port and a namespace', () => {
    const s = demoSettings(['--once'], {
      ...stack,
      TOOLGATE_HTTP_PORT: '20000',
      TOOLGATE_APPROVAL_PORT: '20100',
      TOOLGATE_TOPIC_PREFIX: 'ns-1.',
    });
    expect(s.once).toBe(true);
    expect(s.namespaced).toBe(true);
    expect(s.ports).toEqual({
      validate: 20000,
      authorize: 20001,
      confirm: 20002,
      execute: 20003,
      worker: 20004,
      analytics: 20005,
      console: 20007,
    });
    expect(s.approvalUrl).toBe('http://127.0.0.1:20100');
    expect(s.logDir).toMatch(/\.demo\/logs\/ns-1$/);
    expect(s.envOf('toolgate-confirm')['TOOLGATE_HTTP_PORT']).toBeUndefined();
    expect(s.envOf('toolgate-confirm')['TOOLGATE_APPROVAL_PORT']).toBeUndefined();
    expect(demoSettings([], { ...stack, TOOLGATE_REDIS_PREFIX: 'ns-1:' }).namespaced).toBe(true);
  });

  it('refuses an unknown argument and ports it cannot know, naming each', () => {
    expect(() => demoSettings(['--twice'], stack)).toThrow(ConfigError);
    expect(() => demoSettings([], { ...stack, TOOLGATE_HTTP_PORT: '0' })).toThrow(
      /TOOLGATE_HTTP_PORT=0/,
    );
    expect(() => demoSettings([], { ...stack, TOOLGATE_HTTP_PORT: 'x' })).toThrow(ConfigError);
  });

  it('talks to the stack where stack:up put it when its ports are moved', () => {
    const s = demoSettings([], {
      ...stack,
      TOOLGATE_STACK_KAFKA_PORT: '19092',
      TOOLGATE_STACK_REGISTRY_PORT: '18081',
      TOOLGATE_STACK_REDIS_PORT: '16379',
    });
    expect(s.config.kafkaBrokers).toEqual(['127.0.0.1:19092']);
    expect(s.config.schemaRegistryUrl).toBe('http://127.0.0.1:18081/apis/ccompat/v7');
    expect(new URL(s.config.redisUrl).host).toBe('127.0.0.1:16379');
    expect(s.envOf('agent-acme')['TOOLGATE_KAFKA_BROKERS']).toBe('127.0.0.1:19092');
    expect(new URL(s.envOf('worker-billing')['TOOLGATE_REDIS_URL'] ?? '').port).toBe('16379');
    expect(s.addressExports).toEqual([
      'export TOOLGATE_KAFKA_BROKERS=127.0.0.1:19092',
      'export TOOLGATE_SCHEMA_REGISTRY_URL=http://127.0.0.1:18081/apis/ccompat/v7',
      'export TOOLGATE_REDIS_URL=redis://127.0.0.1:16379',
    ]);
    expect(demoSettings([], stack).addressExports).toEqual([]);
  });

  it('keeps addresses the caller gives, and refuses a stack port that is no port', () => {
    const s = demoSettings([], {
      ...stack,
      TOOLGATE_STACK_KAFKA_PORT: '19092',
      TOOLGATE_KAFKA_BROKERS: 'kafka-1:9092',
    });
    expect(s.config.kafkaBrokers).toEqual(['kafka-1:9092']);
    expect(s.addressExports).toEqual([]);
    expect(() => demoSettings([], { ...stack, TOOLGATE_STACK_REDIS_PORT: 'ninety' })).toThrow(
      ConfigError,
    );
  });
});
